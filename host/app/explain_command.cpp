// `cuvk explain` (issue 38, docs/EXPLAIN.md): runs what `run` runs (both Vulkan bindings, with
// hardware counters where CUPTI is present), and for every point whose Vulkan/CUDA verdict is not
// SAME gathers what may account for the gap and ranks it (host/results/explain.h):
// - experiments, each a short run of the point with one thing changed on both APIs: the other
//   Vulkan binding (from the first run), the grid-stride variant where the test has one, the
//   block-size sweep 64..1024, and on launch-bound points a chain of the kernel's dispatches;
// - evidence: both APIs' sampled counters (launch rate and residency, instructions, DRAM bytes, SM
//   throughput), both APIs' dispatch traces (launch rate, residency, refill) and both machine codes
//   (cuvk inspect's SASS comparison of built-in kernels).
// Exit codes: 0 every compared point SAME (nothing to explain), 1 some point not SAME, a failed
// row or (under --validation) a validation-layer message, 2 no point with rows from both APIs (an
// API unavailable) or a usage error, 3 environment.
#include "explain_command.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "axes.h"
#include "catalogue.h"
#include "options.h"
#include "output_file.h"
#include "run.h"
#include "error.h"
#include "explain.h"
#include "explain_printer.h"
#include "inspect_sides.h"
#include "interrupt.h"
#include "output_file.h"
#include "parity.h"
#include "trace_file.h"

namespace cuvk {
namespace {

const std::vector<std::uint32_t> kBlockSweep = {64, 128, 256, 512, 1024};
constexpr std::uint32_t kChainDispatches = 64;  // the chain experiment's dispatches

// A pair's rows name their module "pair:<name>"; its test is in the catalogue only while a run
// has it registered, so the catalogue cannot tell a pair from a built-in test.
bool is_pair(const ResultRow& r) {
  return r.kernel.rfind("pair:", 0) == 0;
}

}  // namespace

JudgedRun experiment_run(const JudgedExplain& e, const ParityLine& line, bool alone,
                         const std::function<void(RunConfig&)>& change) {
  const ResultRow& p = line.point;
  const TestCase* t = is_pair(p) ? nullptr : find_test(p.test);
  JudgedRun run = changed_run(e.run, [&](RunConfig& c) {
    c.variants = {p.variant};
    c.layouts.clear();
    for (const Axis& axis : axes()) c.axis_values[axis.name] = axis.defaults;  // as not given
    if (t) {
      c.tests = {p.test};
      if (!p.layout.empty()) c.layouts = {p.layout};
      if (!alone && p.variant != "grid" &&
          std::find(t->variants.begin(), t->variants.end(), "grid") != t->variants.end())
        c.variants.push_back("grid");
      for (const std::string& axis : t->sweeps) c.axis_values[axis] = {p.axes.get(axis)};
    } else {  // a pair: its declarations run again (their own block sizes win where declared)
      c.tests.clear();
      if (!alone) c.variants.clear();
    }
    c.n = p.n;
    c.sizes = {p.n};
    c.block_sizes = alone ? std::vector<std::uint32_t>{p.block_size} : kBlockSweep;
    c.vk_bindings = {line.vulkan->binding};
    c.counters = c.dispatch_cost = false;
    c.max_time_s = e.experiment_time_s;
    if (change) change(c);
  });
  if (t) run.args.pairs.clear();
  run.args.baseline.clear();
  run.args.output.clear();
  run.args.columns.clear();
  run.format = Format::json;  // streams nothing: the experiments' rows show only in the findings
  run.args.quiet = true;
  return run;
}

namespace {

// One experiment run; an interrupt ends explain.
RunDocument run_experiment(const JudgedRun& run, const std::string& cmdline,
                           InventoryOnce& devices) {
  RunDocument doc = execute_run(run, cmdline, devices);
  if (doc.outcome.interrupted) throw Interrupted("explain interrupted");
  return doc;
}

bool same_except(const ResultRow& a, const ResultRow& b, bool variant, bool block) {
  return a.test == b.test && a.layout == b.layout && a.n == b.n && a.axes == b.axes &&
         (variant || a.variant == b.variant) && (block || a.block_size == b.block_size);
}

// The experiments of `line` found in the experiment run's parity lines.
void add_experiments(explain::Case& c, const ParityLine& line, const ParityResult& exp) {
  const ResultRow& p = line.point;
  const ParityLine* best_block = nullptr;
  std::string by_block;
  for (const ParityLine& l : exp.lines) {
    if (l.state != PairState::compared || !l.vulkan || l.vulkan->binding != line.vulkan->binding)
      continue;
    if (l.point.variant == "grid" && p.variant != "grid" && same_except(l.point, p, true, false))
      c.experiments.push_back({"launch rate",
                               fmt::format("the grid-stride variant ({} blocks)",
                                           l.point.geometry.grid_x * l.point.geometry.grid_y),
                               l.ratio});
    if (l.point.variant == p.variant && same_except(l.point, p, false, true)) {
      by_block += fmt::format("{}{}: {}", by_block.empty() ? "" : ", ", l.point.block_size,
                              explain::number(l.ratio.ratio));
      if (l.point.block_size != p.block_size &&
          (!best_block || std::fabs(l.ratio.ratio - 1) < std::fabs(best_block->ratio.ratio - 1)))
        best_block = &l;
    }
  }
  if (best_block)
    c.experiments.push_back(
        {"block size",
         fmt::format("block {} (Vulkan/CUDA by block {})", best_block->point.block_size, by_block),
         best_block->ratio});
}

bool flagged(const ResultRow& r, const char* flag) {
  return std::find(r.flags.begin(), r.flags.end(), flag) != r.flags.end();
}

// A launch-bound point (either API's row below 10x its empty dispatch) again as a chain of
// kChainDispatches dispatches of its kernel, each waiting for the one before (a CUDA graph, a
// Vulkan recorded command buffer), timed per dispatch: what is left of the gap where the single
// dispatch's fixed cost is shared by the chain, as in a port's chain of dispatches.
void add_chain(explain::Case& c, const JudgedExplain& e, const ParityLine& line,
               const std::string& cmdline, InventoryOnce& devices) {
  const ResultRow& p = line.point;
  if (is_pair(p) || !find_test(p.test)) {
    c.not_run.push_back(
        "chain: a pair's own chains are declared with `repeat` in its [[step]] (docs/PAIRS.md)");
    return;
  }
  if (!flagged(*line.cuda, "launch_bound") && !flagged(*line.vulkan, "launch_bound")) {
    c.not_run.push_back(
        "chain: the point is not launch-bound (each API's time is over 10x its empty dispatch)");
    return;
  }
  const JudgedRun run =
      experiment_run(e, line, true, [](RunConfig& cfg) { cfg.dispatch_chain = kChainDispatches; });
  const RunDocument doc = run_experiment(run, cmdline, devices);
  for (const ParityLine& l : compare_apis(doc.outcome.rows, c.tolerance).lines)
    if (l.state == PairState::compared && same_except(l.point, p, false, false)) {
      c.experiments.push_back(
          {"dispatch overhead",
           fmt::format("a chain of {} dispatches (CUDA graph, Vulkan recorded) instead of one",
                       kChainDispatches),
           l.ratio});
      return;
    }
  c.not_run.push_back("chain: the chained point was not compared on both APIs");
}

// The launch rate from both APIs' dispatch traces of the point (cuvk trace's runner: each API's
// traced twin of the kernel at the point's block size and binding); built-in kernels only.
void add_trace(explain::Case& c, const JudgedExplain& e, const ParityLine& line,
               const std::string& cmdline, InventoryOnce& devices) {
  const ResultRow& p = line.point;
  if (is_pair(p) || !find_test(p.test)) {
    c.not_run.push_back(
        "trace: a pair's kernels are the user's source, which cuvk does not instrument with "
        "timestamp writes (the counters' launch rate stands in)");
    return;
  }
  const JudgedRun run = experiment_run(e, line, true, [](RunConfig& cfg) {
    cfg.trace = true;
    cfg.host_cost_samples = 0;  // a trace reports no host costs
  });
  const RunDocument doc = run_experiment(run, cmdline, devices);
  const TraceDocument t = trace_document(doc);
  PerApi<const TraceLane*> lane;  // each API's traced lane that ran and checked
  std::string why;
  for (const TraceLane& l : t.lanes) {
    if (l.api == Api::vulkan && l.binding != line.vulkan->binding) continue;
    if (!l.unavailable.empty() || !lane_ok(l)) {
      why += (why.empty() ? "" : "; ") + std::string(api_name(l.api)) + ": " +
             (l.unavailable.empty() ? "wrong output or trace records" : l.unavailable);
      continue;
    }
    lane[l.api] = &l;
  }
  if (lane[Api::cuda] && lane[Api::vulkan])
    c.evidence.push_back(
        explain::trace_evidence(lane[Api::cuda]->summary, lane[Api::vulkan]->summary));
  else
    c.not_run.push_back("trace: " + (why.empty() ? std::string("no trace lane ran") : why));
}

// The machine-code evidence of a built-in kernel on the point's binding (cached per kernel).
void add_machine_code(explain::Case& c, const ParityLine& line, inspect_cli::InspectDevices* devs) {
  const ResultRow& p = line.point;
  if (is_pair(p) || !find_test(p.test)) {
    c.not_run.push_back("machine code: a pair's kernels: see `cuvk inspect --pair FILE`");
    return;
  }
  if (!devs) {
    c.not_run.push_back("machine code: --no-experiments");
    return;
  }
  inspect::SassTarget target;
  target.block = p.block_size;
  if (devs->choice.cuda)
    for (const auto& [k, v] : devs->choice.cuda->properties)
      if (k == "compute_capability") inspect::set_sass_arch(target, v, devs->choice.cuda->name);
  const std::vector<std::uint32_t> blocks = {p.block_size};
  inspect::CudaSide cs =
      inspect::builtin_cuda_side(p.kernel, devs->cuda.get(), devs->cuda_reason, blocks);
  std::vector<inspect::VulkanSide> vs = {inspect::builtin_vulkan_side(
      p.kernel, line.vulkan->binding, devs->vulkan.get(), devs->vulkan_reason, blocks, target)};
  const inspect::KernelInspection k =
      inspect::inspect_kernel(p.kernel, std::move(cs), std::move(vs), blocks, false);
  std::string why;
  if (auto e = explain::machine_code_evidence(k, why))
    c.evidence.push_back(*e);
  else
    c.not_run.push_back("machine code: " + why);
}

explain::Case diagnose(const JudgedExplain& e, const ParityLine& line, const ParityResult& base,
                       const std::string& cmdline, InventoryOnce& devices,
                       inspect_cli::InspectDevices* devs) {
  explain::Case c;
  c.label = explain::case_label(line);
  c.ratio = line.ratio;
  c.verdict = line.verdict;
  c.tolerance = base.tolerance;
  if (const ParityLine* other = explain::other_binding(base.lines, line))
    c.experiments.push_back({"binding",
                             std::string("Vulkan binds by ") +
                                 binding_name(other->vulkan->binding) + " instead of " +
                                 binding_name(line.vulkan->binding),
                             other->ratio});
  else
    c.not_run.push_back("other binding: the run has no compared row on the other binding");
  std::string why;
  for (explain::Evidence& ev : explain::counter_evidence(*line.cuda, *line.vulkan, why))
    c.evidence.push_back(std::move(ev));
  if (!why.empty()) c.not_run.push_back("counters: " + why);
  if (e.no_experiments) {
    c.not_run.push_back("experiments: --no-experiments");
  } else {
    const RunDocument doc = run_experiment(experiment_run(e, line, false), cmdline, devices);
    add_experiments(c, line, compare_apis(doc.outcome.rows, base.tolerance));
    add_trace(c, e, line, cmdline, devices);
    add_chain(c, e, line, cmdline, devices);
  }
  add_machine_code(c, line, devs);
  return c;
}

bool needs_explaining(const ParityLine& l) {
  return l.state == PairState::compared && l.verdict != Verdict::same && l.cuda && l.vulkan &&
         l.point.variant != "engine" && !l.point.submission;
}

}  // namespace

JudgedExplain judge_explain(const ExplainArgs& e) {
  JudgedExplain judged{judge_run(e.run), e.no_experiments, e.experiment_time_s};
  if (judged.run.format == Format::csv)
    throw UsageError("--format csv: explain writes table, md or json");
  return judged;
}

namespace {

// --device all or a list (as `run`'s): each GPU in turn, each explained as a single --device
// would be; the worst of their exit codes (run_every_device's order), an interruption at once.
int explain_every_device(const JudgedExplain& e, const std::string& cmdline) {
  const RunArgs& a = e.run.args;
  if (!a.output.empty())
    throw UsageError("--output with --device " + a.device +
                     ": an explain file holds one GPU's findings; give --device one GPU, or "
                     "leave --output out");
  InventoryOnce devices;
  const std::vector<DeviceTarget> targets = device_targets(devices, a.device);
  int code = kExitOk;
  for (std::size_t k = 0; k < targets.size(); ++k) {
    std::cerr << "cuvk: --device " << printable(a.device) << ": " << (k + 1) << " of "
              << targets.size() << ": " << printable(targets[k].label) << '\n';
    JudgedExplain one = e;
    one.run.args.device = targets[k].spec;
    const int c = explain_command(one, cmdline);
    if (interrupted()) return c;
    code = worse_exit(code, c);
  }
  return code;
}

}  // namespace

int explain_command(const JudgedExplain& e, const std::string& cmdline) {
  if (is_device_list(e.run.args.device)) return explain_every_device(e, cmdline);
  const RunArgs& a = e.run.args;
  const Format format = e.run.format;
  const double tolerance = e.run.tolerance;
  if (!a.output.empty()) check_writable(a.output);
  InventoryOnce devices;
  // The first run: every Vulkan binding (--vk-binding all), counters unless --no-experiments.
  JudgedRun first = changed_run(e.run, [&e](RunConfig& cfg) {
    cfg.vk_bindings = {Binding::descriptor, Binding::bda};
    cfg.counters = cfg.counters || !e.no_experiments;
  });
  first.args.written_after = a.output;  // kept apart from the pairs' files and --baseline
  first.args.output.clear();
  first.args.columns.clear();
  const RunDocument doc = execute_run(first, cmdline, devices);
  if (doc.outcome.interrupted) return run_exit_code(doc);
  const int run_code = run_exit_code(doc);  // 1: a failed row or a validation message
  const ParityResult parity = compare_apis(doc.outcome.rows, tolerance);
  explain::Report report;
  report.run = describe_run(run_file_of(doc, "this run"));
  report.tolerance = tolerance;
  report.same = parity.same;
  std::unique_ptr<inspect_cli::InspectDevices> devs;
  for (const ParityLine& line : parity.lines) {
    if (!needs_explaining(line)) continue;
    if (!devs && !e.no_experiments)
      devs = std::make_unique<inspect_cli::InspectDevices>(
          inspect_cli::open_inspect_devices(a.device));
    report.cases.push_back(diagnose(e, line, parity, cmdline, devices, devs.get()));
  }
  if (parity.same + parity.faster + parity.slower + parity.uncertain == 0) {
    print_validation_messages(doc);
    if (run_code != kExitOk) {
      if (doc.validation_messages.empty())
        std::cerr << "error: a row failed (above); no point has rows from both APIs to explain\n";
      return run_code;
    }
    const std::string& why = parity.not_compared_reason;
    std::cerr << "error: "
              << one_line(why.empty() ? "no point has rows from both APIs to compare" : why,
                          kMaxErrorLine)
              << '\n';
    return kExitNotCompared;
  }
  const std::string text = format_explain(report, format);
  if (a.output.empty()) {
    std::cout << text << std::flush;
  } else {
    write_output_file(a.output, text);
    if (!a.quiet)
      std::cout << format_explain(report, Format::table) << "wrote " << printable(a.output) << '\n';
  }
  print_validation_messages(doc);
  if (run_code != kExitOk) return run_code;              // a failed row, a validation message
  return report.cases.empty() ? kExitOk : kExitDiffers;  // as parity: a difference found
}

}  // namespace cuvk
