// Chains of dependent dispatches (issue 33; docs/MEASURING.md, "Chains"): the chain test's own
// sizes, its lanes (one per submission mode of each API: a lane dimension of this test only) and
// the host's wall time per step. The steps themselves run in the backends (Launch::chain);
// runner_lane.cpp measures a chain lane as any other, its times divided by the steps.
#include <algorithm>

#include <fmt/format.h>

#include "runner_parts.h"

namespace cuvk::runner_detail {
namespace {

// Each API's submission modes, in the order their rows appear (none: no chain lanes).
const std::vector<Submission>& api_submissions(Api api) {
  static const PerApi<std::vector<Submission>> modes = [] {
    PerApi<std::vector<Submission>> m;
    m[Api::cuda] = {Submission::stream, Submission::graph, Submission::pdl, Submission::wait_each};
    m[Api::vulkan] = {Submission::recorded, Submission::rerecorded, Submission::submit_each,
                      Submission::wait_each};
    return m;
  }();
  return modes[api];
}

}  // namespace

std::vector<Point> test_points(const TestCase& t, const RunConfig& cfg,
                               const std::vector<std::uint32_t>& run_sizes, bool on_gpu) {
  const std::vector<std::uint32_t>& own = on_gpu ? t.sizes : t.cpu_sizes;
  const std::vector<std::uint32_t>& sizes =
      (cfg.n == 0 || t.sizes_fixed) && !own.empty() ? own : run_sizes;
  std::vector<Point> points;  // each point at every size, its sizes next to each other
  for (const Point& p : points_of(t, 0, cfg.axis_values, cfg.layouts, cfg.variants))
    for (const std::uint32_t n : sizes) {
      points.push_back(p);
      points.back().n = n;
    }
  return points;
}

std::string own_sizes_note(const std::vector<Job>& jobs, const RunConfig& cfg) {
  if (cfg.n != 0) return "";
  std::string note;
  for (std::size_t i = 0; i < jobs.size(); ++i) {  // a test's points are contiguous (plan_jobs)
    const Job& j = jobs[i];
    if (j.test->sizes.empty()) continue;
    const bool first = i == 0 || jobs[i - 1].test != j.test;
    note += first ? "; " + j.test->name + " at its own sizes " : std::string(", ");
    note += fmt::format("{}", j.point.n);
  }
  return note;
}

void add_chain_lanes(std::vector<ApiState>& apis, const RunConfig& cfg, std::vector<Lane>& lanes) {
  for (ApiState& a : apis) {
    const std::vector<Binding> bindings =
        a.api == Api::vulkan ? cfg.vk_bindings : std::vector<Binding>{native_binding(a.api)};
    for (Binding b : bindings)
      for (Submission s : api_submissions(a.api)) lanes.push_back({&a, b, nullptr, s});
  }
}

// Whole chains, each issued in its mode and waited for (as the timed repetitions are), back to
// back in one backend call, without the L2 flush: the call's wall time over its steps. It holds
// the host's issue cost, the waits and what the GPU took; reading the GPU timers is in it too.
void measure_chain_host(Backend& b, const Launch& launch, RunOutcome& out, ResultRow& row) {
  PhaseTimer t(out.phase_s, api_phase(b.info().api, "chain host loop"));
  const std::uint32_t k = std::max(1u, launch.chain.steps);
  const int wanted = static_cast<int>((kChainHostSteps + k - 1) / k);
  const auto w0 = WallClock::now();
  b.run(launch, RunOptions{1, nullptr});  // steady state: anything made per call is warm
  // Within the time budget (issue 49): as many whole chains as fit in it, at least one; a chain
  // that fits its kChainHostSteps in the budget runs them all, as before.
  const double chain_s = seconds_since(w0);
  const int chains =
      chain_s > 0.0 ? static_cast<int>(std::clamp(out.max_time_s / chain_s, 1.0,
                                                   static_cast<double>(wanted)))
                    : wanted;
  row.host_chains = static_cast<std::uint32_t>(chains);
  const auto t0 = WallClock::now();
  b.run(launch, RunOptions{chains, nullptr});
  row.host_us_per_step = seconds_since(t0) * 1e6 / (static_cast<double>(chains) * k);
}

}  // namespace cuvk::runner_detail
