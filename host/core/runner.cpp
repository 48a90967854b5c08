// The one timing driver, as named phases (nvbench's measure_cold idea):
//   validate -> plan -> check resources -> settle clocks -> per point: prepare inputs, then per
//   API lane: correctness run + verify -> measure -> summarise (ceilings, host cost).
// Each phase is one function below; run_suite only sequences them. Tests, the ceiling, the
// host-cost kernel and the L2 flush all come from the catalogue: nothing here names a test.
#include "runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>

#include "error.h"
#include "host_data.h"
#include "input_pipeline.h"
#include "interrupt.h"
#include "l2_flush.h"
#include "util.h"

namespace cuvk {
namespace {

constexpr std::uint64_t kIndexLimit = std::uint64_t{1} << 32;  // kernels index with 32-bit uints
constexpr int kSettleBatch = 20;       // flush launches per settling batch
constexpr double kMinSettleMs = 50.0;  // GPU time settled at least, even with the clock at max
// Settling stops after kSettleWallFactor x --settle-ms + kSettleWallSlackS of wall time whatever
// the GPU clock says (a driver whose timestamps read zero or barely advance), or at once when a
// batch reports no positive, finite time.
constexpr double kSettleWallFactor = 2.0;
constexpr double kSettleWallSlackS = 0.5;
// Warm-up and timed repetitions go to the backend in calls of about this much wall time (at least
// one repetition), judged from the previous call, so an interrupt is seen well within 1 s.
constexpr double kBatchWallS = 0.25;

using WallClock = std::chrono::steady_clock;

double seconds_since(WallClock::time_point t0) {
  return std::chrono::duration<double>(WallClock::now() - t0).count();
}

// Adds the wall time of its scope to the named phase of RunOutcome::phase_s.
class PhaseTimer {
 public:
  PhaseTimer(std::vector<std::pair<std::string, double>>& phases, const char* name)
      : phases_(phases), name_(name), start_(WallClock::now()) {}
  ~PhaseTimer() {
    const double s = seconds_since(start_);
    for (auto& [phase, total] : phases_)
      if (phase == name_) {
        total += s;
        return;
      }
    phases_.emplace_back(name_, s);
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  std::vector<std::pair<std::string, double>>& phases_;
  const char* name_;
  WallClock::time_point start_;
};

const char* stop_name(StopReason r) {
  switch (r) {
    case StopReason::converged: return "converged";
    case StopReason::time_budget: return "time_budget";
    case StopReason::sample_budget: return "sample_budget";
    case StopReason::more: break;
  }
  return "more";
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// One API taking part in the run, with its L2-flush scratch (also the clock-settling work).
struct ApiState {
  Api api;
  Backend* backend;
  std::string reason;  // why there is no backend
  std::unique_ptr<DeviceBuffer> scratch, sink;
  Launch flush;
};

// One row per point: an API and, for Vulkan, a binding mode (descriptor, bda).
struct Lane {
  ApiState* state;
  Binding binding;
};

// Limits common to every device that will run, so both APIs get identical geometry.
struct Limits {
  std::uint32_t max_x = std::numeric_limits<std::uint32_t>::max(), max_y = max_x, max_block = max_x;
  std::uint64_t max_buffer = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t l2_bytes = 0, bus_bits = 0;
  bool any_gpu = false, any_backend = false, any_cpu = false;
};

struct Job {
  const TestCase* test;
  Point point;
  Plan plan;
};

std::uint32_t launch_threads(const Plan& plan) {
  return plan.launch_threads ? plan.launch_threads : plan.params.n;
}

Geometry geometry_for(std::uint32_t threads, std::uint32_t block, const Limits& lim) {
  return launch_geometry(threads, block, lim.max_x, lim.max_y);
}

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
      throw UsageError("block size " + std::to_string(b) + " exceeds the device limit " +
                       std::to_string(lim.max_block));
  out.l2_bytes = lim.l2_bytes;
  out.flush_bytes = cfg.l2 == L2Mode::cold ? flush_scratch_bytes(lim) : 0;
  out.clock_monitor = set.clocks ? "NVML" : set.clocks_reason;
  if (set.clocks && set.clocks->max_mem_mhz() > 0 && lim.bus_bits > 0)
    out.dram_peak_gbps = 2.0 * set.clocks->max_mem_mhz() * 1e6 * static_cast<double>(lim.bus_bits) /
                         8.0 / kBytesPerGB;
  out.n = cfg.n ? cfg.n : (lim.any_gpu ? kDefaultGpuN : kDefaultCpuN);
  out.n_rule = cfg.n            ? "--n"
               : lim.any_gpu    ? "default for GPUs (well beyond L2)"
                                : "default for CPU devices";
  out.max_time_s = cfg.max_time_s > 0.0 ? cfg.max_time_s
                   : lim.any_gpu        ? kDefaultGpuMaxTimeS
                                        : kDefaultCpuMaxTimeS;
}

// Every point of every selected test, planned before anything runs so a bad size fails first.
std::vector<Job> plan_jobs(const RunConfig& cfg, const Limits& lim, std::uint32_t n) {
  std::vector<Job> jobs;
  for (const std::string& name : cfg.tests) {
    const TestCase* t = find_test(name);
    if (!t) throw UsageError("unknown test '" + name + "'");
    for (const Point& p : points_of(*t, n, cfg.axis_values, cfg.layouts, cfg.variants)) {
      Plan plan = t->plan(p);
      for (std::uint64_t words : {plan.in_words, plan.out_words}) {
        if (words > kIndexLimit)
          throw UsageError(name + " at n=" + std::to_string(n) + ": " + std::to_string(words) +
                           " elements overflow 32-bit indices");
        if (words * sizeof(float) > lim.max_buffer)
          throw UsageError(name + " at n=" + std::to_string(n) + " needs a buffer of " +
                           std::to_string(words * sizeof(float)) + " bytes; the device allows " +
                           std::to_string(lim.max_buffer));
      }
      jobs.push_back({t, p, std::move(plan)});
    }
  }
  if (jobs.empty()) throw UsageError("the selection of tests, layouts and variants is empty");
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
  for (const Job& j : jobs)
    need_bytes = std::max<std::uint64_t>(need_bytes, (j.plan.in_words + j.plan.out_words) * sizeof(float));
  need_bytes += scratch_bytes + kFlushVecBytes;
  std::vector<std::string> required = {suite_kernels().l2_flush_kernel};
  for (const Job& j : jobs) required.push_back(j.plan.kernel);
  for (const ApiState& a : apis) {
    if (!a.backend) continue;
    if (const std::uint64_t free_bytes = a.backend->free_memory_bytes(); need_bytes > free_bytes)
      throw UsageError("n = " + std::to_string(n) + " needs " + std::to_string(need_bytes) +
                       " bytes of " + api_name(a.api) + " device memory; " +
                       std::to_string(free_bytes) + " bytes are free");
    if (auto missing = missing_kernels(required, a.backend->kernels()); !missing.empty())
      throw Error(std::string(api_name(a.api)) + " backend lacks kernels: " + join(missing));
  }
}

std::vector<Lane> lanes_of(std::vector<ApiState>& apis, const RunConfig& cfg) {
  std::vector<Lane> lanes;
  for (ApiState& a : apis) {
    if (a.api != Api::vulkan) lanes.push_back({&a, native_binding(a.api)});
    else
      for (Binding b : cfg.vk_bindings) lanes.push_back({&a, b});
  }
  return lanes;
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


ResultRow row_of(const Job& job, const Lane& lane, const Geometry& geom, std::uint32_t n) {
  ResultRow row;
  row.test = job.test->name;
  row.layout = job.point.layout;
  row.variant = job.point.variant;
  row.kernel = job.plan.kernel;
  row.api = lane.state->api;
  row.binding = lane.binding;
  row.n = n;
  row.axes = job.point.axes;
  row.block_size = geom.block_size;
  row.threads = launch_threads(job.plan);
  row.geometry = geom;
  row.useful_bytes = job.plan.traffic.useful_bytes;
  row.moved_bytes = job.plan.traffic.moved_bytes;
  row.sectors_per_request = job.plan.traffic.sectors_per_request;
  row.request_efficiency = job.plan.traffic.request_efficiency;
  return row;
}

// The untimed correctness run on freshly uploaded input and a poisoned output, every element
// checked. Returns false (row failed) on a mismatch.
bool correctness_run(Backend& b, const Launch& launch, DeviceBuffer& inbuf, const Inputs& in,
                     ResultRow& row, RunOutcome& out) {
  {
    PhaseTimer t(out.phase_s, "upload");
    b.upload(inbuf, in.input.data(), in.input.size() * sizeof(float));
    b.fill(*launch.out, kPoisonWord);
  }
  {
    PhaseTimer t(out.phase_s, "correctness run");
    b.run(launch, RunOptions{1, nullptr});
  }
  std::vector<float> got(in.expected.size());
  {
    PhaseTimer t(out.phase_s, "download");
    b.download(*launch.out, got.data(), got.size() * sizeof(float));
  }
  PhaseTimer t(out.phase_s, "verify");
  verify(got, in.expected, row);
  // Bit-identical to the expected output, so the same hash; only a wrong output is hashed anew.
  row.output_hash =
      row.verified ? in.expected_hash.get() : hash_output(got.data(), got.size() * sizeof(float));
  if (row.verified) return true;
  row.status = Status::failed;
  row.reason = std::to_string(row.mismatches) + " of " + std::to_string(row.checked) +
               " elements wrong, first at index " + std::to_string(*row.first_bad_index);
  return false;
}

// Flags that qualify a measured row: what a reader must know before trusting the number.
void add_flags(ResultRow& row, const RunConfig& cfg, const RunOutcome& out) {
  if (cfg.l2 == L2Mode::warm && out.l2_bytes > 0 && row.moved_bytes <= out.l2_bytes)
    row.flags.push_back("cache_resident");
  if (out.dram_peak_gbps && row.gbps_moved > *out.dram_peak_gbps)
    row.flags.push_back("above_dram_peak");
  if (row.clocks_start && row.clocks_end) {
    if (row.clocks_end->sm_mhz < row.clocks_start->sm_mhz) row.flags.push_back("clock_below_start");
    if ((row.clocks_start->event_reasons | row.clocks_end->event_reasons) & kThrottleMask)
      row.flags.push_back("throttled");
  }
  if (row.stop_reason != "converged") row.flags.push_back("ci_not_met");
}

// Hands repetitions to the backend in calls of about kBatchWallS of wall time (the first call:
// one repetition, to learn how long one takes), never more than asked for.
class Batches {
 public:
  Batches(Backend& b, const Launch& launch, const Launch* before)
      : b_(b), launch_(launch), before_(before) {}
  // Runs at most `wanted` (>= 1) repetitions, appends their GPU times to `times` (when given)
  // and returns how many ran.
  int run(int wanted, std::vector<double>* times) {
    int reps = 1;
    if (rep_wall_s_ >= 0.0)
      reps = rep_wall_s_ > 0.0 ? static_cast<int>(std::clamp(kBatchWallS / rep_wall_s_, 1.0,
                                                             static_cast<double>(wanted)))
                               : wanted;
    const auto t0 = WallClock::now();
    const std::vector<double> got = b_.run(launch_, RunOptions{reps, before_});
    rep_wall_s_ = seconds_since(t0) / reps;
    if (got.size() != static_cast<std::size_t>(reps))
      throw Error(std::string(api_name(b_.info().api)) + " backend returned " +
                  std::to_string(got.size()) + " times for " + std::to_string(reps) +
                  " repetitions");
    if (times) times->insert(times->end(), got.begin(), got.end());
    return reps;
  }

 private:
  Backend& b_;
  const Launch& launch_;
  const Launch* before_;
  double rep_wall_s_ = -1.0;  // wall time per repetition in the last call; < 0: no call yet
};

// Warm-up, then batches of up to cfg.reps timed repetitions until the stopping rule says enough.
// An interrupt leaves the row unfinished (status unavailable, "interrupted"): it is not reported.
void measure(Backend& b, const Launch& launch, const Launch* before, const RunConfig& cfg,
             ClockMonitor* clocks, RunOutcome& out, ResultRow& row) {
  PhaseTimer timer(out.phase_s, "measure");
  const StopRule rule{static_cast<std::size_t>(cfg.reps),
                      std::max<std::size_t>(cfg.max_samples, cfg.reps), cfg.target_ci,
                      out.max_time_s};
  Batches batches(b, launch, before);
  for (int done = 0; done < cfg.warmup && !interrupted();)
    done += batches.run(cfg.warmup - done, nullptr);
  if (clocks) row.clocks_start = clocks->sample();
  std::vector<double> samples;
  const auto t0 = WallClock::now();
  StopReason stop = StopReason::more;
  while (stop == StopReason::more) {
    if (interrupted()) {
      row.status = Status::unavailable;
      row.reason = "interrupted";
      return;
    }
    const int wanted = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(cfg.reps),
                                                              rule.max_samples - samples.size()));
    batches.run(wanted, &samples);
    row.time_ms = summarize(samples);
    stop = should_stop(row.time_ms, seconds_since(t0), rule);
  }
  if (clocks) row.clocks_end = clocks->sample();
  row.stop_reason = stop_name(stop);
  row.gbps_useful = gbps(row.useful_bytes, row.time_ms.median);
  row.gbps_moved = gbps(row.moved_bytes, row.time_ms.median);
  row.status = Status::ok;
  add_flags(row, cfg, out);
}

// One lane of one point: check, then time. Any failure becomes the row's reason.
void run_lane(const Lane& lane, const Job& job, const Inputs& in, const RunConfig& cfg,
              ClockMonitor* clocks, RunOutcome& out, ResultRow& row) {
  ApiState& a = *lane.state;
  if (!a.backend) {
    row.status = Status::unavailable;
    row.reason = a.reason;
    return;
  }
  if (const std::string why = a.backend->binding_unsupported(lane.binding); !why.empty()) {
    row.status = Status::unavailable;  // e.g. a driver without bufferDeviceAddress
    row.reason = why;
    return;
  }
  Backend& b = *a.backend;
  try {
    auto inbuf = b.allocate(job.plan.in_words * sizeof(float));
    auto outbuf = b.allocate(job.plan.out_words * sizeof(float));
    const Launch launch{job.plan.kernel, row.geometry, job.plan.params, inbuf.get(), outbuf.get(),
                        lane.binding};
    if (!correctness_run(b, launch, *inbuf, in, row, out)) return;
    measure(b, launch, cfg.l2 == L2Mode::cold ? &a.flush : nullptr, cfg, clocks, out, row);
  } catch (const std::exception& e) {
    row.status = Status::failed;
    row.reason = e.what();
  }
}

std::string progress_what(const ResultRow& row) {
  const std::string label = point_label(row);
  return row.kernel + (label.empty() ? "" : " " + label) + " block " +
         std::to_string(row.block_size) + " " + api_name(row.api) +
         (row.api == Api::vulkan ? std::string(" ") + binding_name(row.binding) : "");
}

// Every lane of one point at one block size, alternating which API goes first so slow drift
// does not favour one of them. Returns false when an interrupt stopped it.
bool is_ceiling(const ResultRow& r) {
  const SuiteKernels& sk = suite_kernels();
  return r.test == sk.ceiling_test && r.variant == sk.ceiling_variant && r.status == Status::ok;
}

// % of ceiling: the row's moved GB/s over its own API's and binding's ceiling point at the same
// block size, measured earlier in this run (plan_jobs puts the ceiling first; the copy engine rows
// have their API's native binding).
void set_ceiling(ResultRow& r, const std::vector<ResultRow>& earlier) {
  if (r.status != Status::ok) return;
  if (is_ceiling(r)) {
    if (r.gbps_moved > 0) r.pct_of_ceiling = 100.0;
    return;
  }
  for (const ResultRow& c : earlier)
    if (is_ceiling(c) && c.api == r.api && c.block_size == r.block_size && c.binding == r.binding &&
        c.gbps_moved > 0)
      r.pct_of_ceiling = 100.0 * r.gbps_moved / c.gbps_moved;
}

// Every lane of one point at one block size, alternating which API goes first so slow drift
// does not favour one of them. Rows go out in lane order as soon as they and the rows before
// them are done. Returns false when an interrupt stopped it.
bool run_point(const Job& job, std::size_t turn, std::uint32_t block, const Inputs& in,
               std::vector<Lane>& lanes, const RunConfig& cfg, const BackendSet& set,
               const Limits& lim, std::size_t& step, std::size_t steps, RunOutcome& out) {
  const Geometry geom = geometry_for(launch_threads(job.plan), block, lim);
  std::vector<ResultRow> rows(lanes.size());
  std::vector<char> done(lanes.size(), 0);
  std::size_t next = 0;
  bool stopped = false;
  auto emit_ready = [&](bool all) {
    for (; next < rows.size() && (done[next] || all); ++next) {
      ResultRow& r = rows[next];
      if (r.test.empty() || (r.status == Status::unavailable && stopped)) continue;
      set_ceiling(r, out.rows);
      if (cfg.on_row) cfg.on_row(r);
      out.rows.push_back(std::move(r));
    }
  };
  for (std::size_t i = 0; i < lanes.size() && !stopped; ++i) {
    const std::size_t k = turn % 2 ? lanes.size() - 1 - i : i;
    const Lane& lane = lanes[k];
    done[k] = 1;
    // The copy engine is no shader: it has no binding mode, so it gets the native lane only.
    if (job.plan.kernel == kCopyEngine && lane.binding != native_binding(lane.state->api)) continue;
    rows[k] = row_of(job, lane, geom, out.n);
    ++step;
    stopped = interrupted();
    if (stopped) break;
    if (cfg.progress && lane.state->backend &&
        lane.state->backend->binding_unsupported(lane.binding).empty())
      cfg.progress(step - 1, steps, progress_what(rows[k]));
    run_lane(lane, job, in, cfg, set.clocks, out, rows[k]);
    if (interrupted()) {  // during this lane: its row is unfinished unless it completed
      stopped = true;
      break;
    }
    emit_ready(false);
  }
  emit_ready(true);
  return !stopped;
}

// ---- summarise ----

// Host-side costs: a one-block launch of the suite's host-cost kernel, issued many times.
void sample_host_costs(std::vector<ApiState>& apis, const RunConfig& cfg, const Limits& lim,
                       RunOutcome& out) {
  for (ApiState& a : apis) {
    if (!a.backend || cfg.host_cost_samples <= 0) continue;
    Backend& b = *a.backend;
    const std::uint32_t block = cfg.block_sizes.front();
    auto in = b.allocate(block * sizeof(float));
    auto outbuf = b.allocate(block * sizeof(float));
    b.fill(*in, 0x3F800000u);  // 1.0f
    const Launch tiny{suite_kernels().host_cost_kernel, geometry_for(block, block, lim),
                      CuvkParams{block, 0, 1, 0}, in.get(), outbuf.get()};
    HostCostSamples samples = b.host_cost(tiny, cfg.host_cost_samples);
    out.host.push_back({a.api, summarize(samples.launch_us), summarize(samples.submit_us),
                        summarize(samples.round_trip_us), b.startup_ms()});
  }
}

}  // namespace

const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::failed: return "failed";
    case Status::unavailable: return "unavailable";
  }
  return "?";
}

bool same_point(const ResultRow& a, const ResultRow& b) {
  return a.test == b.test && a.layout == b.layout && a.variant == b.variant && a.n == b.n &&
         a.axes == b.axes && a.block_size == b.block_size;
}

std::string point_label(const ResultRow& row) {
  const TestCase* t = find_test(row.test);
  return point_label(row.axes, t ? t->sweeps : std::vector<std::string>{});
}

namespace {

std::string bound_text(double v) {
  std::ostringstream o;
  o << std::setprecision(15) << v;  // 1000000, 0.01, 600
  return o.str();
}

// "--reps must be between 1 and 10000": the option and its bounds.
void check_range(double value, double lo, double hi, const std::string& what,
                 const std::string& unit = "") {
  if (!(value >= lo && value <= hi))  // also NaN
    throw UsageError(what + " must be between " + bound_text(lo) + " and " + bound_text(hi) + unit);
}

void check_count(std::size_t count, std::size_t bound, const std::string& what) {
  if (count > bound)
    throw UsageError(what + ": more than " + std::to_string(bound) + " values (at most " +
                     std::to_string(bound) + ")");
}

}  // namespace

void validate_config(const RunConfig& cfg) {
  check_range(cfg.reps, 1, kMaxReps, "--reps");
  check_range(cfg.warmup, 0, kMaxWarmup, "--warmup");
  if (cfg.block_sizes.empty()) throw UsageError("no block size given");
  check_count(cfg.block_sizes.size(), kMaxBlockSizes, "--block-sizes");
  for (std::uint32_t b : cfg.block_sizes)
    if (b == 0 || b % kWarpSize != 0)
      throw UsageError("block size " + std::to_string(b) + " is not a positive multiple of 32");
  if (cfg.vk_bindings.empty()) throw UsageError("no Vulkan binding mode given");
  for (Binding b : cfg.vk_bindings)
    if (b == Binding::pointer) throw UsageError("Vulkan binding modes are descriptor and bda");
  if (!(cfg.target_ci >= kMinTargetCi) || cfg.target_ci >= 1.0)
    throw UsageError("--target-ci must be at least " + bound_text(100.0 * kMinTargetCi) +
                     " and below 100 (percent of the median)");
  check_range(cfg.max_time_s, 0.0, kMaxTimeS, "--max-time", " seconds (0: automatic)");
  check_range(cfg.settle_ms, 0.0, kMaxSettleMs, "--settle-ms");
  check_range(static_cast<double>(cfg.max_samples), 1, static_cast<double>(kMaxSamples),
              "max_samples");
  check_range(cfg.host_cost_samples, 0, kMaxHostCostSamples, "host_cost_samples");
  for (const auto& [name, values] : cfg.axis_values) {
    const Axis* axis = find_axis(name);
    if (axis == nullptr) throw UsageError("unknown sweep axis '" + name + "'");
    if (values.empty()) throw UsageError(axis->option + ": no values given");
    check_count(values.size(), kMaxAxisValues, axis->option);
    for (std::uint32_t v : values)
      if (v < axis->min_value)
        throw UsageError(axis->option + ": " + name + " " + std::to_string(v) +
                         " is not allowed (at least " + std::to_string(axis->min_value) + ")");
  }
}

std::shared_ptr<EarlyInputs> start_first_inputs(const RunConfig& cfg, bool on_gpu) {
  Limits lim;  // buffer sizes are checked against the devices by run_suite
  lim.any_gpu = on_gpu;
  try {
    validate_config(cfg);
    std::vector<Job> jobs = plan_jobs(cfg, lim, cfg.n ? cfg.n : (on_gpu ? kDefaultGpuN : kDefaultCpuN));
    return std::make_shared<EarlyInputs>(std::move(jobs.front().plan), cfg.seed);
  } catch (const UsageError&) {
    return nullptr;
  }
}

RunOutcome run_suite(const RunConfig& cfg, const BackendSet& set) {
  validate_config(cfg);
  RunOutcome out;
  std::vector<ApiState> apis;
  for (Api a : cfg.apis)
    apis.push_back({a, a == Api::cuda ? set.cuda : set.vulkan,
                    a == Api::cuda ? set.cuda_reason : set.vulkan_reason, nullptr, nullptr, {}});
  std::vector<Job> jobs;
  Limits lim;
  {
    PhaseTimer t(out.phase_s, "plan");
    lim = device_limits(apis);
    choose_run_settings(cfg, set, lim, out);
    jobs = plan_jobs(cfg, lim, out.n);
    check_resources(jobs, apis, flush_scratch_bytes(lim), out.n);
  }
  std::vector<const Plan*> plans;
  for (const Job& j : jobs) plans.push_back(&j.plan);
  // The first point's inputs: prepared while the devices opened, or now while settling.
  InputPipeline inputs(plans, cfg.seed, lim.any_backend, cfg.first_inputs.get());
  {
    PhaseTimer t(out.phase_s, "settle");
    std::vector<const Backend*> settled;
    for (ApiState& a : apis) {
      if (!a.backend) continue;
      prepare_flush(a, cfg, lim, flush_scratch_bytes(lim));
      if (std::none_of(settled.begin(), settled.end(),
                       [&a](const Backend* s) { return same_gpu(*s, *a.backend); }))
        settle_clocks(a, cfg, set.clocks, out);
      settled.push_back(a.backend);
    }
    if (set.clocks && lim.any_backend) out.clocks_after_settle = set.clocks->sample();
  }
  if (interrupted()) {
    out.interrupted = true;
    return out;
  }
  if (cfg.on_start) cfg.on_start(out);
  std::vector<Lane> lanes = lanes_of(apis, cfg);
  const std::size_t steps = jobs.size() * cfg.block_sizes.size() * lanes.size();
  std::size_t step = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    Inputs in;
    {
      PhaseTimer t(out.phase_s, "inputs (waiting)");
      in = inputs.take(j);
    }
    for (std::size_t bi = 0; bi < cfg.block_sizes.size(); ++bi)
      if (!run_point(jobs[j], j + bi, cfg.block_sizes[bi], in, lanes, cfg, set, lim, step, steps, out)) {
        out.interrupted = true;
        return out;
      }
  }
  {
    PhaseTimer t(out.phase_s, "host cost");
    sample_host_costs(apis, cfg, lim, out);
  }
  return out;
}

Geometry launch_geometry(std::uint32_t threads, std::uint32_t block, std::uint32_t max_x,
                         std::uint32_t max_y) {
  const std::uint64_t groups = std::max<std::uint64_t>(1, ceil_div<std::uint64_t>(threads, block));
  Geometry g;
  g.block_size = block;
  const std::uint64_t gy = ceil_div<std::uint64_t>(groups, max_x);
  const std::uint64_t gx = ceil_div<std::uint64_t>(groups, gy);
  if (gy > max_y)
    throw UsageError("n = " + std::to_string(threads) + " needs more workgroups than the devices allow");
  g.grid_x = static_cast<std::uint32_t>(gx);
  g.grid_y = static_cast<std::uint32_t>(gy);
  return g;
}

std::uint32_t plan_launch_threads(const Plan& plan) { return launch_threads(plan); }

}  // namespace cuvk
