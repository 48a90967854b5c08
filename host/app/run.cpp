// `cuvk run`'s work: the options judged once, then one Run (its phases in order), its output.
#include "run.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "backends.h"
#include "catalogue.h"
#include "devices.h"
#include "error.h"
#include "input_pipeline.h"
#include "interrupt.h"
#include "launch_clock.h"
#include "live_console.h"
#include "nvml.h"
#include "options.h"
#include "output_file.h"
#include "pair_tests.h"
#include "run_printer.h"

namespace cuvk {

namespace {

constexpr double kMaxTimeoutS = 3600.0;  // --timeout

std::atomic<std::size_t> judgements{0};  // run_judgements()

// The options as a run configuration: values parsed here, judged by validate_config.
RunConfig config_of(const RunArgs& a) {
  ++judgements;
  RunConfig cfg;
  // With --pair alone only the pairs run (execute_run adds them once compiled).
  if (a.pairs.empty() || !a.tests.empty()) cfg.tests = parse_tests(a.tests);
  cfg.apis = parse_apis(a.apis);
  cfg.vk_bindings = parse_vk_bindings(a.vk_bindings);
  cfg.layouts = parse_axis(a.layouts, "--layouts", &TestCase::layouts);
  cfg.variants = parse_axis(a.variants, "--variants", &TestCase::variants);
  if (!a.n.empty()) {
    cfg.sizes = parse_size_list(a.n, "--n", kMaxRunPoints);  // validate_config: the product
    cfg.n = cfg.sizes.front();
  }
  for (const Axis& axis : axes()) {
    const auto given = a.axis_values.find(axis.name);
    cfg.axis_values[axis.name] =
        given == a.axis_values.end() || given->second.empty()
            ? axis.defaults
            : parse_uint_list(given->second, axis.option, kMaxAxisValues + 1);
  }
  check_selectors_apply(a, cfg.tests);  // the values first: a malformed one is named as such
  cfg.reps = a.reps.value_or(kDefaultGpuReps);  // CPU devices: in execute_run, once it is known
  cfg.warmup = a.warmup.value_or(kDefaultGpuWarmup);
  cfg.block_sizes = a.block_sizes.empty()
                        ? std::vector<std::uint32_t>{a.block_size}
                        : parse_uint_list(a.block_sizes, "--block-sizes", kMaxBlockSizes + 1);
  cfg.target_ci = a.target_ci / 100.0;
  cfg.max_time_s = a.max_time_s;
  cfg.settle_ms = a.settle_ms.value_or(kDefaultGpuSettleMs);  // CPU devices: in execute_run
  cfg.seed = a.seed;
  cfg.counters = a.counters;
  cfg.dispatch_cost = a.dispatch_cost;
  cfg.trace = a.trace;
  if (a.trace) cfg.host_cost_samples = 0;  // a trace reports no host costs
  if (a.l2 == "cold")
    cfg.l2 = L2Mode::cold;
  else if (a.l2 == "warm")
    cfg.l2 = L2Mode::warm;
  else
    throw UsageError("--l2 '" + a.l2 + "': expected cold or warm");
  return cfg;
}

// The start-up phases in front of the run's (and of those the first row waited for: it came
// after them); where both APIs opened at once, each one's opening beside the other.
void add_start_up(RunDocument& doc, const std::vector<std::pair<std::string, double>>& start_up,
                  const OpenBackends& backends) {
  using Phases = std::vector<std::pair<std::string, double>>;
  const auto in_front = [](Phases& phases, const Phases& add) {
    phases.insert(phases.begin(), add.begin(), add.end());
  };
  RunOutcome& o = doc.outcome;
  in_front(o.phase_s, start_up);
  if (doc.first_row_s > 0) in_front(o.first_row_phase_s, start_up);
  const PerApi<double>& open_s = backends.open_s;
  if (open_s[Api::cuda] > 0 && open_s[Api::vulkan] > 0) {
    const Phases opened = {{"open cuda (beside vulkan)", open_s[Api::cuda]},
                           {"open vulkan (beside cuda)", open_s[Api::vulkan]}};
    in_front(o.background_s, opened);
    if (doc.first_row_s > 0) in_front(o.first_row_background_s, opened);
  }
}

// The pairs' compile times for an API the run has no backend for (NVRTC compiles a pair's CUDA
// side without a CUDA device): a host-cost row of their own, without launch figures.
void add_unloaded_compiles(RunOutcome& o, const RunConfig& cfg, const OpenBackends& backends,
                           const std::vector<std::shared_ptr<PreparedPair>>& pairs) {
  if (cfg.host_cost_samples <= 0) return;  // no host-cost table at all
  for (Api api : cfg.apis) {
    if (backends.backends[api]) continue;  // listed with the backend's start-up costs
    HostCostSummary h;
    h.api = api;
    h.startup_ms = pair_compile_ms(pairs, api);
    if (h.startup_ms.empty()) continue;
    const auto at = std::find_if(o.host.begin(), o.host.end(),
                                 [api](const HostCostSummary& x) { return x.api > api; });
    o.host.insert(at, std::move(h));
  }
}

// The run's block sizes and the chosen devices' smallest grid x: where a pair's launch folds.
RunGrid run_grid(const RunConfig& cfg, const DeviceChoice& choice) {
  RunGrid g;
  g.block_sizes = cfg.block_sizes;
  g.cuda = std::find(cfg.apis.begin(), cfg.apis.end(), Api::cuda) != cfg.apis.end();
  for (Api api : cfg.apis) {
    const std::optional<DeviceInfo>& d = choice.device(api);
    if (d && d->max_grid_x > 0)
      g.max_grid_x = g.max_grid_x ? std::min(g.max_grid_x, d->max_grid_x) : d->max_grid_x;
  }
  return g;
}

// The format the console shows while the run goes, if any: the run's own format on stdout, or
// the table next to an --output file; JSON is one document written at the end.
std::optional<Format> console_format(const RunArgs& a, Format f, bool trace) {
  if (trace) return std::nullopt;  // `cuvk trace` prints its own document at the end
  if (!a.output.empty()) return a.quiet ? std::nullopt : std::optional<Format>(Format::table);
  return f == Format::json ? std::nullopt : std::optional<Format>(f);
}

// A CPU device (lavapipe) never reaches the CI target: fewer repetitions by default there.
ValidatedConfig apply_cpu_defaults(const RunArgs& a, const DeviceChoice& choice,
                                   const ValidatedConfig& cfg) {
  const bool cpu_only = !choice.cuda && choice.vulkan && choice.vulkan->is_cpu;
  return cfg.with_cpu_defaults(cpu_only && !a.reps, cpu_only && !a.warmup,
                               cpu_only && !a.settle_ms);
}

// The first point's inputs (256 MB on a GPU) are made while the contexts and devices open.
std::shared_ptr<EarlyInputs> take_first_inputs(const DeviceChoice& choice, InventoryOnce& devices,
                                               const ValidatedConfig& cfg) {
  const auto wants = [&cfg](Api api) {
    return std::find(cfg->apis.begin(), cfg->apis.end(), api) != cfg->apis.end();
  };
  const bool on_gpu = (wants(Api::cuda) && choice.cuda) ||
                      (wants(Api::vulkan) && choice.vulkan && !choice.vulkan->is_cpu);
  // Those started with the command (default sizes only) where made for this kind of device (and
  // then where they fit the first point: EarlyInputs::take_for), else started now.
  std::shared_ptr<EarlyInputs> first = std::move(devices.early_inputs);
  if (first && (cfg->n || first->for_gpu != on_gpu)) first.reset();
  if (!first) first = start_first_inputs(cfg, on_gpu, choice);
  return first;
}

// The run's callbacks onto the live console: the head once the clocks are settled, each row as
// it is measured (in `live_format`, if any), progress on a TTY; the first row's time into `doc`.
RunObserver follow_live(LiveConsole& live, std::optional<Format> live_format, RunDocument& doc,
                        const RunConfig& cfg) {
  const auto progress = [&live](std::size_t done, std::size_t total, const std::string& what) {
    live.progress(done, total, what);
  };
  // The columns' widths, chosen with the head from what the plan knows (stream_widths).
  auto widths = std::make_shared<std::vector<std::size_t>>();
  const auto on_start = [&live, live_format, &doc, widths](const RunOutcome& settings) {
    if (!live_format) return;
    RunDocument head = doc;
    head.outcome = settings;
    *widths = stream_widths(head);
    live.print(stream_head(head, *live_format, *widths));
  };
  const auto on_row = [&live, live_format, &doc, counters = cfg.counters,
                       widths](const ResultRow& row) {
    if (doc.first_row_s == 0.0) doc.first_row_s = seconds_since_launch();
    if (live_format) live.print(stream_row(row, *live_format, *widths, doc.columns, counters));
  };
  return {progress, on_row, on_start};
}

// Pairs: read, compiled for the chosen CUDA device's architecture and checked before any work,
// their tests added to the run (`tests`); every file they read is an input --output may not
// overwrite.
std::vector<std::shared_ptr<PreparedPair>> read_pairs(const RunArgs& a, const DeviceChoice& choice,
                                                      const RunConfig& cfg,
                                                      std::vector<std::string>& tests) {
  const bool cpu_only = !choice.cuda && choice.vulkan && choice.vulkan->is_cpu;
  auto pairs = prepare_pairs(a.pairs, choice.cuda ? cuda_arch_of(*choice.cuda) : 0,
                             cfg.n == 0 ? std::vector<std::uint32_t>{} : cfg.sizes, cpu_only,
                             run_grid(cfg, choice));
  std::vector<NamedFile> inputs = {{"--baseline", a.baseline}};
  for (const auto& p : pairs) {
    tests.push_back(p->decl.name);
    if (!p->warning.empty()) std::cerr << "warning: " << printable(p->warning) << '\n';
    if (!p->skipped.empty()) std::cerr << "note: " << printable(p->skipped) << '\n';
    for (const auto& [what, path] : pair_input_files(*p))
      inputs.push_back({what == "--pair" ? what : what + " of " + p->decl.file, path});
  }
  check_distinct_files({{"--output", a.output}, {"--output", a.written_after}}, inputs);
  return pairs;
}

}  // namespace

std::size_t run_judgements() {
  return judgements;
}

JudgedRun judge_run(const RunArgs& a) {
  RunConfig cfg = config_of(a);
  if (!(a.timeout_s > 0.0) || a.timeout_s > kMaxTimeoutS)
    throw UsageError(fmt::format("--timeout must be more than 0 and at most {} seconds, not {}",
                                 static_cast<int>(kMaxTimeoutS), [&] {
                                   std::ostringstream o;
                                   o << std::setprecision(15) << a.timeout_s;
                                   return o.str();
                                 }()));
  // In this order (the first wrong one is named); the tolerance with or without --baseline.
  return {a, validate_config(std::move(cfg)), parse_format(a.format), parse_tolerance(a.tolerance)};
}

JudgedRun changed_run(const JudgedRun& run, const std::function<void(RunConfig&)>& change) {
  RunConfig cfg = *run.cfg;
  change(cfg);
  return {run.args, validate_config(std::move(cfg)), run.format, run.tolerance};
}

Run::Run(JudgedRun judged, std::string command_line, InventoryOnce& devices)
    : a_(std::move(judged.args)),
      cfg_(std::move(judged.cfg)),
      format_(judged.format),
      devices_(devices) {
  doc_.command_line = std::move(command_line);
}

Run::~Run() = default;

// The phases of one run, in order (nvbench's measure_cold::operator()).
RunDocument Run::operator()() {
  install_interrupt_handlers();  // from here a signal ends the run with exit 128 + N, never a file
  check_outputs();
  choose();
  read_pairs();
  take_first_inputs();
  open();
  follow_live();
  measure();
  finish();
  return std::move(doc_);
}

// --output judged (a directory, say) and kept apart from the inputs before any work.
void Run::check_outputs() {
  if (!a_.output.empty()) check_writable(a_.output);
  check_distinct_files({{"--output", a_.output}, {"--output", a_.written_after}},
                       {{"--baseline", a_.baseline}});
  vk_opts_ = vulkan_options(*cfg_, a_.timeout_s);
  if (a_.validation) {
    vk_opts_.validation = true;
    vk_opts_.on_message = [this](const std::string& m) { doc_.validation_messages.push_back(m); };
  }
}

// The devices (enumerated once; with --validation under the layer, its messages kept), and a CPU
// device's defaults.
void Run::choose() {
  command_s_ = seconds_since_launch();
  doc_.choice =
      choose_devices(a_.validation ? take_inventory(vk_opts_) : devices_.get(), a_.device);
  devices_s_ = seconds_since_launch();
  cfg_ = apply_cpu_defaults(a_, doc_.choice, cfg_);
}

// The pairs compiled for the chosen devices and their tests added (the sweep's size judged again)
// before any device is opened.
void Run::read_pairs() {
  std::vector<std::string> tests;
  pairs_ = cuvk::read_pairs(a_, doc_.choice, *cfg_, tests);
  if (!tests.empty()) cfg_ = cfg_.with_tests(tests);
  doc_.config = *cfg_;
}

void Run::take_first_inputs() {
  first_inputs_ = cuvk::take_first_inputs(doc_.choice, devices_, cfg_);
  doc_.columns = a_.columns;
  doc_.date_utc = now_utc();
  doc_.host = hostname();
}

void Run::open() {
  backends_ = std::make_unique<OpenBackends>();
  opening_s_ = seconds_since_launch();
  open_backends(*cfg_, vk_opts_, doc_.choice, devices_, *backends_);
  load_pairs(pairs_, backends_->backends[Api::cuda].get(), backends_->backends[Api::vulkan].get());
}

void Run::follow_live() {
  live_format_ = console_format(a_, format_, cfg_->trace);  // the head, rows, progress
  live_ = std::make_unique<LiveConsole>(isatty(STDERR_FILENO) && !a_.quiet);  // elapsed from here
  observer_ = cuvk::follow_live(*live_, live_format_, doc_, *cfg_);
}

void Run::measure() {
  start_up_s_ = seconds_since_launch();
  try {
    doc_.outcome = run_suite(cfg_, backends_->set, observer_, first_inputs_);
  } catch (...) {  // a hung device is never torn down, however the run ends (it may still work)
    leave_hung(*backends_);
    throw;
  }
  add_unloaded_compiles(doc_.outcome, *cfg_, *backends_, pairs_);
  leave_hung(*backends_);
  doc_.node = read_node_view(doc_.choice.cuda ? &*doc_.choice.cuda : nullptr);  // gpu_health.h
}

// From launch to the suite: the command (options, baseline), device enumeration, the devices
// opened (CUDA's context on its own thread beside Vulkan's instance and device), clock monitor.
void Run::finish() {
  const double suite_s = seconds_since_launch();
  const OpenBackends& b = *backends_;
  std::vector<std::pair<std::string, double>> start_up = {
      {"start-up: command", command_s_},
      {"start-up: devices", devices_s_ - command_s_},
      {"start-up: open", start_up_s_ - opening_s_ - b.clocks_s - b.counters_s},
      {"start-up: clock monitor", b.clocks_s},
      {"start-up: other", opening_s_ - devices_s_}};
  if (cfg_->counters)  // CUPTI's start, before the first row (0.5-1 s on an H100)
    start_up.insert(start_up.begin() + 4, {"start-up: counters", b.counters_s});
  add_start_up(doc_, start_up, b);
  first_inputs_.reset();  // unused when the devices planned another first point
  live_->finish();
  doc_.wall_s = seconds_since_launch();
  doc_.outcome.phase_s.emplace_back("finish", doc_.wall_s - suite_s);
  doc_.streamed = live_format_.has_value();
}

RunDocument execute_run(const JudgedRun& run, const std::string& cmdline, InventoryOnce& devices) {
  return Run(run, cmdline, devices)();
}

void emit(const RunDocument& doc, Format f, const std::string& output, bool quiet) {
  if (doc.outcome.interrupted) {  // what completed, on the console only: never a partial file
    if (!doc.streamed) std::cout << format_run(doc, Format::table) << std::flush;
    // One line: a launch that also hung is said here, since "the rows measured so far are kept"
    // (run_command) is untrue of an interrupted run, which writes no file.
    std::string hung;
    for (const std::string& h : hung_launches()) hung += "; " + printable(h);
    std::cerr << "error: interrupted by signal " << interrupt_signal() << " after "
              << doc.outcome.rows.size() << " rows; no result file written" << hung << '\n';
    return;
  }
  const std::string text = format_run(doc, f);
  if (output.empty()) {  // streamed: the rows are out already, the tail follows
    std::cout << (doc.streamed ? stream_tail(doc, f) : text) << std::flush;
  } else {
    write_output_file(output, text);
    if (!quiet)
      std::cout << (doc.streamed ? stream_tail(doc, Format::table) : format_run(doc, Format::table))
                << "\nwrote " << printable(output) << '\n';
  }
  print_validation_messages(doc);
}

void print_validation_messages(const RunDocument& doc) {
  const std::vector<std::string>& ms = doc.validation_messages;
  for (const std::string& m : ms) std::cerr << "validation: " << printable(m) << '\n';
  if (!ms.empty())
    std::cerr << "error: the Vulkan validation layer sent " << ms.size()
              << (ms.size() == 1 ? " message" : " messages")
              << " (above); under --validation any message fails the run\n";
}

int run_exit_code(const RunDocument& doc, bool require_verified) {
  if (doc.outcome.interrupted) return interrupted_exit_code(interrupt_signal());
  if (!doc.validation_messages.empty()) return kExitFailed;  // print_validation_messages says why
  for (const ResultRow& r : doc.outcome.rows) {
    if (r.status == Status::failed) return kExitFailed;
    if (require_verified && r.status == Status::ok && r.check != Check::verified)
      return kExitFailed;
  }
  return kExitOk;
}

// Opens the usual pair (and starts the first inputs) beside everything before the run.
void open_early(const JudgedRun& j, InventoryOnce& devices) {
  const RunArgs& a = j.args;
  if (!a.device.empty() || a.validation) return;
  try {
    devices.open_early(j.cfg->apis, vulkan_options(*j.cfg, a.timeout_s));
    // Sizes given: checked against the chosen devices first (Run). No tests yet (--pair alone):
    // nothing to plan before the pairs are read.
    if (j.cfg->n == 0 && !j.cfg->tests.empty())
      devices.early_inputs = start_first_inputs(j.cfg, access("/dev/nvidiactl", F_OK) == 0);
  } catch (const UsageError&) {  // the run says what is wrong, before opening anything
  }
}

int run_command(const JudgedRun& j, const std::string& cmdline, InventoryOnce& devices) {
  const RunArgs& a = j.args;
  column_indices(run_table_headers(), a.columns);  // an unknown column before anything runs
  if (is_device_list(a.device)) return run_every_device(j, cmdline, devices);  // run_devices.cpp
  open_early(j, devices);
  const std::optional<RunFile> base = load_baseline(j, devices);  // checked before anything runs
  RunDocument doc = Run(j, cmdline, devices)();
  // A signal after the last row (while the devices close, seen on an H100) still means stop:
  // no result file, exit 128 + N, as during the run.
  if (interrupted()) doc.outcome.interrupted = true;
  emit(doc, j.format, a.output, a.quiet);
  const int code = run_exit_code(doc, a.require_verified);
  const int exit_code =
      base && !doc.outcome.interrupted ? worse_exit(code, emit_baseline(doc, *base, j)) : code;
  if (!hung_launches().empty()) {  // the rows are out; end now, without waiting for the device
    if (!doc.outcome.interrupted)  // else emit said it, with the interruption
      for (const std::string& h : hung_launches())
        std::cerr << "error: " << printable(h) << "; the rows measured so far are kept\n";
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(worse_exit(exit_code, kExitFailed));
  }
  return exit_code;
}

}  // namespace cuvk
