// `cuvk run --device all` or a list (`--device 0,2`, UUID prefixes): every GPU of the node, or
// every listed GPU, in turn, into one node file (node_file.h) with a node summary (node_summary.h).
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "backends.h"
#include "baseline.h"
#include "options.h"
#include "output_file.h"
#include "run.h"
#include "devices.h"
#include "error.h"
#include "interrupt.h"
#include "launch_clock.h"
#include "node_file.h"
#include "node_summary.h"
#include "run_reader.h"
#include "run_writer.h"

namespace cuvk {
namespace {

struct Target {
  int index = 0;
  std::string spec;   // for --device: a full UUID, or "" for the automatic choice
  std::string label;  // for the console
};

// The GPUs of this node, each once: CUDA devices (the run pairs each with its Vulkan twin by UUID);
// without CUDA, Vulkan GPUs; without any GPU, one automatic run (e.g. lavapipe on a CPU machine).
std::vector<Target> node_targets(InventoryOnce& devices) {
  const DeviceInventory& inv = devices.get();
  std::vector<Target> t;
  for (const DeviceInfo& d : inv.cuda)
    t.push_back({d.index, format_uuid(d.uuid), fmt::format("CUDA device {} {}", d.index, d.name)});
  if (t.empty())
    for (const DeviceInfo& d : inv.vulkan)
      if (!d.is_cpu)
        t.push_back(
            {d.index, format_uuid(d.uuid), fmt::format("Vulkan device {} {}", d.index, d.name)});
  if (t.empty()) t.push_back({0, "", "no GPU: the automatic device"});
  return t;
}

// The listed GPUs (`--device 0,2` or UUID prefixes, in `cuvk devices` order or by UUID), each
// resolved as a single --device value is; an entry that names no device, an empty entry or two
// entries naming the same GPU are refused (UsageError naming the entry).
std::vector<Target> listed_targets(InventoryOnce& devices, const std::string& list) {
  std::vector<Target> t;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string entry = list.substr(start, comma - start);
    start = comma + 1;
    if (entry.empty()) throw UsageError("--device " + list + ": an empty entry in the list");
    if (entry == kAllDevices) throw UsageError("--device " + list + ": 'all' cannot be listed");
    const DeviceChoice c = choose_devices(devices.get(), entry);
    const std::optional<DeviceInfo>& d = c.cuda ? c.cuda : c.vulkan;
    if (!d) throw UsageError("--device " + list + ": '" + entry + "' names no device");
    const std::string uuid = format_uuid(d->uuid);
    // Test-only: lavapipe is one device; CUVK_TEST_SAME_GPU_AGAIN=1 lets a list name it several
    // times, each entry numbered by its position, so a node of several "GPUs" runs end to end.
    if (const char* again = std::getenv("CUVK_TEST_SAME_GPU_AGAIN"); again && *again == '1') {
      t.push_back(
          {static_cast<int>(t.size()), uuid,
           fmt::format("{} device {} (again) {}", c.cuda ? "CUDA" : "Vulkan", d->index, d->name)});
      continue;
    }
    for (const Target& other : t)
      if (other.spec == uuid)
        throw UsageError("--device " + list + ": '" + entry +
                         "' names the same GPU as an earlier " + "entry (" + uuid + ")");
    t.push_back({d->index, uuid,
                 fmt::format("{} device {} {}", c.cuda ? "CUDA" : "Vulkan", d->index, d->name)});
  }
  return t;
}

}  // namespace

std::vector<DeviceTarget> device_targets(InventoryOnce& devices, const std::string& spec) {
  std::vector<DeviceTarget> out;
  for (const Target& t :
       spec == kAllDevices ? node_targets(devices) : listed_targets(devices, spec))
    out.push_back({t.spec, t.label});
  return out;
}

namespace {

// Which GPU of the node, in headers and in the summary: "GPU 2".
std::string gpu_name(const Target& t) {
  return fmt::format("GPU {}", t.index);
}

// The console's text of one GPU's run once it is done: the tail after the streamed rows, or the
// whole report where nothing was streamed; nothing where stdout carries the node's JSON.
std::string console_text(const RunDocument& doc, const RunArgs& a, Format f) {
  if (!a.output.empty()) {
    if (a.quiet) return "";
    return doc.streamed ? stream_tail(doc, Format::table) : format_run(doc, Format::table);
  }
  if (f == Format::json) return "";
  return doc.streamed ? stream_tail(doc, f) : format_run(doc, f);
}

// Whether the console (stdout) shows the GPUs' tables and the node summary.
bool console_shows(const RunArgs& a, Format f) {
  return a.output.empty() ? f != Format::json : !a.quiet;
}

// The per-GPU baselines of --baseline FILE (a node file: one per GPU, matched by UUID, else by
// position), each checked against its GPU's model before anything runs.
std::vector<std::optional<RunFile>> node_baselines(const RunArgs& a, InventoryOnce& devices,
                                                   const std::vector<Target>& targets) {
  std::vector<std::optional<RunFile>> out(targets.size());
  if (a.baseline.empty()) return out;  // the tolerance: judged with the run (judge_run)
  const std::vector<RunFile> bases = read_results_all(a.baseline);
  for (std::size_t k = 0; k < targets.size(); ++k) {
    const RunFile now = chosen_devices_run(choose_devices(devices.get(), targets[k].spec));
    std::string note;
    out[k] = baseline_for(bases, now, k, targets.size(), note);
    if (!note.empty())
      std::cerr << "note: " << gpu_name(targets[k]) << ": " << printable(note) << '\n';
    check_same_gpu(now, *out[k]);
  }
  return out;
}

// What the node run gathered: one entry per GPU for the file, the runs for the summary.
struct NodeRun {
  std::vector<NodeEntry> entries;
  std::vector<RunFile> runs;
  std::string text;  // --output with table or md: each GPU's report in turn
  int code = kExitOk;
  bool interrupted = false;
};

// One GPU's run, in turn: measured, shown, compared with its baseline, gathered into `node`.
void run_one_gpu(const JudgedRun& j, const std::string& cmdline, InventoryOnce& devices,
                 const Target& t, const std::optional<RunFile>& base, NodeRun& node) {
  const RunArgs& a = j.args;
  const Format f = j.format;
  JudgedRun one = j;
  one.args.device = t.spec;
  one.args.baseline.clear();
  one.args.concurrent = false;  // this GPU alone; the together pass is together_pass
  NodeEntry entry;
  entry.index = t.index;
  entry.label = t.label;
  entry.uuid = t.spec;
  const std::string title =
      gpu_name(t) + ": " + printable(t.label) + (t.spec.empty() ? "" : " [" + t.spec + "]");
  const std::string head = f == Format::md ? "# " + title + "\n\n" : "== " + title + " ==\n\n";
  if (console_shows(a, f)) std::cout << head << std::flush;
  try {
    RunDocument doc = Run(one, cmdline, devices)();
    if (interrupted()) doc.outcome.interrupted = true;
    if (doc.outcome.interrupted) {  // what completed, on the console; no node file
      emit(doc, Format::table, "", true);
      node.interrupted = true;
      node.code = worse_exit(node.code, run_exit_code(doc));
      return;
    }
    if (console_shows(a, f)) std::cout << console_text(doc, a, f) << '\n' << std::flush;
    if (!a.output.empty() && f != Format::json) node.text += head + format_run(doc, f) + "\n";
    print_validation_messages(doc);
    node.code = worse_exit(node.code, run_exit_code(doc, a.require_verified));
    if (base) node.code = worse_exit(node.code, emit_baseline(doc, *base, j));
    entry.run = run_json(doc);
    node.runs.push_back(run_file_of(doc, gpu_name(t)));
  } catch (const UsageError&) {
    throw;                             // the same options fail the same way on every GPU
  } catch (const std::exception& e) {  // this GPU could not run; the others still do
    entry.error = one_line(e.what(), kMaxErrorLine);
    std::cerr << "error: " << one_line(t.label + ": " + e.what(), kMaxErrorLine) << '\n';
    node.code = worse_exit(node.code, kExitEnvironment);
  }
  node.entries.push_back(std::move(entry));
}

// --concurrent: every GPU that ran in turn measured again, all at once (run_together), and each
// point's together/alone ratio judged (interference_check) into the summary.
void together_pass(NodeRun& node, NodeSummary& summary, double tolerance) {
  std::vector<std::string> devices, names;
  std::vector<std::size_t> at;  // the entry of each
  for (std::size_t k = 0; k < node.entries.size(); ++k)
    if (node.entries[k].run) {
      devices.push_back(node.entries[k].uuid);
      names.push_back(fmt::format("GPU {}", node.entries[k].index));
      at.push_back(k);
    }
  std::cerr << "cuvk: --concurrent: " << devices.size()
            << " GPU(s) at once, one process each (the together pass)\n";
  const std::vector<TogetherRun> together = run_together(devices, names);
  if (interrupted()) {  // the children were told; their runs are incomplete
    node.interrupted = true;
    return;
  }
  for (std::size_t j = 0; j < together.size(); ++j) {
    const TogetherRun& t = together[j];
    if (!t.run) {
      std::cerr << "error: " << names[j] << " together: " << one_line(t.error, kMaxErrorLine)
                << '\n';
      node.code = worse_exit(
          node.code, is_interrupted_exit_code(t.exit_code) ? t.exit_code : kExitEnvironment);
      continue;
    }
    node.entries[at[j]].together = t.run->doc;
    summary.interference.push_back(interference_check(names[j], node.runs[j], *t.run, tolerance));
    node.code = worse_exit(node.code, t.exit_code);
  }
}

}  // namespace

void check_node_args(const RunArgs& a) {
  if (a.concurrent && !is_device_list(a.device))
    throw UsageError(
        "--concurrent measures several GPUs at once: give --device all or a list "
        "(e.g. --device 0,1)");
}

bool is_device_list(const std::string& spec) {
  return spec == kAllDevices || spec.find(',') != std::string::npos;
}

int run_every_device(const JudgedRun& j, const std::string& cmdline, InventoryOnce& devices) {
  const RunArgs& a = j.args;
  const Format f = j.format;
  if (f == Format::csv)
    throw UsageError("--device " + a.device +
                     " with --format csv: a CSV holds one GPU's rows; "
                     "use --format json (one node file of every GPU) or run each GPU alone");
  if (!a.output.empty()) check_writable(a.output);
  check_distinct_files({{"--output", a.output}}, {{"--baseline", a.baseline}});
  const double tolerance = j.tolerance;
  const std::vector<Target> targets =
      a.device == kAllDevices ? node_targets(devices) : listed_targets(devices, a.device);
  const std::vector<std::optional<RunFile>> bases = node_baselines(a, devices, targets);
  NodeHead head{now_utc(), hostname(), cmdline,
                a.concurrent ? "in turn, then concurrent" : "in turn", 0.0};
  NodeRun node;
  for (std::size_t k = 0; k < targets.size() && !node.interrupted; ++k) {
    std::cerr << "cuvk: --device " << printable(a.device) << ": " << (k + 1) << " of "
              << targets.size() << ": " << printable(targets[k].label)
              << (targets[k].spec.empty() ? "" : " [" + targets[k].spec + "]") << '\n';
    run_one_gpu(j, cmdline, devices, targets[k], bases[k], node);
  }
  if (node.runs.empty()) return node.code;  // every GPU failed, each said why
  if (node.interrupted) return node.code;   // emit said it: no file
  NodeSummary summary = node_summary(node.runs, tolerance);
  if (a.concurrent) together_pass(node, summary, tolerance);
  if (node.interrupted) {  // during the together pass
    std::cerr << "error: interrupted by signal " << interrupt_signal()
              << " while the GPUs ran together; no node file written\n";
    return interrupted_exit_code(interrupt_signal());
  }
  const std::string summary_text = format_node_summary(summary, node.runs, f == Format::md);
  head.wall_s = seconds_since_launch();
  const std::string json_text = node_file_json(head, node.entries, node_summary_json(summary))
                                    .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                                "\n";
  if (a.output.empty()) {
    std::cout << (f == Format::json ? json_text : summary_text) << std::flush;
  } else {
    write_output_file(a.output, f == Format::json ? json_text : node.text + summary_text);
    if (!a.quiet) std::cout << summary_text << "wrote " << printable(a.output) << '\n';
  }
  if (!hung_launches().empty()) {  // the file is out; end now, without waiting for a device
    for (const std::string& h : hung_launches())
      std::cerr << "error: " << printable(h) << "; the rows measured so far are kept\n";
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(worse_exit(node.code, kExitFailed));
  }
  return node.code;
}

}  // namespace cuvk
