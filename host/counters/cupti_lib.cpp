#include "cupti_lib.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

#include "error.h"

namespace cuvk::cupti {
namespace {

// Where the toolkit puts CUPTI when the loader path does not name it.
constexpr const char* kToolkitLib = "/usr/local/cuda/lib64/";

std::string directory_of(void* handle, void* symbol) {
  Dl_info info{};
  if (!handle || !symbol || !dladdr(symbol, &info) || !info.dli_fname) return {};
  const std::string path = info.dli_fname;
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// libnvperf_host/_target beside libcupti, loaded globally first so CUPTI finds them; then
// libcupti itself. CUVK_CUPTI_DIR names a directory to try before the loader path.
void* open_cupti(std::string* path, std::string* why) {
  std::vector<std::string> dirs;
  if (const char* d = std::getenv("CUVK_CUPTI_DIR"); d && *d) dirs.push_back(std::string(d) + "/");
  dirs.push_back("");  // the loader path
  dirs.push_back(kToolkitLib);
  for (const std::string& dir : dirs)
    for (const char* name : {"libcupti.so.13", "libcupti.so"}) {
      void* lib = dlopen((dir + name).c_str(), RTLD_NOW | RTLD_GLOBAL);
      if (!lib) continue;
      std::string at = directory_of(lib, dlsym(lib, "cuptiGetResultString"));
      if (at.empty()) at = dir;
      for (const char* perf : {"libnvperf_host.so", "libnvperf_target.so"})
        if (!dlopen((at + perf).c_str(), RTLD_NOW | RTLD_GLOBAL) &&
            !dlopen(perf, RTLD_NOW | RTLD_GLOBAL)) {
          *why = std::string(perf) + " not found beside " + at + name;
          dlclose(lib);
          return nullptr;
        }
      *path = at + name;
      return lib;
    }
  *why = "CUPTI (libcupti.so.13) not found on the loader path or in " + std::string(kToolkitLib);
  return nullptr;
}

template <typename F>
bool sym(void* lib, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

bool load_cupti(Lib& lib, std::string* why) {
  // CUPTI's host API opens libnvperf_host with RTLD_DEEPBIND, which AddressSanitizer's runtime
  // refuses by aborting the process: an unavailable reason instead of a crash.
  if (kAddressSanitizer) {
    *why =
        "CUPTI cannot be used in an AddressSanitizer build (it opens libnvperf_host with "
        "RTLD_DEEPBIND, which the sanitizer refuses)";
    return false;
  }
  lib.cupti = open_cupti(&lib.cupti_path, why);
  if (!lib.cupti) return false;
  std::string missing;
#define CUVK_LOAD(name)                 \
  if (!sym(lib.cupti, lib.name, #name)) \
    missing += (missing.empty() ? "" : ", ") + std::string(#name);
  CUVK_CUPTI_FUNCTIONS(CUVK_LOAD)
#undef CUVK_LOAD
  if (missing.empty()) return true;
  *why = lib.cupti_path + " lacks " + missing + " (CUPTI of CUDA 12.6 or later needed)";
  return false;
}

bool load_cuda(Lib& lib, std::string* why) {
  lib.cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib.cuda) {
    *why = "no CUDA driver (libcuda.so.1) to open the GPU for CUPTI";
    return false;
  }
  bool ok = true;
#define CUVK_LOAD(name) ok = sym(lib.cuda, lib.name, #name) && ok;
  CUVK_CUDA_FUNCTIONS(CUVK_LOAD)
#undef CUVK_LOAD
  if (!ok) *why = "the CUDA driver lacks an entry point CUPTI sampling needs";
  return ok;
}

struct Loaded {
  Lib lib;
  bool host_ok = false, device_ok = false;
  std::string host_why, device_why;
};

Loaded& loaded() {
  static Loaded l;
  static std::once_flag once;
  std::call_once(once, [] {
    l.host_ok = load_cupti(l.lib, &l.host_why);
    if (!l.host_ok) {
      l.device_why = l.host_why;
      return;
    }
    l.device_ok = load_cuda(l.lib, &l.device_why);
  });
  return l;
}

}  // namespace

Lib* load(std::string* why) {
  Loaded& l = loaded();
  if (l.device_ok) return &l.lib;
  *why = l.device_why;
  return nullptr;
}

Lib* load_host_only(std::string* why) {
  Loaded& l = loaded();
  if (l.host_ok) return &l.lib;
  *why = l.host_why;
  return nullptr;
}

std::string describe(const Lib& lib, const char* call, CUptiResult r) {
  const char* text = nullptr;
  if (lib.cuptiGetResultString) lib.cuptiGetResultString(r, &text);
  return fmt::format("{}: {} ({})", call, text ? text : "unknown CUPTI error", static_cast<int>(r));
}

void check(const Lib& lib, const char* call, CUptiResult r) {
  if (r != CUPTI_SUCCESS) throw Error(describe(lib, call, r));
}

Host::Host(const Lib& lib, CUpti_ProfilerType type, const std::string& chip,
           const std::vector<std::uint8_t>& availability)
    : lib_(lib) {
  auto p = CUVK_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  p.profilerType = type;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  check(lib_, "cuptiProfilerHostInitialize", lib_.cuptiProfilerHostInitialize(&p));
  obj_ = p.pHostObject;
}

Host::~Host() {
  auto p = CUVK_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
  p.pHostObject = obj_;
  lib_.cuptiProfilerHostDeinitialize(&p);
}

std::vector<std::string> Host::base_metrics() const {
  std::vector<std::string> names;
  for (CUpti_MetricType t :
       {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    auto p = CUVK_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params);
    p.pHostObject = obj_;
    p.metricType = t;
    check(lib_, "cuptiProfilerHostGetBaseMetrics", lib_.cuptiProfilerHostGetBaseMetrics(&p));
    for (std::size_t i = 0; i < p.numMetrics; ++i) names.emplace_back(p.ppMetricNames[i]);
  }
  return names;
}

std::vector<std::uint8_t> Host::config(const std::vector<std::string>& metrics,
                                       std::size_t* passes) {
  std::vector<const char*> names;
  for (const std::string& m : metrics) names.push_back(m.c_str());
  auto a = CUVK_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  a.pHostObject = obj_;
  a.ppMetricNames = names.data();
  a.numMetrics = names.size();  // all in one call: the sampler sees them as one configuration
  check(lib_, "cuptiProfilerHostConfigAddMetrics", lib_.cuptiProfilerHostConfigAddMetrics(&a));
  auto s = CUVK_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  s.pHostObject = obj_;
  check(lib_, "cuptiProfilerHostGetConfigImageSize", lib_.cuptiProfilerHostGetConfigImageSize(&s));
  std::vector<std::uint8_t> image(s.configImageSize);
  auto g = CUVK_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  g.pHostObject = obj_;
  g.configImageSize = image.size();
  g.pConfigImage = image.data();
  check(lib_, "cuptiProfilerHostGetConfigImage", lib_.cuptiProfilerHostGetConfigImage(&g));
  auto n = CUVK_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  n.configImageSize = image.size();
  n.pConfigImage = image.data();
  check(lib_, "cuptiProfilerHostGetNumOfPasses", lib_.cuptiProfilerHostGetNumOfPasses(&n));
  *passes = n.numOfPasses;
  return image;
}

std::vector<double> Host::evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range,
                                   const std::vector<std::string>& metrics) const {
  std::vector<const char*> names;
  for (const std::string& m : metrics) names.push_back(m.c_str());
  std::vector<double> values(names.size());
  auto p = CUVK_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  p.pHostObject = obj_;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  check(lib_, "cuptiProfilerHostEvaluateToGpuValues",
        lib_.cuptiProfilerHostEvaluateToGpuValues(&p));
  return values;
}

}  // namespace cuvk::cupti
