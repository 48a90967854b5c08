#include "kernel_inspection.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "cuda_artifacts.h"
#include "error.h"
#include "pipeline_cache.h"
#include "spirv_modules.h"

namespace cuvk::inspect {
namespace {

constexpr std::uint32_t kListingBlock = 256;  // the run's default block size

std::string text_of(const unsigned char* bytes, std::size_t n) {
  return std::string(reinterpret_cast<const char*>(bytes), n);
}

const SpirvModule* find_module(const std::string& name) {
  for (const SpirvModule& m : spirv_modules())
    if (name == m.name) return &m;
  return nullptr;
}

// A file --dump-pipeline-cache asked for that cannot be written is an I/O error (exit 3), never a
// warning beside exit 0.
void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out)
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  if (out) out.close();
  if (!out) {
    const int err = errno;
    throw Error("--dump-pipeline-cache: cannot write '" + path + "': " +
                (err != 0 ? std::strerror(err) : "write failed"));
  }
}

// The Vulkan driver's SASS of one pipeline: its pipeline cache, parsed and disassembled; saved to
// target.dump_dir where asked.
Sass driver_sass(const std::string& kernel, Binding binding, Backend& vulkan,
                 const SassTarget& target) {
  std::vector<std::uint8_t> cache;
  Sass none;
  PipelineCache* pipeline_cache = vulkan.find<PipelineCache>();
  if (pipeline_cache == nullptr) {
    none.unavailable = vulkan.lacks<PipelineCache>();
    return none;
  }
  try {
    cache = pipeline_cache->pipeline_cache_data(kernel, binding, target.block);
  } catch (const std::exception& e) {
    none.unavailable = e.what();
    return none;
  }
  if (!target.dump_dir.empty()) {
    const std::string path = fmt::format("{}/{}.{}.block{}", target.dump_dir, kernel,
                                         binding_name(binding), target.block);
    write_bytes(path + ".vkcache", cache);
    const MachineCode code = nvidia_machine_code(cache);
    if (!code.object.empty()) write_bytes(path + ".nvuc", code.object);
  }
  return vulkan_sass(cache, target.arch);
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
    if (b == block) return register_statistic(flat(reports));
  return std::nullopt;
}

// The occupancy model's limits: the CUDA runtime's where it has a device, else an H100's.
std::string sm_limits(const CudaSide& c, SmLimits* limits) {
  *limits = hopper_limits();
  if (!c.runtime) return "sm_90 (H100) limits assumed: no CUDA device to read them from";
  limits->max_threads_per_sm = c.runtime->max_threads_per_sm;
  limits->max_blocks_per_sm = c.runtime->max_blocks_per_sm;
  limits->regs_per_sm = c.runtime->regs_per_sm;
  limits->regs_per_block = c.runtime->regs_per_block;
  limits->warp_size = c.runtime->warp_size;
  return "limits of " + c.runtime->device;
}

std::vector<OccupancyRow> occupancy_rows(const KernelInspection& k,
                                         const std::vector<std::uint32_t>& blocks) {
  const auto model = [&k](int registers, std::uint32_t block) {
    const int n = model_blocks_per_sm(registers, block, k.limits);
    return Occupancy{n, occupancy_percent(n, block, k.limits)};
  };
  std::vector<OccupancyRow> rows;
  for (std::uint32_t block : blocks) {
    OccupancyRow r;
    r.block = block;
    if (k.cuda.runtime)
      for (const auto& [b, n] : k.cuda.runtime->blocks_per_sm)
        if (b == block) r.runtime = Occupancy{n, occupancy_percent(n, block, k.limits)};
    if (k.cuda.ptxas && k.cuda.ptxas->registers >= 0)
      r.ptxas_model = model(k.cuda.ptxas->registers, block);
    for (const VulkanSide& v : k.vulkan) {
      const std::optional<int> regs = vulkan_registers(v, block);
      r.vulkan_registers.push_back(regs);
      r.vulkan_model.push_back(regs ? std::optional<Occupancy>(model(*regs, block)) : std::nullopt);
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

// What the report shows of one Vulkan side beside CUDA's.
void derive(VulkanSide& v, const CudaSide& c, std::uint32_t shown, bool listings) {
  if (v.code) {
    v.spirv_global = spirv::summarize_accesses(
        v.reflected, {spirv::kStorageBuffer, spirv::kPhysicalStorageBuffer});
    v.spirv_push = spirv::summarize_accesses(v.reflected, {spirv::kPushConstant});
  }
  v.shown_registers = vulkan_registers(v, shown);
  for (const auto& [b, reports] : v.statistics)
    if (b == shown) v.shown_code_bytes = binary_size_statistic(flat(reports));
  if (!c.sass.text.empty() && !v.sass.text.empty())
    v.sass_differences = sass_differences(c.sass_summary, v.sass_summary);
  if (listings && v.code) {
    try {
      v.spirv_listing = spirv::disassemble(v.code, v.words);
    } catch (const std::exception& e) {
      v.spirv_listing = "unavailable: " + std::string(e.what()) + "\n";
    }
  }
}

}  // namespace

void fill_cuda_code(CudaSide& c, const std::string& ptx, const std::string& ptxas_log,
                    const unsigned char* cubin, std::size_t cubin_bytes,
                    const std::string& mangled) {
  c.have_code = true;
  c.mangled = mangled;
  c.ptx = ptx_entry(ptx, mangled);
  c.ptx_ops = ptx_memory_ops(c.ptx);
  const PtxasLookup usage = find_ptxas_usage(ptxas_log, mangled);
  c.ptxas = usage.usage;
  c.ptxas_unavailable = usage.why;
  c.sass = disassemble_cubin(cubin, cubin_bytes, mangled);
  c.sass_ops = sass_memory_ops(c.sass.text);
  c.sass_summary = summarize_sass(c.sass.text);
  if (c.ptxas && c.ptxas->registers >= 0) c.sass_summary.declared_registers = c.ptxas->registers;
}

CudaRegisters cuda_registers(const CudaSide& c) {
  const std::string arch = c.have_code ? " " + c.arch : "";
  if (c.ptxas && c.ptxas->registers >= 0)
    return {c.ptxas->registers, fmt::format("{} ({}{})", c.ptxas->registers, c.ptxas_source, arch)};
  const std::string no_ptxas = c.have_code ? c.ptxas_unavailable : "unavailable: " + c.unavailable;
  if (c.runtime)
    return {c.runtime->registers,
            fmt::format("{} (cudaFuncGetAttributes, sm_{} SASS; ptxas -v: {})",
                        c.runtime->registers, c.runtime->binary_version, no_ptxas)};
  return {std::nullopt, no_ptxas};
}

void fill_cuda_runtime(CudaSide& c, const std::string& kernel, Backend* cuda,
                       const std::string& no_device, const std::vector<std::uint32_t>& blocks) {
  if (cuda == nullptr) {
    c.runtime_unavailable = "needs a CUDA GPU (" + no_device + ")";
    return;
  }
  KernelResourceReports* reports = cuda->find<KernelResourceReports>();
  if (reports == nullptr) {
    c.runtime_unavailable = cuda->lacks<KernelResourceReports>();
    return;
  }
  try {
    c.runtime = reports->kernel_resources(kernel, blocks);
  } catch (const std::exception& e) {
    c.runtime_unavailable = e.what();
  }
}

CudaSide builtin_cuda_side(const std::string& kernel, Backend* cuda, const std::string& no_device,
                           const std::vector<std::uint32_t>& blocks) {
  CudaSide c;
  if (cuda_artifacts().empty()) {
    c.unavailable = "this cuvk was built without nvcc: no PTX or SASS is embedded";
  }
  for (const CudaArtifact& a : cuda_artifacts()) {
    const std::string ptx = text_of(a.ptx, a.ptx_bytes);
    const std::string mangled = mangled_entry(ptx, kernel);
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
  v.sass = driver_sass(kernel, v.binding, *vulkan, target);
  v.sass_summary = summarize_sass(v.sass.text);
  ExecutableReports* reports = vulkan->find<ExecutableReports>();
  if (reports == nullptr) {
    v.statistics_unavailable = vulkan->lacks<ExecutableReports>();
    return;
  }
  try {
    for (std::uint32_t b : blocks)
      v.statistics.emplace_back(b, reports->executable_reports(kernel, v.binding, b));
  } catch (const std::exception& e) {
    v.statistics.clear();
    v.statistics_unavailable = e.what();
  }
}

VulkanSide builtin_vulkan_side(const std::string& kernel, Binding binding, Backend* vulkan,
                               const std::string& no_vulkan,
                               const std::vector<std::uint32_t>& blocks, const SassTarget& target) {
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

std::uint32_t shown_block(const std::vector<std::uint32_t>& blocks) {
  return std::find(blocks.begin(), blocks.end(), kListingBlock) != blocks.end() ? kListingBlock
                                                                                : blocks.front();
}

void set_sass_arch(SassTarget& target, const std::string& compute_capability,
                   const std::string& device) {
  if (compute_capability.empty()) return;
  target.arch = nvdisasm_arch(compute_capability);
  target.arch_source = "compute capability " + compute_capability + " of " + device;
}

KernelInspection inspect_kernel(const std::string& kernel, CudaSide cuda,
                                std::vector<VulkanSide> vulkan,
                                const std::vector<std::uint32_t>& blocks, bool listings) {
  KernelInspection k;
  k.kernel = kernel;
  k.cuda = std::move(cuda);
  k.vulkan = std::move(vulkan);
  k.shown = shown_block(blocks);
  k.limits_source = sm_limits(k.cuda, &k.limits);
  for (VulkanSide& v : k.vulkan) {
    derive(v, k.cuda, k.shown, listings);
    k.any_vulkan_statistics = k.any_vulkan_statistics || !v.statistics.empty();
    k.layout_mismatches +=
        std::count_if(v.layout.begin(), v.layout.end(), [](const LayoutCheck& l) { return !l.ok; });
  }
  k.occupancy = occupancy_rows(k, blocks);
  return k;
}

}  // namespace cuvk::inspect
