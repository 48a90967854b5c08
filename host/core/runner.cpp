// The one timing driver, as named phases (nvbench's measure_cold idea): plan -> check
// resources -> settle clocks -> per point: prepare inputs, then per API lane: correctness run +
// verify -> measure -> summarise (ceilings, host cost). Each phase is one function below (one lane
// of one point is in runner_lane.cpp, chains' lanes in runner_chain.cpp, the first point's inputs
// in runner_inputs.cpp; validate_config, which makes the ValidatedConfig it takes, in
// run_config.cpp); run_suite only sequences them. Tests,
// the ceiling, the host-cost kernel and the L2 flush come from the catalogue: none is named here.
#include "runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

#include <fmt/ranges.h>

#include "error.h"
#include "input_pipeline.h"
#include "interrupt.h"
#include "l2_flush.h"
#include "runner_parts.h"
#include "util.h"

namespace cuvk {
namespace {
using namespace runner_detail;

constexpr int kSettleBatch = 20;       // flush launches per settling batch
constexpr double kMinSettleMs = 50.0;  // GPU time settled at least, even with the clock at max
// Settling stops after kSettleWallFactor x --settle-ms + kSettleWallSlackS of wall time whatever
// the GPU clock says (a driver whose timestamps read zero or barely advance), or at once when a
// batch reports no positive, finite time.
constexpr double kSettleWallFactor = 2.0;
constexpr double kSettleWallSlackS = 0.5;
// Limits common to every device that will run (catalogue.h's DeviceLimits), and what they are.
struct Limits : DeviceLimits {
  std::uint64_t l2_bytes = 0, bus_bits = 0;
  bool any_gpu = false, any_backend = false, any_cpu = false;
};

// ---- plan ----
Limits device_limits(const std::vector<ApiState>& apis) {
  Limits lim;
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

// The flush scratch: 3x the L2 (both APIs run on one GPU, so an L2 size reported by either
// applies to both), a fixed size where the L2 is unknown, a CPU's last-level cache on a CPU.
std::uint64_t flush_scratch_bytes(const Limits& lim) {
  if (!lim.any_backend) return 0;
  return cuvk::flush_scratch_bytes(lim.any_gpu, lim.any_cpu, lim.l2_bytes);
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
  out.n_rule = cfg.n            ? "--n"
               : lim.any_gpu    ? "default for GPUs (well beyond L2)"
                                : "default for CPU devices";
  out.max_time_s = cfg.max_time_s > 0.0 ? cfg.max_time_s
                   : lim.any_gpu        ? kDefaultGpuMaxTimeS
                                        : kDefaultCpuMaxTimeS;
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
      if (const auto v = cfg.axis_values.find(axis); v != cfg.axis_values.end() && v->second.empty())
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

// ---- settle clocks ----

// Allocates the flush scratch: the launch that evicts L2 before every timed repetition.
void prepare_flush(ApiState& a, const RunConfig& cfg, const Limits& lim, std::uint64_t scratch_bytes) {
  Backend& b = *a.backend;
  a.scratch = b.allocate(scratch_bytes);
  a.sink = b.allocate(kFlushVecBytes);
  b.fill(*a.scratch, 0);
  a.flush = flush_launch(a.scratch.get(), a.sink.get(), cfg.block_sizes.front(), lim.max_x,
                         lim.max_y);
}

// Runs the flush until `settle_ms` of GPU time has passed, so the first point does not meet idle
// clocks. Clocks belong to the GPU, not to an API: where both APIs drive the same GPU, the first
// one settles it for both.
void settle_clocks(ApiState& a, const RunConfig& cfg, ClockMonitor* clocks, RunOutcome& out) {
  Backend& b = *a.backend;
  const auto t0 = WallClock::now();
  const double wall_cap_s = kSettleWallFactor * cfg.settle_ms / 1000.0 + kSettleWallSlackS;
  double settled_ms = 0.0;
  while (settled_ms < cfg.settle_ms && !interrupted() && seconds_since(t0) < wall_cap_s) {
    double batch_ms = 0.0;
    for (double t : b.run(a.flush, RunOptions{kSettleBatch, nullptr})) batch_ms += t;
    if (!(batch_ms > 0.0) || !std::isfinite(batch_ms)) break;  // the GPU clock does not advance
    settled_ms += batch_ms;
    // Where NVML reads the clocks, settled means the SM clock at its maximum: no need to wait on.
    if (clocks && clocks->max_sm_mhz() > 0 && settled_ms >= kMinSettleMs &&
        clocks->sample().sm_mhz >= clocks->max_sm_mhz())
      break;
  }
  out.settle[api_name(a.api)] = settled_ms;
}

bool same_gpu(const Backend& a, const Backend& b) {
  return !a.info().is_cpu && !b.info().is_cpu && a.info().uuid == b.info().uuid;
}

// ---- per point ----

std::string progress_what(const ResultRow& row) {
  const std::string label = point_label(row);
  return row.kernel + (label.empty() ? "" : " " + label) + " block " +
         std::to_string(row.block_size) + " " + api_name(row.api) +
         (row.api == Api::vulkan ? std::string(" ") + binding_name(row.binding) : "") +
         (row.queue_family ? " queue " + std::to_string(*row.queue_family) : "");
}

// The copy vec4 point of an API: the ceiling that "% of ceiling" divides by.
bool is_ceiling(const ResultRow& r) {
  const SuiteKernels& sk = suite_kernels();
  return r.test == sk.ceiling_test && r.variant == sk.ceiling_variant && r.status == Status::ok;
}

// % of ceiling: the row's moved GB/s over its own API's and binding's ceiling point at the same
// block size and size n, measured earlier in this run (plan_jobs puts the ceiling first; the copy
// engine rows have their API's native binding).
void set_ceiling(ResultRow& r, const std::vector<ResultRow>& earlier) {
  if (r.status != Status::ok) return;
  if (is_ceiling(r)) {
    if (r.gbps_moved > 0) r.pct_of_ceiling = 100.0;
    return;
  }
  for (const ResultRow& c : earlier)
    if (is_ceiling(c) && c.api == r.api && c.block_size == r.block_size && c.binding == r.binding &&
        c.n == r.n && c.gbps_moved > 0)
      r.pct_of_ceiling = 100.0 * r.gbps_moved / c.gbps_moved;
}

// Every lane of one point at one block size, alternating which API goes first so slow drift
// does not favour one of them. Rows go out in lane order as soon as they and the rows before
// them are done. Returns false when an interrupt stopped it.
bool run_point(const Job& job, std::size_t turn, std::uint32_t block, const Inputs& in,
               std::vector<Lane>& lanes, const RunConfig& cfg, const BackendSet& set,
               const Limits& lim, std::size_t& step, std::size_t steps, RunOutcome& out) {
  const Geometry geom = job.plan.geometry(block, lim);
  std::vector<ResultRow> rows(lanes.size());
  std::vector<char> done(lanes.size(), 0);
  std::size_t next = 0;
  bool stopped = false;
  auto emit_ready = [&](bool all) {
    PhaseTimer t(out.phase_s, "rows out");
    for (; next < rows.size() && (done[next] || all); ++next) {
      ResultRow& r = rows[next];
      if (r.test.empty() || (r.status == Status::unavailable && stopped)) continue;
      set_ceiling(r, out.rows);
      if (out.rows.empty()) {  // what the first row waited for (its own "rows out" not yet in)
        out.first_row_phase_s = out.phase_s;
        out.first_row_background_s = out.background_s;
      }
      if (cfg.on_row) cfg.on_row(r);
      out.rows.push_back(std::move(r));
    }
  };
  for (std::size_t i = 0; i < lanes.size() && !stopped; ++i) {
    const std::size_t k = turn % 2 ? lanes.size() - 1 - i : i;
    const Lane& lane = lanes[k];
    done[k] = 1;
    if (!lane_runs(lane, job)) continue;
    rows[k] = row_of(job, lane, geom, out.sizes.size() > 1);
    ++step;
    stopped = interrupted();
    if (stopped) break;
    if (cfg.progress && lane.state->backend &&
        lane.state->backend->binding_unsupported(lane.binding).empty()) {
      PhaseTimer t(out.phase_s, "rows out");
      cfg.progress(step - 1, steps, progress_what(rows[k]));
    }
    run_lane(lane, job, in, cfg, set.clocks, out, rows[k]);
    if (interrupted()) {  // during this lane: its row is unfinished unless it completed
      stopped = true;
      break;
    }
    if (job.plan.has_cpu_reference()) emit_ready(false);  // else they wait for the comparisons
  }
  conclude_point(job.plan, in, block, rows);  // plan.cpp: lanes compared with each other
  emit_ready(true);
  return !stopped;
}

// ---- summarise ----

// With --counters: the CUDA kernels' range-profiler counters, all before the first row (issue 21).
void profile_first(std::vector<ApiState>& apis, const std::vector<Job>& jobs, const RunConfig& cfg,
                   const Limits& lim, RunOutcome& out) {
  std::vector<PlannedLaunch> launches;
  for (const Job& j : jobs)
    if (j.plan.profiled_first())
      for (std::uint32_t block : job_block_sizes(j, cfg)) try {
          launches.push_back({&j.plan, j.plan.geometry(block, lim)});
        } catch (const UsageError&) {  // its row says so
        }
  for (ApiState& a : apis) profile_kernels_first(a, launches, cfg.l2 == L2Mode::cold, out);
}

// ---- run_suite's steps, in its order ----

// One state per API of the run, with its backend (or why none) and the counters where asked.
std::vector<ApiState> api_states(const RunConfig& cfg, const BackendSet& set) {
  std::vector<ApiState> apis;
  for (Api a : cfg.apis)
    apis.push_back({a, set.backends[a], set.reasons[a], nullptr, nullptr, {}, {},
                    cfg.counters ? set.counters : nullptr, set.counters_reason, {}});
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
  // The head and settings.n tell the size the rows ran at: a pair's is its own.
  bool any_builtin = false;
  std::vector<std::pair<std::string, OwnSize>> pairs;
  for (const Job& j : jobs) {
    const std::optional<OwnSize> own = j.plan.own_size();
    if (!own) any_builtin = true;
    else if (pairs.empty() || pairs.back().first != j.test->name)
      pairs.emplace_back(j.test->name, *own);
  }
  std::tie(out.n, out.n_rule) = run_n(out.n, out.n_rule, any_builtin, pairs);
  out.n_rule += own_sizes_note(jobs, cfg);  // runner_chain.cpp: "; chain at 4096, 65536"
  return jobs;
}

// Settles each GPU's clocks once (the first API on a GPU settles it), then samples the clocks.
void settle_gpus(std::vector<ApiState>& apis, const RunConfig& cfg, const BackendSet& set,
                 const Limits& lim, RunOutcome& out) {
  std::vector<const Backend*> settled;
  for (ApiState& a : apis) {
    if (!a.backend) continue;
    PhaseTimer t(out.phase_s, "settle");
    a.families = a.backend->copy_queue_families();
    if (std::none_of(settled.begin(), settled.end(),
                     [&a](const Backend* s) { return same_gpu(*s, *a.backend); }))
      outside_rows(a, [&] { settle_clocks(a, cfg, set.clocks, out); });
    settled.push_back(a.backend);
  }
  PhaseTimer t(out.phase_s, "settle");
  if (set.clocks && lim.any_backend) out.clocks_after_settle = set.clocks->sample();
}

// The flush scratch of each backend, then the clocks settled while the first point's inputs are
// prepared and registered beside; returns those inputs once ready.
Inputs settle_with_first_inputs(std::vector<ApiState>& apis, const RunConfig& cfg,
                                const BackendSet& set, const Limits& lim, InputPipeline& inputs,
                                RunOutcome& out) {
  for (ApiState& a : apis) {
    if (!a.backend) continue;
    PhaseTimer t(out.phase_s, "flush scratch");
    outside_rows(a, [&] { prepare_flush(a, cfg, lim, flush_scratch_bytes(lim)); });
  }
  FirstInputs first_inputs(inputs, lim.any_backend, apis);
  settle_gpus(apis, cfg, set, lim, out);
  PhaseTimer t(out.phase_s, "inputs (waiting)");
  return first_inputs.take(out);
}

// Every point of every job in plan order, each job's inputs taken from the pipeline (the first
// job's are `first`) and freed after its points. Returns false when an interrupt stopped it.
bool run_jobs(const std::vector<Job>& jobs, Inputs& first, InputPipeline& inputs,
              std::vector<Lane>& lanes, const RunConfig& cfg, const BackendSet& set,
              const Limits& lim, RunOutcome& out) {
  const std::size_t steps = count_steps(jobs, lanes, cfg);
  std::size_t step = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    Inputs in;
    if (j == 0) {
      in = std::move(first);
    } else {
      PhaseTimer t(out.phase_s, "inputs (waiting)");
      in = inputs.take(j);
    }
    for (const auto& [what, s] : in.made_s) add_phase(out.background_s, what, s);
    const std::vector<std::uint32_t> blocks = job_block_sizes(jobs[j], cfg);
    for (std::size_t bi = 0; bi < blocks.size(); ++bi)
      if (!run_point(jobs[j], j + bi, blocks[bi], in, lanes, cfg, set, lim, step, steps, out))
        return false;
    PhaseTimer t(out.phase_s, "inputs (free)");
    free_unless_hung(lanes, std::move(in));  // its hash thread ends before the buffers go
  }
  return true;
}

}  // namespace

std::shared_ptr<EarlyInputs> start_first_inputs(const ValidatedConfig& judged, bool on_gpu,
                                                const DeviceChoice& choice) {
  const RunConfig& cfg = *judged;
  Limits lim;  // run_suite checks again against the devices that opened
  lim.any_gpu = on_gpu;
  lim.max_buffer = max_buffer_of(choice, cfg.apis);
  if (cfg.n != 0)
    for (std::uint32_t n : run_sizes(cfg, on_gpu)) check_run_sizes(cfg, n, lim.max_buffer);
  try {
    std::vector<Job> jobs = plan_jobs(cfg, lim, run_sizes(cfg, on_gpu));
    std::uint64_t max_in = 0, max_out = 0;  // the pipeline reuses their host memory
    for (const Job& j : jobs) {
      max_in = std::max(max_in, input_words(j.plan.kernel_model()));
      max_out = std::max(max_out, output_words(j.plan.kernel_model()));
    }
    auto early =
        std::make_shared<EarlyInputs>(std::move(jobs.front().plan), cfg.seed, max_in, max_out);
    early->for_gpu = on_gpu;
    return early;
  } catch (const UsageError&) {
    return nullptr;
  }
}

RunOutcome run_suite(const RunConfig& cfg, const BackendSet& set) {
  return run_suite(validate_config(cfg), set);
}

RunOutcome run_suite(const ValidatedConfig& judged, const BackendSet& set) {
  const RunConfig& cfg = *judged;
  RunOutcome out;
  std::vector<ApiState> apis = api_states(cfg, set);
  const KeepHungBuffers keep_hung_buffers{apis};  // however run_suite ends
  Limits lim;
  std::vector<Job> jobs = plan_run(cfg, set, apis, lim, out);
  std::vector<const Plan*> plans;
  for (const Job& j : jobs) plans.push_back(&j.plan);
  // The first point's inputs; where a device hung, the guard leaks them (it may still use them).
  std::unique_ptr<InputPipeline> inputs;
  std::unique_ptr<Inputs> first;
  const KeepHungHostMemory<InputPipeline, Inputs> keep_hung_host{apis, inputs, first};
  inputs = std::make_unique<InputPipeline>(plans, cfg.seed, lim.any_backend, cfg.first_inputs.get());
  // The first point's, with their host memory registered (FirstInputs).
  first = std::make_unique<Inputs>(settle_with_first_inputs(apis, cfg, set, lim, *inputs, out));
  if (interrupted()) {
    out.interrupted = true;
    return out;
  }
  if (cfg.counters) profile_first(apis, jobs, cfg, lim, out);
  calibrate(apis, cfg, lim.max_x, lim.max_y, out);
  std::vector<Lane> lanes = lanes_of(apis, cfg);
  out.planned = planned_rows(jobs, lanes, cfg, out.sizes.size() > 1);
  if (cfg.on_start) cfg.on_start(out);
  if (!run_jobs(jobs, *first, *inputs, lanes, cfg, set, lim, out)) {
    out.interrupted = true;
    return out;
  }
  {
    PhaseTimer t(out.phase_s, "host cost");
    sample_host_costs(apis, cfg, lim.max_x, lim.max_y, out);
  }
  sample_dispatch_costs(apis, cfg, lim.max_x, lim.max_y, out);  // with --dispatch-cost
  return out;
}

std::uint32_t plan_launch_threads(const Plan& plan) {
  return static_cast<std::uint32_t>(plan.kernel_model().launch(0).threads);  // a built-in test's
}

}  // namespace cuvk
