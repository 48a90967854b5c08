// The runner's tests' fake backend (it runs nothing: outputs keep their poison, so verification
// must fail; knobs for faults) and helpers: tests/unit/core/test_runner_*.cpp.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <thread>

#include "catalogue.h"
#include "error.h"
#include "interrupt.h"
#include "runner.h"

namespace cuvk::runner_test {

class HostBuffer final : public DeviceBuffer {
 public:
  explicit HostBuffer(std::size_t bytes) : DeviceBuffer(bytes), data(bytes / 4 + 1) {}
  std::vector<std::uint32_t> data;
};

// Runs nothing: outputs keep their poison, so verification must fail. Knobs for faults.
class FakeBackend final : public Backend {
 public:
  FakeBackend() {
    info_.api = Api::vulkan;
    info_.name = "fake";
    info_.is_cpu = true;  // a small flush scratch
    info_.max_buffer_bytes = 1ull << 30;
    info_.max_block_size = 1024;
    info_.max_grid_x = 65535;
    info_.max_grid_y = 65535;
    info_.timer = {1.0, 64, "fake ticks"};
  }
  const DeviceInfo& info() const override { return info_; }
  std::unique_ptr<DeviceBuffer> allocate(std::size_t bytes) override {
    return std::make_unique<HostBuffer>(bytes);
  }
  void upload(DeviceBuffer& dst, const void* src, std::size_t bytes) override {
    std::memcpy(static_cast<HostBuffer&>(dst).data.data(), src, bytes);
  }
  void download(const DeviceBuffer& src, void* dst, std::size_t bytes) override {
    std::memcpy(dst, static_cast<const HostBuffer&>(src).data.data(), bytes);
  }
  void fill(DeviceBuffer& dst, std::uint32_t word) override {
    auto& d = static_cast<HostBuffer&>(dst).data;
    std::fill(d.begin(), d.end(), word);
  }
  std::uint64_t free_memory_bytes() const override { return free_bytes; }
  std::vector<std::string> kernels() const override {
    auto k = catalogue_kernels();
    k.emplace_back(kCopyEngine);
    return k;
  }
  std::vector<QueueFamily> copy_queue_families() const override { return families; }
  std::vector<double> run(const Launch& launch, const RunOptions& opt) override {
    const auto entered = std::chrono::steady_clock::now();
    launches.push_back({launch.kernel, launch.queue_family, opt.before_each != nullptr});
    if (launch.kernel == suite_kernels().l2_flush_kernel)  // clock settling
      return std::vector<double>(static_cast<std::size_t>(opt.reps), flush_ms);
    if (builtin_params(launch).n == 0) {  // the calibration's empty dispatch
      empty_dispatches += opt.reps;
      std::vector<double> t(static_cast<std::size_t>(opt.reps), empty_ms);
      for (std::size_t i = 0; i < t.size(); ++i) t[i] += (i % 2) * 0.0005;  // 0.5 us apart
      return t;
    }
    if (interrupted()) ++calls_after_interrupt;
    batch_sizes.push_back(opt.reps);
    if (++calls == interrupt_at_call) raise_interrupt_for_testing(SIGTERM);
    if (sleep_ms_per_rep > 0)
      std::this_thread::sleep_for(
          std::chrono::duration<double, std::milli>(sleep_ms_per_rep * opt.reps));
    if (launch.kernel == lost_on) throw Error("vkQueueSubmit failed: VK_ERROR_DEVICE_LOST");
    if (launch.kernel == copies_input || launch.kernel == also_copies) {
      const auto& in = static_cast<const HostBuffer*>(launch.buffers.at(0).buffer)->data;
      auto& out = static_cast<HostBuffer*>(launch.buffers.at(1).buffer)->data;
      std::copy_n(in.begin(), std::min(in.size(), out.size()), out.begin());
      for (std::uint64_t i : corrupt) out[i] ^= 1u;  // the element's lowest bit
    }
    if (launch.chain.steps > 0 && !launch.buffers.empty()) run_chain(launch);
    std::vector<double> times(static_cast<std::size_t>(opt.reps) - (short_times ? 1 : 0), 1.0);
    if (alternate_times)  // half the samples 1 ms, half 3 ms, across calls
      for (double& t : times) t = (samples_given++ % 2) ? 3.0 : 1.0;
    call_s.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - entered).count());
    return times;
  }
  HostCostSamples host_cost(const Launch&, int) override { return {{1.0}, {1.0}, {2.0}}; }
  std::string submission_unsupported(Submission s) const override {
    return s == unsupported_submission ? "not here" : "";
  }
  // A chain's steps on the host, as a backend runs them (chain_step), skipping one if asked.
  void run_chain(const Launch& launch) {
    submissions.push_back(launch.chain.submission);
    for (std::uint32_t k = 0; k < launch.chain.steps; ++k) {
      if (static_cast<int>(k) == skip_chain_step) continue;
      const Launch step = chain_step(launch, k);
      const auto& in = static_cast<const HostBuffer*>(step.buffers.at(0).buffer)->data;
      auto& out = static_cast<HostBuffer*>(step.buffers.at(1).buffer)->data;
      for (std::size_t i = 0; i < builtin_params(launch).n; ++i) out[i] = chain_word(in[i]);
    }
  }
  std::vector<std::pair<std::string, double>> startup_ms() const override { return {}; }

  void set_api(Api a) { info_.api = a; }  // issue 21: a CUDA lane beside a Vulkan one
  void set_l2_bytes(std::uint64_t b) { info_.l2_bytes = b; }
  void set_gpu() {  // a GPU: its output checked beside its measuring (a 3 MiB flush scratch)
    info_.is_cpu = false;
    info_.l2_bytes = 1u << 20;
  }
  void set_bus_bits(std::uint32_t b) { info_.memory_bus_bits = b; }
  void set_max_buffer_bytes(std::uint64_t b) { info_.max_buffer_bytes = b; }

  std::uint64_t free_bytes = 1ull << 40;
  std::string lost_on, copies_input, also_copies;
  std::vector<std::uint64_t> corrupt;  // with copies_input: these output elements come out wrong
  bool alternate_times = false;
  std::uint64_t samples_given = 0;
  double flush_ms = 1.0;              // GPU time of each clock-settling launch
  double empty_ms = 0.01;             // GPU time of an empty dispatch (every other one 0.5 us more)
  int empty_dispatches = 0;           // launches with n = 0 (the calibration's)
  int calls = 0;                      // run() calls, settling aside
  int interrupt_at_call = 0;          // raise SIGTERM's flag during this call (0: never)
  int calls_after_interrupt = 0;      // run() calls begun with the flag already raised
  double sleep_ms_per_rep = 0.0;      // wall time each repetition takes
  std::vector<int> batch_sizes;       // opt.reps of every call, settling aside
  std::vector<double> call_s;         // the wall time of each call that returned (as batch_sizes)
  bool short_times = false;           // return one time fewer than asked (a broken backend)
  std::vector<QueueFamily> families;  // copy_queue_families
  int skip_chain_step = -1;           // a chain step this backend leaves out (-1: none)
  std::optional<Submission> unsupported_submission;
  std::vector<Submission> submissions;  // of every chain run
  struct Seen {
    std::string kernel;
    std::int32_t queue_family;
    bool flushed;
  };
  std::vector<Seen> launches;

 private:
  DeviceInfo info_;
};

inline RunConfig config(std::vector<std::string> tests) {
  RunConfig cfg;
  cfg.tests = std::move(tests);
  cfg.apis = {Api::vulkan};
  cfg.n = 1024;
  cfg.reps = 5;
  cfg.warmup = 0;
  cfg.settle_ms = 0.0;
  cfg.host_cost_samples = 2;
  cfg.calibration_samples = 0;  // its launches would count among the rows' (RunnerCalibration)
  cfg.axis_values["offset"] = {0, 1};
  cfg.axis_values["stride"] = {1, 2};
  return cfg;
}

// Rows a run of `cfg` must give per API: its points, derived from the catalogue, not the runner.
inline std::size_t points(const RunConfig& cfg) {
  std::size_t n = 0;
  for (const std::string& t : cfg.tests)
    n += points_of(*find_test(t), cfg.n, cfg.axis_values, cfg.layouts, cfg.variants).size();
  return n;
}

inline RunOutcome run(FakeBackend& fake, const RunConfig& cfg, const RunObserver& observer = {},
                      std::shared_ptr<EarlyInputs> first_inputs = nullptr) {
  BackendSet set;
  set.backends[Api::vulkan] = &fake;
  return run_suite(validate_config(cfg), set, observer, std::move(first_inputs));
}

}  // namespace cuvk::runner_test
