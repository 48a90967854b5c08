// The runner's pieces that more than one of its files use (private to host/core): the state of
// each API and lane, a planned point (Job), the plan (runner_plan.cpp), phase timing, one lane of
// one point (LaneRun, runner_lane.cpp: correctness run, check, timed batches, flags), the first
// point's inputs beside settling (runner_inputs.cpp). runner.cpp's Suite sequences the phases.
#pragma once

#include <chrono>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"
#include "catalogue.h"
#include "error.h"
#include "input_pipeline.h"
#include "numbers.h"
#include "nvml.h"
#include "row.h"
#include "runner.h"

namespace cuvk::runner_detail {

using WallClock = std::chrono::steady_clock;

// Adds `s` seconds to the named phase (appended, in first-run order, when new).
inline void add_phase(std::vector<std::pair<std::string, double>>& phases, const std::string& name,
                      double s) {
  for (auto& [phase, total] : phases)
    if (phase == name) {
      total += s;
      return;
    }
  phases.emplace_back(name, s);
}

// Adds the wall time of its scope to the named phase of RunOutcome::phase_s.
class PhaseTimer {
 public:
  PhaseTimer(std::vector<std::pair<std::string, double>>& phases, std::string name)
      : phases_(phases), name_(std::move(name)), start_(WallClock::now()) {}
  ~PhaseTimer() { add_phase(phases_, name_, seconds_since(start_)); }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  std::vector<std::pair<std::string, double>>& phases_;
  std::string name_;
  WallClock::time_point start_;
};

// A phase of one API's lanes ("cuda upload", "vulkan verify"): the APIs take turns, so each API's
// phases are its own share of the wall time.
inline std::string api_phase(Api api, const char* what) {
  return std::string(api_name(api)) + " " + what;
}

// One API taking part in the run, with its L2-flush scratch (also the clock-settling work).
struct ApiState {
  Api api;
  Backend* backend;
  std::string reason;  // why there is no backend
  std::unique_ptr<DeviceBuffer> scratch, sink;
  Launch flush;
  std::vector<QueueFamily> families;   // Backend::copy_queue_families
  CounterSession* counters = nullptr;  // BackendSet::counters (with RunConfig::counters)
  std::string counters_reason;
  // CUDA with counters: the range profiler's counters of the run's kernel launches, taken before
  // the first row (profile_kernels_first), by kernel_launch_key().
  std::map<std::string, KernelCounters> profiled;
};

// Work outside a measured row (the flush scratch, settling): a launch that does not finish within
// --timeout leaves the API's device hung (Backend::hung), which its rows then report ("not run:
// the vulkan device is unusable: ..."), as a row's own timeout does; the run goes on with the
// other API and exits 1. Any other error, or one of a device that is not hung, propagates.
template <typename F>
void outside_rows(ApiState& a, F&& work) {
  try {
    work();
  } catch (const Error&) {
    if (a.backend == nullptr || a.backend->hung().empty()) throw;
  }
}

// A hung device's work may still use its flush buffers (on lavapipe device memory is host memory
// another thread writes): they are left allocated, as its backend is (cuvk run's leave_hung),
// however run_suite ends. Freeing them crashed a run whose --timeout expired while settling.
struct KeepHungBuffers {
  std::vector<ApiState>& apis;
  ~KeepHungBuffers() {
    for (ApiState& a : apis)
      if (a.backend && !a.backend->hung().empty()) {
        static_cast<void>(a.scratch.release());
        static_cast<void>(a.sink.release());
      }
  }
};

// The same for host memory: the input pipeline's arrays and the first point's inputs are
// registered with (imported into) the backends, and a hung device's work may still read or write
// them (an upload or download that timed out), so where any backend is hung they are never freed.
template <typename Pipeline, typename First>
struct KeepHungHostMemory {
  std::vector<ApiState>& apis;
  std::unique_ptr<Pipeline>& pipeline;
  std::unique_ptr<First>& first;
  ~KeepHungHostMemory() {
    for (ApiState& a : apis)
      if (a.backend && !a.backend->hung().empty()) {
        static_cast<void>(first.release());
        static_cast<void>(pipeline.release());
        return;
      }
  }
};

// One row per point: an API and, for Vulkan, a binding mode (descriptor, bda); or, for copy-engine
// points only, another queue family of the API that can copy (its own family's row is the native
// binding's).
struct Lane {
  ApiState* state;
  Binding binding;
  const QueueFamily* family = nullptr;  // the copy family of this lane; null: the API's own queue
  // Chain points only (KernelModel::chain_steps): the submission mode of this lane's chains.
  std::optional<Submission> submission = std::nullopt;
};

// A job's inputs (or anything else whose memory a backend may use) freed here, unless a device
// hung: its work may still read or write them (an upload or download that timed out), so they are
// left to the process's end, as KeepHungHostMemory does for the first point's.
template <typename T>
void free_unless_hung(const std::vector<Lane>& lanes, T value) {
  for (const Lane& lane : lanes)
    if (lane.state->backend && !lane.state->backend->hung().empty()) {
      static_cast<void>(new T(std::move(value)));  // never freed
      return;
    }
}

// The first point's inputs taken, and their host memory registered with every backend, on their
// own thread beside the clock settling (runner_inputs.cpp; joined by take() or the destructor):
// pinning or importing 512 MB took tens of milliseconds on the way to the first row, and the
// lanes' own registration then finds it done. Only device-level calls (CUDA host registration,
// Vulkan import): nothing the settling thread's queue work shares. Its seconds go to
// RunOutcome::background_s.
class FirstInputs {
 public:
  FirstInputs(InputPipeline& inputs, bool needed, const std::vector<ApiState>& apis);
  ~FirstInputs();
  FirstInputs(const FirstInputs&) = delete;
  FirstInputs& operator=(const FirstInputs&) = delete;
  // Once; rethrows what the thread threw (HostMemory::register_with keeps a backend's refusal).
  Inputs take(RunOutcome& out);

 private:
  struct Made {
    Inputs in;
    std::vector<std::pair<std::string, double>> took;
  };
  std::future<Made> done_;
};

// A lane's device buffers: the model's, in order (then a restore's saved copies), a chain's
// ping-pong buffer, the guarded ones as uploaded and as downloaded whole after the correctness run.
struct LaneBuffers {
  std::vector<std::unique_ptr<DeviceBuffer>> owned;
  std::unique_ptr<DeviceBuffer> chain;
  std::vector<std::vector<std::uint8_t>> images, got;
};

// A planned point: its test, the point and the plan.
struct Job {
  const TestCase* test;
  Point point;
  Plan plan;
};

inline bool is_engine(const Job& job) {
  return job.plan.kernel == kCopyEngine;
}

// The submission modes a multi-step pair's sequence has lanes in (docs/PAIRS.md, "Steps").
inline bool sequence_submission(Submission s) {
  return s == Submission::stream || s == Submission::graph || s == Submission::recorded ||
         s == Submission::rerecorded || s == Submission::submit_each;
}

// ---- the plan (runner_plan.cpp) ----

// Limits common to every device that will run (catalogue.h's DeviceLimits), and what they are.
struct Limits : DeviceLimits {
  std::uint64_t l2_bytes = 0, bus_bits = 0;
  bool any_gpu = false, any_backend = false, any_cpu = false;
};

// One state per API of the run, with its backend (or why none) and the counters where asked.
std::vector<ApiState> api_states(const RunConfig& cfg, const BackendSet& set);
// The flush scratch: 3x the L2 (both APIs run on one GPU, so an L2 size reported by either
// applies to both), a fixed size where the L2 is unknown, a CPU's last-level cache on a CPU.
std::uint64_t flush_scratch_bytes(const Limits& lim);
// Every point of every selected test at every size (a point's sizes next to each other), planned
// before anything runs so a bad size fails first; the ceiling's points first.
std::vector<Job> plan_jobs(const RunConfig& cfg, const Limits& lim,
                           const std::vector<std::uint32_t>& sizes);
// The plan phase: the devices' common limits (into `lim`), the run's settings, the jobs, and a
// check that the devices can hold them.
std::vector<Job> plan_run(const RunConfig& cfg, const BackendSet& set,
                          const std::vector<ApiState>& apis, Limits& lim, RunOutcome& out);
// The lanes of a point: each API's, each Vulkan binding, other queue families' copy lanes, the
// chain's submission modes.
std::vector<Lane> lanes_of(std::vector<ApiState>& apis, const RunConfig& cfg);
// The rows the run will have: each job's lanes at each of its block sizes.
std::size_t count_steps(const std::vector<Job>& jobs, const std::vector<Lane>& lanes,
                        const RunConfig& cfg);

// Whether `lane` has a row at `job`'s points: the copy engine is no shader, so it has no binding
// mode (native lane only), and the other queue families' lanes run nothing else.
inline bool lane_runs(const Lane& lane, const Job& job) {
  // A multi-step pair (KernelModel::steps, issue 34): a lane per submission mode it runs in.
  if (job.plan.is_sequence()) return lane.submission && sequence_submission(*lane.submission);
  const bool chain = job.plan.kernel_model().chain_steps > 0;
  if (chain || lane.submission) return chain && lane.submission;
  if (lane.family != nullptr) return is_engine(job);
  return !is_engine(job) || lane.binding == native_binding(lane.state->api);
}

// A row for `job` on `lane`, everything known before it runs filled in; `sized`: the run has
// several sizes, so the row's point label names its n (ResultRow::n_in_label) (runner_plan.cpp).
ResultRow row_of(const Job& job, const Lane& lane, const Geometry& geom, bool sized);
// Each row the run will stream, its identity only (RunOutcome::planned), in run order.
std::vector<ResultRow> planned_rows(const std::vector<Job>& jobs, const std::vector<Lane>& lanes,
                                    const RunConfig& cfg, bool sized);

// What timing a launch takes beside the launch: the run's options, the GPU clocks' monitor (null:
// none) and the outcome that collects the phases' wall time. One per run, lent to every lane.
struct Timing {
  const RunConfig& cfg;
  ClockMonitor* clocks;
  RunOutcome& out;
};

// Warm-up and timed batches until the stopping rule says enough (runner_lane.cpp).
void measure(const Timing& t, Backend& b, const Launch& launch, const Launch* before,
             ResultRow& row);

// ---- chains of dependent dispatches (runner_chain.cpp) ----

// The points of test `t` in this run: at each of its own sizes (TestCase::sizes, cpu_sizes where
// no device is a GPU) where --n was not given, else at each of the run's sizes.
std::vector<Point> test_points(const TestCase& t, const RunConfig& cfg,
                               const std::vector<std::uint32_t>& run_sizes, bool on_gpu);
// The sizes of the tests that ran at their own (test_points), for the head's n rule: "; chain at
// its own sizes 4096, 65536"; "" where none did.
std::string own_sizes_note(const std::vector<Job>& jobs, const RunConfig& cfg);
// One lane per API, Vulkan binding and submission mode of that API (chain points only).
void add_chain_lanes(std::vector<ApiState>& apis, const RunConfig& cfg, std::vector<Lane>& lanes);
// The chain's host wall time per step (ResultRow::host_us_per_step): one backend call of whole
// chains, at least kChainHostSteps steps where they fit in the time budget (else as many whole
// chains as fit, at least one: ResultRow::host_chains), without the L2 flush.
constexpr std::uint32_t kChainHostSteps = 1000;
void measure_chain_host(Backend& b, const Launch& launch, RunOutcome& out, ResultRow& row);

// ---- a kernel model on the devices: guarded buffers, sequences, sizes (lane_model.cpp) ----

// The block sizes a job runs: the pair's own where it declares them, else the run's sweep.
std::vector<std::uint32_t> job_block_sizes(const Job& job, const RunConfig& cfg);
// A guarded buffer as uploaded: guard, contents (or the lane's poison where `data` is not the
// buffer's size), guard up to the allocation's end.
std::vector<std::uint8_t> guarded_image(const ModelBuffer& b, const std::vector<std::uint8_t>& data,
                                        std::uint32_t poison);
// A sequence's launch (issue 34): its steps at `block` over the lane's buffers, repeated, in the
// lane's submission mode; with state = restore a saved copy of every buffer that starts with
// contents (`lb.images`, uploaded beside it into `lb.owned`) and the copies that put it back.
void add_sequence(const KernelModel& m, const Lane& lane, std::uint32_t block, Backend& b,
                  LaneBuffers& lb, Launch& launch);
// After the timed repetitions of a sequence with a state rule: every output as the correctness
// run left it (`lb.got`; restore: put back each time; idempotent: repeating changes nothing), else
// the row fails saying which buffer drifted.
void check_state(const KernelModel& m, Backend& b, const LaneBuffers& lb, ResultRow& row);

// Host-side costs: a one-block launch of the suite's host-cost kernel, issued many times
// (runner_calibration.cpp, as is calibrate).
void sample_host_costs(std::vector<ApiState>& apis, const RunConfig& cfg, std::uint32_t max_x,
                       std::uint32_t max_y, RunOutcome& out);
// Each API's empty-dispatch time and timer (RunOutcome::calibration), before the first point.
void calibrate(std::vector<ApiState>& apis, const RunConfig& cfg, std::uint32_t max_x,
               std::uint32_t max_y, RunOutcome& out);

class OutputChecker;  // check/output_checker.h

// One lane of one point, a built-in test's or a pair's alike (the plan's kernel model): it owns
// the lane's buffers, its launch and its row; operator() lists the phases (runner_lane.cpp).
// Any failure becomes the row's status and reason; an interrupt leaves it unavailable,
// "interrupted".
class LaneRun {
 public:
  LaneRun(const Lane& lane, const Job& job, const Inputs& in, const Timing& timing, ResultRow row);
  // allocate -> upload -> correctness run -> check -> measure -> extras; the row as it ended.
  ResultRow operator()() &&;

 private:
  bool unavailable();
  void allocate();
  void upload();
  void correctness_run();
  bool check_and_measure();
  void extras();

  const Lane& lane_;
  const Job& job_;
  const KernelModel& model_;
  const OutputChecker& checker_;  // how the model's outputs are checked (check/output_checker.h)
  const Inputs& in_;
  const Timing& t_;
  ResultRow row_;
  ApiState& a_;
  LaneBuffers lb_;
  Launch launch_;
  const Launch* before_ = nullptr;  // the L2 flush before each timed repetition, where it runs
  bool no_flush_ = false;           // a family that runs no kernels cannot run the L2 flush
};

// With RunConfig::counters: the row's hardware counters, after its timed repetitions
// (runner_counters.cpp); `flush` runs before the profiled launch (null: none).
void collect_counters(const ApiState& a, const Launch& launch, const Launch* flush, RunOutcome& out,
                      ResultRow& row);

// A kernel launch of the run, for profile_kernels_first.
struct PlannedLaunch {
  const Plan* plan;
  Geometry geometry;
};
// What identifies a launch to the range profiler: kernel, grid, block and parameters.
std::string kernel_launch_key(const Launch& launch);
std::string kernel_launch_key(const std::string& kernel, const Geometry& g, const CuvkParams& p);
// With RunConfig::counters on CUDA: the range profiler over one launch of each of `launches`
// (after the L2 flush where `flush` is set), on buffers of the plan's sizes, before the first row,
// into `a.profiled`: the profiler is enabled once for all of them, not switched with the PM
// sampler on every CUDA row (each switch re-enables a profiler: docs/COUNTERS.md, "Cost"). The
// kernels' addresses do not depend on the data, so their counters do not either; a launch that
// could not be profiled here is profiled with its row.
void profile_kernels_first(ApiState& a, const std::vector<PlannedLaunch>& launches, bool flush,
                           RunOutcome& out);

// The dispatch cost model's sweep and fit per API (runner_dispatch.cpp; RunConfig::dispatch_cost).
void sample_dispatch_costs(std::vector<ApiState>& apis, const RunConfig& cfg, std::uint32_t max_x,
                           std::uint32_t max_y, RunOutcome& out);

}  // namespace cuvk::runner_detail
