// One lane of one point (runner_parts.h): the untimed correctness run on fresh inputs and a
// poisoned output, every element verified, then warm-up and timed batches until the stopping rule
// says enough, and the flags a reader must know. runner.cpp sequences the points and lanes.
#include <algorithm>
#include <exception>
#include <future>
#include <string>
#include <vector>

#include "error.h"
#include "host_data.h"
#include "interrupt.h"
#include "output_check.h"
#include "runner_parts.h"
#include "runner_trace.h"
#include "stats.h"
#include "util.h"

namespace cuvk::runner_detail {
namespace {

// Warm-up and timed repetitions go to the backend in calls of about this much wall time (at least
// one repetition), judged from the previous call, so an interrupt is seen well within 1 s.
constexpr double kBatchWallS = 0.25;

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

// A lane's device buffers: the model's, in order (then a restore's saved copies), a chain's
// ping-pong buffer, the guarded ones as uploaded and as downloaded whole after the correctness run.
struct LaneBuffers {
  std::vector<std::unique_ptr<DeviceBuffer>> owned;
  std::unique_ptr<DeviceBuffer> chain;
  std::vector<std::vector<std::uint8_t>> images, got;
};

// The model's buffers allocated for `lane`, and the launch over them: the kernel, the row's
// geometry, the lane's binding, queue family and chain, the model's scalars.
Launch allocate_lane(const Lane& lane, const Job& job, const ResultRow& row, Backend& b,
                     RunOutcome& out, LaneBuffers& lb) {
  const KernelModel& m = job.plan.kernel_model();
  {
    PhaseTimer t(out.phase_s, api_phase(b.info().api, "allocate"));
    for (const ModelBuffer& buf : m.buffers) lb.owned.push_back(b.allocate(allocation_bytes(buf)));
    if (lane.submission && m.chain_steps > 0)
      lb.chain = b.allocate(output_words(m) * sizeof(float));
  }
  Launch launch;
  launch.kernel = job.plan.kernel;
  launch.geometry = row.geometry;
  launch.binding = lane.binding;
  launch.scalars = m.scalars;
  launch.shared_bytes = static_cast<std::uint32_t>(m.launch(row.block_size).shared_bytes);
  for (std::size_t i = 0; i < m.buffers.size(); ++i)
    launch.buffers.push_back(m.buffers[i].guarded
                                 ? BufferView{lb.owned[i].get(), kGuardBytes, m.buffers[i].bytes()}
                                 : whole(*lb.owned[i]));
  if (lane.family != nullptr) launch.queue_family = static_cast<std::int32_t>(lane.family->index);
  if (lane.submission && m.chain_steps > 0)
    launch.chain = {m.chain_steps, *lane.submission, lb.chain.get()};
  return launch;
}

// Each buffer's contents for the correctness run: the point's random input from its host array
// (registered with the backend once per slot and size, so transfers copy straight from and into
// it), a guarded buffer's image (declared contents or the lane's poison between guard bands),
// an unguarded output filled with kPoisonWord; a sequence's steps added once the images exist.
void upload_lane(const Lane& lane, const Job& job, const ResultRow& row, const Inputs& in,
                 Backend& b, RunOutcome& out, LaneBuffers& lb, Launch& launch) {
  const KernelModel& m = job.plan.kernel_model();
  const Api api = b.info().api;
  const bool point_input = std::any_of(m.buffers.begin(), m.buffers.end(),
                                       [](const ModelBuffer& x) { return x.point_input; });
  if (point_input) {
    PhaseTimer t(out.phase_s, api_phase(api, "register host memory"));
    in.slot->input.register_with(b, in.input.size());
    in.slot->download.register_with(b, in.download.size());
  }
  {
    PhaseTimer t(out.phase_s, api_phase(api, "upload"));
    for (std::size_t i = 0; i < m.buffers.size(); ++i) {
      const ModelBuffer& buf = m.buffers[i];
      lb.images.emplace_back();
      if (buf.guarded) {
        const std::uint32_t poison = lane_poison_word(api, lane.binding);
        lb.images.back() = guarded_image(buf, in.declared.initial[i], poison);
        b.upload(*lb.owned[i], lb.images.back().data(), lb.images.back().size());
      } else if (buf.point_input) {
        b.upload(*lb.owned[i], in.input.data(), in.input.size() * sizeof(float));
      }
    }
    if (job.plan.is_sequence()) add_sequence(m, lane, row, b, lb.images, lb.owned, launch);
  }
  for (std::size_t i = 0; i < m.buffers.size(); ++i)
    if (!m.buffers[i].guarded && m.buffers[i].poisoned) {
      PhaseTimer t(out.phase_s, api_phase(api, "poison"));
      b.fill(*lb.owned[i], kPoisonWord);
    }
}

// The untimed correctness run, then its outputs downloaded: a guarded buffer whole (its guards
// are checked too), an unguarded output into the point's download array.
void correctness_run(Backend& b, const Launch& launch, const KernelModel& m, const Inputs& in,
                     LaneBuffers& lb, RunOutcome& out) {
  const Api api = b.info().api;
  {
    PhaseTimer t(out.phase_s, api_phase(api, "correctness run"));
    b.run(launch, RunOptions{1, nullptr});
  }
  PhaseTimer t(out.phase_s, api_phase(api, "download"));
  lb.got.resize(m.buffers.size());
  for (std::size_t i = 0; i < m.buffers.size(); ++i) {
    const ModelBuffer& buf = m.buffers[i];
    if (buf.guarded) {
      lb.got[i].resize(lb.owned[i]->bytes());
      b.download(*lb.owned[i], lb.got[i].data(), lb.got[i].size());
    } else if (buf.output) {
      b.download(*lb.owned[i], in.download.data(), in.download.size() * sizeof(float));
    }
  }
}

// The verdict on the downloaded output (verify() has filled row's checked, mismatches, verified):
// its hash, and on a mismatch the row failed. Returns whether every element matched.
bool conclude_check(Api api, const Inputs& in, ResultRow& row, RunOutcome& out) {
  const Span<float> got = in.download;
  PhaseTimer t(out.phase_s, api_phase(api, "hash"));
  // Bit-identical to the expected output, so the same hash; only a wrong output is hashed anew.
  row.output_hash =
      row.verified ? in.expected_hash.get() : hash_output(got.data(), got.size() * sizeof(float));
  if (row.verified) {  // every element equal to the CPU's own computation of the test
    row.check = Check::verified;
    row.checked_against = {"cpu reference"};
    return true;
  }
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

}  // namespace

// Warm-up, then batches of up to cfg.reps timed repetitions until the stopping rule says enough.
// An interrupt leaves the row unfinished (status unavailable, "interrupted"): it is not reported.
void measure(Backend& b, const Launch& launch, const Launch* before, const RunConfig& cfg,
             ClockMonitor* clocks, RunOutcome& out, ResultRow& row) {
  PhaseTimer timer(out.phase_s, api_phase(b.info().api, "measure"));
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

namespace {

// "" when the lane's queue family (if any) can run and time copies, else why not.
std::string family_unusable(const Lane& lane) {
  const QueueFamily* f = lane.family;
  if (f == nullptr) return {};
  const std::string name = "queue family " + std::to_string(f->index) + " (" + f->flags + ")";
  if (f->queue_count == 0) return name + " has no queues";
  if (f->timestamp_valid_bits == 0)
    return name + " has no timestamps (timestampValidBits = 0): its copies cannot be timed";
  return {};
}

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

namespace {

// Whether `lane` cannot run here (no backend, a hung device, a binding or queue family it does
// not offer): then the row is unavailable, with the reason.
bool lane_unavailable(const Lane& lane, const Plan& plan, ResultRow& row) {
  const ApiState& a = *lane.state;
  if (!a.backend) {
    row.status = Status::unavailable;
    row.reason = a.reason;
    // A pair's side that cannot run says what was done instead (compiled, by what).
    const std::string note = plan.side_note(a.api);
    if (!note.empty()) row.reason = note + ", not run: " + a.reason;
    return true;
  }
  if (!plan.side_built(a.api)) {  // e.g. CUDA without NVRTC, on a machine with a CUDA GPU
    row.status = Status::unavailable;
    row.reason = plan.side_note(a.api) + ", not run: no " + api_name(a.api) + " kernel to launch";
    return true;
  }
  if (const std::string why = a.backend->hung(); !why.empty()) {
    row.status = Status::unavailable;
    row.reason = std::string("not run: the ") + api_name(a.api) + " device is unusable: " + why;
    return true;
  }
  if (const std::string why = a.backend->binding_unsupported(lane.binding); !why.empty()) {
    row.status = Status::unavailable;  // e.g. a driver without bufferDeviceAddress
    row.reason = why;
    return true;
  }
  if (lane.submission) {
    if (const std::string why = a.backend->submission_unsupported(*lane.submission); !why.empty()) {
      row.status = Status::unavailable;  // e.g. pdl below compute capability 9.0
      row.reason = why;
      return true;
    }
  }
  if (const std::string why = family_unusable(lane); !why.empty()) {
    row.status = Status::unavailable;
    row.reason = why;
    return true;
  }
  if (lane.binding == Binding::bda && !plan.kernel_model().bda) {
    row.status = Status::unavailable;
    row.reason =
        "the pair has no bda form of its shader ([glsl] bda_defines, bda_source, bda_spirv)";
    return true;
  }
  return false;
}

// The correctness run's output verified and the launch measured, in the order the device allows;
// whether every element matched (the row then holds the timings).
bool verify_and_measure(const ApiState& a, const Launch& launch, const Launch* before,
                        const Inputs& in, const RunConfig& cfg, ClockMonitor* clocks,
                        RunOutcome& out, ResultRow& row) {
  Backend& b = *a.backend;
  const Api api = a.api;
  bool verified = false;
  if (b.info().is_cpu) {  // the device is the host's cores: checked first, then measured
    {
      PhaseTimer t(out.phase_s, api_phase(api, "verify"));
      verify(in.download, in.expected, row);
    }
    verified = conclude_check(api, in, row, out);
    if (verified) measure(b, launch, before, cfg, clocks, out, row);
  } else {
    // On a GPU every element is checked on the host's cores while the GPU measures (host work
    // as the next point's inputs are): the timings count only once all have matched; a
    // mismatch fails the row and drops them. The next lane downloads only after this check.
    ResultRow timed = row;
    std::future<double> checking = std::async(std::launch::async, [&in, &row] {
      const auto t0 = WallClock::now();
      verify(in.download, in.expected, row);
      return seconds_since(t0);
    });
    measure(b, launch, before, cfg, clocks, out, timed);
    {
      PhaseTimer t(out.phase_s, api_phase(api, "verify"));  // what measuring left to wait
      add_phase(out.background_s, "verify (beside measuring)", checking.get());
    }
    verified = conclude_check(api, in, row, out);
    if (verified) {
      timed.verified = row.verified;
      timed.check = row.check;
      timed.checked_against = row.checked_against;
      timed.mismatches = row.mismatches;
      timed.checked = row.checked;
      timed.first_bad_index = row.first_bad_index;
      timed.output_hash = row.output_hash;
      row = std::move(timed);
    }
  }
  return verified;
}

}  // namespace

namespace {

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

// The correctness run's outputs checked as the model says and the launch measured; whether they
// passed (the row then holds the timings).
bool check_and_measure(const Lane& lane, const Job& job, const Launch& launch, const Launch* before,
                       const Inputs& in, const LaneBuffers& lb, const RunConfig& cfg,
                       ClockMonitor* clocks, RunOutcome& out, ResultRow& row) {
  ApiState& a = *lane.state;
  if (job.plan.has_cpu_reference())  // every element against the CPU reference
    return verify_and_measure(a, launch, before, in, cfg, clocks, out, row);
  {
    PhaseTimer t(out.phase_s, api_phase(a.api, "verify"));  // the expected files, the other lanes
    if (!verify_outputs(lane, job.plan.kernel_model(), lb.got, in, row)) return false;
  }
  measure(*a.backend, launch, before, cfg, clocks, out, row);
  return true;
}

// With RunConfig::counters: the row's counters (a sequence's say why not).
void lane_counters(const ApiState& a, const Job& job, const Launch& launch, const Launch* before,
                   RunOutcome& out, ResultRow& row) {
  if (!job.plan.is_sequence()) {
    collect_counters(a, launch, before, out, row);
    return;
  }
  RowCounters none;
  none.kernel_unavailable = none.sampled_unavailable =
      "a pair of steps: the counters attribute a batch of one kernel's dispatches";
  row.counters = std::move(none);
}

}  // namespace

// One lane of one point, a built-in test's or a pair's alike (the plan's kernel model): its
// buffers, the correctness run, the check, then the timed repetitions and what follows them.
// Any failure becomes the row's reason.
void run_lane(const Lane& lane, const Job& job, const Inputs& in, const RunConfig& cfg,
              ClockMonitor* clocks, RunOutcome& out, ResultRow& row) {
  ApiState& a = *lane.state;
  if (lane_unavailable(lane, job.plan, row)) return;
  // A family that runs no kernels cannot run the L2 flush: its copies start with a warm L2.
  const bool no_flush = lane.family != nullptr && !lane.family->compute;
  Backend& b = *a.backend;
  LaneBuffers lb;
  try {
    Launch launch = allocate_lane(lane, job, row, b, out, lb);
    upload_lane(lane, job, row, in, b, out, lb, launch);
    // The chain repeats the launch on the same buffers: a kernel checked by the CPU reference
    // writes out = f(in), the same each time; a pair's may update in place (its expected file).
    if (cfg.dispatch_chain > 1 && !lane.submission && lane.family == nullptr &&
        job.plan.has_cpu_reference()) {
      launch = dispatch_chain(launch, cfg.dispatch_chain, a.api);
      row.flags.push_back("dispatch_chain");
    }
    correctness_run(b, launch, job.plan.kernel_model(), in, lb, out);
    const bool flush = cfg.l2 == L2Mode::cold && !no_flush;
    const Launch* before = flush ? &a.flush : nullptr;
    const bool passed = check_and_measure(lane, job, launch, before, in, lb, cfg, clocks, out, row);
    const bool ok = passed && row.status == Status::ok;
    if (ok && cfg.l2 == L2Mode::cold && no_flush) row.flags.push_back("l2_not_flushed");
    if (ok && lane.submission && job.plan.kernel_model().chain_steps > 0)
      measure_chain_host(b, launch, out, row);
    if (ok) check_state(job.plan.kernel_model(), b, lb.owned, lb.got, row);
    if (ok && cfg.counters && row.status == Status::ok)
      lane_counters(a, job, launch, before, out, row);
    if (ok && cfg.trace && row.status == Status::ok && job.plan.has_cpu_reference())
      trace_lane(a, launch, before, in, cfg, clocks, out, row);  // built-in kernels' traced twins
    PhaseTimer t(out.phase_s, api_phase(a.api, "free"));
    lb = LaneBuffers{};
  } catch (const std::exception& e) {
    row.status = Status::failed;
    row.reason = e.what();
  }
}

}  // namespace cuvk::runner_detail
