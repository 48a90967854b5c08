// `cuvk list` and `cuvk devices`.
#include <cstdarg>
#include <cstdio>
#include <iostream>

#include <fmt/ranges.h>

#include "backends.h"
#include "catalogue.h"
#include "cli.h"
#include "commands.h"
#include "devices.h"
#include "gpu_health.h"
#include "host_data.h"
#include "json_check.h"  // one_line
#include "runner.h"

namespace cuvk {
namespace {

// printf-style, but through std::cout: all of cuvk's standard output goes through the checked
// buffer (standard_output.h), in order.
__attribute__((format(printf, 1, 2))) void print(const char* format, ...) {
  std::va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string text(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(text.data(), text.size() + 1, format, again);
  va_end(again);
  std::cout << text;
}

int do_list() {
  std::cout << "tests (the name is the CUDA kernel's name, the GLSL file stem and the output row "
               "key)\n\n";
  for (const TestCase& t : catalogue()) {
    const std::string layouts = fmt::format("{}", fmt::join(t.layouts, ","));
    const std::string variants = fmt::format("{}", fmt::join(t.variants, ","));
    std::string sweep;
    for (const std::string& name : t.sweeps)
      sweep += (sweep.empty() ? "" : ", ") + name + " (" + find_axis(name)->option + ")";
    if (sweep.empty()) sweep = "-";
    print("  %-13s layouts: %-8s variants: %-12s sweep: %s\n      %s\n", t.name.c_str(),
          layouts.empty() ? "-" : layouts.c_str(), variants.c_str(), sweep.c_str(),
          t.description.c_str());
  }
  std::string sweeps;
  for (const Axis& axis : axes())
    sweeps += fmt::format("; {}s {}", axis.name, fmt::join(axis.defaults, ","));
  print(
      "\ndefaults: n = %u on a GPU, %u on a CPU device%s; block 256; "
      "at least 100 repetitions after 10 warm-up, until the median's 95%% CI is within "
      "0.5%%; L2 cold\n",
      kDefaultGpuN, kDefaultCpuN, sweeps.c_str());
  return kExitOk;
}

void print_device(const DeviceInfo& d) {
  print("  [%d] %s\n      uuid %s, %s%s\n      driver: %s\n", d.index, printable(d.name).c_str(),
        format_uuid(d.uuid).c_str(), d.is_cpu ? "CPU device, " : "",
        (std::to_string(d.memory_bytes >> 20) + " MiB").c_str(), printable(d.driver).c_str());
  for (const auto& [k, v] : d.properties)
    print("      %s: %s\n", printable(k).c_str(), printable(v).c_str());
}

// The node view's health lines of a GPU (NVML) and its NUMA node (sysfs, from its PCI address).
void print_health(const DeviceInfo& d) {
  if (d.is_cpu) return;
  for (const auto& [k, v] : d.properties)
    if (k == "pci_bus_id")
      if (const int node = pci_numa_node(v); node >= 0)
        print("      numa_node (sysfs): %d\n", node);
  const GpuHealth h = read_gpu_health(d.uuid);
  if (!h.available) {
    print("      health: %s\n", printable(h.why).c_str());
    return;
  }
  for (const auto& [k, v] : h.fields)
    print("      health %s: %s\n", printable(k).c_str(), printable(v).c_str());
}

int do_devices(const std::string& spec) {
  const DeviceInventory inv = take_inventory(BackendOptions{});
  print("CUDA devices:\n");
  if (!inv.cuda_error.empty()) print("  none: %s\n", printable(inv.cuda_error).c_str());
  for (const DeviceInfo& d : inv.cuda) {
    print_device(d);
    print_health(d);
  }
  print("Vulkan devices:\n");
  if (!inv.vulkan_error.empty()) print("  none: %s\n", printable(inv.vulkan_error).c_str());
  for (const DeviceInfo& d : inv.vulkan) print_device(d);
  const DeviceChoice c = choose_devices(inv, spec);
  print("Pair: %s\n", c.note.empty() ? "none: no device can run" : printable(c.note).c_str());
  const HostPlacement p = host_placement();
  print("Host thread: CPU %d, NUMA node %d, %d CPUs allowed\n", p.cpu, p.numa_node, p.allowed_cpus);
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
