// `cuvk run` extras kept out of cmd_run.cpp: --device all (one run and one file per GPU) and
// --baseline (compare every row with a saved run).
#include <iostream>

#include "cli.h"
#include "cmd_run.h"
#include "verdicts.h"
#include "parity_printer.h"
#include "backends.h"
#include "devices.h"
#include "error.h"

namespace cuvk {
namespace {

std::optional<RunDevice> run_device(const std::optional<DeviceInfo>& d) {
  if (!d) return std::nullopt;
  RunDevice r;
  r.name = d->name;
  r.uuid = format_uuid(d->uuid);
  r.driver = d->driver;
  r.is_cpu = d->is_cpu;
  return r;
}

struct Target {
  int index = 0;
  std::string spec;   // for --device: a full UUID, or "" for the automatic choice
  std::string label;  // for the console
};

// The GPUs of this node, each once: CUDA devices (the run pairs each with its Vulkan twin by UUID);
// without CUDA, Vulkan GPUs; without any GPU, one automatic run (e.g. lavapipe on a CPU machine).
std::vector<Target> node_targets() {
  const DeviceInventory inv = take_inventory(BackendOptions{});
  std::vector<Target> t;
  for (const DeviceInfo& d : inv.cuda)
    t.push_back(
        {d.index, format_uuid(d.uuid), "CUDA device " + std::to_string(d.index) + " " + d.name});
  if (t.empty())
    for (const DeviceInfo& d : inv.vulkan)
      if (!d.is_cpu)
        t.push_back({d.index, format_uuid(d.uuid),
                     "Vulkan device " + std::to_string(d.index) + " " + d.name});
  if (t.empty()) t.push_back({0, "", "no GPU: the automatic device"});
  return t;
}

}  // namespace

std::string device_output_path(const std::string& output, int index) {
  if (output.empty()) return output;
  const std::string tag = std::to_string(index);
  const std::size_t brace = output.find("{gpu}");
  if (brace != std::string::npos) return output.substr(0, brace) + tag + output.substr(brace + 5);
  const std::size_t slash = output.find_last_of('/');
  const std::size_t dot = output.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1 ||
      dot == 0)
    return output + ".gpu" + tag;
  return output.substr(0, dot) + ".gpu" + tag + output.substr(dot);
}

int run_every_device(const RunArgs& a, const std::string& cmdline) {
  const Format f = parse_format(a.format);
  if (a.output.empty() && (f == Format::json || f == Format::csv))
    throw UsageError("--device all with --format " + a.format +
                     " needs --output (it writes one file per GPU, e.g. r.json -> r.gpu0.json)");
  const std::vector<Target> targets = node_targets();
  for (const Target& t : targets)
    if (!a.output.empty()) check_writable(device_output_path(a.output, t.index));
  if (!a.baseline.empty()) read_results(a.baseline);  // a bad baseline file stops before any run
  int code = kExitOk;
  for (std::size_t k = 0; k < targets.size(); ++k) {
    const Target& t = targets[k];
    RunArgs one = a;
    one.device = t.spec;
    one.output = device_output_path(a.output, t.index);
    std::cerr << "cuvk: --device all: " << (k + 1) << " of " << targets.size() << ": " << t.label
              << (t.spec.empty() ? "" : " [" + t.spec + "]")
              << (one.output.empty() ? "" : " -> " + one.output) << '\n';
    try {
      code = worse_exit(code, run_command(one, cmdline));
    } catch (const UsageError&) {
      throw;                             // the same options fail the same way on every GPU
    } catch (const std::exception& e) {  // this GPU could not run; the others still do
      std::cerr << "error: " << t.label << ": " << e.what() << '\n';
      code = worse_exit(code, kExitEnvironment);
    }
    if (code == kExitInterrupted) break;
  }
  return code;
}

std::optional<RunFile> load_baseline(const RunArgs& a) {
  if (a.baseline.empty()) return std::nullopt;
  parse_tolerance(a.tolerance);
  RunFile base = read_results(a.baseline);
  // Same GPU model as the device this run is about to use: a usage error now, not after the run.
  const DeviceChoice choice = choose_devices(take_inventory(BackendOptions{}), a.device);
  RunFile now;
  now.name = "this run";
  now.cuda = run_device(choice.cuda);
  now.vulkan = run_device(choice.vulkan);
  check_same_gpu(now, base);
  return base;
}

int emit_baseline(const RunDocument& doc, const RunFile& base, const RunArgs& a) {
  const BaselineResult b =
      compare_baseline(run_file_of(doc, "this run"), base, parse_tolerance(a.tolerance));
  const Format f = parse_format(a.format);
  const Format text = f == Format::md ? Format::md : Format::table;
  if (a.output.empty() && (f == Format::json || f == Format::csv))
    std::cerr << '\n' << format_baseline(b, Format::table);  // stdout carries the run's data
  else if (!a.quiet || b.exit_code != kExitOk)
    std::cout << '\n' << format_baseline(b, text) << std::flush;
  else
    for (const std::string& n : b.notes) std::cerr << "note: " << n << '\n';  // --quiet: notes only
  return b.exit_code;
}

RunFile run_file_of(const RunDocument& doc, const std::string& name) {
  return parse_results(to_json(doc).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                       name);
}

int worse_exit(int a, int b) {
  auto rank = [](int c) {
    if (c == kExitOk) return 0;
    if (c == kExitNotCompared) return 1;
    if (c == kExitDiffers) return 2;
    return 3;  // usage/environment/interrupted as such
  };
  if (rank(a) == 3 || rank(b) == 3) return std::max(a, b);
  return rank(a) >= rank(b) ? a : b;
}

}  // namespace cuvk
