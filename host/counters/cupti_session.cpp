// The counter session (counters.h) over CUPTI: the range profiler on the CUDA primary context of
// the GPU, PM sampling on the same GPU by its CUDA device index. Here: opening the session and
// the per-row dump; the range profiler is in cupti_range.cpp, PM sampling in cupti_pm.cpp.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "counters.h"
#include "error.h"

#if CUVK_HAVE_CUPTI_HEADERS
#include "cupti_session.h"
#endif

namespace cuvk {

#if !CUVK_HAVE_CUPTI_HEADERS

constexpr const char* kNoHeaders = "cuvk was built without the CUPTI headers (CUDA toolkit 12.6+)";

std::unique_ptr<CounterSession> open_counters(const Uuid&, std::string* why) {
  *why = kNoHeaders;
  return nullptr;
}

#else

namespace cupti {

std::string restricted_reason(const Lib& lib, const char* call, CUptiResult r) {
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    return "profiling is restricted to administrators on this driver (RmProfilingAdminOnly=1)";
  return describe(lib, call, r);
}

namespace {

// Whether `api` works on `dev`; "" or why not.
std::string device_unsupported(const Lib& lib, CUdevice dev, CUpti_Profiler_API api) {
  auto p = CUVK_PARAMS(CUpti_Profiler_DeviceSupported_Params);
  p.cuDevice = dev;
  p.api = api;
  if (CUptiResult r = lib.cuptiProfilerDeviceSupported(&p); r != CUPTI_SUCCESS)
    return restricted_reason(lib, "cuptiProfilerDeviceSupported", r);
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return {};
  if (p.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return "the GPU's architecture is not supported";
  if (p.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "profiling is disabled on this vGPU";
  if (p.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return "confidential compute is on";
  return "CUPTI says the device does not support it";
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

// The CUDA device ordinal of the GPU with this UUID, or -1.
int find_ordinal(const Lib& lib, const Uuid& uuid) {
  int count = 0;
  if (lib.cuDeviceGetCount(&count) != CUDA_SUCCESS) return -1;
  for (int i = 0; i < count; ++i) {
    CUdevice d = 0;
    CUuuid u{};
    if (lib.cuDeviceGet(&d, i) != CUDA_SUCCESS || lib.cuDeviceGetUuid_v2(&u, d) != CUDA_SUCCESS)
      continue;
    if (std::equal(uuid.begin(), uuid.end(), reinterpret_cast<const std::uint8_t*>(u.bytes)))
      return i;
  }
  return -1;
}

}  // namespace

void CuptiSession::open() {
  auto chip = CUVK_PARAMS(CUpti_Device_GetChipName_Params);
  chip.deviceIndex = static_cast<std::size_t>(ordinal_);
  check(lib_, "cuptiDeviceGetChipName", lib_.cuptiDeviceGetChipName(&chip));
  chip_ = chip.pChipName;
  kernel_why_ = device_unsupported(lib_, dev_, CUPTI_PROFILER_RANGE_PROFILING);
  if (kernel_why_.empty()) try_or_note(kernel_why_, [this] { open_range(); });
  pm_why_ = device_unsupported(lib_, dev_, CUPTI_PROFILER_PM_SAMPLING);
  if (pm_why_.empty()) try_or_note(pm_why_, [this] { open_pm(); });
  cost_.clear();  // the rows' costs only: opening is start-up
}

void CuptiSession::dump(const std::string& label, const std::string& what_ran,
                        std::uint32_t dispatches, double batch_gpu_ms) {
  const char* dir = std::getenv("CUVK_COUNTERS_DUMP");
  struct Forget {  // each row's dump holds only what that row measured
    CuptiSession* s;
    ~Forget() {
      s->range_values_.clear();
      s->pm_last_.clear();
    }
  } forget{this};
  if (!dir || !*dir) return;
  const std::string base = std::string(dir) + "/" + label;
  const char* raw_env = std::getenv("CUVK_COUNTERS_DUMP_RAW");  // the images too (megabytes)
  const bool raw = raw_env && *raw_env && std::string(raw_env) != "0";
  nlohmann::json j = {{"chip", chip_}, {"what_ran", what_ran}};
  if (!range_values_.empty()) {
    j["range"] = {
        {"metrics", kernel_metrics()}, {"values", range_values_}, {"passes", range_passes_}};
    if (raw) write_bytes(base + ".range_data.bin", range_data_);
    if (raw) write_bytes(base + ".range_avail.bin", range_avail_);
  }
  if (!pm_last_.empty()) {
    nlohmann::json samples = nlohmann::json::array();
    for (const PmSample& s : pm_last_) {
      nlohmann::json v = nlohmann::json::array();
      for (double x : s.values)
        v.push_back(std::isfinite(x) ? nlohmann::json(x) : nlohmann::json());
      samples.push_back({{"start_ns", s.start_ns}, {"end_ns", s.end_ns}, {"values", v}});
    }
    j["pm"] = {{"metrics", pm_names()},
               {"interval_ns", kIntervalNs},
               {"dispatches", dispatches},
               {"batch_gpu_ms", batch_gpu_ms},
               {"samples", samples},
               {"data_bin_first_sample", pm_round_first_},
               {"data_bin_metrics", pm_data_metrics_}};
    if (raw) write_bytes(base + ".pm_data.bin", pm_data_);
    if (raw) write_bytes(base + ".pm_avail.bin", pm_avail_);
  }
  std::ofstream(base + ".json") << j.dump(1) << '\n';
}

}  // namespace cupti

std::unique_ptr<CounterSession> open_counters(const Uuid& gpu, std::string* why) {
  using namespace cupti;
  Lib* lib = load(why);
  if (!lib) return nullptr;
  if (CUresult r = lib->cuInit(0); r != CUDA_SUCCESS) {
    *why = fmt::format("cuInit failed ({}): no CUDA device for CUPTI", static_cast<int>(r));
    return nullptr;
  }
  const int ordinal = find_ordinal(*lib, gpu);
  if (ordinal < 0) {
    *why = "the CUDA driver has no GPU with UUID " + format_uuid(gpu);
    return nullptr;
  }
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  if (lib->cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS ||
      lib->cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS) {
    *why = "cannot open the CUDA context of GPU " + format_uuid(gpu) + " for CUPTI";
    return nullptr;
  }
  auto session = std::make_unique<CuptiSession>(*lib, ordinal, dev, ctx);
  try {
    auto init = CUVK_PARAMS(CUpti_Profiler_Initialize_Params);
    if (CUptiResult r = lib->cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS) {
      *why = restricted_reason(*lib, "cuptiProfilerInitialize", r);
      return nullptr;
    }
    session->open();
  } catch (const Error& e) {
    *why = e.what();
    return nullptr;
  }
  if (!session->kernel_unavailable().empty() && !session->sampling_unavailable().empty()) {
    *why = session->sampling_unavailable();
    return nullptr;
  }
  return session;
}

#endif

}  // namespace cuvk
