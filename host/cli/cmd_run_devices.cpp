// `cuvk run --device all` or a list (`--device 0,2`, UUID prefixes): one run and one result file
// per GPU of the node, or per listed GPU, in turn.
#include <sys/stat.h>

#include <iostream>

#include "backends.h"
#include "cli.h"
#include "cmd_run.h"
#include "devices.h"
#include "error.h"
#include "interrupt.h"
#include "run_reader.h"

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
    for (const Target& other : t)
      if (other.spec == uuid)
        throw UsageError("--device " + list + ": '" + entry +
                         "' names the same GPU as an earlier " + "entry (" + uuid + ")");
    t.push_back({d->index, uuid,
                 std::string(c.cuda ? "CUDA" : "Vulkan") + " device " + std::to_string(d->index) +
                     " " + d->name});
  }
  return t;
}

}  // namespace

bool is_device_list(const std::string& spec) {
  return spec == kAllDevices || spec.find(',') != std::string::npos;
}

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

int run_every_device(const RunArgs& a, const std::string& cmdline, InventoryOnce& devices) {
  const Format f = parse_format(a.format);
  if (a.output.empty() && (f == Format::json || f == Format::csv))
    throw UsageError("--device " + a.device + " with --format " + a.format +
                     " needs --output (it writes one file per GPU, e.g. r.json -> r.gpu0.json)");
  if (!a.output.empty() && a.output.find("{gpu}") == std::string::npos) {
    struct stat st {};  // r.json -> r.gpu0.json: only a file name can be numbered
    if (stat(a.output.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      throw UsageError("--device " + a.device +
                       " writes one file per GPU (r.json -> r.gpu0.json); --output " +
                       quoted_path(a.output) + " is not a regular file name");
  }
  const std::vector<Target> targets =
      a.device == kAllDevices ? node_targets(devices) : listed_targets(devices, a.device);
  for (const Target& t : targets)
    if (!a.output.empty()) check_writable(device_output_path(a.output, t.index));
  if (!a.baseline.empty()) read_results(a.baseline);  // a bad baseline file stops before any run
  int code = kExitOk;
  for (std::size_t k = 0; k < targets.size(); ++k) {
    const Target& t = targets[k];
    RunArgs one = a;
    one.device = t.spec;
    one.output = device_output_path(a.output, t.index);
    std::cerr << "cuvk: --device " << printable(a.device) << ": " << (k + 1) << " of "
              << targets.size() << ": " << printable(t.label)
              << (t.spec.empty() ? "" : " [" + t.spec + "]")
              << (one.output.empty() ? "" : " -> " + printable(one.output)) << '\n';
    try {
      code = worse_exit(code, run_command(one, cmdline, devices));
    } catch (const UsageError&) {
      throw;                             // the same options fail the same way on every GPU
    } catch (const std::exception& e) {  // this GPU could not run; the others still do
      std::cerr << "error: " << one_line(t.label + ": " + e.what(), kMaxErrorLine) << '\n';
      code = worse_exit(code, kExitEnvironment);
    }
    if (is_interrupted_exit_code(code)) break;
  }
  return code;
}

}  // namespace cuvk
