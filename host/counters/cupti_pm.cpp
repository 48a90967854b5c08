// The counter session's PM sampling (cupti_session.h): a batch's window sampled at kIntervalNs
// on the GPU, decoded into per-sample values; the warps resident from a second configuration.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cupti_session.h"

namespace cuvk::cupti {

namespace {

// Samples one counter data image holds: the whole window of a batch (kSampleBatchMs of GPU time,
// runner_counters.cpp, about 150 samples, plus the host's time before and after it) must fit,
// since records that do not fit are lost. About 60 KB per sample on the GH100: 31 MB per image,
// copied blank before every decode.
constexpr std::uint32_t kMaxSamples = 512;
constexpr int kMaxDecodeCalls = 64;

// kMaxSamples, or CUVK_COUNTERS_ROUND_SAMPLES (1..kMaxSamples): small images for test fixtures.
std::uint32_t round_samples() {
  const char* v = std::getenv("CUVK_COUNTERS_ROUND_SAMPLES");
  const long n = v ? std::strtol(v, nullptr, 10) : 0;
  return n >= 1 && n <= long{kMaxSamples} ? static_cast<std::uint32_t>(n) : kMaxSamples;
}

// The sampler's records overflowed its hardware buffer (the window is lost, not attributed).
struct HardwareBufferFull : Error {
  using Error::Error;
};

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

}  // namespace

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
      throw Error(
          fmt::format("PM sampling: the window held more than {} samples (the rest would be lost): "
                      "not attributed",
                      pm_data_samples_));
    }
    if (d.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS) break;
  }
  if (pm_overflow_)
    throw HardwareBufferFull(
        fmt::format("PM sampling: the hardware buffer ({} MiB) overflowed", hw_bytes_ >> 20));
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

}  // namespace cuvk::cupti
