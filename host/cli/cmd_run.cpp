// `cuvk run`'s options (CLI11); the run itself is host/app's (run.h, run.cpp).
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

#include <fmt/format.h>
#include <fmt/ranges.h>

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
    // The defaults in the help; trace: the first alone.
    const std::size_t shown =
        trace ? std::min<std::size_t>(axis.defaults.size(), 1) : axis.defaults.size();
    const std::string defaults =
        fmt::format("{}", fmt::join(axis.defaults.begin(), axis.defaults.begin() + shown, ","));
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

void add_node_options(CLI::App& sub, RunArgs& a) {
  sub.add_flag("--quiet", a.quiet, "with --output, print nothing on success");
  sub.add_flag("--concurrent", a.concurrent,
               "with --device all or a list: after measuring the GPUs in turn, measure them all "
               "at once (one process per GPU) and report each point's together/alone ratio with "
               "its 95% CI (the interference check, docs/MEASURING.md)");
}

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
  if (run) add_node_options(sub, a);  // --quiet, --concurrent
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

Command add_run_command(CLI::App& app, const std::string& cmdline) {
  auto args = std::make_shared<RunArgs>();
  auto judged = std::make_shared<std::optional<JudgedRun>>();  // by the check, once
  CLI::App* sub = app.add_subcommand("run", "run tests on CUDA and Vulkan (everything by default)");
  add_run_options(*sub, *args);
  const auto judge = [args, judged] {
    *judged = judge_run(*args);
    column_indices(run_table_headers(), args->columns);
  };
  return {sub,
          [args, judged, judge, cmdline] {
            if (!*judged) judge();  // the CLI checks first; a caller that did not, here
            InventoryOnce devices;
            return run_command(**judged, cmdline, devices);
          },
          judge};
}

}  // namespace cuvk
