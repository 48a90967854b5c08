// `cuvk inspect TEST`: why might CUDA and Vulkan differ on this test's kernels? Side by side for
// each kernel: register counts, the load/store forms in the intermediate code (PTX, SPIR-V) and in
// the machine code (SASS: CUDA's from the embedded cubin, Vulkan's from the NVIDIA driver's
// pipeline cache, both summarized the same way with what differs), the std430-vs-C++ layout check,
// occupancy per block size, then the full listings. Works without a GPU: what needs one (the CUDA
// runtime's attributes and occupancy, the NVIDIA driver's statistics and machine code) and what
// needs a tool (cuobjdump/nvdisasm, libzstd) says so instead, in one line.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/ranges.h>

#include "axes.h"
#include "backends.h"
#include "catalogue.h"
#include "options.h"
#include "output_file.h"
#include "run.h"
#include "cuda_artifacts.h"
#include "devices.h"
#include "error.h"
#include "inspect_printer.h"
#include "inspect_sides.h"
#include "pipeline_cache.h"
#include "runner.h"
#include "spirv_reflect.h"

namespace cuvk {
namespace inspect_cli {

// The size of the points planned: any size names the kernel.
constexpr std::uint32_t kInspectN = 1024;

// How the Vulkan SASS is found: nvdisasm's architecture (from the CUDA device's compute capability)
// and whether the tools are there, one line.
void print_sass_source(const DeviceChoice& choice, SassTarget& target) {
  if (choice.cuda)
    for (const auto& [k, v] : choice.cuda->properties)
      if (k == "compute_capability") inspect::set_sass_arch(target, v, choice.cuda->name);
  const std::string nvdisasm = inspect::find_cuda_tool("nvdisasm");
  std::cout << "  Vulkan SASS: each pipeline made into a fresh pipeline cache (block "
            << target.block << "), its NVIDIA machine code ";
  if (!inspect::have_zstd())
    std::cout << "unreadable: built without libzstd\n";
  else if (nvdisasm.empty())
    std::cout << "not disassembled: nvdisasm not found\n";
  else
    std::cout << "disassembled by " << nvdisasm << " --binary " << target.arch << " ("
              << target.arch_source << ")\n";
}

InspectDevices open_inspect_devices(const std::string& device) {
  InspectDevices d;
  const DeviceInventory inv = take_inventory(BackendOptions{});
  d.choice = choose_devices(inv, device);
  d.cuda_reason = d.choice.cuda_reason;
  if (d.choice.cuda) {
    try {
      d.cuda = make_backend(Api::cuda, d.choice.cuda->index, BackendOptions{});
    } catch (const std::exception& e) {
      d.cuda_reason = e.what();
    }
  }
  d.vulkan_reason = d.choice.vulkan_reason;
  if (d.choice.vulkan) {
    BackendOptions options;
    options.pipeline_statistics = true;  // inspection only: never for timed runs
    try {
      d.vulkan = make_backend(Api::vulkan, d.choice.vulkan->index, options);
    } catch (const std::exception& e) {
      d.vulkan_reason = e.what();
    }
  }
  return d;
}

void print_inspect_devices(const InspectDevices& d) {
  std::cout << "  CUDA: "
            << (d.choice.cuda ? d.choice.cuda->name : "no device: " + d.choice.cuda_reason) << '\n';
  std::cout << "  Vulkan: "
            << (d.vulkan ? d.vulkan->info().name + ", " + d.vulkan->info().driver
                         : "no device: " + d.vulkan_reason)
            << '\n';
  if (d.vulkan)
    for (const auto& [k, v] : d.vulkan->info().properties)
      if (k == "buffer_device_address" || k == "pipeline_executable_properties")
        std::cout << "    " << k << ": " << v << '\n';
}

}  // namespace inspect_cli

namespace {

using namespace inspect_cli;

// A shader whose std430 layout differs from the C++ struct reads the wrong bytes: exit 1, with
// one `error:` line after the report that shows where.
int layout_verdict(const std::string& test, std::ptrdiff_t mismatches) {
  if (mismatches == 0) return kExitOk;
  std::cout.flush();
  std::cerr << "error: " << test << ": " << mismatches
            << " std430 layout checks differ from C++ (see 'std430 layout vs C++')\n";
  return kExitFailed;
}

// The options as run judges them (judge_run: config_of, validate_config): the same names, values
// and messages; inspect's defaults differ only in the Vulkan binding modes (all) and block sizes.
ValidatedConfig inspect_config(const InspectArgs& a) {
  RunArgs r;
  r.tests = {a.test};
  r.vk_bindings = a.vk_bindings;
  r.layouts = a.layouts;
  r.variants = a.variants;
  r.axis_values = a.axis_values;
  r.block_sizes = a.block_sizes;
  ValidatedConfig cfg = judge_run(r).cfg;
  if (cfg->tests.size() != 1)  // 'all': inspect shows one test's kernels, not the first of all
    throw UsageError(fmt::format("inspect: give one test, not {} ({} tests: {})", quoted(a.test),
                                 cfg->tests.size(), fmt::join(cfg->tests, ", ")));
  return cfg;
}

// The kernels of the test's points (run's points_of: layouts x variants x sweep axes, filtered
// as run filters them), each once, in the run's order. An axis off unless given (copy_mib) is
// at its neutral value here: its kernel is inspected without a size.
std::vector<std::string> kernels_of(const TestCase& test, const RunConfig& cfg) {
  std::map<std::string, std::vector<std::uint32_t>> values = cfg.axis_values;
  for (const Axis& axis : axes())
    if (values[axis.name].empty()) values[axis.name] = {axis.neutral};
  std::vector<std::string> kernels;
  for (const Point& p : points_of(test, kInspectN, values, cfg.layouts, cfg.variants)) {
    const std::string k = test.plan(p).kernel;
    if (std::find(kernels.begin(), kernels.end(), k) == kernels.end()) kernels.push_back(k);
  }
  if (kernels.empty())
    throw UsageError("the selection of tests, layouts and variants is empty");  // as run says
  return kernels;
}

void print_header(const TestCase& test, const std::vector<std::string>& kernels,
                  const InspectDevices& devs) {
  std::cout << fmt::format("cuvk inspect {}: kernels {}", test.name, fmt::join(kernels, ", "));
  if (std::find(kernels.begin(), kernels.end(), kCopyEngine) != kernels.end())
    std::cout << " (copy_engine is the driver's copy command, no kernel)";
  std::cout << '\n';
  print_inspect_devices(devs);
  if (cuda_artifacts().empty()) return;
  const std::string cuobjdump = inspect::find_cuda_tool("cuobjdump"),
                    nvdisasm = inspect::find_cuda_tool("nvdisasm");
  std::cout << "  CUDA machine code: " << cuda_artifacts().front().arch
            << " PTX, cubin and ptxas -v from the build"
            << " (nvcc " << cuda_artifacts().front().flags << "); SASS via "
            << (!cuobjdump.empty() ? cuobjdump
                : !nvdisasm.empty()
                    ? nvdisasm
                    : std::string("nothing: cuobjdump and nvdisasm are not installed"))
            << '\n';
}

// --dump-pipeline-cache DIR must take files before anything is compiled: a folder that cannot is
// a usage error (exit 2) naming it, not a warning at the end of an exit 0.
void check_dump_dir(const std::string& dir) {
  if (dir.empty()) return;
  std::string probe = dir + "/.cuvk_probe.XXXXXX";
  const int fd = mkstemp(probe.data());
  if (fd < 0)
    throw UsageError("--dump-pipeline-cache '" + dir + "': cannot create files there: " +
                     std::strerror(errno));
  close(fd);
  unlink(probe.c_str());
}

int do_inspect(const InspectArgs& a, const RunConfig& cfg) {
  const TestCase& test = *find_test(cfg.tests.front());
  const std::vector<std::uint32_t>& blocks = cfg.block_sizes;
  const std::vector<Binding>& bindings = cfg.vk_bindings;
  const std::vector<std::string> kernels = kernels_of(test, cfg);

  const InspectDevices devs = open_inspect_devices(a.device);
  print_header(test, kernels, devs);
  SassTarget target;
  target.block = inspect::shown_block(blocks);
  target.dump_dir = a.dump_cache_dir;
  print_sass_source(devs.choice, target);
  std::cout << "  SPIR-V disassembly: "
            << (spirv::have_disassembler() ? "SPIRV-Tools"
                                           : "unavailable (built without SPIRV-Tools)")
            << '\n';
  std::ptrdiff_t mismatches = 0;  // failed layout checks, every kernel and binding
  for (const std::string& kernel : kernels) {
    if (kernel == kCopyEngine) continue;
    CudaSide c = inspect::builtin_cuda_side(kernel, devs.cuda.get(), devs.cuda_reason, blocks);
    std::vector<VulkanSide> vks;
    for (Binding b : bindings)
      vks.push_back(inspect::builtin_vulkan_side(kernel, b, devs.vulkan.get(), devs.vulkan_reason,
                                                 blocks, target));
    const inspect::KernelInspection k =
        inspect::inspect_kernel(kernel, std::move(c), std::move(vks), blocks, !a.no_listings);
    print_kernel_inspection(std::cout, k, !a.no_listings);
    mismatches += k.layout_mismatches;
  }
  return layout_verdict(test.name, mismatches);
}

}  // namespace

namespace inspect_cli {

JudgedInspect judge_inspect(const InspectArgs& a) {
  check_dump_dir(a.dump_cache_dir);
  if (!a.pair.empty() && !a.test.empty())
    throw UsageError("inspect: give a test or --pair FILE, not both");
  if (!a.pair.empty()) return {a, std::nullopt};
  if (a.test.empty()) throw UsageError("inspect: give a test (see `cuvk list`) or --pair FILE");
  return {a, inspect_config(a)};
}

int inspect_command(const JudgedInspect& j) {
  if (is_device_list(j.args.device)) {  // --device all or a list (as `run`'s): each GPU in turn
    InventoryOnce devices;
    const std::vector<DeviceTarget> targets = device_targets(devices, j.args.device);
    int code = kExitOk;
    for (std::size_t k = 0; k < targets.size(); ++k) {
      std::cerr << "cuvk: --device " << printable(j.args.device) << ": " << (k + 1) << " of "
                << targets.size() << ": " << printable(targets[k].label) << '\n';
      JudgedInspect one = j;
      one.args.device = targets[k].spec;
      code = worse_exit(code, inspect_command(one));
    }
    return code;
  }
  if (!j.cfg) return inspect_pair(j.args);
  return do_inspect(j.args, **j.cfg);
}

}  // namespace inspect_cli
}  // namespace cuvk
