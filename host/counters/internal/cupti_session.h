// The CUPTI counter session's class and what its files share (private to host/counters): the
// session and opening in cupti_session.cpp, the range profiler in cupti_range.cpp, PM sampling in
// cupti_pm.cpp. Built only where the CUPTI headers were found (CUVK_HAVE_CUPTI_HEADERS).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "counters.h"
#include "cupti_lib.h"
#include "error.h"
#include "numbers.h"

namespace cuvk::cupti {

constexpr std::uint64_t kIntervalNs = 20000;  // 50 kHz: 100 samples in 2 ms
// The hardware buffer the sampler's records land in: allocated by every enable (a row of CUDA
// switches instruments), so as small as the image's samples need with room to spare (128 KB a
// sample); a window that overflows it is sampled again once with a buffer 4x larger.
constexpr std::size_t kHardwareBufferBytes = 64u << 20;
constexpr std::size_t kMaxHardwareBufferBytes = 1024u << 20;

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

// Why CUPTI refused `call`: the administrators-only restriction by name, else describe().
std::string restricted_reason(const Lib& lib, const char* call, CUptiResult r);

class CuptiSession final : public CounterSession {
 public:
  CuptiSession(Lib& lib, int ordinal, CUdevice dev, CUcontext ctx)
      : lib_(lib), ordinal_(ordinal), dev_(dev), ctx_(ctx) {}
  ~CuptiSession() override {
    range_disable();
    pm_disable();
    lib_.cuDevicePrimaryCtxRelease_v2(dev_);
  }

  // The chip, then each profiler where the device supports it (else why not).
  void open();

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

}  // namespace cuvk::cupti
