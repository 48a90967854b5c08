// What `cuvk inspect`'s two commands share: built-in tests (inspect_command.cpp: PTX/cubin embedded
// at build time, SPIR-V embedded) and user pairs (inspect_pair.cpp: compiled at run time by
// NVRTC and shaderc, loaded into the backends). The analysis is host/inspect's
// (kernel_inspection.h), the report host/results' (inspect_printer.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"
#include "devices.h"
#include "kernel_inspection.h"
#include "runner.h"  // ValidatedConfig

namespace cuvk::inspect_cli {

struct InspectArgs {
  std::string test, device, block_sizes = "64,128,256,512,1024";
  std::vector<std::string> vk_bindings = {"all"};
  std::vector<std::string> layouts, variants;      // as for `run`: the kernels of these points
  std::map<std::string, std::string> axis_values;  // per sweep axis, as for `run`
  std::string dump_cache_dir;  // --dump-pipeline-cache: where each Vulkan pipeline cache goes
  bool no_listings = false;
  std::string pair;  // --pair FILE: a user's kernel pair instead of a built-in test
};

// inspect's options judged once, before anything is compiled or opened (--dump-pipeline-cache's
// folder takes files; a test or --pair; a test's points as run judges them); throws UsageError.
// Its check makes it; its action runs it. A pair's --block-sizes and --vk-binding are judged with
// its declaration, which decides whether the former counts (inspect_pair).
struct JudgedInspect {
  InspectArgs args;
  std::optional<ValidatedConfig> cfg;  // the test's; none with --pair
};
JudgedInspect judge_inspect(const InspectArgs& args);

// `cuvk inspect` (inspect_command.cpp): a built-in test's kernels, or a pair's (--pair FILE,
// inspect_pair.cpp); the exit status.
int inspect_command(const JudgedInspect& judged);
int inspect_pair(const InspectArgs& args);

// The sides of a kernel and their analysis: host/inspect/kernel_inspection.h.
using inspect::CudaSide;
using inspect::fill_cuda_code;
using inspect::fill_cuda_runtime;
using inspect::fill_vulkan;
using inspect::SassTarget;
using inspect::VulkanSide;

// The devices inspect looks at, with why one is missing.
struct InspectDevices {
  DeviceChoice choice;
  std::unique_ptr<Backend> cuda, vulkan;
  std::string cuda_reason, vulkan_reason;
};
InspectDevices open_inspect_devices(const std::string& device);
void print_inspect_devices(const InspectDevices& devices);  // the CUDA: and Vulkan: lines

// The "Vulkan SASS:" line; sets the target's architecture from the paired CUDA device.
void print_sass_source(const DeviceChoice& choice, SassTarget& target);

}  // namespace cuvk::inspect_cli
