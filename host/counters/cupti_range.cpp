// The counter session's range profiler (cupti_session.h): per-kernel counters on the CUDA
// primary context, the flush and the kernel replayed by cuvk until every pass ran.
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cupti_session.h"

namespace cuvk::cupti {

namespace {

constexpr std::size_t kMaxPasses = 32;  // range-profiler replays of one launch

}  // namespace

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
    throw Error(fmt::format(
        "the range profiler counted {:f} CTAs launched for a launch of {:f}: not the launch's",
        k.ctas_launched, ctas));
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
  if (!all) throw Error(fmt::format("the range profiler wanted more than {} passes", kMaxPasses));
  auto d = CUVK_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  d.pRangeProfilerObject = obj;
  check(lib_, "cuptiRangeProfilerDecodeData", lib_.cuptiRangeProfilerDecodeData(&d));
  if (d.numOfRangeDropped > 0) throw Error("the range profiler dropped the kernel's range");
  range_values_ = range_host_->evaluate(range_data_, 0, kernel_metrics());
  return decode_kernel(range_values_, passes);
}

}  // namespace cuvk::cupti
