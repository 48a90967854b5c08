// Pipelines: compute pipelines made from the embedded SPIR-V with the block size as
// specialization constant, kept per (module, block size); the descriptor set layout, the two
// pipeline layouts (descriptor and bda) and the descriptor pool. Private to vulkan/.
#pragma once

#include <volk.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "backend.h"
#include "params.h"
#include "vk_context.h"
#include "vk_raii.h"

namespace cuvk::vk {

constexpr std::string_view kBdaSuffix = "_bda";  // SPIR-V module of a kernel's bda binding mode
constexpr std::uint32_t kPushConstantBytes = sizeof(CuvkParams);
constexpr std::uint32_t kBdaPushConstantBytes = sizeof(CuvkBdaPush);  // params + 2 addresses
constexpr std::uint32_t kBindingsPerSet = 2;       // CUVK_BINDING_IN, CUVK_BINDING_OUT
constexpr std::uint32_t kTraceBindingsPerSet = 3;  // and CUVK_BINDING_TRACE (traced twins)
constexpr std::uint32_t kTraceBdaPushConstantBytes = sizeof(CuvkTraceBdaPush);
// The sets one run() allocates: the launch and its before_each launch, or a chain's distinct
// steps (kChainDistinctSteps: step 0 and the two that alternate) and its before_each launch.
// NVIDIA's driver holds the pool to maxSets (VK_ERROR_OUT_OF_POOL_MEMORY past it); lavapipe does not.
constexpr std::uint32_t kChainDistinctSteps = 3;
// A sequence of run-time launches (Launch::sequence): up to kMaxSequenceSteps distinct steps.
constexpr std::uint32_t kSetsPerRun =
    (kMaxSequenceSteps > kChainDistinctSteps ? kMaxSequenceSteps : kChainDistinctSteps) + 1;
// Descriptors a run's sets may hold: kSetsPerRun sets of a traced or run-time launch's bindings.
constexpr std::uint32_t kDescriptorsPerRun = (kTraceBindingsPerSet + kMaxModuleBuffers) * kSetsPerRun;

static_assert(CUVK_BINDING_IN == 0 && CUVK_BINDING_OUT == 1 && CUVK_BINDING_TRACE == 2,
              "descriptor layout below");

// Which module of a kernel: the measured one, or its traced twin (`cuvk trace`) with SM ids
// (`<kernel>_trace`) or without (`<kernel>_trace_nosm`).
enum class Trace { none, with_sm, without_sm };

// A kernel loaded at run time (Backend::load_module): its SPIR-V, its set layout of N storage
// buffers and its pipeline layouts (descriptor: the set and the scalars pushed; bda: no set, the
// scalars and the N addresses pushed).
struct RuntimeKernel {
  std::vector<std::uint32_t> spirv, spirv_bda;
  std::string entry;
  std::uint32_t buffers = 0;
  std::uint32_t scalar_bytes = 0;      // push-constant bytes of the descriptor form
  std::uint32_t address_offset = 0;    // bda form: where the addresses start (8-byte aligned)
  vk::DescriptorSetLayout set_layout;  // N storage buffers at bindings 0..N-1
  vk::PipelineLayout layout, bda_layout;
};

// What a launch of a kernel must give it and how it is bound (backend.h's binding convention),
// the same for built-in and run-time kernels: its buffers (a traced twin takes its trace buffer
// after them: binding N, or the address after theirs), its scalar bytes, and its layouts.
struct KernelShape {
  bool runtime = false;
  std::uint32_t buffers = 0;
  std::uint32_t scalar_bytes = 0;    // push-constant bytes of the descriptor form
  std::uint32_t address_offset = 0;  // bda form: where the addresses start (8-byte aligned)
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;  // descriptor form
  VkPipelineLayout layout = VK_NULL_HANDLE;           // of the binding mode asked for
};

class Pipelines {
 public:
  // Creates the set layout, the two pipeline layouts and the descriptor pool, in that order.
  // `capture_statistics`: pipelines are made with CAPTURE_STATISTICS (`cuvk inspect`).
  Pipelines(const DeviceContext& context, bool capture_statistics);
  Pipelines(const Pipelines&) = delete;
  Pipelines& operator=(const Pipelines&) = delete;

  // The catalogue's kernel names: the `<kernel>_bda` modules are the bda forms of these, chosen
  // by Launch::binding rather than by name.
  static std::vector<std::string> kernel_names();

  // Run-time kernels (Backend::load_module): loaded once per name, then get() makes their
  // pipelines like the embedded ones'.
  void load(const RuntimeModule& module, std::uint32_t max_push_bytes);
  const RuntimeKernel* runtime(const std::string& kernel) const;
  std::vector<std::string> runtime_names() const;
  // The shape of `kernel` (built-in or run-time) in `binding`, traced or not; throws where a
  // run-time kernel is asked for a traced form.
  KernelShape shape(const std::string& kernel, Binding binding, Trace trace) const;

  // The pipeline of `kernel` in `binding` at `block_size`, made at first use.
  VkPipeline get(const std::string& kernel, std::uint32_t block_size, Binding binding,
                 Trace trace = Trace::none);
  VkPipelineLayout layout(Binding binding, Trace trace = Trace::none) const;
  // `cuvk inspect`: the bytes of a fresh pipeline cache into which the pipeline of `kernel` in
  // `binding` at `block_size` was just made (then destroyed), made as get() makes it for timed
  // runs.
  std::vector<std::uint8_t> cache_data(const std::string& kernel, std::uint32_t block_size,
                                       Binding binding);

  // Descriptor sets, one per kernel launch of a run, from a pool reset before each run.
  void reset_sets();
  // A set of `layout` from the pool, storage buffer `views[b]` at binding b.
  VkDescriptorSet make_set(VkDescriptorSetLayout layout,
                           const std::vector<VkDescriptorBufferInfo>& views);

  // How long each pipeline took to make, in the order they were made.
  const std::vector<std::pair<std::string, double>>& creation_ms() const { return creation_ms_; }

 private:
  const VolkDeviceTable& vk() const { return context_.table; }
  static std::string module_name(const std::string& kernel, Binding binding, Trace trace);
  vk::Pipeline create(const std::string& name, std::uint32_t block_size,
                      VkPipelineLayout pipeline_layout, VkPipelineCache cache,
                      bool capture_statistics);
  // A pipeline from `words` (entry point `entry`), the block size as specialization constant 0.
  vk::Pipeline create_from(const std::uint32_t* words, std::size_t count, const char* entry,
                           std::uint32_t block_size, VkPipelineLayout pipeline_layout,
                           VkPipelineCache cache, bool capture_statistics);
  VkDevice device() const { return context_.device.get(); }

  const DeviceContext& context_;
  bool capture_statistics_ = false;
  vk::DescriptorSetLayout set_layout_;
  vk::PipelineLayout pipeline_layout_;
  vk::PipelineLayout bda_layout_;             // bda modules: no set, CuvkBdaPush push constants
  vk::DescriptorSetLayout trace_set_layout_;  // traced twins: in, out, trace
  vk::PipelineLayout trace_layout_;
  vk::PipelineLayout trace_bda_layout_;  // CuvkTraceBdaPush push constants
  vk::DescriptorPool descriptor_pool_;
  // Keyed by kernel, binding, trace and block size: not by a module name made from the kernel's
  // (`<kernel>_bda`), which a run-time kernel named `x_bda` would share with `x`'s bda form.
  std::map<std::tuple<std::string, Binding, Trace, std::uint32_t>, vk::Pipeline> pipelines_;
  std::map<std::string, RuntimeKernel> runtime_;
  std::vector<std::pair<std::string, double>> creation_ms_;
};

}  // namespace cuvk::vk
