// `cuvk run`'s work, reusable by other commands (parity runs the same suite): host/app, below the
// command line (host/cli gathers the options into RunArgs and calls these).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends.h"
#include "counters.h"
#include "devices.h"
#include "nvml.h"
#include "options.h"
#include "run_printer.h"
#include "run_reader.h"
#include "runner.h"

namespace cuvk {

// The run options exactly as given on the command line; judged once, by judge_run.
struct RunArgs {
  std::vector<std::string> tests, apis = {"all"}, layouts, variants;
  std::vector<std::string> vk_bindings = {"descriptor"};  // --vk-binding
  std::string n, format = "table", output, device, l2 = "cold";
  std::map<std::string, std::string> axis_values;  // per sweep axis (axes.h): --offsets, --strides
  std::optional<int> reps, warmup;  // unset: kDefault{Gpu,Cpu}{Reps,Warmup} by device
  std::uint32_t block_size = 256;
  std::string block_sizes;
  double target_ci = 0.5, max_time_s = 0.0;
  std::optional<double> settle_ms;  // unset: kDefault{Gpu,Cpu}SettleMs by device
  std::uint64_t seed = 1;
  bool validation = false, quiet = false;
  // --require-verified: an ok row whose output was not verified (unchecked, consistent, timing
  // only) exits 1, as a failed row does (for CI); without it such rows exit 0.
  bool require_verified = false;
  bool counters = false;       // --counters: CUPTI hardware counters beside every row
  bool dispatch_cost = false;  // --dispatch-cost: the dispatch cost model's sweep and fit
  std::string baseline;        // --baseline FILE: compare every row with this saved run
  std::string tolerance =
      "3";  // --tolerance, percent: the SAME band of parity and baseline verdicts
  std::vector<std::string> pairs;  // --pair FILE (repeatable): user kernel pairs (issue 20)
  double timeout_s = 120.0;  // --timeout: a launch not finished by then is reported, not awaited
  std::vector<std::string>
      columns;              // --columns: the main table's columns (run: rows; parity: verdicts)
  bool concurrent = false;  // --concurrent: with a device list, a together pass after in turn
  bool trace = false;  // RunConfig::trace: set by `cuvk trace` (trace_command.cpp), not an option
  // The --output a command that delegates to run (explain) writes after the run: checked against
  // the run's inputs (--baseline, the pairs' files) as --output is, never written by run.
  std::string written_after;
};

struct TestCase;  // catalogue.h

// Checks a --layouts / --variants filter against what the catalogue has; returns it (UsageError
// naming the unknown value and the known ones). run_selectors.cpp.
std::vector<std::string> parse_axis(const std::vector<std::string>& names, const std::string& what,
                                    std::vector<std::string> TestCase::*axis);
// --layouts, --offsets, --strides, --copy-mibs must apply to a selected test (else they would
// select nothing and be ignored): UsageError naming the selection and the tests that take them;
// and --concurrent must have a device list (check_node_args).
void check_selectors_apply(const RunArgs& a, const std::vector<std::string>& tests);

// The node's devices, enumerated once per command however many of its steps ask (the baseline's
// GPU check, parity's API check, the run itself, --device all's list): each enumeration starts
// both drivers, a few hundred milliseconds before the first row.
class InventoryOnce {
 public:
  const DeviceInventory& get();

  // Starts opening CUDA device 0 and Vulkan device 0 (those of `apis`) on other threads, beside
  // the enumeration: most runs choose them, and then start with them open (start-up is the
  // longer of the two, not their sum). A run that chooses others closes them (take_early).
  void open_early(const std::vector<Api>& apis, const BackendOptions& vk_options);
  // The early backend of `api` if it is device `index` opened with `vk_options`' copy queues
  // (null otherwise: the caller opens its own); `open_s`: how long its opening took.
  std::unique_ptr<Backend> take_early(Api api, int index, const BackendOptions& vk_options,
                                      double& open_s);
  // The clock monitor opened beside the early CUDA device, if it is the GPU with `uuid`.
  std::unique_ptr<ClockMonitor> take_early_clocks(const Uuid& uuid, std::string& why);
  // The first point's inputs, started with open_early (sized for a GPU where an NVIDIA device node
  // exists): the run takes them where they fit its first point (EarlyInputs::take_for).
  std::shared_ptr<EarlyInputs> early_inputs;

 private:
  struct Early;
  std::optional<DeviceInventory> inventory_;
  std::shared_ptr<Early> early_;
};

// The run's options judged once, before anything opens: the configuration built and validated
// (the pairs' tests join it once read, by Run: ValidatedConfig::with_tests), --timeout bounded,
// the format and the tolerance parsed. Throws UsageError. A command's check makes it (run's,
// trace's, parity's, explain's, inspect's); its action runs it.
struct JudgedRun {
  // The options as given. Once judged, only their unjudged parts are read (the files, the device,
  // the console's settings, the columns' names); the judged values are cfg's, format's and
  // tolerance's, and a command that changes a run (explain, parity) changes them there.
  RunArgs args;
  ValidatedConfig cfg;
  Format format = Format::table;
  double tolerance = 0.0;
};
JudgedRun judge_run(const RunArgs& args);

// `run` with its configuration changed (explain's first run and experiments): `change` edits a
// copy of the typed configuration, which validate_config judges as a whole again (the bounds a
// change may cross: the sweep's size); no option is read again. Throws UsageError.
JudgedRun changed_run(const JudgedRun& run, const std::function<void(RunConfig&)>& change);

// How many times this process has made a run configuration from options (config_of): a test
// counts them around one command, which judges its options once (issue 45).
std::size_t run_judgements();

struct OpenBackends;
class LiveConsole;
struct PreparedPair;  // pair_tests.h

// One run on one device, in the style of nvbench's measure_cold: it owns the judged options, the
// chosen devices, the pairs, the opened backends and the live console, and operator() lists the
// phases in order. Throws UsageError for bad options (a pair, a size the device cannot hold) and
// Error when no API can run at all.
class Run {
 public:
  Run(JudgedRun judged, std::string command_line, InventoryOnce& devices);
  ~Run();
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // Chooses and opens the devices, runs the suite, returns everything for the reports.
  RunDocument operator()();

 private:
  void check_outputs();      // --output writable and no input; the Vulkan backend's options
  void choose();             // the devices chosen; a CPU device's defaults
  void read_pairs();         // pairs compiled for those devices, their tests added
  void take_first_inputs();  // the early inputs kept where they fit, else started
  void open();               // the backends opened (early ones taken), pairs loaded
  void follow_live();        // head and rows onto the live console
  void measure();            // run_suite
  void finish();             // the start-up phases, wall time

  RunArgs a_;
  ValidatedConfig cfg_;   // a new one where a CPU device's defaults or pairs' tests join
  RunObserver observer_;  // the live console's callbacks
  std::shared_ptr<EarlyInputs> first_inputs_;  // the first point's inputs, made early
  Format format_;
  InventoryOnce& devices_;
  RunDocument doc_;
  BackendOptions vk_opts_;
  std::vector<std::shared_ptr<PreparedPair>> pairs_;
  std::unique_ptr<OpenBackends> backends_;
  std::unique_ptr<LiveConsole> live_;
  std::optional<Format> live_format_;
  double command_s_ = 0.0, devices_s_ = 0.0, opening_s_ = 0.0, start_up_s_ = 0.0;
};

// Run(run, ...)(): for the commands that run a judged run they may have changed (parity, explain,
// trace).
RunDocument execute_run(const JudgedRun& run, const std::string& command_line,
                        InventoryOnce& devices);

// Prints or writes (atomically) the document in `format`.
void emit(const RunDocument& doc, Format format, const std::string& output, bool quiet);

// kExitFailed when any row failed or, under --validation, the layer sent any message (issue 49,
// item 6); else kExitOk.
int run_exit_code(const RunDocument& doc, bool require_verified = false);

// Under --validation: each message of the layer on stderr as a `validation:` line (escaped), then,
// if there was any, one `error:` line saying the run fails for them (run_exit_code's 1).
void print_validation_messages(const RunDocument& doc);

// The whole `cuvk run` (one device, or each in turn with --device all).
int run_command(const JudgedRun& run, const std::string& command_line, InventoryOnce& devices);

// ---- run_open.cpp: the devices a run opens ----

// The backends of the chosen devices and the clock monitor, owned for the run.
struct OpenBackends {
  PerApi<std::unique_ptr<Backend>> backends;  // null: the API is not run (set.reasons says why)
  std::unique_ptr<ClockMonitor> clocks;
  std::unique_ptr<CounterSession> counters;
  BackendSet set;
  PerApi<double> open_s;  // wall time of opening each backend; CUDA's on its own thread
  double clocks_s = 0.0, counters_s = 0.0;  // counters_s: CUPTI's start (with --counters)
};

// The Vulkan backend's options for this run: a queue on every family that can copy where the
// copy-queue test has points; `timeout_s` bounds every wait for the GPU (--timeout).
BackendOptions vulkan_options(const RunConfig& cfg, double timeout_s);

// Opens the chosen devices of `cfg.apis` (those opened early where they fit), the clock monitor
// and, with --counters, the counter session, into `b`; where one cannot open, `choice` says why.
// Throws Error when no API can run.
void open_backends(const RunConfig& cfg, const BackendOptions& opts, DeviceChoice& choice,
                   InventoryOnce& devices, OpenBackends& b);

// A launch that never finished: its device cannot be torn down (that would wait for it), so the
// backends are left to the process's end, which comes without waiting (run_command, and
// run_every_device after the node file): leave_hung releases them, recording "<api>: <why>".
void leave_hung(OpenBackends& b);
const std::vector<std::string>& hung_launches();  // every one so far, in this process

// ---- run_devices.cpp: --device all ----

inline constexpr const char* kAllDevices = "all";  // --device all

// --device all: each CUDA GPU in turn (paired with its Vulkan twin by UUID; without CUDA, each
// Vulkan GPU; without any GPU, the one automatic device), or each GPU of a list; one node file
// (node_file.h) holding every GPU's run, and on the console each GPU's table and a node summary.
int run_every_device(const JudgedRun& run, const std::string& command_line, InventoryOnce& devices);
// --concurrent's check (a device list needed; check_selectors_apply calls it).
void check_node_args(const RunArgs& args);
// Whether --device names several GPUs (`all`, or a comma-separated list): run_every_device's.
bool is_device_list(const std::string& spec);
// The GPUs `--device all` or a list names, in the order run_every_device runs them: each as a
// single --device value (a full UUID; "" for the automatic device where the node has no GPU) and
// its console label ("CUDA device 0 NVIDIA H100"). UsageError for a list entry naming no device or
// the same GPU twice. explain, inspect and devices go over them in turn.
struct DeviceTarget {
  std::string spec, label;
};
std::vector<DeviceTarget> device_targets(InventoryOnce& devices, const std::string& spec);

// ---- run_concurrent.cpp: --concurrent, the together pass ----

// One GPU's run of the together pass: its run (named as `names` said), or why none.
struct TogetherRun {
  std::optional<RunFile> run;
  std::string error;
  int exit_code = 0;  // the child's (128 + N: ended by signal N)
};

// Every device of `devices` (a UUID each; "" for the automatic choice) measured at once: one
// child process per device, this binary again with the command line's options (process_args)
// save those the parent decides (together_args). Returns when every child has ended.
std::vector<TogetherRun> run_together(const std::vector<std::string>& devices,
                                      const std::vector<std::string>& names);

// A child's command line: `args` without --device, --output, --format, --baseline, --columns
// (with their values), --quiet and --concurrent; then --device DEVICE (unless "") --format json
// --output OUTPUT --quiet.
std::vector<std::string> together_args(const std::vector<std::string>& args,
                                       const std::string& device, const std::string& output);

// ---- run_baseline.cpp: --baseline, and what parity shares with it ----

// The --baseline file, read and checked (readable, schema, same GPU model as the device this run
// will use) before anything runs; nullopt without --baseline. Throws UsageError.
std::optional<RunFile> load_baseline(const JudgedRun& run, InventoryOnce& devices);

// Compares the run with the baseline and prints the comparison (stdout, or stderr when stdout
// carries the run's JSON/CSV). Returns kExitDiffers when a row is SLOWER, else kExitOk.
// The devices a run will use, as a run file names them (no rows): what a baseline is checked
// against.
RunFile chosen_devices_run(const DeviceChoice& choice);

// The baseline for `now` among a file's runs (a node file holds one per GPU): the one of the same
// GPU by UUID; else, where the file holds `count` runs (this run's GPU count), the one at
// `position`; else the first. `note` says which when not by UUID ("" otherwise).
const RunFile& baseline_for(const std::vector<RunFile>& bases, const RunFile& now,
                            std::size_t position, std::size_t count, std::string& note);

int emit_baseline(const RunDocument& doc, const RunFile& baseline, const JudgedRun& run);

// A run document as the results reader sees it (the one path for live and saved runs).
RunFile run_file_of(const RunDocument& doc, const std::string& name);

// The exit code that says more: a difference (1) over "could not compare" (2) over 0; any other
// code (usage, environment, interrupted) wins over both.
int worse_exit(int a, int b);

}  // namespace cuvk
