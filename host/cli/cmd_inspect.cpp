// `cuvk inspect TEST`: why might CUDA and Vulkan differ on this test's kernels? Side by side for
// each kernel: register counts, the load/store forms in the intermediate code (PTX, SPIR-V) and in
// the machine code (SASS: CUDA's from the embedded cubin, Vulkan's from the NVIDIA driver's
// pipeline cache, both summarized the same way with what differs), the std430-vs-C++ layout check,
// occupancy per block size, then the full listings. Works without a GPU: what needs one (the CUDA
// runtime's attributes and occupancy, the NVIDIA driver's statistics and machine code) and what
// needs a tool (cuobjdump/nvdisasm, libzstd) says so instead, in one line.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "backends.h"
#include "catalogue.h"
#include "cli.h"
#include "commands.h"
#include "cuda_artifacts.h"
#include "devices.h"
#include "error.h"
#include "inspect.h"
#include "inspect_sides.h"
#include "layout_check.h"
#include "pipeline_cache.h"
#include "runner.h"
#include "sass_compare.h"
#include "spirv_modules.h"
#include "spirv_reflect.h"

namespace cuvk {
namespace inspect_cli {

constexpr std::uint32_t kListingBlock = 256;  // the run's default block size

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// Left-aligned columns; rows[0] is the header.
std::string columns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], r[c].size());
    }
  std::ostringstream out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t c = 0; c < rows[i].size(); ++c)
      out << (c ? "  " : "  ") << rows[i][c]
          << (c + 1 < rows[i].size() ? std::string(width[c] - rows[i][c].size(), ' ') : "");
    out << '\n';
    if (i == 0) {
      for (std::size_t c = 0; c < width.size(); ++c) out << "  " << std::string(width[c], '-');
      out << '\n';
    }
  }
  return out.str();
}

std::string text_of(const unsigned char* bytes, std::size_t n) {
  return std::string(reinterpret_cast<const char*>(bytes), n);
}

const SpirvModule* find_module(const std::string& name) {
  for (const SpirvModule& m : spirv_modules())
    if (name == m.name) return &m;
  return nullptr;
}

void fill_cuda_code(CudaSide& c, const std::string& ptx, const std::string& ptxas_log,
                    const unsigned char* cubin, std::size_t cubin_bytes,
                    const std::string& mangled) {
  c.have_code = true;
  c.mangled = mangled;
  c.ptx = inspect::ptx_entry(ptx, mangled);
  c.ptx_ops = inspect::ptx_memory_ops(c.ptx);
  const inspect::PtxasLookup usage = inspect::find_ptxas_usage(ptxas_log, mangled);
  c.ptxas = usage.usage;
  c.ptxas_unavailable = usage.why;
  c.sass = inspect::disassemble_cubin(cubin, cubin_bytes, mangled);
  c.sass_ops = inspect::sass_memory_ops(c.sass.text);
  c.sass_summary = inspect::summarize_sass(c.sass.text);
  if (c.ptxas && c.ptxas->registers >= 0) c.sass_summary.declared_registers = c.ptxas->registers;
}

void fill_cuda_runtime(CudaSide& c, const std::string& kernel, Backend* cuda,
                       const std::string& no_device, const std::vector<std::uint32_t>& blocks) {
  if (cuda == nullptr) {
    c.runtime_unavailable = "needs a CUDA GPU (" + no_device + ")";
    return;
  }
  try {
    c.runtime = cuda->kernel_resources(kernel, blocks);
  } catch (const std::exception& e) {
    c.runtime_unavailable = e.what();
  }
}

CudaSide cuda_side(const std::string& kernel, Backend* cuda, const std::string& no_device,
                   const std::vector<std::uint32_t>& blocks) {
  CudaSide c;
  if (cuda_artifacts().empty()) {
    c.unavailable = "this cuvk was built without nvcc: no PTX or SASS is embedded";
  }
  for (const CudaArtifact& a : cuda_artifacts()) {
    const std::string ptx = text_of(a.ptx, a.ptx_bytes);
    const std::string mangled = inspect::mangled_entry(ptx, kernel);
    if (mangled.empty()) continue;
    c.arch = a.arch;
    c.compiler = std::string("nvcc ") + a.flags;
    fill_cuda_code(c, ptx, text_of(a.ptxas_log, a.ptxas_log_bytes), a.cubin, a.cubin_bytes,
                   mangled);
    break;
  }
  if (!c.have_code && c.unavailable.empty())
    c.unavailable = "no embedded PTX has a kernel named " + kernel;
  fill_cuda_runtime(c, kernel, cuda, no_device, blocks);
  return c;
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) std::cerr << "cuvk inspect: cannot write " << path << '\n';
}

// The Vulkan driver's SASS of one pipeline: its pipeline cache, parsed and disassembled; saved to
// target.dump_dir where asked.
inspect::Sass vulkan_sass(const std::string& kernel, Binding binding, Backend& vulkan,
                          const SassTarget& target) {
  std::vector<std::uint8_t> cache;
  try {
    cache = vulkan.pipeline_cache_data(kernel, binding, target.block);
  } catch (const std::exception& e) {
    inspect::Sass none;
    none.unavailable = e.what();
    return none;
  }
  if (!target.dump_dir.empty()) {
    const std::string path = target.dump_dir + "/" + kernel + "." + binding_name(binding) +
                             ".block" + std::to_string(target.block);
    write_bytes(path + ".vkcache", cache);
    const inspect::MachineCode code = inspect::nvidia_machine_code(cache);
    if (!code.object.empty()) write_bytes(path + ".nvuc", code.object);
  }
  return inspect::vulkan_sass(cache, target.arch);
}

void fill_vulkan(VulkanSide& v, const std::string& kernel, Backend* vulkan,
                 const std::string& no_vulkan, const std::vector<std::uint32_t>& blocks,
                 const SassTarget& target) {
  v.reflected = spirv::reflect(v.code, v.words);
  if (vulkan == nullptr) {
    v.statistics_unavailable = v.sass.unavailable = "no Vulkan device (" + no_vulkan + ")";
    return;
  }
  if (const std::string why = vulkan->binding_unsupported(v.binding); !why.empty()) {
    v.statistics_unavailable = v.sass.unavailable = why;
    return;
  }
  v.sass = vulkan_sass(kernel, v.binding, *vulkan, target);
  v.sass_summary = inspect::summarize_sass(v.sass.text);
  try {
    for (std::uint32_t b : blocks)
      v.statistics.emplace_back(b, vulkan->executable_reports(kernel, v.binding, b));
  } catch (const std::exception& e) {
    v.statistics.clear();
    v.statistics_unavailable = e.what();
  }
}

VulkanSide vulkan_side(const std::string& kernel, Binding binding, Backend* vulkan,
                       const std::string& no_vulkan, const std::vector<std::uint32_t>& blocks,
                       const SassTarget& target) {
  VulkanSide v;
  v.binding = binding;
  v.module_name = binding == Binding::bda ? kernel + "_bda" : kernel;
  const SpirvModule* module = find_module(v.module_name);
  if (module == nullptr) return v;
  v.code = module->code;
  v.words = module->words;
  fill_vulkan(v, kernel, vulkan, no_vulkan, blocks, target);
  v.layout = check_layouts(v.reflected, v.module_name);
  return v;
}

std::vector<std::pair<std::string, std::string>> flat(
    const std::vector<PipelineExecutableReport>& r) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const PipelineExecutableReport& e : r)
    for (const PipelineStatistic& s : e.statistics) out.emplace_back(s.name, s.value);
  return out;
}

std::optional<int> vulkan_registers(const VulkanSide& v, std::uint32_t block) {
  for (const auto& [b, reports] : v.statistics)
    if (b == block) return inspect::register_statistic(flat(reports));
  return std::nullopt;
}

std::string label(const VulkanSide& v) {
  return std::string("Vulkan ") + binding_name(v.binding);
}
std::string sass_label(const VulkanSide& v) {
  return std::string("Vulkan SASS (") + binding_name(v.binding) + ")";
}

// The side-by-side summary of one kernel: registers, memory instructions, parameter loads, code
// size and the layout check, for block size `shown`.
std::vector<std::vector<std::string>> summary_rows(const CudaSide& c,
                                                   const std::vector<VulkanSide>& vks,
                                                   std::uint32_t shown) {
  const std::string cuda_arch = c.have_code ? " " + c.arch : "";
  auto no_ptx = [&c] { return "unavailable: " + c.unavailable; };
  std::vector<std::vector<std::string>> rows = {{"", "API", ""}};
  // Registers.
  std::string regs =
      c.ptxas && c.ptxas->registers >= 0
          ? std::to_string(c.ptxas->registers) + " (" + c.ptxas_source + cuda_arch + ")"
      : c.have_code ? c.ptxas_unavailable
                    : no_ptx();
  if (c.ptxas)
    regs += "; stack " + std::to_string(c.ptxas->stack_bytes) + " B, spills " +
            std::to_string(c.ptxas->spill_store_bytes) + "/" +
            std::to_string(c.ptxas->spill_load_bytes) + " B";
  rows.push_back({"registers", "CUDA" + cuda_arch, regs});
  rows.push_back({"", "CUDA runtime",
                  c.runtime
                      ? std::to_string(c.runtime->registers) + " (cudaFuncGetAttributes, sm_" +
                            std::to_string(c.runtime->binary_version) + " SASS on " +
                            c.runtime->device + ")"
                      : "unavailable: " + c.runtime_unavailable});
  for (const VulkanSide& v : vks) {
    const std::optional<int> r = vulkan_registers(v, shown);
    rows.push_back(
        {"", label(v),
         r ? std::to_string(*r) + " (pipeline statistics, block " + std::to_string(shown) + ")"
         : !v.statistics_unavailable.empty() ? "unavailable: " + v.statistics_unavailable
                                             : "the driver's statistics name no register count"});
  }
  // Global memory instructions.
  rows.push_back({"global loads/stores", "CUDA PTX",
                  c.have_code ? inspect::format_ops(c.ptx_ops.global) : no_ptx()});
  rows.push_back({"", "CUDA SASS",
                  !c.sass.text.empty() ? inspect::format_ops(c.sass_ops.global)
                  : c.have_code        ? "unavailable: " + c.sass.unavailable
                                       : no_ptx()});
  for (const VulkanSide& v : vks)
    rows.push_back({"", label(v) + " SPIR-V",
                    v.code
                        ? inspect::format_ops(spirv::summarize_accesses(
                              v.reflected, {spirv::kStorageBuffer, spirv::kPhysicalStorageBuffer}))
                        : "no module " + v.module_name});
  for (const VulkanSide& v : vks)
    rows.push_back({"", sass_label(v),
                    !v.sass.text.empty() ? inspect::format_ops(v.sass_summary.ops.global)
                                         : "unavailable: " + v.sass.unavailable});
  // Parameters: kernel parameters (CUDA constant bank) vs push constants.
  rows.push_back({"parameter, shared", "CUDA PTX",
                  c.have_code ? inspect::format_ops(c.ptx_ops.other) : no_ptx()});
  if (!c.sass.text.empty())
    rows.push_back({"", "CUDA SASS", inspect::format_ops(c.sass_ops.other)});
  for (const VulkanSide& v : vks)
    if (v.code)
      rows.push_back(
          {"", label(v) + " SPIR-V",
           inspect::format_ops(spirv::summarize_accesses(v.reflected, {spirv::kPushConstant}))});
  // Size of the code.
  std::string sizes =
      c.have_code ? "PTX " + std::to_string(c.ptx_ops.instructions) + " instructions" : no_ptx();
  if (!c.sass.text.empty())
    sizes += ", SASS " + std::to_string(c.sass_ops.instructions) +
             " instructions = " + std::to_string(16 * c.sass_ops.instructions) +
             " bytes without NOPs (" + std::to_string(c.sass_ops.bytes) +
             " with cuobjdump's alignment NOPs)";
  rows.push_back({"code size", "CUDA", sizes});
  for (const VulkanSide& v : vks) {
    if (!v.code) continue;
    std::string size = std::to_string(v.reflected.instructions) + " SPIR-V instructions, " +
                       std::to_string(v.words) + " words";
    for (const auto& [b, reports] : v.statistics)
      if (b == shown)
        if (const auto bytes = inspect::binary_size_statistic(flat(reports)))
          size += "; machine code " + std::to_string(*bytes) + " bytes (pipeline statistics)";
    rows.push_back({"", label(v), size});
  }
  // Layout check.
  for (const VulkanSide& v : vks) {
    if (!v.code) continue;
    if (!v.layout_note.empty()) {
      rows.push_back(
          {v.binding == vks.front().binding ? "interfaces" : "", label(v), v.layout_note});
      continue;
    }
    std::vector<std::string> bad;
    for (const LayoutCheck& l : v.layout)
      if (!l.ok) bad.push_back(l.where + ": GLSL " + l.glsl + ", C++ " + l.cpp);
    rows.push_back({v.binding == vks.front().binding ? "std430 layout vs C++" : "", label(v),
                    bad.empty() ? std::to_string(v.layout.size()) + " checks, all match"
                                : std::to_string(bad.size()) + " MISMATCHES: " + join(bad, "; ")});
  }
  return rows;
}

// The machine code side by side: CUDA's SASS (cubin) beside each Vulkan binding's (pipeline cache),
// summarized the same way, then what differs. Sides without SASS are left out (the global
// loads/stores rows above say why in one line).
std::vector<std::vector<std::string>> sass_rows(const CudaSide& c,
                                                const std::vector<VulkanSide>& vks,
                                                std::uint32_t shown) {
  struct Side {
    std::string name;
    const inspect::SassSummary* summary;
  };
  std::vector<Side> sides;
  if (!c.sass.text.empty()) sides.push_back({"CUDA SASS", &c.sass_summary});
  for (const VulkanSide& v : vks)
    if (!v.sass.text.empty()) sides.push_back({sass_label(v), &v.sass_summary});
  std::vector<std::vector<std::string>> rows = {
      {"", "SASS (block " + std::to_string(shown) + ")", ""}};
  if (sides.empty()) return {};
  using Format = std::string (*)(const inspect::SassSummary&);
  const std::vector<std::pair<const char*, Format>> kinds = {
      {"SASS instructions",
       [](const inspect::SassSummary& s) { return std::to_string(s.ops.instructions); }},
      {"registers", inspect::format_registers},
      {"bounds checks", inspect::format_checks},
      {"address forms",
       [](const inspect::SassSummary& s) { return inspect::format_ops(s.address_forms); }},
      {"address arithmetic", inspect::format_addressing},
      {"parameter loads",
       [](const inspect::SassSummary& s) { return inspect::format_ops(s.ops.other); }}};
  for (const auto& [what, format] : kinds)
    for (const Side& side : sides)
      rows.push_back({&side == &sides.front() ? what : "", side.name, format(*side.summary)});
  const char* differs = "differs";
  for (const VulkanSide& v : vks) {
    if (c.sass.text.empty() || v.sass.text.empty()) continue;
    const std::vector<std::string> d = inspect::sass_differences(c.sass_summary, v.sass_summary);
    rows.push_back({differs, "CUDA vs " + sass_label(v),
                    d.empty() ? "nothing in these counts" : join(d, "; ")});
    differs = "";
  }
  return rows;
}

void print_occupancy(const CudaSide& c, const std::vector<VulkanSide>& vks,
                     const std::vector<std::uint32_t>& blocks, const inspect::SmLimits& limits,
                     const std::string& limits_source) {
  // Occupancy per block size.
  std::cout
      << "\n  Occupancy (resident blocks per SM and warps of the maximum; no shared memory, so "
         "threads, blocks and registers limit it). Model: "
      << limits_source << ".\n";
  std::vector<std::string> head = {"block", "CUDA runtime", "model, ptxas registers"};
  for (const VulkanSide& v : vks) {
    head.push_back(label(v) + " registers");
    head.push_back("model, " + label(v));
  }
  std::vector<std::vector<std::string>> occ = {head};
  auto cell = [&](int blocks_per_sm, std::uint32_t block) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%d (%.0f%%)", blocks_per_sm,
                  inspect::occupancy_percent(blocks_per_sm, block, limits));
    return std::string(buf);
  };
  for (std::uint32_t block : blocks) {
    std::vector<std::string> r = {std::to_string(block)};
    std::string api = "needs a CUDA GPU";
    if (c.runtime)
      for (const auto& [b, n] : c.runtime->blocks_per_sm)
        if (b == block) api = cell(n, block);
    r.push_back(api);
    r.push_back(c.ptxas && c.ptxas->registers >= 0
                    ? cell(inspect::model_blocks_per_sm(c.ptxas->registers, block, limits), block)
                    : "-");
    for (const VulkanSide& v : vks) {
      const std::optional<int> vk_regs = vulkan_registers(v, block);
      r.push_back(vk_regs ? std::to_string(*vk_regs) : "n/a");
      r.push_back(vk_regs ? cell(inspect::model_blocks_per_sm(*vk_regs, block, limits), block)
                          : "-");
    }
    occ.push_back(r);
  }
  std::cout << columns(occ);
  bool any_vk_stats = false;
  for (const VulkanSide& v : vks) any_vk_stats = any_vk_stats || !v.statistics.empty();
  if (!any_vk_stats)
    std::cout << "  Vulkan registers: n/a = the driver reports no pipeline statistics here "
                 "(VK_KHR_pipeline_executable_properties); NVIDIA's driver does.\n";
}

void print_listings(const std::string& kernel, const CudaSide& c,
                    const std::vector<VulkanSide>& vks, std::uint32_t shown) {
  if (c.have_code) {
    std::cout << "\n--- " << kernel << ": CUDA PTX (" << c.arch << ", " << c.compiler << ") ---\n"
              << c.ptx;
    std::cout << "\n--- " << kernel << ": CUDA SASS (" << c.arch << ") ---\n";
    if (!c.sass.text.empty())
      std::cout << "(" << c.sass.tool << ")\n" << c.sass.text;
    else
      std::cout << "unavailable: " << c.sass.unavailable << '\n';
  }
  for (const VulkanSide& v : vks) {
    std::cout << "\n--- " << kernel << ": " << sass_label(v) << ", block " << shown << " ---\n";
    if (!v.sass.text.empty())
      std::cout << "(" << v.sass.tool << ")\n" << v.sass.text;
    else
      std::cout << "unavailable: " << v.sass.unavailable << '\n';
  }
  for (const VulkanSide& v : vks) {
    if (!v.code) continue;
    for (const auto& [b, reports] : v.statistics) {
      if (b != shown) continue;
      std::cout << "\n--- " << kernel << ": " << label(v) << " pipeline statistics (block " << b
                << ") ---\n";
      for (const PipelineExecutableReport& e : reports) {
        std::cout << e.name << " (" << e.description << "), subgroup size " << e.subgroup_size
                  << '\n';
        for (const PipelineStatistic& s : e.statistics)
          std::cout << "  " << s.name << ": " << s.value << "  (" << s.description << ")\n";
      }
    }
    std::cout << "\n--- " << kernel << ": " << label(v) << " SPIR-V (module " << v.module_name
              << ") ---\n";
    try {
      std::cout << spirv::disassemble(v.code, v.words);
    } catch (const std::exception& e) {
      std::cout << "unavailable: " << e.what() << '\n';
    }
  }
}

// Statistics, SASS and listings of one block size: the run's default where it was asked for.
std::uint32_t shown_block(const std::vector<std::uint32_t>& blocks) {
  return std::find(blocks.begin(), blocks.end(), kListingBlock) != blocks.end() ? kListingBlock
                                                                                : blocks.front();
}

void print_kernel(const std::string& kernel, const CudaSide& c, const std::vector<VulkanSide>& vks,
                  const std::vector<std::uint32_t>& blocks, const inspect::SmLimits& limits,
                  const std::string& limits_source, bool listings) {
  std::cout << "\n== " << kernel << " ==\n";
  const std::uint32_t shown = shown_block(blocks);
  std::cout << columns(summary_rows(c, vks, shown));
  if (const auto rows = sass_rows(c, vks, shown); !rows.empty()) std::cout << '\n' << columns(rows);
  print_occupancy(c, vks, blocks, limits, limits_source);
  if (listings) print_listings(kernel, c, vks, shown);
}

// How the Vulkan SASS is found: nvdisasm's architecture (from the CUDA device's compute capability)
// and whether the tools are there, one line.
void print_sass_source(const DeviceChoice& choice, SassTarget& target) {
  if (choice.cuda)
    for (const auto& [k, v] : choice.cuda->properties)
      if (k == "compute_capability") {
        target.arch = inspect::nvdisasm_arch(v);
        target.arch_source = "compute capability " + v + " of " + choice.cuda->name;
      }
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

// The occupancy model's limits: the CUDA runtime's where it has a device, else an H100's.
std::string sm_limits(const CudaSide& c, inspect::SmLimits* limits) {
  *limits = inspect::hopper_limits();
  if (!c.runtime) return "sm_90 (H100) limits assumed: no CUDA device to read them from";
  limits->max_threads_per_sm = c.runtime->max_threads_per_sm;
  limits->max_blocks_per_sm = c.runtime->max_blocks_per_sm;
  limits->regs_per_sm = c.runtime->regs_per_sm;
  limits->regs_per_block = c.runtime->regs_per_block;
  limits->warp_size = c.runtime->warp_size;
  return "limits of " + c.runtime->device;
}

}  // namespace inspect_cli

namespace {

using namespace inspect_cli;

// The layout checks of one kernel's Vulkan sides that failed.
std::ptrdiff_t layout_mismatches(const std::vector<VulkanSide>& vks) {
  std::ptrdiff_t n = 0;
  for (const VulkanSide& v : vks)
    n +=
        std::count_if(v.layout.begin(), v.layout.end(), [](const LayoutCheck& l) { return !l.ok; });
  return n;
}

// A shader whose std430 layout differs from the C++ struct reads the wrong bytes: exit 1, with
// one `error:` line after the report that shows where.
int layout_verdict(const std::string& test, std::ptrdiff_t mismatches) {
  if (mismatches == 0) return kExitOk;
  std::cout.flush();
  std::cerr << "error: " << test << ": " << mismatches
            << " std430 layout checks differ from C++ (see 'std430 layout vs C++')\n";
  return kExitFailed;
}

int do_inspect(const InspectArgs& a) {
  const TestCase* test = find_test(a.test);
  if (test == nullptr) {
    std::vector<std::string> known;
    for (const TestCase& t : catalogue()) known.push_back(t.name);
    throw UsageError("unknown test '" + a.test + "' (known: " + join(known) + ")");
  }
  RunConfig judged;  // the block sizes are judged where every run option is: validate_config
  judged.block_sizes = parse_uint_list(a.block_sizes, "--block-sizes", kMaxBlockSizes + 1);
  validate_config(judged);
  const std::vector<std::uint32_t>& blocks = judged.block_sizes;
  const std::vector<Binding> bindings = parse_vk_bindings(a.vk_bindings);

  std::vector<std::string> kernels;
  const std::vector<std::string> layouts =
      test->layouts.empty() ? std::vector<std::string>{""} : test->layouts;
  for (const std::string& layout : layouts)
    for (const std::string& variant : test->variants) {
      const std::string k = test->plan(make_point(layout, variant, 1024)).kernel;
      if (std::find(kernels.begin(), kernels.end(), k) == kernels.end()) kernels.push_back(k);
    }

  const InspectDevices devs = open_inspect_devices(a.device);
  std::cout << "cuvk inspect " << test->name << ": kernels " << join(kernels);
  if (std::find(kernels.begin(), kernels.end(), kCopyEngine) != kernels.end())
    std::cout << " (copy_engine is the driver's copy command, no kernel)";
  std::cout << '\n';
  print_inspect_devices(devs);
  if (!cuda_artifacts().empty()) {
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
  SassTarget target;
  target.block = shown_block(blocks);
  target.dump_dir = a.dump_cache_dir;
  print_sass_source(devs.choice, target);
  std::cout << "  SPIR-V disassembly: "
            << (spirv::have_disassembler() ? "SPIRV-Tools"
                                           : "unavailable (built without SPIRV-Tools)")
            << '\n';
  std::ptrdiff_t mismatches = 0;  // failed layout checks, every kernel and binding
  for (const std::string& kernel : kernels) {
    if (kernel == kCopyEngine) continue;
    const CudaSide c = cuda_side(kernel, devs.cuda.get(), devs.cuda_reason, blocks);
    std::vector<VulkanSide> vks;
    for (Binding b : bindings)
      vks.push_back(vulkan_side(kernel, b, devs.vulkan.get(), devs.vulkan_reason, blocks, target));
    inspect::SmLimits limits;
    const std::string limits_source = sm_limits(c, &limits);
    print_kernel(kernel, c, vks, blocks, limits, limits_source, !a.no_listings);
    mismatches += layout_mismatches(vks);
  }
  return layout_verdict(test->name, mismatches);
}

}  // namespace

Command add_inspect_command(CLI::App& app) {
  auto args = std::make_shared<inspect_cli::InspectArgs>();
  CLI::App* sub = app.add_subcommand(
      "inspect",
      "explain parity gaps: one test's kernels side by side (registers, PTX/SASS and SPIR-V "
      "load/store forms, layouts, occupancy) with full listings");
  sub->add_option("test", args->test, "a test of `cuvk list` (or --pair)");
  sub->add_option("--pair", args->pair,
                  "a kernel pair's declaration (docs/PAIRS.md): its CUDA kernel and GLSL shader, "
                  "compiled at run time, side by side");
  sub->add_option("--block-sizes", args->block_sizes,
                  "block sizes of the occupancy table (default 64,128,256,512,1024)");
  sub->add_option("--vk-binding", args->vk_bindings,
                  "Vulkan binding modes to show: descriptor, bda or all (default all)")
      ->delimiter(',');
  sub->add_option("--device", args->device, "as for `run`");
  sub->add_option(
         "--dump-pipeline-cache", args->dump_cache_dir,
         "write each Vulkan pipeline cache read for the Vulkan SASS to "
         "DIR/<kernel>.<binding>.block<N>.vkcache and its NVIDIA machine code to .nvuc (DIR must "
         "exist)")
      ->check(CLI::ExistingDirectory);
  sub->add_flag("--no-listings", args->no_listings,
                "summary and occupancy only, no PTX/SASS/SPIR-V");
  return {sub, [args] {
            if (!args->pair.empty() && !args->test.empty())
              throw UsageError("inspect: give a test or --pair FILE, not both");
            if (!args->pair.empty()) return inspect_cli::inspect_pair(*args);
            if (args->test.empty())
              throw UsageError("inspect: give a test (see `cuvk list`) or --pair FILE");
            return do_inspect(*args);
          }};
}

}  // namespace cuvk
