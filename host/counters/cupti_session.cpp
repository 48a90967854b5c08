// The counter session (counters.h) over CUPTI: the range profiler on the CUDA primary context of
// the GPU, PM sampling on the same GPU by its CUDA device index.
#include <cmath>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "counter_data.h"
#include "counters.h"
#include "error.h"

#if CUVK_HAVE_CUPTI_HEADERS
#include "cupti_lib.h"
#endif

namespace cuvk {

#if !CUVK_HAVE_CUPTI_HEADERS

constexpr const char* kNoHeaders = "cuvk was built without the CUPTI headers (CUDA toolkit 12.6+)";

std::unique_ptr<CounterSession> open_counters(const Uuid&, std::string* why) {
  *why = kNoHeaders;
  return nullptr;
}

std::vector<std::string> chip_metrics(CounterKind, const std::string&,
                                      const std::vector<std::uint8_t>&, std::string* why) {
  *why = kNoHeaders;
  return {};
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

constexpr std::uint64_t kIntervalNs = 20000;  // 50 kHz: 100 samples in 2 ms
// Samples one counter data image holds: the whole window of a batch (at least 4 ms of GPU time,
// 200 samples, plus the host's time before and after it) must fit, since records that do not
// fit are lost. About 60 KB per sample on the GH100: 61 MB per image.
constexpr std::uint32_t kMaxSamples = 1024;
constexpr int kMaxDecodeCalls = 64;
constexpr std::size_t kHardwareBufferBytes = 256u << 20;
constexpr int kMaxPasses = 32;  // range-profiler replays of one launch

// kMaxSamples, or CUVK_COUNTERS_ROUND_SAMPLES (1..kMaxSamples): small images for test fixtures.
std::uint32_t round_samples() {
  const char* v = std::getenv("CUVK_COUNTERS_ROUND_SAMPLES");
  const long n = v ? std::strtol(v, nullptr, 10) : 0;
  return n >= 1 && n <= long{kMaxSamples} ? static_cast<std::uint32_t>(n) : kMaxSamples;
}

std::string restricted_reason(const Lib& lib, const char* call, CUptiResult r) {
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    return "profiling is restricted to administrators on this driver (RmProfilingAdminOnly=1)";
  return describe(lib, call, r);
}

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

class CuptiSession final : public CounterSession {
 public:
  CuptiSession(Lib& lib, int ordinal, CUdevice dev, CUcontext ctx)
      : lib_(lib), ordinal_(ordinal), dev_(dev), ctx_(ctx) {}
  ~CuptiSession() override {
    pm_disable();
    lib_.cuDevicePrimaryCtxRelease_v2(dev_);
  }

  void open() {
    auto chip = CUVK_PARAMS(CUpti_Device_GetChipName_Params);
    chip.deviceIndex = static_cast<std::size_t>(ordinal_);
    check(lib_, "cuptiDeviceGetChipName", lib_.cuptiDeviceGetChipName(&chip));
    chip_ = chip.pChipName;
    kernel_why_ = device_unsupported(lib_, dev_, CUPTI_PROFILER_RANGE_PROFILING);
    if (kernel_why_.empty()) try_or_note(kernel_why_, [this] { open_range(); });
    pm_why_ = device_unsupported(lib_, dev_, CUPTI_PROFILER_PM_SAMPLING);
    if (pm_why_.empty()) try_or_note(pm_why_, [this] { open_pm(); });
  }

  std::string chip() const override { return chip_; }
  std::vector<std::string> pm_names() const override {
    std::vector<std::string> n = pm_.names;
    if (warps_.host) n[kPmWarpsActive] = warps_.names[kPmWarpsActive];
    return n;
  }
  std::uint64_t interval_ns() const override { return kIntervalNs; }
  std::string kernel_unavailable() const override { return kernel_why_; }
  std::string sampling_unavailable() const override { return pm_why_; }

  KernelCounters profile_kernel(const std::function<void()>& before,
                                const std::function<void()>& kernel) override;
  std::vector<PmSample> sample(const std::function<void()>& work) override;
  void dump(const std::string& label, const std::string& what_ran, std::uint32_t dispatches,
            double batch_gpu_ms) override;

 private:
  struct PmConfig {
    std::unique_ptr<Host> host;       // null: not configured
    std::vector<std::string> names;   // per pm_metrics() entry; "" where not in this one
    std::vector<std::string> used;    // the non-empty ones, in configuration order
    std::vector<std::uint8_t> image;  // the config image
    std::vector<std::uint8_t> blank;  // an initialized counter data image
  };
  template <typename F>
  static void try_or_note(std::string& why, F f) {
    try {
      f();
    } catch (const Error& e) {
      why = e.what();
    }
  }
  std::vector<std::uint8_t> availability_range();
  void open_range();
  void open_pm();
  void pm_enable(const PmConfig& c);
  void pm_disable();
  CUpti_RangeProfiler_Object* range_enable();
  void range_disable(CUpti_RangeProfiler_Object* obj);
  bool configure(PmConfig& c, std::vector<std::string> names, bool drop_optional);
  void set_config(const PmConfig& c);
  std::vector<PmSample> sample_once(const PmConfig& c, const std::function<void()>& work);
  std::vector<PmSample> decode_samples(const PmConfig& c);
  void decode_round(const PmConfig& c, std::vector<PmSample>& out);

  Lib& lib_;
  int ordinal_;
  CUdevice dev_;
  CUcontext ctx_;
  std::string chip_, kernel_why_, pm_why_;
  // Range profiler
  std::vector<std::uint8_t> range_avail_, range_config_, range_data_;
  std::unique_ptr<Host> range_host_;
  std::size_t range_passes_ = 0;
  std::vector<double> range_values_;
  // PM sampling: one configuration of every metric but warps, and a second one for the warps
  // resident (on the GH100 no metric of warps fits one pass with the CTAs resident).
  std::vector<std::uint8_t> pm_avail_, pm_data_;
  std::vector<std::string> chip_pm_metrics_;
  PmConfig pm_, warps_;
  CUpti_PmSampling_Object* pm_obj_ = nullptr;
  const PmConfig* pm_current_ = nullptr;  // the configuration pm_obj_ was set to
  std::vector<PmSample> pm_last_;
  std::size_t pm_round_first_ = 0;  // the first of pm_last_ that the image pm_data_ holds
  std::vector<std::string> pm_data_metrics_;
  std::uint32_t pm_data_samples_ =
      0;  // samples a counter data image holds  // the metrics of the configuration pm_data_ is of
  bool pm_overflow_ = false;
};

std::vector<std::uint8_t> CuptiSession::availability_range() {
  auto p = CUVK_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  p.ctx = ctx_;
  check(lib_, "cuptiProfilerGetCounterAvailability", lib_.cuptiProfilerGetCounterAvailability(&p));
  std::vector<std::uint8_t> image(p.counterAvailabilityImageSize);
  p.pCounterAvailabilityImage = image.data();
  check(lib_, "cuptiProfilerGetCounterAvailability", lib_.cuptiProfilerGetCounterAvailability(&p));
  return image;
}

void CuptiSession::open_range() {
  range_avail_ = availability_range();
  range_host_ =
      std::make_unique<Host>(lib_, CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip_, range_avail_);
  if (auto bad = unknown_metrics(kernel_metrics(), range_host_->base_metrics()); !bad.empty())
    throw Error("the " + chip_ + " has no metric " + bad.front());
  range_config_ = range_host_->config(kernel_metrics(), &range_passes_);
}

void CuptiSession::open_pm() {
  auto a = CUVK_PARAMS(CUpti_PmSampling_GetCounterAvailability_Params);
  a.deviceIndex = static_cast<std::size_t>(ordinal_);
  check(lib_, "cuptiPmSamplingGetCounterAvailability",
        lib_.cuptiPmSamplingGetCounterAvailability(&a));
  pm_avail_.resize(a.counterAvailabilityImageSize);
  a.pCounterAvailabilityImage = pm_avail_.data();
  check(lib_, "cuptiPmSamplingGetCounterAvailability",
        lib_.cuptiPmSamplingGetCounterAvailability(&a));
  chip_pm_metrics_ = Host(lib_, CUPTI_PROFILER_TYPE_PM_SAMPLING, chip_, pm_avail_).base_metrics();
  // Each metric: the first of its names the chip has (checked against the chip's own list).
  std::vector<std::string> names(pm_metrics().size());
  for (std::size_t i = 0; i < pm_metrics().size(); ++i) {
    for (const char* name : pm_metrics()[i].names)
      if (unknown_metrics({name}, chip_pm_metrics_).empty()) {
        names[i] = name;
        break;
      }
    if (names[i].empty() && pm_metrics()[i].required)
      throw Error("the " + chip_ + " cannot sample " + pm_metrics()[i].key);
  }
  if (!configure(pm_, names, true)) throw Error("the required PM metrics need more than one pass");
  // The warps resident, with what tells busy samples from idle ones (to align the two batches).
  std::vector<std::string> w(pm_metrics().size());
  for (std::size_t i : {kPmDramRead, kPmDramWrite, kPmGpcCycles}) w[i] = names[i];
  w[kPmSmActiveCycles] = "sm__cycles_active.avg";
  w[kPmWarpsActive] = "sm__warps_active.avg.per_cycle_elapsed";
  if (!unknown_metrics({w[kPmSmActiveCycles], w[kPmWarpsActive]}, chip_pm_metrics_).empty() ||
      !configure(warps_, w, false))
    warps_.host.reset();
  pm_enable(pm_);  // here, so that a driver that refuses sampling says so at once
}

// `c` for `names` in one configuration (all in one ConfigAddMetrics call), if it fits one pass;
// with `drop_optional`, optional metrics are dropped from the end until it does.
bool CuptiSession::configure(PmConfig& c, std::vector<std::string> names, bool drop_optional) {
  for (std::size_t drop = names.size();; --drop) {
    c.used.clear();
    for (const std::string& n : names)
      if (!n.empty()) c.used.push_back(n);
    c.host = std::make_unique<Host>(lib_, CUPTI_PROFILER_TYPE_PM_SAMPLING, chip_, pm_avail_);
    std::size_t passes = 0;
    c.image = c.host->config(c.used, &passes);
    c.names = names;
    if (passes == 1) return true;
    if (!drop_optional) return false;
    while (drop > 0 && (names[drop - 1].empty() || pm_metrics()[drop - 1].required)) --drop;
    if (drop == 0) return false;
    names[drop - 1].clear();
  }
}

// The sampler enabled with configuration `c`. A sampler takes one SetConfig: a second one on the
// same object gave windows of 0 samples on the H100, so a change of configuration re-enables it.
void CuptiSession::pm_enable(const PmConfig& c) {
  if (pm_obj_ && pm_current_ == &c) return;
  pm_disable();
  auto e = CUVK_PARAMS(CUpti_PmSampling_Enable_Params);
  e.deviceIndex = static_cast<std::size_t>(ordinal_);
  if (CUptiResult r = lib_.cuptiPmSamplingEnable(&e); r != CUPTI_SUCCESS)
    throw Error(restricted_reason(lib_, "cuptiPmSamplingEnable", r));
  pm_obj_ = e.pPmSamplingObject;
  pm_current_ = &c;
  set_config(c);
  if (c.blank.empty()) {
    std::vector<const char*> names;
    for (const std::string& n : c.used) names.push_back(n.c_str());
    auto s = CUVK_PARAMS(CUpti_PmSampling_GetCounterDataSize_Params);
    s.pPmSamplingObject = pm_obj_;
    s.pMetricNames = names.data();
    s.numMetrics = names.size();
    s.maxSamples = pm_data_samples_ = round_samples();
    check(lib_, "cuptiPmSamplingGetCounterDataSize", lib_.cuptiPmSamplingGetCounterDataSize(&s));
    PmConfig& w = &c == &pm_ ? pm_ : warps_;  // the blank is the configuration's own
    w.blank.resize(s.counterDataSize);
    auto i = CUVK_PARAMS(CUpti_PmSampling_CounterDataImage_Initialize_Params);
    i.pPmSamplingObject = pm_obj_;
    i.counterDataSize = w.blank.size();
    i.pCounterData = w.blank.data();
    check(lib_, "cuptiPmSamplingCounterDataImageInitialize",
          lib_.cuptiPmSamplingCounterDataImageInitialize(&i));
  }
}

void CuptiSession::set_config(const PmConfig& cfg) {
  auto c = CUVK_PARAMS(CUpti_PmSampling_SetConfig_Params);
  c.pPmSamplingObject = pm_obj_;
  c.configSize = cfg.image.size();
  c.pConfig = cfg.image.data();
  c.hardwareBufferSize = kHardwareBufferBytes;
  c.samplingInterval = kIntervalNs;
  c.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  c.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  check(lib_, "cuptiPmSamplingSetConfig", lib_.cuptiPmSamplingSetConfig(&c));
}

void CuptiSession::pm_disable() {
  if (!pm_obj_) return;
  auto d = CUVK_PARAMS(CUpti_PmSampling_Disable_Params);
  d.pPmSamplingObject = pm_obj_;
  lib_.cuptiPmSamplingDisable(&d);
  pm_obj_ = nullptr;
  pm_current_ = nullptr;
}

CUpti_RangeProfiler_Object* CuptiSession::range_enable() {
  // One profiler holds the counters at a time (an enabled PM sampler makes the range profiler's
  // start fail with CUPTI_ERROR_HARDWARE_BUSY): sampling is enabled again by the next sample().
  pm_disable();
  auto e = CUVK_PARAMS(CUpti_RangeProfiler_Enable_Params);
  e.ctx = ctx_;
  const CUptiResult r = lib_.cuptiRangeProfilerEnable(&e);
  if (r != CUPTI_SUCCESS) throw Error(restricted_reason(lib_, "cuptiRangeProfilerEnable", r));
  return e.pRangeProfilerObject;
}

void CuptiSession::range_disable(CUpti_RangeProfiler_Object* obj) {
  auto d = CUVK_PARAMS(CUpti_RangeProfiler_Disable_Params);
  d.pRangeProfilerObject = obj;
  lib_.cuptiRangeProfilerDisable(&d);
}

KernelCounters CuptiSession::profile_kernel(const std::function<void()>& before,
                                            const std::function<void()>& kernel) {
  if (!kernel_why_.empty()) throw Error(kernel_why_);
  CUpti_RangeProfiler_Object* obj = range_enable();
  struct Off {
    CuptiSession* s;
    CUpti_RangeProfiler_Object* o;
    ~Off() { s->range_disable(o); }
  } off{this, obj};
  std::vector<const char*> names;
  for (const std::string& n : kernel_metrics()) names.push_back(n.c_str());
  auto s = CUVK_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  s.pRangeProfilerObject = obj;
  s.pMetricNames = names.data();
  s.numMetrics = names.size();
  s.maxNumOfRanges = 1;
  s.maxNumRangeTreeNodes = 1;
  check(lib_, "cuptiRangeProfilerGetCounterDataSize",
        lib_.cuptiRangeProfilerGetCounterDataSize(&s));
  range_data_.assign(s.counterDataSize, 0);
  auto i = CUVK_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  i.pRangeProfilerObject = obj;
  i.counterDataSize = range_data_.size();
  i.pCounterData = range_data_.data();
  check(lib_, "cuptiRangeProfilerCounterDataImageInitialize",
        lib_.cuptiRangeProfilerCounterDataImageInitialize(&i));
  auto c = CUVK_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  c.pRangeProfilerObject = obj;
  c.configSize = range_config_.size();
  c.pConfig = range_config_.data();
  c.counterDataImageSize = range_data_.size();
  c.pCounterDataImage = range_data_.data();
  c.range = CUPTI_UserRange;
  c.replayMode = CUPTI_UserReplay;  // cuvk replays: the flush outside the range, every pass
  c.maxRangesPerPass = 1;
  c.numNestingLevels = 1;
  c.minNestingLevel = 1;
  c.passIndex = 0;
  c.targetNestingLevel = 1;
  check(lib_, "cuptiRangeProfilerSetConfig", lib_.cuptiRangeProfilerSetConfig(&c));
  bool all = false;
  for (int pass = 0; pass < kMaxPasses && !all; ++pass) {
    before();
    auto start = CUVK_PARAMS(CUpti_RangeProfiler_Start_Params);
    start.pRangeProfilerObject = obj;
    check(lib_, "cuptiRangeProfilerStart", lib_.cuptiRangeProfilerStart(&start));
    auto push = CUVK_PARAMS(CUpti_RangeProfiler_PushRange_Params);
    push.pRangeProfilerObject = obj;
    push.pRangeName = "kernel";
    check(lib_, "cuptiRangeProfilerPushRange", lib_.cuptiRangeProfilerPushRange(&push));
    kernel();
    auto pop = CUVK_PARAMS(CUpti_RangeProfiler_PopRange_Params);
    pop.pRangeProfilerObject = obj;
    check(lib_, "cuptiRangeProfilerPopRange", lib_.cuptiRangeProfilerPopRange(&pop));
    auto stop = CUVK_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = obj;
    check(lib_, "cuptiRangeProfilerStop", lib_.cuptiRangeProfilerStop(&stop));
    all = stop.isAllPassSubmitted != 0;
  }
  if (!all)
    throw Error("the range profiler wanted more than " + std::to_string(kMaxPasses) + " passes");
  auto d = CUVK_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  d.pRangeProfilerObject = obj;
  check(lib_, "cuptiRangeProfilerDecodeData", lib_.cuptiRangeProfilerDecodeData(&d));
  if (d.numOfRangeDropped > 0) throw Error("the range profiler dropped the kernel's range");
  range_values_ = range_host_->evaluate(range_data_, 0, kernel_metrics());
  return decode_kernel(range_values_, range_passes_);
}

// Whether a sample saw the SMs busy (kBusySmActive of its cycles).
bool sms_busy(const PmSample& x) {
  const double cycles = x.values[kPmGpcCycles];
  return cycles > 0 && x.values[kPmSmActiveCycles] / cycles >= kBusySmActive;
}

// Puts the warps resident that `warps` (a second batch, the same work) saw into `into`'s busy
// samples, by position within each batch's busy samples; idle samples get 0.
void merge_warps(std::vector<PmSample>& into, const std::vector<PmSample>& warps) {
  std::vector<std::size_t> a, b;
  for (std::size_t k = 1; k < into.size(); ++k)
    if (sms_busy(into[k])) a.push_back(k);
  for (std::size_t k = 1; k < warps.size(); ++k)
    if (sms_busy(warps[k])) b.push_back(k);
  for (PmSample& x : into) x.values[kPmWarpsActive] = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    into[a[i]].values[kPmWarpsActive] =
        b.empty() ? std::nan("") : warps[b[i * b.size() / a.size()]].values[kPmWarpsActive];
}

std::vector<PmSample> CuptiSession::sample(const std::function<void()>& work) {
  if (!pm_why_.empty()) throw Error(pm_why_);
  // The warps resident cost a second batch and a re-enabled sampler per row (the default suite:
  // 2.4x its wall time with them, 1.6x without, on the H100): on request only.
  const char* env = std::getenv("CUVK_COUNTERS_WARPS");
  const bool want = warps_.host && env && *env && std::string(env) != "0";
  // The configuration the sampler holds first: one re-enable per row, not two.
  const bool warps_first = want && pm_obj_ && pm_current_ == &warps_;
  std::vector<PmSample> warps;
  if (warps_first) warps = sample_once(warps_, work);
  std::vector<PmSample> main = sample_once(pm_, work);
  if (want && !warps_first) warps = sample_once(warps_, work);
  if (want) merge_warps(main, warps);
  pm_last_ = main;
  return pm_last_;
}

std::vector<PmSample> CuptiSession::sample_once(const PmConfig& c,
                                                const std::function<void()>& work) {
  pm_enable(c);
  auto start = CUVK_PARAMS(CUpti_PmSampling_Start_Params);
  start.pPmSamplingObject = pm_obj_;
  check(lib_, "cuptiPmSamplingStart", lib_.cuptiPmSamplingStart(&start));
  try {
    work();
  } catch (...) {
    auto stop = CUVK_PARAMS(CUpti_PmSampling_Stop_Params);
    stop.pPmSamplingObject = pm_obj_;
    lib_.cuptiPmSamplingStop(&stop);
    throw;
  }
  auto stop = CUVK_PARAMS(CUpti_PmSampling_Stop_Params);
  stop.pPmSamplingObject = pm_obj_;
  check(lib_, "cuptiPmSamplingStop", lib_.cuptiPmSamplingStop(&stop));
  return decode_samples(c);
}

// Decodes the hardware buffer into one counter data image, until its end.
std::vector<PmSample> CuptiSession::decode_samples(const PmConfig& c) {
  pm_overflow_ = false;
  pm_data_metrics_ = c.used;
  std::vector<PmSample> out;
  pm_data_ = c.blank;
  pm_round_first_ = 0;
  for (int call = 0; call < kMaxDecodeCalls; ++call) {
    auto d = CUVK_PARAMS(CUpti_PmSampling_DecodeData_Params);
    d.pPmSamplingObject = pm_obj_;
    d.pCounterDataImage = pm_data_.data();
    d.counterDataImageSize = pm_data_.size();
    check(lib_, "cuptiPmSamplingDecodeData", lib_.cuptiPmSamplingDecodeData(&d));
    pm_overflow_ = pm_overflow_ || d.overflow;
    if (d.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) {
      // Drain what is left, so that the next window starts from an empty hardware buffer.
      for (int drain = 0; drain < kMaxDecodeCalls; ++drain) {
        pm_data_ = c.blank;
        if (lib_.cuptiPmSamplingDecodeData(&d) != CUPTI_SUCCESS ||
            d.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL)
          break;
      }
      throw Error("PM sampling: the window held more than " + std::to_string(pm_data_samples_) +
                  " samples (the rest would be lost): not attributed");
    }
    if (d.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS) break;
  }
  if (pm_overflow_) throw Error("PM sampling: the hardware buffer overflowed");
  decode_round(c, out);
  return out;
}

// Appends the samples of the counter data image as decoded (its completed ones).
void CuptiSession::decode_round(const PmConfig& c, std::vector<PmSample>& out) {
  auto info = CUVK_PARAMS(CUpti_PmSampling_GetCounterDataInfo_Params);
  info.pCounterDataImage = pm_data_.data();
  info.counterDataImageSize = pm_data_.size();
  check(lib_, "cuptiPmSamplingGetCounterDataInfo", lib_.cuptiPmSamplingGetCounterDataInfo(&info));
  for (std::size_t k = 0; k < info.numCompletedSamples; ++k) {
    auto si = CUVK_PARAMS(CUpti_PmSampling_CounterData_GetSampleInfo_Params);
    si.pPmSamplingObject = pm_obj_;
    si.pCounterDataImage = pm_data_.data();
    si.counterDataImageSize = pm_data_.size();
    si.sampleIndex = k;
    check(lib_, "cuptiPmSamplingCounterDataGetSampleInfo",
          lib_.cuptiPmSamplingCounterDataGetSampleInfo(&si));
    PmSample x;
    x.start_ns = si.startTimestamp;
    x.end_ns = si.endTimestamp;
    const std::vector<double> used = c.host->evaluate(pm_data_, k, c.used);
    x.values.assign(c.names.size(), std::nan(""));
    for (std::size_t i = 0, u = 0; i < c.names.size(); ++i)
      if (!c.names[i].empty()) x.values[i] = used[u++];
    out.push_back(std::move(x));
  }
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
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

std::unique_ptr<CounterSession> open_counters(const Uuid& gpu, std::string* why) {
  Lib* lib = load(why);
  if (!lib) return nullptr;
  if (CUresult r = lib->cuInit(0); r != CUDA_SUCCESS) {
    *why = "cuInit failed (" + std::to_string(static_cast<int>(r)) + "): no CUDA device for CUPTI";
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
