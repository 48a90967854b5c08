// `cuvk run`: options, execution through the one timing driver, output.
#include "cmd_run.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

#include "backends.h"
#include "catalogue.h"
#include "cli.h"
#include "devices.h"
#include "error.h"
#include "input_pipeline.h"
#include "interrupt.h"
#include "launch_clock.h"
#include "live_console.h"
#include "nvml.h"
#include "pair_tests.h"
#include "run_printer.h"

namespace cuvk {

namespace {

constexpr double kMaxTimeoutS = 3600.0;  // --timeout

// The options that choose the points and how they are timed: run's and trace's.
void add_point_options(CLI::App& sub, RunArgs& a, bool trace) {
  sub.add_option("--api", a.apis, "APIs: cuda, vulkan or all (default all)")->delimiter(',');
  sub.add_option("--vk-binding", a.vk_bindings,
                 "Vulkan binding modes, each its own rows: descriptor (descriptor sets), bda "
                 "(buffer device addresses in push constants) or all (default descriptor)")
      ->delimiter(',');
  sub.add_option("--layouts", a.layouts,
                 std::string("only these layouts, e.g. aos or soa (default ") +
                     (trace ? "its first)" : "all)"))
      ->delimiter(',');
  sub.add_option("--variants", a.variants,
                 std::string("only these variants, e.g. scalar, vec4, engine (default ") +
                     (trace ? "its first that runs a kernel)" : "all)"))
      ->delimiter(',');
  sub.add_option("--n", a.n,
                 std::string("problem size in elements, with optional k/M/G (2^10/2^20/2^30) "
                             "suffix; default 64M on a GPU, 1M on a CPU device") +
                     (trace ? ""
                            : ". Several sizes, each its own rows: a list (16k,1M,64M), a range "
                              "adding a step (1M-4M:1M) or multiplying by a factor (1k-256M:x4)"));
  sub.add_option("--reps", a.reps,
                 "timed repetitions per batch and the minimum sample count (default 100 on a "
                 "GPU, 20 on a CPU device)");
  sub.add_option("--warmup", a.warmup,
                 "untimed repetitions before timing (default 10 on a GPU, 3 on a CPU device)");
  sub.add_option("--block-size", a.block_size,
                 "threads per block = Vulkan workgroup size, a multiple of 32 (default 256)");
  sub.add_option("--block-sizes", a.block_sizes,
                 "sweep block sizes, e.g. 64,128,256,512,1024 (overrides --block-size)");
  sub.add_option("--target-ci", a.target_ci,
                 "repeat until the median's 95% confidence half-width is within this percent of "
                 "the median (default 0.5)");
  sub.add_option(
      "--max-time", a.max_time_s,
      "... or until this many seconds per point and API have passed (default 0: 2 on a GPU, "
      "0.1 on a CPU device)");
  sub.add_option("--settle-ms", a.settle_ms,
                 "GPU milliseconds of warm-up work per API before the first point, so clocks "
                 "settle (default 500 on a GPU, 50 on a CPU device)");
  for (const Axis& axis : axes()) {  // one option per sweep axis: --offsets, --strides, ...
    std::string defaults;            // trace: the first alone
    for (std::size_t i = 0; i < axis.defaults.size() && !(trace && i > 0); ++i)
      defaults += (defaults.empty() ? "" : ",") + std::to_string(axis.defaults[i]);
    sub.add_option(axis.option, a.axis_values[axis.name],
                   axis.help + (defaults.empty() ? "" : " (default " + defaults + ")"));
  }
  sub.add_option("--seed", a.seed, "seed of the random inputs (default 1)");
  sub.add_option("--l2", a.l2,
                 "cold: flush L2 before every timed repetition (default); warm: no flush");
}

// What run reports and compares: the report's format and file, counters, baseline and pairs.
void add_report_options(CLI::App& sub, RunArgs& a) {
  sub.add_option("--format", a.format, "table, md, csv or json (default table)");
  sub.add_option("--columns", a.columns,
                 "print only these columns of the main table, in this order, by header name "
                 "(e.g. test,variant,api,median_ms,status; '_' for a space; table and md; "
                 "default all)")
      ->delimiter(',');
  sub.add_option("--output", a.output,
                 "write the report to this file instead of stdout (a regular file atomically: "
                 "temporary + rename; a device or FIFO directly; a directory is refused); the "
                 "table still goes to stdout");
}

void add_comparison_options(CLI::App& sub, RunArgs& a) {
  sub.add_flag("--counters", a.counters,
               "hardware counters beside every row (CUPTI, after the timed repetitions): "
               "measured sectors/request and DRAM bytes next to the model's, SM throughput, warps "
               "and CTAs per SM; see docs/COUNTERS.md");
  sub.add_flag("--dispatch-cost", a.dispatch_cost,
               "after the rows, a near-empty kernel on 1 to 2^20 blocks: us = a + b x blocks");
  sub.add_option("--baseline", a.baseline,
                 "compare every row with the same row of this saved run JSON (same GPU model): "
                 "ratio, 95% CI, verdict; a SLOWER row exits 1");
  sub.add_flag("--require-verified", a.require_verified,
               "exit 1 where a row ran but its output was not verified against something "
               "independent (unchecked, consistent, timing only), as for a failed row (for CI)");
  sub.add_option("--pair", a.pairs,
                 "run a kernel pair from its declaration file (docs/PAIRS.md); repeatable, and "
                 "with --tests the built-in tests too");
}

}  // namespace

void add_run_options(CLI::App& sub, RunArgs& a, RunOptionSet set) {
  const bool run = set == RunOptionSet::run;
  if (run)
    sub.add_option("--tests", a.tests,
                   "tests to run, comma-separated, or 'all' (see `cuvk list`; default all; "
                   "chain, K dependent dispatches per submission mode, runs only where named)")
        ->delimiter(',');
  add_point_options(sub, a, !run);
  if (run) add_report_options(sub, a);
  sub.add_option("--device", a.device,
                 "CUDA device index or UUID prefix, a list of them (0,2: each in turn), or all "
                 "(each GPU in turn); a list or all writes one node file (results/SCHEMA.md) "
                 "(default: the first CUDA device that Vulkan also sees, by UUID)");
  if (run) add_node_options(sub, a);  // --quiet, --concurrent (cmd_run_devices.cpp)
  sub.add_flag("--validation", a.validation,
               "enable the Khronos validation layer (debugging only: it changes Vulkan timings)");
  if (run) add_comparison_options(sub, a);
  sub.add_option("--timeout", a.timeout_s,
                 "seconds to wait for a launch before reporting it as never finishing (default "
                 "120); the rows measured so far are kept and the exit code is 1");
  if (run)
    sub.add_option(
        "--tolerance", a.tolerance,
        "percent: verdicts say SAME when the ratio's 95% CI lies inside 1 +- this (default 3)");
}

namespace {

// The options as a run configuration: values parsed here, judged by validate_config.
RunConfig config_of(const RunArgs& a) {
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
  cfg.dispatch_chain = a.dispatch_chain;
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
  for (Api api : cfg.apis) {
    const std::optional<DeviceInfo>& d = api == Api::cuda ? choice.cuda : choice.vulkan;
    if (d && d->max_grid_x > 0)
      g.max_grid_x = g.max_grid_x ? std::min(g.max_grid_x, d->max_grid_x) : d->max_grid_x;
  }
  return g;
}

// The format the console shows while the run goes, if any: the run's own format on stdout, or
// the table next to an --output file; JSON is one document written at the end.
std::optional<Format> console_format(const RunArgs& a) {
  if (a.trace) return std::nullopt;  // `cuvk trace` prints its own document at the end
  const Format f = parse_format(a.format);
  if (!a.output.empty()) return a.quiet ? std::nullopt : std::optional<Format>(Format::table);
  return f == Format::json ? std::nullopt : std::optional<Format>(f);
}

// A CPU device (lavapipe) never reaches the CI target: fewer repetitions by default there.
void apply_cpu_defaults(const RunArgs& a, const DeviceChoice& choice, RunConfig& cfg) {
  const bool cpu_only = !choice.cuda && choice.vulkan && choice.vulkan->is_cpu;
  if (cpu_only && !a.reps) cfg.reps = kDefaultCpuReps;
  if (cpu_only && !a.warmup) cfg.warmup = kDefaultCpuWarmup;
  if (cpu_only && !a.settle_ms) cfg.settle_ms = kDefaultCpuSettleMs;
}

// The first point's inputs (256 MB on a GPU) are made while the contexts and devices open.
void take_first_inputs(const DeviceChoice& choice, InventoryOnce& devices, RunConfig& cfg) {
  const auto wants = [&cfg](Api api) {
    return std::find(cfg.apis.begin(), cfg.apis.end(), api) != cfg.apis.end();
  };
  const bool on_gpu = (wants(Api::cuda) && choice.cuda) ||
                      (wants(Api::vulkan) && choice.vulkan && !choice.vulkan->is_cpu);
  // Those started with the command (default sizes only) where made for this kind of device (and
  // then where they fit the first point: EarlyInputs::take_for), else started now.
  cfg.first_inputs = std::move(devices.early_inputs);
  if (cfg.first_inputs && (cfg.n || cfg.first_inputs->for_gpu != on_gpu)) cfg.first_inputs.reset();
  if (!cfg.first_inputs) cfg.first_inputs = start_first_inputs(cfg, on_gpu, choice);
}

// The run's callbacks onto the live console: the head once the clocks are settled, each row as
// it is measured (in `live_format`, if any), progress on a TTY; the first row's time into `doc`.
void follow_live(LiveConsole& live, std::optional<Format> live_format, RunDocument& doc,
                 RunConfig& cfg) {
  cfg.progress = [&live](std::size_t done, std::size_t total, const std::string& what) {
    live.progress(done, total, what);
  };
  // The columns' widths, chosen with the head from what the plan knows (stream_widths).
  auto widths = std::make_shared<std::vector<std::size_t>>();
  cfg.on_start = [&live, live_format, &doc, widths](const RunOutcome& settings) {
    if (!live_format) return;
    RunDocument head = doc;
    head.outcome = settings;
    *widths = stream_widths(head);
    live.print(stream_head(head, *live_format, *widths));
  };
  cfg.on_row = [&live, live_format, &doc, &cfg, widths](const ResultRow& row) {
    if (doc.first_row_s == 0.0) doc.first_row_s = seconds_since_launch();
    if (live_format) live.print(stream_row(row, *live_format, *widths, doc.columns, cfg.counters));
  };
}

// Pairs: read, compiled for the chosen CUDA device's architecture and checked before any work,
// their tests added to the run; every file they read is an input --output may not overwrite.
std::vector<std::shared_ptr<PreparedPair>> read_pairs(const RunArgs& a, const DeviceChoice& choice,
                                                      RunConfig& cfg) {
  const bool cpu_only = !choice.cuda && choice.vulkan && choice.vulkan->is_cpu;
  auto pairs = prepare_pairs(a.pairs, choice.cuda ? cuda_arch_of(*choice.cuda) : 0,
                             a.n.empty() ? std::vector<std::uint32_t>{} : cfg.sizes, cpu_only,
                             run_grid(cfg, choice));
  std::vector<NamedFile> inputs = {{"--baseline", a.baseline}};
  for (const auto& p : pairs) {
    cfg.tests.push_back(p->decl.name);
    if (!p->warning.empty()) std::cerr << "warning: " << printable(p->warning) << '\n';
    if (!p->skipped.empty()) std::cerr << "note: " << printable(p->skipped) << '\n';
    for (const auto& [what, path] : pair_input_files(*p))
      inputs.push_back({what == "--pair" ? what : what + " of " + p->decl.file, path});
  }
  check_distinct_files({{"--output", a.output}}, inputs);
  return pairs;
}

}  // namespace

RunConfig run_config_of(const RunArgs& a) {
  return config_of(a);
}

void check_run_args(const RunArgs& a) {
  RunConfig cfg = config_of(a);
  if (!(a.timeout_s > 0.0) || a.timeout_s > kMaxTimeoutS)
    throw UsageError("--timeout must be more than 0 and at most " +
                     std::to_string(static_cast<int>(kMaxTimeoutS)) + " seconds, not " + [&] {
                       std::ostringstream o;
                       o << std::setprecision(15) << a.timeout_s;
                       return o.str();
                     }());
  if (!a.pairs.empty()) return;  // the pairs are read, and the selection judged, by execute_run
  validate_config(cfg);
  parse_format(a.format);
  parse_tolerance(a.tolerance);
}

RunDocument execute_run(const RunArgs& a, const std::string& cmdline, InventoryOnce& devices) {
  install_interrupt_handlers();  // from here a signal ends the run with exit 128 + N, never a file
  RunConfig cfg = config_of(a);
  check_run_args(a);
  parse_format(a.format);                           // fail on a bad format before running anything
  parse_tolerance(a.tolerance);                     // checked with or without --baseline
  if (!a.output.empty()) check_writable(a.output);  // a directory, say, before any work
  check_distinct_files({{"--output", a.output}}, {{"--baseline", a.baseline}});

  BackendOptions vk_opts = vulkan_options(cfg, a.timeout_s);
  std::vector<std::string> vk_messages;
  if (a.validation) {
    vk_opts.validation = true;
    vk_opts.on_message = [&vk_messages](const std::string& m) { vk_messages.push_back(m); };
  }
  RunDocument doc;
  const double command_s = seconds_since_launch();
  // With --validation the enumeration itself runs under the layer, its messages kept.
  doc.choice = choose_devices(a.validation ? take_inventory(vk_opts) : devices.get(), a.device);
  const double devices_s = seconds_since_launch();
  apply_cpu_defaults(a, doc.choice, cfg);
  const auto pairs = read_pairs(a, doc.choice, cfg);
  validate_config(cfg);  // fail on a bad value before any device is opened
  doc.config = cfg;
  take_first_inputs(doc.choice, devices, cfg);
  doc.command_line = cmdline;
  doc.columns = a.columns;
  doc.date_utc = now_utc();
  doc.host = hostname();
  OpenBackends backends;
  const double opening_s = seconds_since_launch();
  open_backends(cfg, vk_opts, doc.choice, devices, backends);
  load_pairs(pairs, backends.backends[Api::cuda].get(), backends.backends[Api::vulkan].get());

  const std::optional<Format> live_format = console_format(a);  // the head, rows, progress
  LiveConsole live(isatty(STDERR_FILENO) && !a.quiet);
  follow_live(live, live_format, doc, cfg);
  const double start_up_s = seconds_since_launch();
  try {
    doc.outcome = run_suite(cfg, backends.set);
  } catch (...) {  // a hung device is never torn down, however the run ends (it may still work)
    leave_hung(backends);
    throw;
  }
  add_unloaded_compiles(doc.outcome, cfg, backends, pairs);
  leave_hung(backends);
  doc.node = read_node_view(doc.choice.cuda ? &*doc.choice.cuda : nullptr);  // gpu_health.h
  const double suite_s = seconds_since_launch();
  // From launch to the suite: the command (options, baseline), device enumeration, the devices
  // opened (CUDA's context on its own thread beside Vulkan's instance and device), clock monitor.
  std::vector<std::pair<std::string, double>> start_up = {
      {"start-up: command", command_s},
      {"start-up: devices", devices_s - command_s},
      {"start-up: open", start_up_s - opening_s - backends.clocks_s - backends.counters_s},
      {"start-up: clock monitor", backends.clocks_s},
      {"start-up: other", opening_s - devices_s}};
  if (cfg.counters)  // CUPTI's start, before the first row (0.5-1 s on an H100)
    start_up.insert(start_up.begin() + 4, {"start-up: counters", backends.counters_s});
  add_start_up(doc, start_up, backends);
  cfg.first_inputs.reset();  // unused when the devices planned another first point
  live.finish();
  doc.wall_s = seconds_since_launch();
  doc.outcome.phase_s.emplace_back("finish", doc.wall_s - suite_s);
  doc.streamed = live_format.has_value();
  doc.validation_messages = std::move(vk_messages);
  return doc;
}

void emit(const RunDocument& doc, const std::string& format, const std::string& output,
          bool quiet) {
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
  const Format f = parse_format(format);
  const std::string text = format_run(doc, f);
  if (output.empty()) {  // streamed: the rows are out already, the tail follows
    std::cout << (doc.streamed ? stream_tail(doc, f) : text) << std::flush;
  } else {
    write_output_file(output, text);
    if (!quiet)
      std::cout << (doc.streamed ? stream_tail(doc, Format::table) : format_run(doc, Format::table))
                << "\nwrote " << printable(output) << '\n';
  }
  for (const std::string& m : doc.validation_messages)
    std::cerr << "validation: " << printable(m) << '\n';
}

int run_exit_code(const RunDocument& doc, bool require_verified) {
  if (doc.outcome.interrupted) return interrupted_exit_code(interrupt_signal());
  for (const ResultRow& r : doc.outcome.rows) {
    if (r.status == Status::failed) return kExitFailed;
    if (require_verified && r.status == Status::ok && r.check != Check::verified)
      return kExitFailed;
  }
  return kExitOk;
}

int run_command(const RunArgs& a, const std::string& cmdline, InventoryOnce& devices) {
  column_indices(run_table_headers(), a.columns);  // an unknown column before anything runs
  if (is_device_list(a.device))
    return run_every_device(a, cmdline, devices);  // cmd_run_devices.cpp
  if (a.device.empty() && !a.validation) {  // the usual pair, opened beside everything before it
    try {
      const RunConfig cfg = config_of(a);
      devices.open_early(cfg.apis, vulkan_options(cfg, a.timeout_s));
      if (cfg.n == 0)  // sizes given: checked against the chosen devices first (execute_run)
        devices.early_inputs = start_first_inputs(cfg, access("/dev/nvidiactl", F_OK) == 0);
    } catch (const UsageError&) {  // execute_run says what is wrong, before opening anything
    }
  }
  const std::optional<RunFile> base = load_baseline(a, devices);  // checked before anything runs
  RunDocument doc = execute_run(a, cmdline, devices);
  // A signal after the last row (while the devices close, seen on an H100) still means stop:
  // no result file, exit 128 + N, as during the run.
  if (interrupted()) doc.outcome.interrupted = true;
  emit(doc, a.format, a.output, a.quiet);
  const int code = run_exit_code(doc, a.require_verified);
  const int exit_code =
      base && !doc.outcome.interrupted ? worse_exit(code, emit_baseline(doc, *base, a)) : code;
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

Command add_run_command(CLI::App& app, const std::string& cmdline) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* sub = app.add_subcommand("run", "run tests on CUDA and Vulkan (everything by default)");
  add_run_options(*sub, *args);
  return {sub,
          [args, cmdline] {
            InventoryOnce devices;
            return run_command(*args, cmdline, devices);
          },
          [args] {
            check_run_args(*args);
            column_indices(run_table_headers(), args->columns);
          }};
}

}  // namespace cuvk
