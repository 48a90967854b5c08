// The one timing driver: runs every selected point on every selected API under the same rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "catalogue.h"
#include "cost_fit.h"
#include "counters.h"
#include "devices.h"
#include "launch_geometry.h"
#include "nvml.h"
#include "row.h"
#include "stats.h"
#include "trace_lane.h"

namespace cuvk {

enum class L2Mode { cold, warm };

struct RunOutcome;
class EarlyInputs;  // input_pipeline.h

struct RunConfig {
  std::vector<std::string> tests;  // catalogue names, in catalogue order
  std::vector<Api> apis = {Api::cuda, Api::vulkan};
  std::uint32_t n = 0;  // 0: automatic (kDefaultGpuN on a GPU, kDefaultCpuN on a CPU device)
  // Every size of a `--n` list or range, in the order given (n is the first); empty or one
  // value: n alone. Each size is a point dimension: every point runs at every size.
  std::vector<std::uint32_t> sizes;
  int reps = 100;
  int warmup = 10;
  std::vector<std::uint32_t> block_sizes = {256};  // the launch-geometry sweep (one value: none)
  // Values of each sweep axis (axes.h) by name; an axis not named here sweeps its defaults.
  std::map<std::string, std::vector<std::uint32_t>> axis_values;
  std::vector<std::string> layouts;   // filter: empty = every layout of each test
  std::vector<std::string> variants;  // filter: empty = every variant of each test
  // Vulkan binding modes, each a separate row per point (descriptor, bda); CUDA rows: pointer.
  std::vector<Binding> vk_bindings = {Binding::descriptor};
  std::uint64_t seed = 1;
  L2Mode l2 = L2Mode::cold;
  double target_ci = 0.005;  // stop when the median's 95% CI half-width is within this fraction
  double max_time_s = 0.0;   // ... or after this much wall time per point and API (0: automatic,
                             // kDefaultGpuMaxTimeS on a GPU, kDefaultCpuMaxTimeS on a CPU device)
  std::size_t max_samples = 10000;
  double settle_ms = 500.0;  // GPU time spent warming each API up before the first point
  int host_cost_samples = 200;
  // The dispatch cost model (--dispatch-cost): a near-empty kernel on 1 to 2^20 blocks per API,
  // fitted to a + b * blocks (runner_dispatch.cpp, cost_fit.h). Off by default.
  bool dispatch_cost = false;
  // Empty dispatches timed per API before the first point (RunOutcome::calibration); 0: none.
  int calibration_samples = 200;
  // Hardware counters after each point's timed repetitions (BackendSet::counters).
  bool counters = false;
  // `cuvk trace`: after each measured kernel lane, its traced twin recorded and timed
  // (RunOutcome::traces; runner_trace.cpp). The backends must be opened with BackendOptions::trace.
  bool trace = false;
  // `cuvk explain`'s chain experiment: > 1 times each built-in kernel point as a chain of this many
  // dispatches of it (Launch::sequence; CUDA graph, Vulkan recorded command buffer; each dispatch
  // waits for the one before), the row's time the chain's GPU span over the dispatches. 0: off.
  std::uint32_t dispatch_chain = 0;
};

class ValidatedConfig;
// Checks every value of the configuration that needs no device (throws UsageError naming the
// option and, for a bounded value, the bound): the one place each option's value is judged.
// Returns the configuration as judged, which run_suite and start_first_inputs take.
ValidatedConfig validate_config(RunConfig config);

// A RunConfig that validate_config judged; only validate_config makes one, so what takes one
// (run_suite, start_first_inputs) judges nothing again. It never changes: its options are read
// through it, and what the devices and pairs add later makes a new one that stays valid (a CPU
// device's defaults; the tests of pairs, whose sweep's size with_tests judges again, the one bound
// they change). What no option judges (the run's observer, the early inputs) is not part of it.
class ValidatedConfig {
 public:
  const RunConfig& operator*() const { return cfg_; }
  const RunConfig* operator->() const { return &cfg_; }

  // The same judgement with a CPU device's defaults (kDefaultCpu*, within the bounds) for the
  // values not given.
  ValidatedConfig with_cpu_defaults(bool reps, bool warmup, bool settle_ms) const;
  // The same judgement with tests added to the run (pairs, once read), the sweep's size judged
  // again (UsageError).
  ValidatedConfig with_tests(const std::vector<std::string>& tests) const;

 private:
  friend ValidatedConfig validate_config(RunConfig config);
  explicit ValidatedConfig(RunConfig cfg) : cfg_(std::move(cfg)) {}
  RunConfig cfg_;
};

// Threads a built-in test's plan launches (BuiltinPlan::launch_threads, or params.n when that is
// 0): its kernel model's launch, which does not depend on the block size.
std::uint32_t plan_launch_threads(const Plan& plan);
// Starts preparing the inputs of the run's first point, as run_suite will plan it on a GPU
// (`on_gpu`) or a CPU device; null when the configuration does not plan (run_suite says why).
// Every point's sizes are first checked against `choice`'s devices and the host's memory
// (check_run_sizes): an impossible size is a UsageError before any allocation or thread starts.
std::shared_ptr<EarlyInputs> start_first_inputs(const ValidatedConfig& config, bool on_gpu,
                                                const DeviceChoice& choice = {});

// One planned point against the limits (UsageError naming the test, n and the limit): some work
// to do (threads, buffers), element counts within 32-bit indices, each buffer within
// `max_buffer_bytes`, and the host memory of host_bytes_of() within host_memory_limit_bytes().
// Every run, `cuvk trace` and the early inputs call it before allocating anything.
void check_plan(const std::string& test, std::uint32_t n, const Plan& plan,
                std::uint64_t max_buffer_bytes);
// check_plan for every point the configuration selects at problem size n.
void check_run_sizes(const RunConfig& config, std::uint32_t n, std::uint64_t max_buffer_bytes);
// The built-in tests' sizes: RunConfig::sizes, else n, else the default of a GPU (`on_gpu`) or
// a CPU device.
std::vector<std::uint32_t> run_sizes(const RunConfig& config, bool on_gpu);
// The smallest largest-buffer of the chosen devices of `apis` (no limit where none is known).
std::uint64_t max_buffer_of(const DeviceChoice& choice, const std::vector<Api>& apis);

// Bounds on the run options, so that every run ends in a time one can wait for (validate_config).
constexpr int kMaxReps = 10000;                // --reps: the batch and the minimum sample count
constexpr int kMaxWarmup = 10000;              // --warmup
constexpr double kMaxSettleMs = 60000.0;       // --settle-ms: one minute of clock settling per API
constexpr double kMaxTimeS = 600.0;            // --max-time: ten minutes per point and API
constexpr double kMinTargetCi = 1e-4;          // --target-ci 0.01 (%): below it only budgets stop
constexpr std::size_t kMaxSamples = 1000000;   // RunConfig::max_samples
constexpr int kMaxHostCostSamples = 100000;    // RunConfig::host_cost_samples
constexpr std::size_t kMaxBlockSizes = 64;     // --block-sizes: values in the sweep
constexpr std::size_t kMaxAxisValues = 1024;   // --offsets, --strides: values per axis
constexpr std::uint64_t kMaxRunPoints = 4096;  // points x block sizes x binding modes per run

constexpr std::uint32_t kDefaultGpuN = 1u << 26;  // 64M floats, 256 MB per array: >> any L2
constexpr std::uint32_t kDefaultCpuN = 1u << 20;  // lavapipe: the whole suite in seconds
constexpr int kDefaultGpuReps = 100, kDefaultGpuWarmup = 10;
constexpr int kDefaultCpuReps = 20, kDefaultCpuWarmup = 3;  // lavapipe: timing is not its point
constexpr double kDefaultGpuMaxTimeS = 2.0;
// lavapipe's timings are noisy and rarely converge: most rows end on this budget, which at 0.2 s
// (2 batches of 20, ~0.25 s a row with the overshoot) put the default run past 10 s on 2 cores.
constexpr double kDefaultCpuMaxTimeS = 0.1;
constexpr double kDefaultGpuSettleMs = 500.0;
// A CPU device has no GPU clocks to raise: the settling's minimum (runner.cpp), not half a second.
constexpr double kDefaultCpuSettleMs = 50.0;

// Host-side cost of one API, summarised (medians of HostCostSamples) plus its start-up costs.
struct HostCostSummary {
  Api api = Api::cuda;
  Summary launch_us, submit_us, round_trip_us;
  std::vector<std::pair<std::string, double>> startup_ms;
};

// One API's dispatch-size sweep (--dispatch-cost) and its fit.
struct DispatchCostResult {
  Api api = Api::cuda;
  std::uint32_t block_size = 0;
  std::vector<DispatchPoint> points;  // blocks and median GPU time (us)
  std::vector<Summary> summaries;     // per point, the GPU times (us)
  double blocks_per_wave = 0.0;       // resident blocks on the whole device, as the fit assumed
  std::string wave_source;            // where blocks_per_wave came from
  std::optional<DispatchCost> cost;   // the fit, where there were points to fit
  std::string no_fit;                 // why there is none
};
// What one API's GPU timings cannot go below (issue 33), measured before the first point: an empty
// dispatch (one block of the host-cost kernel with n = 0, so every thread returns at once) timed
// by Backend::run as every row is, and the GPU timer's resolution (DeviceInfo::timer).
struct Calibration {
  Api api = Api::cuda;
  Summary empty_dispatch_ms;
  TimerInfo timer;
  // The smallest non-zero difference between two empty-dispatch times: the step the timer
  // showed (0 where every sample was equal).
  double observed_step_ns = 0.0;
};
// A row whose median is below this many empty dispatches of its API measures the dispatch more
// than the memory traffic: flagged `launch_bound` (docs/MEASURING.md says what to quote).
constexpr double kLaunchBoundFactor = 10.0;
constexpr int kCalibrationWarmup = 10;
// Whether `row` (ok, with a median) is below kLaunchBoundFactor empty dispatches of its API.
bool launch_bound(const ResultRow& row, const std::vector<Calibration>& calibration);
// The smallest step between the sorted distinct values of `times_ms`, in ns (0: none).
double smallest_step_ns(std::vector<double> times_ms);


struct RunOutcome {
  std::vector<ResultRow> rows;
  // Each row the run will stream, as planned before the first is measured (test, point, variant
  // label, block size, API, binding; nothing measured): the streamed table sizes its columns
  // from them (run_printer.h). Not written to files.
  std::vector<ResultRow> planned;
  std::uint32_t n = 0;                   // the problem size used (the first of `sizes`)
  std::vector<std::uint32_t> sizes;      // every size the built-in tests ran at (--n list)
  std::uint64_t flush_bytes = 0;         // L2 flush scratch size (0 with --l2 warm)
  std::string n_rule;                    // how n was chosen
  double max_time_s = 0.0;               // the per point and API time budget used
  std::uint64_t l2_bytes = 0;            // from CUDA where known (Vulkan does not report it)
  std::optional<double> dram_peak_gbps;  // 2 x max memory clock x bus width, where known
  std::string clock_monitor;             // "NVML" or why there is none
  std::vector<HostCostSummary> host;
  std::vector<DispatchCostResult> dispatch_costs;  // with RunConfig::dispatch_cost
  std::vector<Calibration> calibration;            // per API that ran, in the run's API order
  std::map<std::string, double> settle;            // per API: GPU ms spent settling clocks
  std::optional<ClockSample> clocks_after_settle;
  bool interrupted = false;  // a SIGINT/SIGTERM stopped the run early: rows hold what completed
  // Host wall time per phase of the driver, seconds, in the order the phases first ran (plan,
  // inputs, settle, upload, correctness run, download, verify, measure, host cost).
  std::vector<std::pair<std::string, double>> phase_s;
  // Host work on other threads while the phases above run (each point's inputs, expected output
  // and its hash are made ahead): seconds per kind of work, overlapping phase_s.
  std::vector<std::pair<std::string, double>> background_s;
  // Both as they stood when the first row went out: what the first row waited for (issue 22).
  std::vector<std::pair<std::string, double>> first_row_phase_s, first_row_background_s;
  // With RunConfig::counters: what measured the counters ("CUPTI on GH100") or why nothing did,
  // and the PM-sampling metrics and interval in use.
  std::string counters_source;
  std::string counters_chip;  // "" without counters
  std::vector<std::string> counters_pm_metrics;
  std::uint64_t counters_interval_ns = 0;
  // Host seconds the counters took, by step (CounterSession::take_costs), within the phase
  // "counters" (which also holds the attribution of samples and the dumps).
  std::vector<std::pair<std::string, double>> counters_cost_s;
  // With RunConfig::trace: each measured kernel lane's trace, in the order they ran.
  std::vector<TraceLane> traces;
};

// Backends may be null (API unavailable: rows get `unavailable_reason[api]`).
struct BackendSet {
  PerApi<Backend*> backends;  // the open backend of each API; null: reasons says why
  PerApi<std::string> reasons;
  ClockMonitor* clocks = nullptr;  // optional (NVML)
  std::string clocks_reason;
  CounterSession* counters = nullptr;  // with RunConfig::counters: CUPTI, or why not
  std::string counters_reason;
};

// What a run tells as it goes, beside its outcome; each callback optional.
struct RunObserver {
  // Before each point and API is measured, with the rows done so far, the rows in all and what is
  // being measured ("read_offset offset=1 block 256 vulkan descriptor").
  std::function<void(std::size_t done, std::size_t total, const std::string& what)> progress;
  // Each row as soon as it is measured and verified, in run order.
  std::function<void(const ResultRow&)> on_row;
  // Once the run's settings are chosen and the clocks settled, before the first point (the
  // outcome holds n, the flush size, the time budget and the clocks after settling).
  std::function<void(const RunOutcome&)> on_start;
};

// Runs the judged configuration, checking it against the catalogue and the devices (throws
// UsageError), telling `observer` as it goes; `first_inputs`: the first point's inputs, started
// before the devices opened (start_first_inputs), used where they fit.
RunOutcome run_suite(const ValidatedConfig& config, const BackendSet& backends,
                     const RunObserver& observer = {},
                     std::shared_ptr<EarlyInputs> first_inputs = nullptr);
// A configuration built by hand (tests, library callers): run_suite(validate_config(config), ...).
RunOutcome run_suite(const RunConfig& config, const BackendSet& backends,
                     const RunObserver& observer = {});

}  // namespace cuvk
