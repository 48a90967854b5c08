// `cuvk list` and `cuvk devices`.
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends.h"
#include "catalogue.h"
#include "cli.h"
#include "commands.h"
#include "devices.h"
#include "gpu_health.h"
#include "host_data.h"
#include "json_check.h"  // one_line
#include "run.h"         // device_targets
#include "runner.h"

namespace cuvk {
namespace {

// Printed through std::cout: all of cuvk's standard output goes through the checked buffer
// (standard_output.h), in order.
int do_list() {
  std::cout << "tests (the name is the CUDA kernel's name, the GLSL file stem and the output row "
               "key)\n\n";
  for (const TestCase& t : catalogue()) {
    const std::string layouts = fmt::format("{}", fmt::join(t.layouts, ","));
    const std::string variants = fmt::format("{}", fmt::join(t.variants, ","));
    std::vector<std::string> swept;
    for (const std::string& name : t.sweeps)
      swept.push_back(fmt::format("{} ({})", name, find_axis(name)->option));
    const std::string sweep = swept.empty() ? "-" : fmt::format("{}", fmt::join(swept, ", "));
    std::cout << fmt::format("  {:<13} layouts: {:<8} variants: {:<12} sweep: {}\n      {}\n",
                             t.name, layouts.empty() ? "-" : layouts, variants, sweep,
                             t.description);
  }
  std::string sweeps;
  for (const Axis& axis : axes())
    sweeps += fmt::format("; {}s {}", axis.name, fmt::join(axis.defaults, ","));
  std::cout << fmt::format(
      "\ndefaults: n = {} on a GPU, {} on a CPU device{}; block 256; "
      "at least 100 repetitions after 10 warm-up, until the median's 95% CI is within "
      "0.5%; L2 cold\n",
      kDefaultGpuN, kDefaultCpuN, sweeps);
  return kExitOk;
}

void print_device(const DeviceInfo& d) {
  std::cout << fmt::format("  [{}] {}\n      uuid {}, {}{} MiB\n      driver: {}\n", d.index,
                           printable(d.name), format_uuid(d.uuid), d.is_cpu ? "CPU device, " : "",
                           d.memory_bytes >> 20, printable(d.driver));
  for (const auto& [k, v] : d.properties)
    std::cout << fmt::format("      {}: {}\n", printable(k), printable(v));
}

// The node view's health lines of a GPU (NVML) and its NUMA node (sysfs, from its PCI address).
void print_health(const DeviceInfo& d) {
  if (d.is_cpu) return;
  for (const auto& [k, v] : d.properties)
    if (k == "pci_bus_id")
      if (const int node = pci_numa_node(v); node >= 0)
        std::cout << fmt::format("      numa_node (sysfs): {}\n", node);
  const GpuHealth h = read_gpu_health(d.uuid);
  if (!h.available) {
    std::cout << fmt::format("      health: {}\n", printable(h.why));
    return;
  }
  for (const auto& [k, v] : h.fields)
    std::cout << fmt::format("      health {}: {}\n", printable(k), printable(v));
}

int do_devices(const std::string& spec) {
  const DeviceInventory inv = take_inventory(BackendOptions{});
  std::cout << "CUDA devices:\n";
  if (!inv.cuda_error.empty()) std::cout << fmt::format("  none: {}\n", printable(inv.cuda_error));
  for (const DeviceInfo& d : inv.cuda) {
    print_device(d);
    print_health(d);
  }
  std::cout << "Vulkan devices:\n";
  if (!inv.vulkan_error.empty())
    std::cout << fmt::format("  none: {}\n", printable(inv.vulkan_error));
  for (const DeviceInfo& d : inv.vulkan) print_device(d);
  std::vector<std::string> specs = {spec};
  if (is_device_list(spec)) {  // --device all or a list (as `run`'s): each GPU's pair
    InventoryOnce once;
    specs.clear();
    for (const DeviceTarget& t : device_targets(once, spec)) specs.push_back(t.spec);
  }
  for (const std::string& s : specs) {
    const DeviceChoice c = choose_devices(inv, s);
    std::cout << fmt::format("Pair: {}\n",
                             c.note.empty() ? "none: no device can run" : printable(c.note));
  }
  const HostPlacement p = host_placement();
  std::cout << fmt::format("Host thread: CPU {}, NUMA node {}, {} CPUs allowed\n", p.cpu,
                           p.numa_node, p.allowed_cpus);
  if (!inv.cuda.empty() || !inv.vulkan.empty()) return kExitOk;
  const std::string why =
      "no CUDA or Vulkan device: CUDA: " + inv.cuda_error + "; Vulkan: " + inv.vulkan_error;
  std::cerr << "error: " << one_line(why, kMaxErrorLine) << host_memory_limit_note(why) << '\n';
  return kExitEnvironment;
}

}  // namespace

Command add_list_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("list", "list tests, layouts, variants and parameters");
  return {sub, [] { return do_list(); }};
}

Command add_devices_command(CLI::App& app) {
  auto spec = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("devices", "list CUDA and Vulkan devices and which pair runs");
  sub->add_option("--device", *spec, "as for `run`");
  return {sub, [spec] { return do_devices(*spec); }};
}

}  // namespace cuvk
