// One lane of one point as an object (runner_parts.h's LaneRun): its buffers, launch and row are
// members, and operator() lists the phases: allocate -> upload -> correctness run -> check ->
// measure -> extras. The untimed correctness run has fresh inputs and poisoned outputs, and every
// element is checked as the kernel model says before any time counts; measure() runs warm-up and
// timed batches until the stopping rule says enough and adds the flags a reader must know.
// runner.cpp's Suite sequences the points and lanes; a row's identity is planned in
// runner_plan.cpp.
#include <algorithm>
#include <exception>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "error.h"
#include "host_data.h"
#include "interrupt.h"
#include "output_check.h"
#include "output_checker.h"
#include "runner_parts.h"
#include "runner_trace.h"
#include "stats.h"
#include "util.h"

namespace cuvk::runner_detail {
namespace {

// Warm-up and timed repetitions go to the backend in calls of about this much wall time (at least
// one repetition), judged from the previous call, so an interrupt is seen well within 1 s.
constexpr double kBatchWallS = 0.25;
// The warm-up ends after --warmup repetitions or this share of the time budget, whichever is first
// (at least one call): a launch of seconds is not warmed up for minutes.
constexpr double kWarmupShare = 0.25;

const char* stop_name(StopReason r) {
  switch (r) {
    case StopReason::converged:
      return "converged";
    case StopReason::time_budget:
      return "time_budget";
    case StopReason::sample_budget:
      return "sample_budget";
    case StopReason::more:
      break;
  }
  return "more";
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
  if (launch_bound(row, out.calibration)) row.flags.push_back("launch_bound");
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
    std::vector<double> got = b_.run(launch_, RunOptions{reps, before_});
    rep_wall_s_ = seconds_since(t0) / reps;
    for (double& t : got) t /= std::max(1u, launch_.chain.steps);  // a chain: its span per step
    if (got.size() != static_cast<std::size_t>(reps))
      throw Error(fmt::format("{} backend returned {} times for {} repetitions",
                              api_name(b_.info().api), got.size(), reps));
    if (times) times->insert(times->end(), got.begin(), got.end());
    return reps;
  }

 private:
  Backend& b_;
  const Launch& launch_;
  const Launch* before_;
  double rep_wall_s_ = -1.0;  // wall time per repetition in the last call; < 0: no call yet
};

}  // namespace

// Warm-up, then batches of up to cfg.reps timed repetitions until the stopping rule says enough.
// An interrupt leaves the row unfinished (status unavailable, "interrupted"): it is not reported.
void measure(const Timing& t, Backend& b, const Launch& launch, const Launch* before,
             ResultRow& row) {
  const RunConfig& cfg = t.cfg;
  RunOutcome& out = t.out;
  ClockMonitor* clocks = t.clocks;
  PhaseTimer timer(out.phase_s, api_phase(b.info().api, "measure"));
  const StopRule rule{static_cast<std::size_t>(cfg.reps),
                      std::max<std::size_t>(cfg.max_samples, cfg.reps), cfg.target_ci,
                      out.max_time_s};
  Batches batches(b, launch, before);
  // Warm-up within a share of the budget: a slow launch's first runs warm it (issue 49).
  const auto w0 = WallClock::now();
  for (int done = 0; done < cfg.warmup && !interrupted() &&
                     (done == 0 || seconds_since(w0) < kWarmupShare * out.max_time_s);)
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

namespace {

// "" when the lane's queue family (if any) can run and time copies, else why not.
std::string family_unusable(const Lane& lane) {
  const QueueFamily* f = lane.family;
  if (f == nullptr) return {};
  const std::string name = fmt::format("queue family {} ({})", f->index, f->flags);
  if (f->queue_count == 0) return name + " has no queues";
  if (f->timestamp_valid_bits == 0)
    return name + " has no timestamps (timestampValidBits = 0): its copies cannot be timed";
  return {};
}

// Why `lane` cannot run `plan` here (no backend, a hung device, a binding, submission mode or
// queue family it does not offer); nothing where it can.
std::optional<std::string> lane_unusable(const Lane& lane, const Plan& plan) {
  const ApiState& a = *lane.state;
  if (!a.backend) {
    // A pair's side that cannot run says what was done instead (compiled, by what).
    const std::string note = plan.side_note(a.api);
    return note.empty() ? a.reason : fmt::format("{}, not run: {}", note, a.reason);
  }
  if (!plan.side_built(a.api))  // e.g. CUDA without NVRTC, on a machine with a CUDA GPU
    return fmt::format("{}, not run: no {} kernel to launch", plan.side_note(a.api),
                       api_name(a.api));
  if (const std::string why = a.backend->hung(); !why.empty())
    return fmt::format("not run: the {} device is unusable: {}", api_name(a.api), why);
  // e.g. a driver without bufferDeviceAddress
  if (std::string why = a.backend->binding_unsupported(lane.binding); !why.empty()) return why;
  if (lane.submission)  // e.g. pdl below compute capability 9.0
    if (std::string why = a.backend->submission_unsupported(*lane.submission); !why.empty())
      return why;
  if (std::string why = family_unusable(lane); !why.empty()) return why;
  if (lane.binding == Binding::bda && !plan.kernel_model().bda)
    return "the pair has no bda form of its shader ([glsl] bda_defines, bda_source, bda_spirv)";
  return std::nullopt;
}

// RunConfig::dispatch_chain: `launch` `k` times as one sequence, each launch after the one before
// (stream order / a compute-to-compute barrier), in the API's recorded mode; chain.steps counts
// the dispatches for the time per dispatch (Batches). The output is what one launch writes.
Launch dispatch_chain(const Launch& launch, std::uint32_t k, Api api) {
  Launch seq;
  seq.kernel = launch.kernel;
  seq.buffers = launch.buffers;
  seq.sequence = {launch};
  seq.repeat = k;
  seq.chain.steps = k;
  seq.chain.submission = api == Api::cuda ? Submission::graph : Submission::recorded;
  return seq;
}

}  // namespace

LaneRun::LaneRun(const Lane& lane, const Job& job, const Inputs& in, const Timing& timing,
                 ResultRow row)
    : lane_(lane),
      job_(job),
      model_(job.plan.kernel_model()),
      checker_(output_checker(model_)),
      in_(in),
      t_(timing),
      row_(std::move(row)),
      a_(*lane.state),
      no_flush_(lane.family != nullptr && !lane.family->compute) {
  if (timing.cfg.l2 == L2Mode::cold && !no_flush_) before_ = &a_.flush;
}

ResultRow LaneRun::operator()() && {
  if (unavailable()) return std::move(row_);
  try {
    allocate();
    upload();
    correctness_run();
    if (check_and_measure() && row_.status == Status::ok) extras();
    PhaseTimer t(t_.out.phase_s, api_phase(a_.api, "free"));
    lb_ = LaneBuffers{};
  } catch (const std::exception& e) {
    row_.status = Status::failed;
    row_.reason = e.what();
  }
  return std::move(row_);
}

// Whether the lane cannot run here: then the row is unavailable, with the reason.
bool LaneRun::unavailable() {
  std::optional<std::string> why = lane_unusable(lane_, job_.plan);
  if (!why) return false;
  row_.status = Status::unavailable;
  row_.reason = std::move(*why);
  return true;
}

// The model's buffers allocated for the lane, and the launch over them: the kernel, the row's
// geometry, the lane's binding, queue family and chain, the model's scalars; with
// RunConfig::dispatch_chain, that launch repeated as one chain.
void LaneRun::allocate() {
  Backend& b = *a_.backend;
  {
    PhaseTimer t(t_.out.phase_s, api_phase(a_.api, "allocate"));
    for (const ModelBuffer& buf : model_.buffers)
      lb_.owned.push_back(b.allocate(allocation_bytes(buf)));
    if (lane_.submission && model_.chain_steps > 0)
      lb_.chain = b.allocate(output_words(model_) * sizeof(float));
  }
  launch_.kernel = job_.plan.kernel;
  launch_.geometry = row_.geometry;
  launch_.binding = lane_.binding;
  launch_.scalars = model_.scalars;
  launch_.shared_bytes = static_cast<std::uint32_t>(model_.launch(row_.block_size).shared_bytes);
  for (std::size_t i = 0; i < model_.buffers.size(); ++i)
    launch_.buffers.push_back(
        model_.buffers[i].guarded
            ? BufferView{lb_.owned[i].get(), kGuardBytes, model_.buffers[i].bytes()}
            : whole(*lb_.owned[i]));
  if (lane_.family != nullptr)
    launch_.queue_family = static_cast<std::int32_t>(lane_.family->index);
  if (lane_.submission && model_.chain_steps > 0)
    launch_.chain = {model_.chain_steps, *lane_.submission, lb_.chain.get()};
  // The chain repeats the launch on the same buffers: a kernel checked by the CPU reference
  // writes out = f(in), the same each time; a pair's may update in place (its expected file).
  if (t_.cfg.dispatch_chain > 1 && !lane_.submission && lane_.family == nullptr &&
      checker_.knows_output_first()) {
    launch_ = dispatch_chain(launch_, t_.cfg.dispatch_chain, a_.api);
    row_.flags.push_back("dispatch_chain");
  }
}

// Each buffer's contents for the correctness run: the point's random input from its host array
// (registered with the backend once per slot and size, so transfers copy straight from and into
// it), a guarded buffer's image (declared contents or the lane's poison between guard bands),
// an unguarded output filled with kPoisonWord; a sequence's steps added once the images exist.
void LaneRun::upload() {
  Backend& b = *a_.backend;
  const Api api = a_.api;
  RunOutcome& out = t_.out;
  if (std::any_of(model_.buffers.begin(), model_.buffers.end(),
                  [](const ModelBuffer& x) { return x.point_input; })) {
    PhaseTimer t(out.phase_s, api_phase(api, "register host memory"));
    in_.slot->input.register_with(b, in_.input.size());
    in_.slot->download.register_with(b, in_.download.size());
  }
  {
    PhaseTimer t(out.phase_s, api_phase(api, "upload"));
    for (std::size_t i = 0; i < model_.buffers.size(); ++i) {
      const ModelBuffer& buf = model_.buffers[i];
      lb_.images.emplace_back();
      if (buf.guarded) {
        const std::uint32_t poison = lane_poison_word(api, lane_.binding);
        lb_.images.back() = guarded_image(buf, in_.declared.initial[i], poison);
        b.upload(*lb_.owned[i], lb_.images.back().data(), lb_.images.back().size());
      } else if (buf.point_input) {
        b.upload(*lb_.owned[i], in_.input.data(), in_.input.size() * sizeof(float));
      }
    }
    if (job_.plan.is_sequence()) add_sequence(model_, lane_, row_.block_size, b, lb_, launch_);
  }
  for (std::size_t i = 0; i < model_.buffers.size(); ++i)
    if (!model_.buffers[i].guarded && model_.buffers[i].poisoned) {
      PhaseTimer t(out.phase_s, api_phase(api, "poison"));
      b.fill(*lb_.owned[i], kPoisonWord);
    }
}

// The untimed correctness run, then its outputs downloaded: a guarded buffer whole (its guards
// are checked too), an unguarded output into the point's download array.
void LaneRun::correctness_run() {
  Backend& b = *a_.backend;
  {
    PhaseTimer t(t_.out.phase_s, api_phase(a_.api, "correctness run"));
    b.run(launch_, RunOptions{1, nullptr});
  }
  PhaseTimer t(t_.out.phase_s, api_phase(a_.api, "download"));
  lb_.got.resize(model_.buffers.size());
  for (std::size_t i = 0; i < model_.buffers.size(); ++i) {
    const ModelBuffer& buf = model_.buffers[i];
    if (buf.guarded) {
      lb_.got[i].resize(lb_.owned[i]->bytes());
      b.download(*lb_.owned[i], lb_.got[i].data(), lb_.got[i].size());
    } else if (buf.output) {
      b.download(*lb_.owned[i], in_.download.data(), in_.download.size() * sizeof(float));
    }
  }
}

// The correctness run's outputs checked as the model's checker says and the launch measured;
// whether they passed (the row then holds the timings).
bool LaneRun::check_and_measure() {
  const CheckedLane lane{
      lane_, model_, lb_,
      in_,   t_.out, [this](ResultRow& row) {
                           measure(t_, *a_.backend, launch_, before_, row); }};
  return checker_.check_lane(lane, row_);
}

// What follows a measured row: the chain's host time, a sequence's state, the counters, the trace.
void LaneRun::extras() {
  Backend& b = *a_.backend;
  const RunConfig& cfg = t_.cfg;
  if (cfg.l2 == L2Mode::cold && no_flush_) row_.flags.push_back("l2_not_flushed");
  if (lane_.submission && model_.chain_steps > 0) measure_chain_host(b, launch_, t_.out, row_);
  check_state(model_, b, lb_, row_);
  if (cfg.counters && row_.status == Status::ok) {
    if (!job_.plan.is_sequence()) {
      collect_counters(a_, launch_, before_, t_.out, row_);
    } else {
      RowCounters none;
      none.kernel_unavailable = none.sampled_unavailable =
          "a pair of steps: the counters attribute a batch of one kernel's dispatches";
      row_.counters = std::move(none);
    }
  }
  if (cfg.trace && row_.status == Status::ok && checker_.knows_output_first())
    trace_lane(t_, a_, launch_, before_, in_, row_);  // built-in kernels' traced twins
}

}  // namespace cuvk::runner_detail
