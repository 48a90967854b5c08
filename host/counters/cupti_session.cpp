// The counter session (counters.h) over CUPTI: the range profiler on the CUDA primary context of
// the GPU, PM sampling on the same GPU by its CUDA device index.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

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

#else

namespace {

using namespace cupti;

constexpr std::uint64_t kIntervalNs = 20000;  // 50 kHz: 100 samples in 2 ms
// Samples one counter data image holds: the whole window of a batch (kSampleBatchMs of GPU time,
// runner_counters.cpp, about 150 samples, plus the host's time before and after it) must fit,
// since records that do not fit are lost. About 60 KB per sample on the GH100: 31 MB per image,
// copied blank before every decode.
constexpr std::uint32_t kMaxSamples = 512;
constexpr int kMaxDecodeCalls = 64;
// The hardware buffer the sampler's records land in: allocated by every enable (a row of CUDA
// switches instruments), so as small as the image's samples need with room to spare (128 KB a
// sample); a window that overflows it is sampled again once with a buffer 4x larger.
constexpr std::size_t kHardwareBufferBytes = 64u << 20;
constexpr std::size_t kMaxHardwareBufferBytes = 1024u << 20;
constexpr std::size_t kMaxPasses = 32;  // range-profiler replays of one launch

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Adds the time from its construction to its end to `cost[name]`.
class CostTimer {
 public:
  CostTimer(std::map<std::string, double>& cost, const char* name)
      : cost_(cost), name_(name), t0_(std::chrono::steady_clock::now()) {}
  ~CostTimer() { cost_[name_] += seconds_since(t0_); }
  CostTimer(const CostTimer&) = delete;
  CostTimer& operator=(const CostTimer&) = delete;

 private:
  std::map<std::string, double>& cost_;
  const char* name_;
  std::chrono::steady_clock::time_point t0_;
};

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

// The sampler's records overflowed its hardware buffer (the window is lost, not attributed).
struct HardwareBufferFull : Error {
  using Error::Error;
};

class CuptiSession final : public CounterSession {
 public:
  CuptiSession(Lib& lib, int ordinal, CUdevice dev, CUcontext ctx)
      : lib_(lib), ordinal_(ordinal), dev_(dev), ctx_(ctx) {}
  ~CuptiSession() override {
    range_disable();
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
    cost_.clear();  // the rows' costs only: opening is start-up
  }

  std::string chip() const override { return chip_; }
  std::vector<std::string> pm_names() const override {
    std::vector<std::string> n = pm_.names;
    if (warps_wanted()) n[kPmWarpsActive] = warps_.names[kPmWarpsActive];
    return n;
  }
  std::uint64_t interval_ns() const override { return kIntervalNs; }
  std::string kernel_unavailable() const override { return kernel_why_; }
  std::string sampling_unavailable() const override { return pm_why_; }
  bool range_enabled() const override { return range_obj_ != nullptr; }
  std::vector<std::pair<std::string, double> > take_costs() override {
    std::vector<std::pair<std::string, double> > c(cost_.begin(), cost_.end());
    cost_.clear();
    return c;
  }

  KernelCounters profile_kernel(const std::function<void()>& before,
                                const std::function<void()>& kernel, double ctas) override;
  std::vector<PmSample> sample(const std::function<void()>& work) override;
  void dump(const std::string& label, const std::string& what_ran, std::uint32_t dispatches,
            double batch_gpu_ms) override;

 private:
  struct PmConfig {
    std::unique_ptr<Host> host;       // null: not configured
    std::vector<std::string> names;   // per pm_metrics() entry; "" where not in this one
    std::vector<std::string> used;    // the non-empty ones, in configuration order
    std::vector<double> scale;        // per names entry: pm_scale() (1 where none is needed)
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
  void range_enable();
  void range_disable();
  KernelCounters profile_once(const std::function<void()>& before,
                              const std::function<void()>& kernel);
  bool warps_wanted() const;
  bool configure(PmConfig& c, std::vector<std::string> names, bool drop_optional);
  void set_config(const PmConfig& c);
  std::vector<PmSample> sample_once(const PmConfig& c, const std::function<void()>& work);
  std::vector<PmSample> sample_window(const PmConfig& c, const std::function<void()>& work);
  std::vector<PmSample> decode_samples(const PmConfig& c);
  void decode_round(const PmConfig& c, std::vector<PmSample>& out);

  Lib& lib_;
  int ordinal_;
  CUdevice dev_;
  CUcontext ctx_;
  std::string chip_, kernel_why_, pm_why_;
  // Range profiler
  std::vector<std::uint8_t> range_avail_, range_config_, range_data_, range_blank_;
  CUpti_RangeProfiler_Object* range_obj_ = nullptr;  // enabled, kept until the sampler needs
                                                     // the counters (range_disable)
  bool range_reused_ = false;                        // range_obj_ has profiled a kernel already
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
  std::uint32_t pm_data_samples_ = 0;  // samples a counter data image holds
  bool pm_overflow_ = false;
  std::size_t hw_bytes_ = kHardwareBufferBytes;  // the sampler's hardware buffer
  std::map<std::string, double> cost_;           // host seconds by step (take_costs)
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
  std::vector<std::string> names =
      choose_pm_metrics(chip_, chip_pm_metrics_, comma_list(std::getenv("CUVK_COUNTERS_PM_EXTRA")));
  if (!configure(pm_, names, true))
    throw Error("the required PM metrics (and CUVK_COUNTERS_PM_EXTRA's) need more than one pass");
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
    c.scale.assign(names.size(), 1.0);
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!names[i].empty()) c.scale[i] = pm_scale(chip_, names[i]).value_or(1.0);
    if (passes == 1) return true;
    if (!drop_optional) return false;
    // An index past pm_metrics() is a developer's extra metric: kept, like a required one.
    while (drop > 0 && (names[drop - 1].empty() || drop > pm_metrics().size() ||
                        pm_metrics()[drop - 1].required))
      --drop;
    if (drop == 0) return false;
    names[drop - 1].clear();
  }
}

// The sampler enabled with configuration `c`. A sampler takes one SetConfig: a second one on the
// same object gave windows of 0 samples on the H100, so a change of configuration re-enables it.
void CuptiSession::pm_enable(const PmConfig& c) {
  if (pm_obj_ && pm_current_ == &c) return;
  CostTimer t(cost_, "switch to PM sampling");
  range_disable();  // one profiler holds the counters at a time (range_enable)
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
  c.hardwareBufferSize = hw_bytes_;
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

// The range profiler enabled on the context, with a blank counter data image of its own. One
// profiler holds the counters at a time (an enabled PM sampler makes the range profiler's start
// fail with CUPTI_ERROR_HARDWARE_BUSY): the sampler is disabled here and enabled again by the
// next sample(), which disables the range profiler (pm_enable). In between it stays enabled, so
// that a run whose CUDA rows come in pairs (the APIs take turns) switches once per CUDA row, not
// twice.
void CuptiSession::range_enable() {
  if (range_obj_) return;
  CostTimer t(cost_, "switch to range profiler");
  pm_disable();
  auto e = CUVK_PARAMS(CUpti_RangeProfiler_Enable_Params);
  e.ctx = ctx_;
  const CUptiResult r = lib_.cuptiRangeProfilerEnable(&e);
  if (r != CUPTI_SUCCESS) throw Error(restricted_reason(lib_, "cuptiRangeProfilerEnable", r));
  range_obj_ = e.pRangeProfilerObject;
  range_reused_ = false;
  std::vector<const char*> names;
  for (const std::string& n : kernel_metrics()) names.push_back(n.c_str());
  auto s = CUVK_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  s.pRangeProfilerObject = range_obj_;
  s.pMetricNames = names.data();
  s.numMetrics = names.size();
  s.maxNumOfRanges = 1;
  s.maxNumRangeTreeNodes = 1;
  check(lib_, "cuptiRangeProfilerGetCounterDataSize",
        lib_.cuptiRangeProfilerGetCounterDataSize(&s));
  range_blank_.assign(s.counterDataSize, 0);
  auto i = CUVK_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  i.pRangeProfilerObject = range_obj_;
  i.counterDataSize = range_blank_.size();
  i.pCounterData = range_blank_.data();
  check(lib_, "cuptiRangeProfilerCounterDataImageInitialize",
        lib_.cuptiRangeProfilerCounterDataImageInitialize(&i));
}

void CuptiSession::range_disable() {
  if (!range_obj_) return;
  auto d = CUVK_PARAMS(CUpti_RangeProfiler_Disable_Params);
  d.pRangeProfilerObject = range_obj_;
  lib_.cuptiRangeProfilerDisable(&d);
  range_obj_ = nullptr;
}

KernelCounters CuptiSession::profile_kernel(const std::function<void()>& before,
                                            const std::function<void()>& kernel, double ctas) {
  if (!kernel_why_.empty()) throw Error(kernel_why_);
  range_enable();
  if (range_reused_) {
    // A profiler that measured an earlier kernel measures this one from a fresh image and
    // configuration; where the driver will not (an error, or a result that cannot be: fewer
    // passes than the metrics need, other CTAs than the launch's), a fresh profiler measures it
    // again.
    try {
      KernelCounters k = profile_once(before, kernel);
      if (k.passes == range_passes_ && k.ctas_launched == ctas) return k;
    } catch (const Error&) {
    }
    range_disable();
    range_enable();
  }
  range_reused_ = true;
  KernelCounters k = profile_once(before, kernel);
  if (k.ctas_launched != ctas)
    throw Error("the range profiler counted " + std::to_string(k.ctas_launched) +
                " CTAs launched for a launch of " + std::to_string(ctas) + ": not the launch's");
  return k;
}

// One measurement on the enabled profiler: the configuration set on a blank image, then the
// flush and the kernel replayed until every pass ran. `passes` in the result: those that ran.
KernelCounters CuptiSession::profile_once(const std::function<void()>& before,
                                          const std::function<void()>& kernel) {
  CUpti_RangeProfiler_Object* obj = range_obj_;
  range_values_.clear();
  range_data_ = range_blank_;
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
  CostTimer t(cost_, "range profiler passes");
  bool all = false;
  std::size_t passes = 0;
  for (; passes < kMaxPasses && !all; ++passes) {
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
  return decode_kernel(range_values_, passes);
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
  // The warps resident of every shader type (a second configuration over a second batch, which
  // costs a re-enabled sampler per row): on request only, as a check of the compute warps the
  // main configuration samples.
  const bool want = warps_wanted();
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

bool CuptiSession::warps_wanted() const {
  const char* env = std::getenv("CUVK_COUNTERS_WARPS");
  return warps_.host && env && *env && std::string(env) != "0";
}

std::vector<PmSample> CuptiSession::sample_once(const PmConfig& c,
                                                const std::function<void()>& work) {
  try {
    return sample_window(c, work);
  } catch (const HardwareBufferFull&) {
    if (hw_bytes_ >= kMaxHardwareBufferBytes) throw;
  }
  // The window's records did not fit the hardware buffer: once more with one 4x larger (a new
  // sampler: a sampler takes one SetConfig), kept for the rows after it.
  hw_bytes_ = std::min(hw_bytes_ * 4, kMaxHardwareBufferBytes);
  pm_disable();
  return sample_window(c, work);
}

std::vector<PmSample> CuptiSession::sample_window(const PmConfig& c,
                                                  const std::function<void()>& work) {
  pm_enable(c);
  std::optional<CostTimer> batch(std::in_place, cost_, "PM batch");
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
  batch.reset();
  CostTimer t(cost_, "PM decode");
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
  if (pm_overflow_)
    throw HardwareBufferFull("PM sampling: the hardware buffer (" +
                             std::to_string(hw_bytes_ >> 20) + " MiB) overflowed");
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
      if (!c.names[i].empty()) x.values[i] = used[u++] * c.scale[i];
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

}  // namespace

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
