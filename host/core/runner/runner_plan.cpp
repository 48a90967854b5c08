// The runner's plan phase (runner_parts.h): the devices' common limits, the run's settings, every
// point of every selected test planned before anything runs, the device memory and kernels they
// need checked, the lanes that run them and each row's identity before it runs. runner.cpp's Suite
// runs the plan.
#include <algorithm>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "error.h"
#include "host_data.h"
#include "l2_flush.h"
#include "runner_parts.h"
#include "util.h"

namespace cuvk::runner_detail {
namespace {

Limits device_limits(const std::vector<ApiState>& apis) {
  Limits lim;
  lim.max_host = host_memory_limit_bytes(&lim.max_host_name);  // a CPU reference's host arrays
  for (const ApiState& a : apis) {
    if (!a.backend) continue;
    const DeviceInfo& d = a.backend->info();
    lim.any_backend = true;
    lim.any_gpu = lim.any_gpu || !d.is_cpu;
    lim.any_cpu = lim.any_cpu || d.is_cpu;
    lim.max_x = std::min(lim.max_x, d.max_grid_x);
    lim.max_y = std::min(lim.max_y, d.max_grid_y);
    lim.max_block = std::min(lim.max_block, d.max_block_size);
    lim.max_buffer = std::min(lim.max_buffer, d.max_buffer_bytes);
    lim.l2_bytes = std::max(lim.l2_bytes, d.l2_bytes);
    lim.bus_bits = std::max<std::uint64_t>(lim.bus_bits, d.memory_bus_bits);
  }
  return lim;
}

// The run-wide choices: problem size, time budget, flush size, clocks and the DRAM peak.
void choose_run_settings(const RunConfig& cfg, const BackendSet& set, const Limits& lim,
                         RunOutcome& out) {
  for (std::uint32_t b : cfg.block_sizes)
    if (lim.any_backend && b > lim.max_block)
      throw UsageError(fmt::format("block size {} exceeds the device limit {}", b, lim.max_block));
  out.l2_bytes = lim.l2_bytes;
  out.flush_bytes = cfg.l2 == L2Mode::cold ? flush_scratch_bytes(lim) : 0;
  out.clock_monitor = set.clocks ? "NVML" : set.clocks_reason;
  if (cfg.counters) {
    out.counters_source = set.counters ? "CUPTI on " + set.counters->chip() : set.counters_reason;
    if (set.counters) out.counters_pm_metrics = set.counters->pm_names();
    if (set.counters) out.counters_chip = set.counters->chip();
    if (set.counters) out.counters_interval_ns = set.counters->interval_ns();
  }
  if (set.clocks && set.clocks->max_mem_mhz() > 0 && lim.bus_bits > 0)
    out.dram_peak_gbps = 2.0 * set.clocks->max_mem_mhz() * 1e6 * static_cast<double>(lim.bus_bits) /
                         8.0 / kBytesPerGB;
  out.sizes = run_sizes(cfg, lim.any_gpu);
  out.n = out.sizes.front();
  out.n_rule = cfg.n         ? "--n"
               : lim.any_gpu ? "default for GPUs (well beyond L2)"
                             : "default for CPU devices";
  out.max_time_s = cfg.max_time_s > 0.0 ? cfg.max_time_s
                   : lim.any_gpu        ? kDefaultGpuMaxTimeS
                                        : kDefaultCpuMaxTimeS;
}

// Enough device memory for the largest point plus the flush scratch, and every kernel the
// selection needs on every backend that runs; checked before anything is allocated.
void check_resources(const std::vector<Job>& jobs, const std::vector<ApiState>& apis,
                     std::uint64_t scratch_bytes, std::uint32_t n) {
  std::uint64_t need_bytes = 0;
  for (const Job& j : jobs) need_bytes = std::max(need_bytes, j.plan.device_bytes());
  need_bytes += scratch_bytes + kFlushVecBytes;
  for (const ApiState& a : apis) {
    if (!a.backend) continue;
    std::vector<std::string> required = {suite_kernels().l2_flush_kernel};
    for (const Job& j : jobs)
      for (std::string& k : j.plan.required_kernels(a.api)) required.push_back(std::move(k));
    if (const std::uint64_t free_bytes = a.backend->free_memory_bytes(); need_bytes > free_bytes)
      throw UsageError(fmt::format("n = {} needs {} bytes of {} device memory; {} bytes are free",
                                   n, need_bytes, api_name(a.api), free_bytes));
    if (auto missing = missing_kernels(required, a.backend->kernels()); !missing.empty())
      throw Error(
          fmt::format("{} backend lacks kernels: {}", api_name(a.api), fmt::join(missing, ", ")));
  }
}

}  // namespace

// The flush scratch: 3x the L2 (both APIs run on one GPU, so an L2 size reported by either
// applies to both), a fixed size where the L2 is unknown, a CPU's last-level cache on a CPU.
std::uint64_t flush_scratch_bytes(const Limits& lim) {
  if (!lim.any_backend) return 0;
  return cuvk::flush_scratch_bytes(lim.any_gpu, lim.any_cpu, lim.l2_bytes);
}

// Every point of every selected test at every size (a point's sizes next to each other), planned
// before anything runs so a bad size fails first.
std::vector<Job> plan_jobs(const RunConfig& cfg, const Limits& lim,
                           const std::vector<std::uint32_t>& sizes) {
  std::vector<Job> jobs;
  std::string off;  // the options of axes that are off (no values) and that a selected test sweeps
  for (const std::string& name : cfg.tests) {
    const TestCase* t = find_test(name);
    if (!t) throw UsageError("unknown test '" + name + "'");
    for (const std::string& axis : t->sweeps)
      if (const auto v = cfg.axis_values.find(axis);
          v != cfg.axis_values.end() && v->second.empty())
        off += " (" + name + " runs only with " + find_axis(axis)->option + ")";
    for (const Point& p : test_points(*t, cfg, sizes, lim.any_gpu)) {  // runner_chain.cpp
      Plan plan = t->plan(p);
      plan.check_limits(name, p.n, cfg.block_sizes, lim);
      jobs.push_back({t, p, std::move(plan)});
    }
  }
  if (jobs.empty()) throw UsageError("the selection of tests, layouts and variants is empty" + off);
  // The ceiling first: every later row's "% of ceiling" is then known when the row is printed.
  const SuiteKernels& sk = suite_kernels();
  std::stable_partition(jobs.begin(), jobs.end(), [&sk](const Job& j) {
    return j.test->name == sk.ceiling_test && j.point.variant == sk.ceiling_variant;
  });
  return jobs;
}

std::vector<Lane> lanes_of(std::vector<ApiState>& apis, const RunConfig& cfg) {
  std::vector<Lane> lanes;
  for (ApiState& a : apis) {
    if (a.api != Api::vulkan) {
      lanes.push_back({&a, native_binding(a.api)});
      continue;
    }
    for (Binding b : cfg.vk_bindings) lanes.push_back({&a, b});
    // The copy engine on every other family that can copy, next to the native lane's own family.
    const Binding native = native_binding(a.api);
    if (std::find(cfg.vk_bindings.begin(), cfg.vk_bindings.end(), native) == cfg.vk_bindings.end())
      continue;
    for (const QueueFamily& f : a.families)
      if (!f.own) lanes.push_back({&a, native, &f});
  }
  add_chain_lanes(apis, cfg, lanes);  // runner_chain.cpp: one per submission mode
  return lanes;
}

std::size_t count_steps(const std::vector<Job>& jobs, const std::vector<Lane>& lanes,
                        const RunConfig& cfg) {
  std::size_t steps = 0;
  for (const Job& j : jobs)
    for (const Lane& l : lanes) steps += lane_runs(l, j) ? job_block_sizes(j, cfg).size() : 0;
  return steps;
}

// One state per API of the run, with its backend (or why none) and the counters where asked.
std::vector<ApiState> api_states(const RunConfig& cfg, const BackendSet& set) {
  std::vector<ApiState> apis;
  for (Api a : cfg.apis)
    apis.push_back({a,
                    set.backends[a],
                    set.reasons[a],
                    nullptr,
                    nullptr,
                    {},
                    {},
                    cfg.counters ? set.counters : nullptr,
                    set.counters_reason,
                    {}});
  return apis;
}

// The plan phase: the devices' common limits (into `lim`), the run's settings, the jobs, and a
// check that the devices can hold them.
std::vector<Job> plan_run(const RunConfig& cfg, const BackendSet& set,
                          const std::vector<ApiState>& apis, Limits& lim, RunOutcome& out) {
  PhaseTimer t(out.phase_s, "plan");
  lim = device_limits(apis);
  choose_run_settings(cfg, set, lim, out);
  std::vector<Job> jobs = plan_jobs(cfg, lim, out.sizes);
  check_resources(jobs, apis, flush_scratch_bytes(lim),
                  *std::max_element(out.sizes.begin(), out.sizes.end()));
  // The head and settings.n tell the size the rows ran at: a pair's is its own (plan.cpp).
  std::vector<std::pair<std::string, const Plan*>> plans;
  for (const Job& j : jobs) plans.emplace_back(j.test->name, &j.plan);
  std::tie(out.n, out.n_rule) = rows_size(plans, out.n, out.n_rule);
  out.n_rule += own_sizes_note(jobs, cfg);  // runner_chain.cpp: "; chain at 4096, 65536"
  return jobs;
}

namespace {

const QueueFamily* own_family(const ApiState& a) {
  for (const QueueFamily& f : a.families)
    if (f.own) return &f;
  return nullptr;
}

}  // namespace

ResultRow row_of(const Job& job, const Lane& lane, const Geometry& geom, bool sized) {
  ResultRow row;
  row.test = job.test->name;
  row.layout = job.point.layout;
  row.variant = job.point.variant;
  row.kernel = job.plan.kernel;
  row.api = lane.state->api;
  row.binding = lane.binding;
  row.n = job.point.n;
  // The size in the label where the run has several, or the test its own (the chain's).
  row.n_in_label = job.plan.n_in_label(sized, job.test->sizes.size());
  row.submission = lane.submission;
  row.axes = job.point.axes;
  row.block_size = geom.block_size;
  row.geometry = geom;
  job.plan.describe_row(geom, row);
  row.sectors_per_request = job.plan.traffic.sectors_per_request;
  row.request_efficiency = job.plan.traffic.request_efficiency;
  if (is_engine(job))
    if (const QueueFamily* f = lane.family ? lane.family : own_family(*lane.state)) {
      row.queue_family = f->index;
      row.queue_flags = f->flags;
    }
  return row;
}

// Each row the run will stream, its identity only (RunOutcome::planned), in run order.
std::vector<ResultRow> planned_rows(const std::vector<Job>& jobs, const std::vector<Lane>& lanes,
                                    const RunConfig& cfg, bool sized) {
  std::vector<ResultRow> rows;
  for (const Job& j : jobs)
    for (std::uint32_t block : job_block_sizes(j, cfg))
      for (const Lane& l : lanes) {
        if (!lane_runs(l, j)) continue;
        Geometry g;
        g.block_size = block;
        try {
          rows.push_back(row_of(j, l, g, sized));
        } catch (const std::exception&) {  // its row says why when it comes
        }
      }
  return rows;
}
}  // namespace cuvk::runner_detail
