// The dispatch cost model's measurement (issue 33; --dispatch-cost; the fit in cost_fit.h). The
// suite's host-cost kernel with n = 1 (every thread but the first returns at once: a near-empty
// kernel) is launched on 1, 2, 4, ... blocks up to 2^20 (2^14 on a CPU device), each size timed
// by the API's GPU timers like a row (warm-up, then kDispatchReps repetitions, median), and
// us = a + b * blocks fitted beyond the first waves. `a` here is one isolated dispatch's
// GPU-side span at zero blocks; a chain's per-step cost is the other reading of a.
#include <algorithm>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "interrupt.h"
#include "launch_geometry.h"
#include "runner_parts.h"
#include "stats.h"

namespace cuvk::runner_detail {

namespace {

constexpr int kDispatchWarmup = 3;
constexpr int kDispatchReps = 30;
constexpr std::uint32_t kMaxBlocksGpu = 1u << 20;
constexpr std::uint32_t kMaxBlocksCpu = 1u << 14;
constexpr double kUnknownWave = 16.0;  // the fit then keeps the points from 64 blocks on

std::uint32_t property(const DeviceInfo& d, const char* key) {
  for (const auto& [k, v] : d.properties)
    if (k == key) return static_cast<std::uint32_t>(std::stoul(v));
  return 0;
}

// Blocks resident at once on the whole device for `block`-thread blocks of a kernel that uses no
// shared memory and few registers: SMs x min(blocks per SM, threads per SM / block), from the
// CUDA device's properties (this API's own, or CUDA's on the same GPU).
void wave_of(const ApiState& a, const std::vector<ApiState>& apis, std::uint32_t block,
             DispatchCostResult& r) {
  for (const ApiState& other : apis) {
    if (!other.backend || other.api != Api::cuda) continue;
    const DeviceInfo& c = other.backend->info();
    if (other.backend != a.backend &&
        (a.backend->info().is_cpu || c.uuid != a.backend->info().uuid))
      continue;
    const std::uint32_t sms = property(c, "multiprocessors");
    const std::uint32_t per_sm_blocks = property(c, "max_blocks_per_multiprocessor");
    const std::uint32_t per_sm_threads = property(c, "max_threads_per_multiprocessor");
    if (sms == 0 || per_sm_blocks == 0 || per_sm_threads == 0) continue;
    r.blocks_per_wave = static_cast<double>(sms) * std::min(per_sm_blocks, per_sm_threads / block);
    r.wave_source = fmt::format("{} SMs x {} blocks (CUDA's device properties)", sms,
                                std::min(per_sm_blocks, per_sm_threads / block));
    return;
  }
  r.blocks_per_wave = kUnknownWave;
  r.wave_source = "unknown (no CUDA device on this GPU): points from 64 blocks on are fitted";
}

DispatchCostResult sweep(ApiState& a, const std::vector<ApiState>& apis, std::uint32_t block,
                         std::uint32_t max_x, std::uint32_t max_y) {
  Backend& b = *a.backend;
  DispatchCostResult r;
  r.api = a.api;
  r.block_size = block;
  wave_of(a, apis, block, r);
  auto in = b.allocate(block * sizeof(float));
  auto out = b.allocate(block * sizeof(float));
  b.fill(*in, 0x3F800000u);  // 1.0f
  const std::uint32_t max_blocks = b.info().is_cpu ? kMaxBlocksCpu : kMaxBlocksGpu;
  for (std::uint32_t blocks = 1; blocks <= max_blocks; blocks *= 2) {
    const std::uint32_t threads = blocks * block;
    CuvkParams params = kernel_params(threads);
    params.n = 1;  // one thread copies one float; every other returns at its first comparison
    const Launch launch =
        builtin_launch(suite_kernels().host_cost_kernel,
                       launch_geometry(threads, block, max_x, max_y), params, *in, *out);
    b.run(launch, RunOptions{kDispatchWarmup, nullptr});
    std::vector<double> us = b.run(launch, RunOptions{kDispatchReps, nullptr});
    for (double& t : us) t *= 1000.0;  // ms -> us
    const Summary s = summarize(us);
    r.points.push_back({static_cast<double>(blocks), s.median});
    r.summaries.push_back(s);
    if (interrupted()) break;
  }
  try {
    r.cost = fit_dispatch_cost(r.points, r.blocks_per_wave);
  } catch (const std::invalid_argument& e) {
    r.no_fit = e.what();
  }
  return r;
}

}  // namespace

void sample_dispatch_costs(std::vector<ApiState>& apis, const RunConfig& cfg, std::uint32_t max_x,
                           std::uint32_t max_y, RunOutcome& out) {
  if (!cfg.dispatch_cost) return;
  PhaseTimer t(out.phase_s, "dispatch cost");
  for (ApiState& a : apis) {
    if (!a.backend || !a.backend->hung().empty()) continue;
    outside_rows(a, [&] {
      out.dispatch_costs.push_back(sweep(a, apis, cfg.block_sizes.front(), max_x, max_y));
    });
  }
}

}  // namespace cuvk::runner_detail
