// `cuvk inspect --pair FILE`: a user's kernel pair (docs/PAIRS.md) side by side as `cuvk inspect`
// shows a built-in test: the CUDA kernel compiled by NVRTC for the paired GPU (PTX, ptxas -v, SASS
// of the cubin), the shader compiled by shaderc (SPIR-V), both loaded into the backends for the
// CUDA runtime's attributes and occupancy and the Vulkan driver's statistics and machine code.
// Works without a GPU: what needs one says so, as for built-in tests.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "catalogue.h"
#include "options.h"
#include "output_file.h"
#include "error.h"
#include "inspect_printer.h"
#include "inspect_sides.h"
#include "pair.h"
#include "runner.h"

namespace cuvk::inspect_cli {
namespace {

// sm_XY of the paired CUDA device ("9.0" -> 90), or the default with why.
int cuda_arch(const DeviceChoice& choice, std::string* source) {
  if (choice.cuda)
    for (const auto& [k, v] : choice.cuda->properties)
      if (k == "compute_capability" && v.find('.') != std::string::npos) {
        *source = "compute capability " + v + " of " + choice.cuda->name;
        return std::stoi(v.substr(0, v.find('.'))) * 10 + std::stoi(v.substr(v.find('.') + 1));
      }
  *source = fmt::format("no CUDA device: sm_{} assumed", pairs::kDefaultCudaArch);
  return pairs::kDefaultCudaArch;
}

// The name the backends know the pair by: its own, unless a built-in kernel has it.
std::string module_name(const pairs::PairDeclaration& d) {
  const std::vector<std::string> builtin = catalogue_kernels();
  return std::find(builtin.begin(), builtin.end(), d.name) == builtin.end() ? d.name
                                                                            : "pair_" + d.name;
}

RuntimeModule runtime_module(const pairs::PairDeclaration& d, const std::string& name) {
  RuntimeModule m;
  m.name = name;
  m.buffers = static_cast<std::uint32_t>(d.buffers.size());
  for (const pairs::ScalarDecl& s : d.scalars)
    m.scalar_sizes.push_back(pairs::scalar_bytes(s.type));
  return m;
}

// Loads the module into a backend; "" on success, else why not (shown where its facts would be).
std::string load(Backend* backend, const RuntimeModule& m) {
  if (backend == nullptr) return "no device";
  try {
    backend->load_module(m);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", ms);
  return buf;
}

std::string options_text(const std::vector<std::string>& options) {
  return fmt::format("{}", fmt::join(options, " "));
}

struct Compiled {
  std::optional<pairs::CompiledCuda> cuda;
  std::string cuda_unavailable;
  std::vector<pairs::CompiledSpirv> spirv;  // per binding shown
};

Compiled compile(const pairs::PairDeclaration& d, int arch, const std::vector<Binding>& bindings) {
  Compiled c;
  c.cuda_unavailable = pairs::nvrtc_unavailable();
  if (c.cuda_unavailable.empty()) c.cuda = pairs::compile_cuda(d, arch);
  for (Binding b : bindings)
    if (b != Binding::bda || pairs::supports_bda(d)) c.spirv.push_back(pairs::compile_glsl(d, b));
  pairs::check_interfaces(d, c.cuda ? &*c.cuda : nullptr, nullptr);
  for (const pairs::CompiledSpirv& s : c.spirv) pairs::check_interfaces(d, nullptr, &s);
  return c;
}

void print_compilers(const pairs::PairDeclaration& d, const Compiled& c,
                     const std::string& arch_source) {
  const std::string cuobjdump = inspect::find_cuda_tool("cuobjdump"),
                    nvdisasm = inspect::find_cuda_tool("nvdisasm");
  if (c.cuda)
    std::cout << "  CUDA machine code: sm_" << c.cuda->arch << " (" << arch_source << ") by "
              << c.cuda->compiler << " in " << ms_text(c.cuda->compile_ms) << " ("
              << options_text(c.cuda->options) << "); SASS via "
              << (!cuobjdump.empty()  ? cuobjdump
                  : !nvdisasm.empty() ? nvdisasm
                                      : std::string("nothing: cuobjdump and nvdisasm are not "
                                                    "installed"))
              << '\n';
  else
    std::cout << "  CUDA machine code: none: " << c.cuda_unavailable << '\n';
  for (const pairs::CompiledSpirv& s : c.spirv)
    std::cout << "  SPIR-V (" << binding_name(s.binding) << "): " << s.compiler
              << (s.compile_ms > 0 ? " in " + ms_text(s.compile_ms) : "") << ", " << s.words.size()
              << " words, entry " << s.entry << '\n';
  if (!pairs::supports_bda(d))
    std::cout << "  SPIR-V (bda): none: the pair declares no bda form (glsl.bda_defines)\n";
  std::cout << "  Interfaces: " << d.buffers.size() << " buffers, " << d.scalars.size()
            << " scalars: the CUDA parameters and the SPIR-V bindings and push constants match "
               "the declaration\n";
}

// The block sizes shown: the declaration's, else --block-sizes; checked as a run checks them.
std::vector<std::uint32_t> shown_block_sizes(const InspectArgs& a,
                                             const pairs::PairDeclaration& d) {
  RunConfig judged;
  judged.block_sizes = d.launch.block_sizes.empty()
                           ? parse_uint_list(a.block_sizes, "--block-sizes", kMaxBlockSizes + 1)
                           : d.launch.block_sizes;
  validate_config(judged);
  return judged.block_sizes;
}

// The heading: the pair, the devices, the compilers and the block sizes where declared.
void print_heading(const InspectArgs& a, const pairs::PairDeclaration& d,
                   const InspectDevices& devs, const Compiled& compiled,
                   const std::string& arch_source, std::size_t block_sizes) {
  std::cout << "cuvk inspect --pair " << a.pair << ": " << d.name
            << (d.description.empty() ? "" : " (" + d.description + ")") << '\n';
  print_inspect_devices(devs);
  print_compilers(d, compiled, arch_source);
  if (!d.launch.block_sizes.empty())
    std::cout << "  Block sizes: " << block_sizes << " fixed by the declaration\n";
}

// The CUDA side: NVRTC's code and, loaded into the CUDA backend, the runtime's figures.
CudaSide cuda_side(const Compiled& compiled, const std::string& name, const RuntimeModule& module,
                   const InspectDevices& devs, const std::vector<std::uint32_t>& blocks) {
  CudaSide c;
  c.unavailable = compiled.cuda_unavailable;
  if (!compiled.cuda) return c;
  const pairs::CompiledCuda& cu = *compiled.cuda;
  c.arch = fmt::format("sm_{}", cu.arch);
  c.compiler = cu.compiler + " " + options_text(cu.options);
  c.ptxas_source = "ptxas -v via NVRTC";
  // The whole log: ptxas -v's lines wherever NVRTC put them.
  fill_cuda_code(c, cu.ptx, cu.ptxas_log + "\n" + cu.log, cu.cubin.data(), cu.cubin.size(),
                 cu.lowered_name);
  RuntimeModule m = module;
  m.entry = cu.lowered_name;
  m.cuda_image = cu.cubin;
  const std::string why = load(devs.cuda.get(), m);
  fill_cuda_runtime(c, name, why.empty() ? devs.cuda.get() : nullptr,
                    why == "no device" ? devs.cuda_reason : why, blocks);
  return c;
}

// The Vulkan module: the SPIR-V of each binding shown (bda shown alone: load needs both).
RuntimeModule vulkan_module(RuntimeModule module, const pairs::PairDeclaration& d,
                            const Compiled& compiled) {
  for (const pairs::CompiledSpirv& s : compiled.spirv)
    (s.binding == Binding::bda ? module.spirv_bda : module.spirv) = s.words;
  module.entry = d.glsl.entry;
  if (module.spirv.empty() && !compiled.spirv.empty()) {
    module.spirv = pairs::compile_glsl(d, Binding::descriptor).words;
  }
  return module;
}

// One binding's Vulkan side: its SPIR-V and the driver's figures (`vulkan` null: `why` not).
VulkanSide vulkan_side(Binding b, const pairs::PairDeclaration& d, const Compiled& compiled,
                       const std::string& name, Backend* vulkan, const std::string& why,
                       const std::vector<std::uint32_t>& blocks, const SassTarget& target) {
  VulkanSide v;
  v.binding = b;
  v.module_name = d.glsl.spirv.empty() ? d.glsl.source : d.glsl.spirv;
  for (const pairs::CompiledSpirv& s : compiled.spirv)
    if (s.binding == b) {
      v.code = s.words.data();
      v.words = s.words.size();
    }
  if (v.code) {
    fill_vulkan(v, name, vulkan, why, blocks, target);
    v.layout_note = "checked against the declaration: match";
  } else {
    v.module_name += " (no bda form declared)";
    v.statistics_unavailable = v.sass.unavailable = "the pair declares no bda form";
  }
  return v;
}

}  // namespace

int inspect_pair(const InspectArgs& a) {
  const pairs::PairDeclaration d = pairs::read_pair_file(a.pair);
  if (!d.steps.empty())  // issue 34: one kernel per inspection, as yet
    throw UsageError(
        fmt::format("{}: step: `cuvk inspect --pair` shows one kernel; this pair declares {} "
                    "[[step]]s (inspect a step as a one-step pair of its own)",
                    d.file, d.steps.size()));
  const std::vector<std::uint32_t> blocks = shown_block_sizes(a, d);
  const std::vector<Binding> bindings = parse_vk_bindings(a.vk_bindings);

  const InspectDevices devs = open_inspect_devices(a.device);
  std::string arch_source;
  const int arch = cuda_arch(devs.choice, &arch_source);
  const Compiled compiled = compile(d, arch, bindings);
  print_heading(a, d, devs, compiled, arch_source, blocks.size());

  const std::string name = module_name(d);
  const RuntimeModule module = runtime_module(d, name);
  CudaSide c = cuda_side(compiled, name, module, devs, blocks);
  const RuntimeModule vk_module = vulkan_module(module, d, compiled);
  const std::string vk_why = load(devs.vulkan.get(), vk_module);
  Backend* vulkan = vk_why.empty() ? devs.vulkan.get() : nullptr;
  SassTarget target;
  target.block = inspect::shown_block(blocks);
  target.dump_dir = a.dump_cache_dir;
  print_sass_source(devs.choice, target);
  std::vector<VulkanSide> vks;
  for (Binding b : bindings)
    vks.push_back(vulkan_side(b, d, compiled, name, vulkan,
                              vk_why == "no device" ? devs.vulkan_reason : vk_why, blocks, target));
  print_kernel_inspection(
      std::cout,
      inspect::inspect_kernel(d.name, std::move(c), std::move(vks), blocks, !a.no_listings),
      !a.no_listings);
  return kExitOk;
}

}  // namespace cuvk::inspect_cli
