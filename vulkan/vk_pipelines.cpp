// Shader modules from the embedded SPIR-V, the specialization constant for the block size,
// layouts, the pipeline map and descriptor sets.
#include "vk_pipelines.h"

#include <volk.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "error.h"
#include "numbers.h"
#include "spirv_modules.h"
#include "vk_check.h"
#include "vk_util.h"

namespace cuvk::vk {

namespace {

vk::DescriptorSetLayout make_set_layout(const VolkDeviceTable* table, VkDevice device,
                                        std::uint32_t count) {
  std::vector<VkDescriptorSetLayoutBinding> bindings(count);
  for (std::uint32_t b = 0; b < count; ++b) {
    bindings[b].binding = b;
    bindings[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[b].descriptorCount = 1;
    bindings[b].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set_info{};
  set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set_info.bindingCount = count;
  set_info.pBindings = bindings.data();
  VkDescriptorSetLayout raw = VK_NULL_HANDLE;
  CUVK_VK(table->vkCreateDescriptorSetLayout, device, &set_info, nullptr, &raw);
  return vk::DescriptorSetLayout(table, device, raw);
}

// A pipeline layout of one set (or none: VK_NULL_HANDLE) and `push_bytes` of push constants.
vk::PipelineLayout make_layout(const VolkDeviceTable* table, VkDevice device,
                               VkDescriptorSetLayout set, std::uint32_t push_bytes) {
  VkPushConstantRange push{};
  push.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  push.offset = 0;
  push.size = push_bytes;
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = set != VK_NULL_HANDLE ? 1 : 0;
  layout_info.pSetLayouts = set != VK_NULL_HANDLE ? &set : nullptr;
  layout_info.pushConstantRangeCount = push_bytes > 0 ? 1 : 0;  // a kernel without scalars
  layout_info.pPushConstantRanges = &push;
  VkPipelineLayout raw = VK_NULL_HANDLE;
  CUVK_VK(table->vkCreatePipelineLayout, device, &layout_info, nullptr, &raw);
  return vk::PipelineLayout(table, device, raw);
}

bool is_twin(const std::string& name) {  // a bda or traced form of a kernel
  const auto ends_with = [&name](std::string_view suffix) {
    return name.size() > suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(kBdaSuffix) || ends_with("_trace") || ends_with("_trace_nosm");
}

}  // namespace

Pipelines::Pipelines(const DeviceContext& context, bool capture_statistics)
    : context_(context), capture_statistics_(capture_statistics) {
  const VolkDeviceTable* table = &context_.table;
  // Every kernel has the same interface: (params) push constant, binding 0 in, binding 1 out;
  // the bda modules: no set, params and the two buffer addresses pushed. Traced twins add the
  // trace buffer: binding 2, or its address pushed after the others.
  set_layout_ = make_set_layout(table, device(), kBindingsPerSet);
  pipeline_layout_ = make_layout(table, device(), set_layout_.get(), kPushConstantBytes);
  bda_layout_ = make_layout(table, device(), VK_NULL_HANDLE, kBdaPushConstantBytes);
  trace_set_layout_ = make_set_layout(table, device(), kTraceBindingsPerSet);
  trace_layout_ = make_layout(table, device(), trace_set_layout_.get(), kPushConstantBytes);
  trace_bda_layout_ = make_layout(table, device(), VK_NULL_HANDLE, kTraceBdaPushConstantBytes);

  VkDescriptorPoolSize pool_size{};
  pool_size.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  pool_size.descriptorCount = kDescriptorsPerRun;
  VkDescriptorPoolCreateInfo dpool_info{};
  dpool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  dpool_info.maxSets = kSetsPerRun;
  dpool_info.poolSizeCount = 1;
  dpool_info.pPoolSizes = &pool_size;
  VkDescriptorPool raw_dpool = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateDescriptorPool, device(), &dpool_info, nullptr, &raw_dpool);
  descriptor_pool_ = vk::DescriptorPool(table, device(), raw_dpool);
}

std::vector<std::string> Pipelines::kernel_names() {
  std::vector<std::string> names;
  for (const SpirvModule& m : spirv_modules()) {
    if (!is_twin(m.name)) names.emplace_back(m.name);
  }
  names.emplace_back(kCopyEngine);
  return names;
}

VkPipelineLayout Pipelines::layout(Binding binding, Trace trace) const {
  if (trace != Trace::none) {
    return binding == Binding::bda ? trace_bda_layout_.get() : trace_layout_.get();
  }
  return binding == Binding::bda ? bda_layout_.get() : pipeline_layout_.get();
}

VkPipeline Pipelines::get(const std::string& kernel, std::uint32_t block_size, Binding binding,
                          Trace trace) {
  const auto key = std::make_tuple(kernel, binding, trace, block_size);
  const auto found = pipelines_.find(key);
  if (found != pipelines_.end()) return found->second.get();
  const Clock::time_point start = Clock::now();
  vk::Pipeline owned;
  std::string name = module_name(kernel, binding, trace);
  if (const RuntimeKernel* rk = runtime(kernel)) {
    if (trace != Trace::none) throw Error("run-time kernel '" + kernel + "' has no traced form");
    const bool bda = binding == Binding::bda;
    name = bda ? kernel + " bda" : kernel;  // its own name, whatever it ends in
    const std::vector<std::uint32_t>& words = bda ? rk->spirv_bda : rk->spirv;
    if (words.empty()) throw Error("run-time kernel '" + kernel + "' has no bda form");
    owned = create_from(words.data(), words.size(), rk->entry.c_str(), block_size,
                        bda ? rk->bda_layout.get() : rk->layout.get(), VK_NULL_HANDLE,
                        capture_statistics_);
  } else {
    owned = create(name, block_size, layout(binding, trace), VK_NULL_HANDLE, capture_statistics_);
  }
  creation_ms_.emplace_back("pipeline " + name + " (block " + std::to_string(block_size) + ")",
                            ms_since(start));
  return pipelines_.emplace(key, std::move(owned)).first->second.get();
}

std::vector<std::uint8_t> Pipelines::cache_data(const std::string& kernel, std::uint32_t block_size,
                                                Binding binding) {
  VkPipelineCacheCreateInfo cache_info{};
  cache_info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  VkPipelineCache raw_cache = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreatePipelineCache, device(), &cache_info, nullptr, &raw_cache);
  const vk::PipelineCache cache(&context_.table, device(), raw_cache);
  // As timed runs make it: without CAPTURE_STATISTICS, which could change the code.
  vk::Pipeline pipeline;
  if (const RuntimeKernel* rk = runtime(kernel)) {
    const bool bda = binding == Binding::bda;
    const std::vector<std::uint32_t>& words = bda ? rk->spirv_bda : rk->spirv;
    if (words.empty()) throw Error("run-time kernel '" + kernel + "' has no bda form");
    pipeline = create_from(words.data(), words.size(), rk->entry.c_str(), block_size,
                           bda ? rk->bda_layout.get() : rk->layout.get(), raw_cache, false);
  } else {
    pipeline = create(module_name(kernel, binding, Trace::none), block_size,
                      layout(binding, Trace::none), raw_cache, false);
  }
  std::size_t bytes = 0;
  CUVK_VK(vk().vkGetPipelineCacheData, device(), raw_cache, &bytes, nullptr);
  std::vector<std::uint8_t> data(bytes);
  CUVK_VK(vk().vkGetPipelineCacheData, device(), raw_cache, &bytes, data.data());
  data.resize(bytes);
  return data;
}

std::string Pipelines::module_name(const std::string& kernel, Binding binding, Trace trace) {
  std::string name = kernel;
  if (trace == Trace::with_sm) name += "_trace";
  if (trace == Trace::without_sm) name += "_trace_nosm";
  return binding == Binding::bda ? name + std::string(kBdaSuffix) : name;
}

vk::Pipeline Pipelines::create(const std::string& name, std::uint32_t block_size,
                               VkPipelineLayout pipeline_layout, VkPipelineCache cache,
                               bool capture_statistics) {
  const auto& modules = spirv_modules();
  const auto module = std::find_if(modules.begin(), modules.end(),
                                   [&name](const SpirvModule& m) { return name == m.name; });
  if (module == modules.end()) {
    throw Error("unknown Vulkan kernel '" + name + "' (no embedded SPIR-V module of that name)");
  }
  return create_from(module->code, module->words, "main", block_size, pipeline_layout, cache,
                     capture_statistics);
}

vk::Pipeline Pipelines::create_from(const std::uint32_t* words, std::size_t count,
                                    const char* entry_point, std::uint32_t block_size,
                                    VkPipelineLayout pipeline_layout, VkPipelineCache cache,
                                    bool capture_statistics) {
  const VolkDeviceTable* table = &context_.table;
  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = count * sizeof(std::uint32_t);
  module_info.pCode = words;
  VkShaderModule raw_module = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateShaderModule, device(), &module_info, nullptr, &raw_module);
  const vk::ShaderModule shader(table, device(), raw_module);  // not needed after creation

  VkSpecializationMapEntry entry{};
  entry.constantID = CUVK_SPEC_BLOCK_SIZE;
  entry.offset = 0;
  entry.size = sizeof(std::uint32_t);
  VkSpecializationInfo specialization{};
  specialization.mapEntryCount = 1;
  specialization.pMapEntries = &entry;
  specialization.dataSize = sizeof(block_size);
  specialization.pData = &block_size;

  VkComputePipelineCreateInfo pipeline_info{};
  pipeline_info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipeline_info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline_info.stage.module = raw_module;
  pipeline_info.stage.pName = entry_point;
  pipeline_info.stage.pSpecializationInfo = &specialization;
  pipeline_info.layout = pipeline_layout;
  if (capture_statistics) pipeline_info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkPipeline raw_pipeline = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateComputePipelines, device(), cache, 1, &pipeline_info, nullptr,
          &raw_pipeline);
  return vk::Pipeline(table, device(), raw_pipeline);
}

void Pipelines::load(const RuntimeModule& module, std::uint32_t max_push_bytes) {
  // A run-time kernel keeps both of its forms under its one name (RuntimeKernel), so any name
  // but a kernel's already loaded or embedded (a twin's module name too: `copy_bda`) is its own.
  if (runtime_.count(module.name) != 0 ||
      std::any_of(spirv_modules().begin(), spirv_modules().end(),
                  [&module](const SpirvModule& m) { return module.name == m.name; }))
    throw Error("Vulkan backend already has a kernel named '" + module.name + "'");
  if (module.spirv.empty()) throw Error("Vulkan module '" + module.name + "' has no SPIR-V");
  if (module.buffers > kMaxModuleBuffers)
    throw Error("Vulkan module '" + module.name + "' takes " + std::to_string(module.buffers) +
                " buffers; at most " + std::to_string(kMaxModuleBuffers));
  RuntimeKernel k;
  k.spirv = module.spirv;
  k.spirv_bda = module.spirv_bda;
  k.entry = module.entry.empty() ? "main" : module.entry;
  k.buffers = module.buffers;
  scalar_offsets(module.scalar_sizes, &k.scalar_bytes);
  k.address_offset = round_up(k.scalar_bytes, 8u);
  const std::uint32_t bda_bytes = k.address_offset + 8 * k.buffers;
  // The push constants the module takes (the bda layout's only where it has a bda form, issue 46)
  // against the device's maxPushConstantsSize.
  const std::uint32_t push_bytes = k.spirv_bda.empty() ? k.scalar_bytes : bda_bytes;
  if (push_bytes > max_push_bytes)
    throw Error("Vulkan module '" + module.name + "': push constants of " +
                std::to_string(push_bytes) + " bytes" +
                (k.spirv_bda.empty() ? "" : " (the bda form: scalars, then buffer addresses)") +
                " exceed the device's maxPushConstantsSize (" + std::to_string(max_push_bytes) +
                ")");
  const VolkDeviceTable* table = &context_.table;
  k.set_layout = make_set_layout(table, device(), k.buffers);
  k.layout = make_layout(table, device(), k.set_layout.get(), k.scalar_bytes);
  if (!k.spirv_bda.empty()) k.bda_layout = make_layout(table, device(), VK_NULL_HANDLE, bda_bytes);
  runtime_.emplace(module.name, std::move(k));
}

const RuntimeKernel* Pipelines::runtime(const std::string& kernel) const {
  const auto it = runtime_.find(kernel);
  return it == runtime_.end() ? nullptr : &it->second;
}

std::vector<std::string> Pipelines::runtime_names() const {
  std::vector<std::string> names;
  for (const auto& [name, k] : runtime_) names.push_back(name);
  return names;
}

KernelShape Pipelines::shape(const std::string& kernel, Binding binding, Trace trace) const {
  KernelShape shape;
  const bool bda = binding == Binding::bda;
  if (const RuntimeKernel* k = runtime(kernel)) {
    if (trace != Trace::none) throw Error("run-time kernel '" + kernel + "' has no traced form");
    shape.runtime = true;
    shape.buffers = k->buffers;
    shape.scalar_bytes = k->scalar_bytes;
    shape.address_offset = k->address_offset;
    shape.set_layout = k->set_layout.get();
    shape.layout = bda ? k->bda_layout.get() : k->layout.get();
    return shape;
  }
  // A built-in kernel: in, out (the trace buffer after them), one scalar: CuvkParams.
  static_assert(kBuiltinBuffers == kBindingsPerSet && kBuiltinScalarBytes == kPushConstantBytes &&
                    kCuvkAddressesAt == (kPushConstantBytes + 7) / 8 * 8,
                "built-in kernels follow the run-time binding convention");
  shape.buffers = kBuiltinBuffers;
  shape.scalar_bytes = kBuiltinScalarBytes;
  shape.address_offset = kCuvkAddressesAt;
  shape.set_layout = trace != Trace::none ? trace_set_layout_.get() : set_layout_.get();
  shape.layout = layout(binding, trace);
  return shape;
}

// A set of `layout` from the pool, storage buffer `views[b]` at binding b.
VkDescriptorSet Pipelines::make_set(VkDescriptorSetLayout layout,
                                    const std::vector<VkDescriptorBufferInfo>& views) {
  VkDescriptorSetAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  alloc.descriptorPool = descriptor_pool_.get();
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  CUVK_VK(vk().vkAllocateDescriptorSets, device(), &alloc, &set);
  std::vector<VkWriteDescriptorSet> writes(views.size());
  for (std::uint32_t b = 0; b < views.size(); ++b) {
    writes[b].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[b].dstSet = set;
    writes[b].dstBinding = b;
    writes[b].descriptorCount = 1;
    writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[b].pBufferInfo = &views[b];
  }
  vk().vkUpdateDescriptorSets(device(), static_cast<std::uint32_t>(writes.size()), writes.data(), 0,
                              nullptr);
  return set;
}

// Nothing is in flight when a run prepares its sets.
void Pipelines::reset_sets() {
  CUVK_VK(vk().vkResetDescriptorPool, device(), descriptor_pool_.get(), 0);
}


}  // namespace cuvk::vk
