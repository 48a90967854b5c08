// `cuvk inspect`'s analysis of one kernel, both sides: what each side knows (CudaSide: PTX,
// ptxas -v, SASS, the CUDA runtime's attributes; VulkanSide: SPIR-V, the driver's statistics and
// machine code, the layout check) and what is derived from them for the report (KernelInspection:
// access summaries, SASS differences, the occupancy table, the layout verdict). Built-in tests
// (PTX/cubin and SPIR-V embedded at build time) and user pairs (compiled at run time,
// host/app/inspect_pair.cpp) fill the same sides; host/results/inspect_printer.h prints the result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"
#include "inspect.h"
#include "layout_check.h"
#include "sass_compare.h"
#include "spirv_reflect.h"

namespace cuvk::inspect {

// What the Vulkan SASS needs besides the backend: nvdisasm's architecture and where it came from.
struct SassTarget {
  std::uint32_t block = 256;
  std::string arch = "SM90", arch_source = "assumed: no CUDA device to read it from";
  std::string dump_dir;  // where each pipeline cache read is written ("": nowhere)
};

// Everything known about one kernel on the CUDA side.
struct CudaSide {
  std::string unavailable;  // why there is no PTX at all
  bool have_code = false;   // PTX (and a cubin) to show
  std::string arch;         // "sm_90"
  std::string compiler;     // "nvcc <flags>", "NVRTC 13.0 <options>"
  std::string ptxas_source = "ptxas -v, build time";
  std::string mangled, ptx;
  MemoryOps ptx_ops;
  std::optional<PtxasUsage> ptxas;
  std::string ptxas_unavailable;  // why ptxas has no figures for this kernel, with the log's start
  Sass sass;
  MemoryOps sass_ops;
  SassSummary sass_summary;
  std::optional<KernelResources> runtime;
  std::string runtime_unavailable;
};

// One Vulkan binding mode of one kernel.
struct VulkanSide {
  Binding binding = Binding::descriptor;
  std::string module_name;
  const std::uint32_t* code = nullptr;  // the SPIR-V; null: no module for this binding
  std::size_t words = 0;
  spirv::Module reflected;
  std::vector<LayoutCheck> layout;
  std::string layout_note;  // shown instead of the std430-vs-C++ check where set (pairs)
  // Per block size: the driver's statistics, or why there are none.
  std::vector<std::pair<std::uint32_t, std::vector<PipelineExecutableReport>>> statistics;
  std::string statistics_unavailable;
  Sass sass;  // the driver's machine code at the shown block size, from a pipeline cache
  SassSummary sass_summary;
  // Derived by inspect_kernel:
  std::vector<std::pair<std::string, int>> spirv_global, spirv_push;  // SPIR-V accesses
  std::optional<int> shown_registers;    // the statistics' register count at the shown block
  std::optional<long> shown_code_bytes;  // the statistics' machine code size there
  std::optional<std::vector<std::string>> sass_differences;  // vs CUDA's SASS, where both exist
  std::string spirv_listing;  // the disassembly (or "unavailable: why"), where listings are asked
};

// A block size's row of the occupancy table: resident blocks per SM and the share of the SM's
// warps, by the CUDA runtime and by the model from each side's register count.
struct Occupancy {
  int blocks_per_sm = 0;
  double percent = 0;
};
struct OccupancyRow {
  std::uint32_t block = 0;
  std::optional<Occupancy> runtime, ptxas_model;
  std::vector<std::optional<int>> vulkan_registers;  // per Vulkan side
  std::vector<std::optional<Occupancy>> vulkan_model;
};

// One kernel inspected: the sides and what the report shows of them.
struct KernelInspection {
  std::string kernel;
  CudaSide cuda;
  std::vector<VulkanSide> vulkan;
  std::uint32_t shown = 256;  // the block size of the statistics, the SASS and the listings
  SmLimits limits;            // the occupancy model's
  std::string limits_source;
  std::vector<OccupancyRow> occupancy;
  bool any_vulkan_statistics = false;
  std::ptrdiff_t layout_mismatches = 0;  // failed std430-vs-C++ checks over every Vulkan side
};

// The CUDA side from PTX text, ptxas -v's log and a cubin holding `mangled`.
void fill_cuda_code(CudaSide& c, const std::string& ptx, const std::string& ptxas_log,
                    const unsigned char* cubin, std::size_t cubin_bytes,
                    const std::string& mangled);
// The CUDA runtime's attributes and occupancy of `kernel` (as the backend names it).
void fill_cuda_runtime(CudaSide& c, const std::string& kernel, Backend* cuda,
                       const std::string& no_device, const std::vector<std::uint32_t>& blocks);
// The Vulkan side of v.code: reflection, the driver's statistics and SASS of `kernel`.
void fill_vulkan(VulkanSide& v, const std::string& kernel, Backend* vulkan,
                 const std::string& no_vulkan, const std::vector<std::uint32_t>& blocks,
                 const SassTarget& target);

// A built-in kernel's sides: the embedded PTX, cubin and ptxas log; the embedded SPIR-V of each
// binding with its layout check. A null backend says why through `no_device`.
CudaSide builtin_cuda_side(const std::string& kernel, Backend* cuda, const std::string& no_device,
                           const std::vector<std::uint32_t>& blocks);
VulkanSide builtin_vulkan_side(const std::string& kernel, Binding binding, Backend* vulkan,
                               const std::string& no_vulkan,
                               const std::vector<std::uint32_t>& blocks, const SassTarget& target);

// Statistics, SASS and listings of one block size: the run's default where it was asked for.
std::uint32_t shown_block(const std::vector<std::uint32_t>& blocks);

// nvdisasm's architecture from the paired CUDA device's compute capability ("" keeps the default).
void set_sass_arch(SassTarget& target, const std::string& compute_capability,
                   const std::string& device);

// CUDA's register count as the report shows it: ptxas -v's where its log has the kernel's figures,
// else the CUDA runtime's (cudaFuncGetAttributes: the GPU machines' NVRTC may log no ptxas lines,
// or none at all), else none. `text`: the count and its source, or why there is none.
struct CudaRegisters {
  std::optional<int> count;
  std::string text;
};
CudaRegisters cuda_registers(const CudaSide& c);

// The report of one kernel from its sides (`listings`: with the SPIR-V disassembly).
KernelInspection inspect_kernel(const std::string& kernel, CudaSide cuda,
                                std::vector<VulkanSide> vulkan,
                                const std::vector<std::uint32_t>& blocks, bool listings);

}  // namespace cuvk::inspect
