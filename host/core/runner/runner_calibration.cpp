// What issuing work costs (the host-cost table) and what a dispatch costs the GPU (calibration):
// both launch the suite's host-cost kernel on one block.
#include <algorithm>
#include <cmath>

#include "launch_geometry.h"
#include "runner_parts.h"

namespace cuvk {

double smallest_step_ns(std::vector<double> times_ms) {
  std::sort(times_ms.begin(), times_ms.end());
  double step = 0.0;
  for (std::size_t i = 1; i < times_ms.size(); ++i)
    if (const double d = times_ms[i] - times_ms[i - 1]; d > 0.0 && (step == 0.0 || d < step))
      step = d;
  return step * 1e6;
}

bool launch_bound(const ResultRow& row, const std::vector<Calibration>& calibration) {
  if (row.status != Status::ok || !(row.time_ms.median > 0.0)) return false;
  for (const Calibration& c : calibration)
    if (c.api == row.api && c.empty_dispatch_ms.median > 0.0)
      return row.time_ms.median < kLaunchBoundFactor * c.empty_dispatch_ms.median;
  return false;
}

namespace runner_detail {

void sample_host_costs(std::vector<ApiState>& apis, const RunConfig& cfg, std::uint32_t max_x,
                       std::uint32_t max_y, RunOutcome& out) {
  for (ApiState& a : apis) {
    if (!a.backend || cfg.host_cost_samples <= 0 || !a.backend->hung().empty()) continue;
    Backend& b = *a.backend;
    const std::uint32_t block = cfg.block_sizes.front();
    auto in = b.allocate(block * sizeof(float));
    auto outbuf = b.allocate(block * sizeof(float));
    b.fill(*in, 0x3F800000u);  // 1.0f
    const Launch tiny = builtin_launch(suite_kernels().host_cost_kernel,
                                       launch_geometry(block, block, max_x, max_y),
                                       kernel_params(block), *in, *outbuf);
    HostCostSamples samples = b.host_cost(tiny, cfg.host_cost_samples);
    out.host.push_back({a.api, summarize(samples.launch_us), summarize(samples.submit_us),
                        summarize(samples.round_trip_us), b.startup_ms()});
  }
}

void calibrate(std::vector<ApiState>& apis, const RunConfig& cfg, std::uint32_t max_x,
               std::uint32_t max_y, RunOutcome& out) {
  PhaseTimer t(out.phase_s, "calibration");
  for (ApiState& a : apis) {
    if (!a.backend || cfg.calibration_samples <= 0 || !a.backend->hung().empty()) continue;
    outside_rows(a, [&] {
      Backend& b = *a.backend;
      const std::uint32_t block = cfg.block_sizes.front();
      auto in = b.allocate(block * sizeof(float));
      auto outbuf = b.allocate(block * sizeof(float));
      CuvkParams params = kernel_params(block);
      params.n = 0;  // every thread returns before touching memory: the dispatch alone
      const Launch empty =
          builtin_launch(suite_kernels().host_cost_kernel,
                         launch_geometry(block, block, max_x, max_y), params, *in, *outbuf);
      b.run(empty, RunOptions{kCalibrationWarmup, nullptr});
      const std::vector<double> times = b.run(empty, RunOptions{cfg.calibration_samples, nullptr});
      if (times.empty()) return;
      out.calibration.push_back({a.api, summarize(times), b.info().timer, smallest_step_ns(times)});
    });
  }
}

}  // namespace runner_detail
}  // namespace cuvk
