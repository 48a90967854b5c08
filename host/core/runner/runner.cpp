// The one timing driver, as named phases (nvbench's measure_cold idea): plan -> settle clocks
// beside the first inputs -> calibrate -> per point: inputs, then per lane: correctness run +
// check -> measure -> rows out -> host cost. `Suite` holds the run's state and its operator()
// lists the phases; the plan is in runner_plan.cpp, one lane of one point is a LaneRun
// (runner_lane.cpp), chains' lanes are in runner_chain.cpp, the first point's inputs in
// runner_inputs.cpp, and validate_config, which makes the ValidatedConfig it takes, in
// run_config.cpp. Tests, the ceiling, the host-cost kernel and the L2 flush come from the
// catalogue: none is named here.
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
#include "output_checker.h"
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
// ---- settle clocks ----

// Allocates the flush scratch: the launch that evicts L2 before every timed repetition.
void prepare_flush(ApiState& a, const RunConfig& cfg, const Limits& lim,
                   std::uint64_t scratch_bytes) {
  Backend& b = *a.backend;
  a.scratch = b.allocate(scratch_bytes);
  a.sink = b.allocate(kFlushVecBytes);
  b.fill(*a.scratch, 0);
  a.flush =
      flush_launch(a.scratch.get(), a.sink.get(), cfg.block_sizes.front(), lim.max_x, lim.max_y);
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
  return fmt::format("{}{} block {} {}{}{}", row.kernel, label.empty() ? "" : " " + label,
                     row.block_size, api_name(row.api),
                     row.api == Api::vulkan ? std::string(" ") + binding_name(row.binding) : "",
                     row.queue_family ? fmt::format(" queue {}", *row.queue_family) : "");
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

// The runner's phases over one run (nvbench's measure_cold): what they share is members here,
// and operator() lists them in order. Made and run once by run_suite.
class Suite {
 public:
  Suite(const RunConfig& cfg, const BackendSet& set, const RunObserver& observer,
        std::shared_ptr<EarlyInputs> first_inputs)
      : cfg_(cfg),
        set_(set),
        observer_(observer),
        early_(std::move(first_inputs)),
        apis_(api_states(cfg, set)) {}
  Suite(const Suite&) = delete;
  Suite& operator=(const Suite&) = delete;

  RunOutcome operator()();

 private:
  RunOutcome interrupted_outcome();
  void open_inputs();
  void settle();
  void settle_gpus();
  void profile_first();
  bool run_jobs();
  bool run_point(const Job& job, std::size_t turn, std::uint32_t block, const Inputs& in);

  // One point's rows in lane order, which are done, how many went out, and whether an interrupt
  // stopped the point.
  struct PointRows {
    explicit PointRows(std::size_t lanes) : rows(lanes), done(lanes, 0) {}
    std::vector<ResultRow> rows;
    std::vector<char> done;
    std::size_t next = 0;
    bool stopped = false;
  };

  void emit(PointRows& p, bool all);

  const RunConfig& cfg_;
  const BackendSet& set_;
  const RunObserver& observer_;
  std::shared_ptr<EarlyInputs> early_;  // the first point's inputs made early, or null
  RunOutcome out_;
  std::vector<ApiState> apis_;
  const KeepHungBuffers keep_hung_buffers_{apis_};  // however the run ends
  Limits lim_;
  std::vector<Job> jobs_;
  // The input pipeline and the first point's inputs; where a device hung, the guard leaks them
  // (it may still use them).
  std::unique_ptr<InputPipeline> inputs_;
  std::unique_ptr<Inputs> first_;
  const KeepHungHostMemory<InputPipeline, Inputs> keep_hung_host_{apis_, inputs_, first_};
  std::vector<Lane> lanes_;  // pointing into apis_, which never changes size
  std::size_t step_ = 0, steps_ = 0;
};

RunOutcome Suite::operator()() {
  jobs_ = plan_run(cfg_, set_, apis_, lim_, out_);
  open_inputs();
  settle();
  if (interrupted()) return interrupted_outcome();
  if (cfg_.counters) profile_first();
  calibrate(apis_, cfg_, lim_.max_x, lim_.max_y, out_);
  lanes_ = lanes_of(apis_, cfg_);
  out_.planned = planned_rows(jobs_, lanes_, cfg_, out_.sizes.size() > 1);
  if (observer_.on_start) observer_.on_start(out_);
  if (!run_jobs()) return interrupted_outcome();
  {
    PhaseTimer t(out_.phase_s, "host cost");
    sample_host_costs(apis_, cfg_, lim_.max_x, lim_.max_y, out_);
  }
  sample_dispatch_costs(apis_, cfg_, lim_.max_x, lim_.max_y, out_);  // with --dispatch-cost
  return std::move(out_);
}

RunOutcome Suite::interrupted_outcome() {
  out_.interrupted = true;
  return std::move(out_);
}

// The input pipeline over every job's plan (it takes the early inputs where they fit).
void Suite::open_inputs() {
  std::vector<const Plan*> plans;
  for (const Job& j : jobs_) plans.push_back(&j.plan);
  inputs_ = std::make_unique<InputPipeline>(plans, cfg_.seed, lim_.any_backend, early_.get());
}

// The flush scratch of each backend, then the clocks settled while the first point's inputs
// are prepared and registered beside (FirstInputs); keeps those inputs once ready.
void Suite::settle() {
  for (ApiState& a : apis_) {
    if (!a.backend) continue;
    PhaseTimer t(out_.phase_s, "flush scratch");
    outside_rows(a, [&] { prepare_flush(a, cfg_, lim_, flush_scratch_bytes(lim_)); });
  }
  FirstInputs first_inputs(*inputs_, lim_.any_backend, apis_);
  settle_gpus();
  PhaseTimer t(out_.phase_s, "inputs (waiting)");
  first_ = std::make_unique<Inputs>(first_inputs.take(out_));
}

// Settles each GPU's clocks once (the first API on a GPU settles it), then samples the clocks.
void Suite::settle_gpus() {
  std::vector<const Backend*> settled;
  for (ApiState& a : apis_) {
    if (!a.backend) continue;
    PhaseTimer t(out_.phase_s, "settle");
    a.families = a.backend->copy_queue_families();
    if (std::none_of(settled.begin(), settled.end(),
                     [&a](const Backend* s) { return same_gpu(*s, *a.backend); }))
      outside_rows(a, [&] { settle_clocks(a, cfg_, set_.clocks, out_); });
    settled.push_back(a.backend);
  }
  PhaseTimer t(out_.phase_s, "settle");
  if (set_.clocks && lim_.any_backend) out_.clocks_after_settle = set_.clocks->sample();
}

// With --counters: the CUDA kernels' range-profiler counters, all before the first row
// (issue 21).
void Suite::profile_first() {
  std::vector<PlannedLaunch> launches;
  for (const Job& j : jobs_)
    // Its kernel reads its buffers as data, not as indices: it can run on the profiler's
    // buffers (filled with 1.0f and 0). The copy engine runs no kernel.
    if (j.plan.kernel != kCopyEngine && output_checker(j.plan.kernel_model()).knows_output_first())
      for (std::uint32_t block : job_block_sizes(j, cfg_)) try {
          launches.push_back({&j.plan, j.plan.geometry(block, lim_)});
        } catch (const UsageError&) {  // its row says so
        }
  for (ApiState& a : apis_) profile_kernels_first(a, launches, cfg_.l2 == L2Mode::cold, out_);
}

// Every point of every job in plan order, each job's inputs taken from the pipeline (the first
// job's are the settled ones) and freed after its points. Returns false when an interrupt
// stopped it.
bool Suite::run_jobs() {
  steps_ = count_steps(jobs_, lanes_, cfg_);
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    Inputs in;
    if (j == 0) {
      in = std::move(*first_);
    } else {
      PhaseTimer t(out_.phase_s, "inputs (waiting)");
      in = inputs_->take(j);
    }
    for (const auto& [what, s] : in.made_s) add_phase(out_.background_s, what, s);
    const std::vector<std::uint32_t> blocks = job_block_sizes(jobs_[j], cfg_);
    for (std::size_t bi = 0; bi < blocks.size(); ++bi)
      if (!run_point(jobs_[j], j + bi, blocks[bi], in)) return false;
    PhaseTimer t(out_.phase_s, "inputs (free)");
    free_unless_hung(lanes_, std::move(in));  // its hash thread ends before the buffers go
  }
  return true;
}

// Every lane of one point at one block size, alternating which API goes first so slow drift
// does not favour one of them. Rows go out in lane order as soon as they and the rows before
// them are done. Returns false when an interrupt stopped it.
bool Suite::run_point(const Job& job, std::size_t turn, std::uint32_t block, const Inputs& in) {
  const Geometry geom = job.plan.geometry(block, lim_);
  const Timing timing{cfg_, set_.clocks, out_};
  const OutputChecker& checker = output_checker(job.plan.kernel_model());
  PointRows rows(lanes_.size());
  for (std::size_t i = 0; i < lanes_.size() && !rows.stopped; ++i) {
    const std::size_t k = turn % 2 ? lanes_.size() - 1 - i : i;
    const Lane& lane = lanes_[k];
    rows.done[k] = 1;
    if (!lane_runs(lane, job)) continue;
    ResultRow row = row_of(job, lane, geom, out_.sizes.size() > 1);
    ++step_;
    rows.stopped = interrupted();
    if (rows.stopped) {
      rows.rows[k] = std::move(row);
      break;
    }
    if (observer_.progress && lane.state->backend &&
        lane.state->backend->binding_unsupported(lane.binding).empty()) {
      PhaseTimer t(out_.phase_s, "rows out");
      observer_.progress(step_ - 1, steps_, progress_what(row));
    }
    rows.rows[k] = LaneRun(lane, job, in, timing, std::move(row))();
    if (interrupted()) {  // during this lane: its row is unfinished unless it completed
      rows.stopped = true;
      break;
    }
    if (checker.knows_output_first()) emit(rows, false);  // else they wait for the point's end
  }
  checker.conclude_point(job.plan.kernel_model(), in, block, rows.rows);
  emit(rows, true);
  return !rows.stopped;
}

// The point's rows that are ready, in lane order (`all`: every one left), out to the observer
// and the outcome.
void Suite::emit(PointRows& p, bool all) {
  PhaseTimer t(out_.phase_s, "rows out");
  for (; p.next < p.rows.size() && (p.done[p.next] || all); ++p.next) {
    ResultRow& r = p.rows[p.next];
    if (r.test.empty() || (r.status == Status::unavailable && p.stopped)) continue;
    set_ceiling(r, out_.rows);
    if (out_.rows.empty()) {  // what the first row waited for (its own "rows out" not yet in)
      out_.first_row_phase_s = out_.phase_s;
      out_.first_row_background_s = out_.background_s;
    }
    if (observer_.on_row) observer_.on_row(r);
    out_.rows.push_back(std::move(r));
  }
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

RunOutcome run_suite(const RunConfig& cfg, const BackendSet& set, const RunObserver& observer) {
  return run_suite(validate_config(cfg), set, observer);
}

RunOutcome run_suite(const ValidatedConfig& judged, const BackendSet& set,
                     const RunObserver& observer, std::shared_ptr<EarlyInputs> first_inputs) {
  return Suite(*judged, set, observer, std::move(first_inputs))();
}

std::uint32_t plan_launch_threads(const Plan& plan) {
  return static_cast<std::uint32_t>(plan.kernel_model().launch(0).threads);  // a built-in test's
}

}  // namespace cuvk
