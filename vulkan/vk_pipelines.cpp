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
#include "spirv_modules.h"
#include "vk_check.h"
#include "vk_util.h"

namespace cuvk::vk {

Pipelines::Pipelines(const DeviceContext& context, bool capture_statistics)
    : context_(context), capture_statistics_(capture_statistics) {
  const VolkDeviceTable* table = &context_.table;
  // Every kernel has the same interface: (params) push constant, binding 0 in, binding 1 out.
  VkDescriptorSetLayoutBinding bindings[kBindingsPerSet]{};
  for (std::uint32_t b = 0; b < kBindingsPerSet; ++b) {
    bindings[b].binding = b;
    bindings[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[b].descriptorCount = 1;
    bindings[b].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set_info{};
  set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set_info.bindingCount = kBindingsPerSet;
  set_info.pBindings = bindings;
  VkDescriptorSetLayout raw_set_layout = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateDescriptorSetLayout, device(), &set_info, nullptr, &raw_set_layout);
  set_layout_ = vk::DescriptorSetLayout(table, device(), raw_set_layout);

  VkPushConstantRange push{};
  push.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  push.offset = 0;
  push.size = kPushConstantBytes;
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &raw_set_layout;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &push;
  VkPipelineLayout raw_layout = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreatePipelineLayout, device(), &layout_info, nullptr, &raw_layout);
  pipeline_layout_ = vk::PipelineLayout(table, device(), raw_layout);

  // The bda modules' layout: no descriptor set; params and the two buffer addresses pushed.
  VkPushConstantRange bda_push = push;
  bda_push.size = kBdaPushConstantBytes;
  VkPipelineLayoutCreateInfo bda_layout_info = layout_info;
  bda_layout_info.setLayoutCount = 0;
  bda_layout_info.pSetLayouts = nullptr;
  bda_layout_info.pPushConstantRanges = &bda_push;
  VkPipelineLayout raw_bda_layout = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreatePipelineLayout, device(), &bda_layout_info, nullptr, &raw_bda_layout);
  bda_layout_ = vk::PipelineLayout(table, device(), raw_bda_layout);

  VkDescriptorPoolSize pool_size{};
  pool_size.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  pool_size.descriptorCount = kBindingsPerSet * kSetsPerRun;
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
    const std::string name = m.name;
    if (name.size() <= kBdaSuffix.size() ||
        name.compare(name.size() - kBdaSuffix.size(), kBdaSuffix.size(), kBdaSuffix) != 0)
      names.push_back(name);
  }
  names.emplace_back(kCopyEngine);
  return names;
}

VkPipelineLayout Pipelines::layout(Binding binding) const {
  return binding == Binding::bda ? bda_layout_.get() : pipeline_layout_.get();
}

VkPipeline Pipelines::get(const std::string& kernel, std::uint32_t block_size, Binding binding) {
  const std::string name = module_name(kernel, binding);
  const auto key = std::make_pair(name, block_size);
  const auto found = pipelines_.find(key);
  if (found != pipelines_.end()) return found->second.get();
  const Clock::time_point start = Clock::now();
  vk::Pipeline owned = create(name, block_size, binding, VK_NULL_HANDLE, capture_statistics_);
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
  const vk::Pipeline pipeline =
      create(module_name(kernel, binding), block_size, binding, raw_cache, false);
  std::size_t bytes = 0;
  CUVK_VK(vk().vkGetPipelineCacheData, device(), raw_cache, &bytes, nullptr);
  std::vector<std::uint8_t> data(bytes);
  CUVK_VK(vk().vkGetPipelineCacheData, device(), raw_cache, &bytes, data.data());
  data.resize(bytes);
  return data;
}

std::string Pipelines::module_name(const std::string& kernel, Binding binding) {
  return binding == Binding::bda ? kernel + std::string(kBdaSuffix) : kernel;
}

vk::Pipeline Pipelines::create(const std::string& name, std::uint32_t block_size, Binding binding,
                               VkPipelineCache cache, bool capture_statistics) {
  const auto& modules = spirv_modules();
  const auto module = std::find_if(modules.begin(), modules.end(),
                                   [&name](const SpirvModule& m) { return name == m.name; });
  if (module == modules.end()) {
    throw Error("unknown Vulkan kernel '" + name + "' (no embedded SPIR-V module of that name)");
  }
  const VolkDeviceTable* table = &context_.table;
  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = module->words * sizeof(std::uint32_t);
  module_info.pCode = module->code;
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
  pipeline_info.stage.pName = "main";
  pipeline_info.stage.pSpecializationInfo = &specialization;
  pipeline_info.layout = layout(binding);
  if (capture_statistics) pipeline_info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkPipeline raw_pipeline = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateComputePipelines, device(), cache, 1, &pipeline_info, nullptr,
          &raw_pipeline);
  return vk::Pipeline(table, device(), raw_pipeline);
}

// Nothing is in flight when a run prepares its sets.
void Pipelines::reset_sets() {
  CUVK_VK(vk().vkResetDescriptorPool, device(), descriptor_pool_.get(), 0);
}

VkDescriptorSet Pipelines::make_set(VkBuffer in, VkBuffer out) {
  const VkDescriptorSetLayout set_layout = set_layout_.get();
  VkDescriptorSetAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  alloc.descriptorPool = descriptor_pool_.get();
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  CUVK_VK(vk().vkAllocateDescriptorSets, device(), &alloc, &set);
  VkDescriptorBufferInfo buffers[kBindingsPerSet]{};
  buffers[CUVK_BINDING_IN] = {in, 0, VK_WHOLE_SIZE};
  buffers[CUVK_BINDING_OUT] = {out, 0, VK_WHOLE_SIZE};
  VkWriteDescriptorSet writes[kBindingsPerSet]{};
  for (std::uint32_t b = 0; b < kBindingsPerSet; ++b) {
    writes[b].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[b].dstSet = set;
    writes[b].dstBinding = b;
    writes[b].descriptorCount = 1;
    writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[b].pBufferInfo = &buffers[b];
  }
  vk().vkUpdateDescriptorSets(device(), kBindingsPerSet, writes, 0, nullptr);
  return set;
}

}  // namespace cuvk::vk
