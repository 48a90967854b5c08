// What `cuvk inspect` knows about one kernel on each side, shared by the built-in tests
// (cmd_inspect.cpp: PTX/cubin embedded at build time, SPIR-V embedded) and user pairs
// (cmd_inspect_pair.cpp: compiled at run time by NVRTC and shaderc, loaded into the backends).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"
#include "devices.h"
#include "inspect.h"
#include "layout_check.h"
#include "sass_compare.h"
#include "spirv_reflect.h"

namespace cuvk::inspect_cli {

struct InspectArgs {
  std::string test, device, block_sizes = "64,128,256,512,1024";
  std::vector<std::string> vk_bindings = {"all"};
  std::string dump_cache_dir;  // --dump-pipeline-cache: where each Vulkan pipeline cache goes
  bool no_listings = false;
  std::string pair;  // --pair FILE: a user's kernel pair instead of a built-in test
};

// `cuvk inspect --pair FILE` (cmd_inspect_pair.cpp); the exit status.
int inspect_pair(const InspectArgs& args);

// What the Vulkan SASS needs besides the backend: nvdisasm's architecture and where it came from.
struct SassTarget {
  std::uint32_t block = 256;
  std::string arch = "SM90", arch_source = "assumed: no CUDA device to read it from";
  std::string dump_dir;
};

// Everything known about one kernel on the CUDA side.
struct CudaSide {
  std::string unavailable;  // why there is no PTX at all
  bool have_code = false;   // PTX (and a cubin) to show
  std::string arch;         // "sm_90"
  std::string compiler;     // "nvcc <flags>", "NVRTC 13.0 <options>"
  std::string ptxas_source = "ptxas -v, build time";
  std::string mangled, ptx;
  inspect::MemoryOps ptx_ops;
  std::optional<inspect::PtxasUsage> ptxas;
  std::string ptxas_unavailable;  // why ptxas has no figures for this kernel, with the log's start
  inspect::Sass sass;
  inspect::MemoryOps sass_ops;
  inspect::SassSummary sass_summary;
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
  inspect::Sass sass;  // the driver's machine code at the shown block size, from a pipeline cache
  inspect::SassSummary sass_summary;
};

// The devices inspect looks at, with why one is missing.
struct InspectDevices {
  DeviceChoice choice;
  std::unique_ptr<Backend> cuda, vulkan;
  std::string cuda_reason, vulkan_reason;
};
InspectDevices open_inspect_devices(const std::string& device);
void print_inspect_devices(const InspectDevices& devices);  // the CUDA: and Vulkan: lines

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

std::uint32_t shown_block(const std::vector<std::uint32_t>& blocks);
void print_sass_source(const DeviceChoice& choice, SassTarget& target);
std::string sm_limits(const CudaSide& c, inspect::SmLimits* limits);
// The comparison table, SASS table, occupancy and (with listings) PTX, SASS and SPIR-V.
void print_kernel(const std::string& kernel, const CudaSide& c, const std::vector<VulkanSide>& vks,
                  const std::vector<std::uint32_t>& blocks, const inspect::SmLimits& limits,
                  const std::string& limits_source, bool listings);
std::string join(const std::vector<std::string>& v, const char* sep = ", ");

}  // namespace cuvk::inspect_cli
