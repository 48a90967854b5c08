// Recorded CUPTI data evaluated offline (counter_data.h): CUPTI's host API only, no GPU.
#include "counter_data.h"

#include "error.h"

#if CUVK_HAVE_CUPTI_HEADERS
#include "cupti_lib.h"
#endif

namespace cuvk {

#if !CUVK_HAVE_CUPTI_HEADERS

namespace {
constexpr const char* kNoHeaders = "cuvk was built without the CUPTI headers (CUDA toolkit 12.6+)";
}  // namespace

std::vector<std::string> chip_metrics(CounterKind, const std::string&,
                                      const std::vector<std::uint8_t>&, std::string* why) {
  *why = kNoHeaders;
  return {};
}

std::size_t config_passes(CounterKind, const std::string&, const std::vector<std::uint8_t>&,
                          const std::vector<std::string>&, std::string* why) {
  *why = kNoHeaders;
  return 0;
}

std::vector<std::vector<double>> evaluate_counter_data(CounterKind, const std::string&,
                                                       const std::vector<std::uint8_t>&,
                                                       const std::vector<std::string>&,
                                                       const std::vector<std::uint8_t>&,
                                                       std::size_t, std::string* why) {
  *why = kNoHeaders;
  return {};
}

#else

namespace {

using namespace cupti;

CUpti_ProfilerType type_of(CounterKind kind) {
  return kind == CounterKind::pm_sampling ? CUPTI_PROFILER_TYPE_PM_SAMPLING
                                          : CUPTI_PROFILER_TYPE_RANGE_PROFILER;
}

}  // namespace

std::vector<std::string> chip_metrics(CounterKind kind, const std::string& chip,
                                      const std::vector<std::uint8_t>& availability,
                                      std::string* why) {
  Lib* lib = load_host_only(why);
  if (!lib) return {};
  try {
    return Host(*lib, type_of(kind), chip, availability).base_metrics();
  } catch (const Error& e) {
    *why = e.what();
    return {};
  }
}

std::size_t config_passes(CounterKind kind, const std::string& chip,
                          const std::vector<std::uint8_t>& availability,
                          const std::vector<std::string>& metrics, std::string* why) {
  Lib* lib = load_host_only(why);
  if (!lib) return 0;
  try {
    std::size_t passes = 0;
    Host(*lib, type_of(kind), chip, availability).config(metrics, &passes);
    return passes;
  } catch (const Error& e) {
    *why = e.what();
    return 0;
  }
}

std::vector<std::vector<double>> evaluate_counter_data(
    CounterKind kind, const std::string& chip, const std::vector<std::uint8_t>& availability,
    const std::vector<std::string>& metrics, const std::vector<std::uint8_t>& data,
    std::size_t ranges, std::string* why) {
  Lib* lib = load_host_only(why);
  if (!lib) return {};
  try {
    Host host(*lib, type_of(kind), chip, availability);
    std::size_t passes = 0;
    host.config(metrics, &passes);  // evaluation knows the metrics through the configuration
    std::vector<std::vector<double>> out;
    for (std::size_t r = 0; r < ranges; ++r) out.push_back(host.evaluate(data, r, metrics));
    return out;
  } catch (const Error& e) {
    *why = e.what();
    return {};
  }
}

#endif

}  // namespace cuvk
