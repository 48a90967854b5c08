// CUPTI and the CUDA driver entry points cuvk uses, opened at run time (private to host/counters).
// Built only where the CUPTI headers were found (CUVK_HAVE_CUPTI_HEADERS): the types and the
// functions' signatures come from them; nothing links against CUPTI.
#pragma once

#include <cuda.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cuvk::cupti {

#define CUVK_CUPTI_FUNCTIONS(X)                                                                    \
  X(cuptiGetResultString)                                                                          \
  X(cuptiProfilerInitialize)                                                                       \
  X(cuptiProfilerDeInitialize) X(cuptiProfilerDeviceSupported) X(cuptiDeviceGetChipName)           \
      X(cuptiProfilerGetCounterAvailability) X(cuptiProfilerHostInitialize)                        \
          X(cuptiProfilerHostDeinitialize) X(cuptiProfilerHostGetBaseMetrics) X(                   \
              cuptiProfilerHostConfigAddMetrics) X(cuptiProfilerHostGetConfigImageSize)            \
              X(cuptiProfilerHostGetConfigImage) X(cuptiProfilerHostGetNumOfPasses) X(             \
                  cuptiProfilerHostEvaluateToGpuValues) X(cuptiRangeProfilerEnable)                \
                  X(cuptiRangeProfilerDisable) X(cuptiRangeProfilerGetCounterDataSize) X(          \
                      cuptiRangeProfilerCounterDataImageInitialize) X(cuptiRangeProfilerSetConfig) \
                      X(cuptiRangeProfilerStart) X(cuptiRangeProfilerStop) X(                      \
                          cuptiRangeProfilerPushRange) X(cuptiRangeProfilerPopRange)               \
                          X(cuptiRangeProfilerDecodeData) X(cuptiRangeProfilerGetCounterDataInfo)  \
                              X(cuptiPmSamplingGetCounterAvailability) X(cuptiPmSamplingEnable)    \
                                  X(cuptiPmSamplingDisable) X(cuptiPmSamplingSetConfig)            \
                                      X(cuptiPmSamplingGetCounterDataSize)                         \
                                          X(cuptiPmSamplingCounterDataImageInitialize)             \
                                              X(cuptiPmSamplingStart) X(cuptiPmSamplingStop)       \
                                                  X(cuptiPmSamplingDecodeData)                     \
                                                      X(cuptiPmSamplingGetCounterDataInfo) X(      \
                                                          cuptiPmSamplingCounterDataGetSampleInfo)

#define CUVK_CUDA_FUNCTIONS(X)                                                                     \
  X(cuInit)                                                                                        \
  X(cuDeviceGetCount)                                                                              \
  X(cuDeviceGet) X(cuDeviceGetUuid_v2) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease_v2) \
      X(cuGetErrorString)

// libcupti (with libnvperf_host/_target loaded first, from the same place) and libcuda.
struct Lib {
#define CUVK_DECLARE(name) decltype(&::name) name = nullptr;
  CUVK_CUPTI_FUNCTIONS(CUVK_DECLARE)
  CUVK_CUDA_FUNCTIONS(CUVK_DECLARE)
#undef CUVK_DECLARE
  void* cupti = nullptr;
  void* cuda = nullptr;
  std::string cupti_path;  // where libcupti was found
};

// The process's one Lib (CUPTI is process-wide), or null with `why` set.
Lib* load(std::string* why);
// Only libcupti (no driver): what decoding recorded data needs.
Lib* load_host_only(std::string* why);

// A CUPTI parameter block: zeroed, its structSize set (CUVK_PARAMS(CUpti_X_Params)).
template <typename P>
P params(std::size_t size) {
  P p{};
  p.structSize = size;
  return p;
}
#define CUVK_PARAMS(type) ::cuvk::cupti::params<type>(type##_STRUCT_SIZE)

// "<call>: <CUPTI's text> (<code>)"
std::string describe(const Lib& lib, const char* call, CUptiResult r);
// Throws Error with describe() unless r is CUPTI_SUCCESS.
void check(const Lib& lib, const char* call, CUptiResult r);

// A profiler host object (metric lists, config images, evaluation), for one chip and one kind.
class Host {
 public:
  Host(const Lib& lib, CUpti_ProfilerType type, const std::string& chip,
       const std::vector<std::uint8_t>& availability);
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;
  std::vector<std::string> base_metrics() const;  // every type: counters, ratios, throughputs
  // Adds `metrics` in one call and returns the config image; `passes` gets its pass count.
  std::vector<std::uint8_t> config(const std::vector<std::string>& metrics, std::size_t* passes);
  std::vector<double> evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range,
                               const std::vector<std::string>& metrics) const;

 private:
  const Lib& lib_;
  CUpti_Profiler_Host_Object* obj_ = nullptr;
};

}  // namespace cuvk::cupti
