// Vulkan backend: the same kernels as cuda/, compiled from glsl/ to SPIR-V and embedded.
//
// Choices that matter for fair timing (the project's design notes, "Measuring"):
// - Queue: the first queue family with VK_QUEUE_COMPUTE_BIT (family 0 on NVIDIA and lavapipe).
//   An async-compute-only family is not sought: it would not make these kernels faster, and the
//   first compute family exists on every driver. A family without timestamps is refused.
// - No robustness features are enabled (no robustBufferAccess / robustness2), so the shaders are
//   compiled without bounds checks, like CUDA. The one feature enabled, where offered, is
//   bufferDeviceAddress, for the bda binding mode (Launch::binding): every buffer is then created
//   with SHADER_DEVICE_ADDRESS usage, so both binding modes read and write the same kind of memory.
//   VK_KHR_pipeline_executable_properties is enabled only for `cuvk inspect`.
// - Test buffers are device-local only. Uploads and downloads go through one bounded staging
//   buffer, chunk by chunk.
// - Times come from vkCmdWriteTimestamp pairs at VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT around each
//   dispatch (each latches when all earlier commands have completed, like a CUDA event); a
//   barrier after every dispatch serialises repetitions like a CUDA stream. The optional
//   before_each launch (L2 flush) and its barrier are outside the interval.
// - kCopyEngine launches are one vkCmdCopyBuffer, timed the same way.
// - Every command buffer starts with a global barrier from all earlier transfer/compute work: a
//   fence wait orders only the host, so without it submissions would not be ordered on the device.
#include "vulkan_backend.h"

#include <volk.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "error.h"
#include "spirv_modules.h"
#include "vk_check.h"
#include "vk_instance.h"
#include "vk_physical_device.h"
#include "vk_raii.h"
#include "vk_util.h"

namespace {
constexpr VkPipelineStageFlagBits kTimestampStage = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
}  // namespace

namespace cuvk {
namespace {

// Instance and physical-device facts: vk_instance.h, vk_physical_device.h; helpers: vk_util.h.
using namespace vk;  // NOLINT(google-build-using-namespace): private to this file

constexpr std::string_view kBdaSuffix = "_bda";  // SPIR-V module of a kernel's bda binding mode

// One staging buffer serves every upload and download, chunk by chunk.
constexpr VkDeviceSize kStagingBytes = VkDeviceSize{64} << 20U;
// Repetitions recorded into one command buffer (two timestamp queries each).
constexpr int kMaxRepsPerBatch = 1024;
constexpr std::uint32_t kQueriesPerRep = 2;
// Generous but finite: a GPU that has not finished a submission by then is reported, not waited on.
constexpr std::uint64_t kFenceTimeoutNs = 120ULL * 1000 * 1000 * 1000;
constexpr double kNsPerMs = 1e6;
constexpr std::uint32_t kPushConstantBytes = sizeof(CuvkParams);
constexpr std::uint32_t kBindingsPerSet = 2;  // CUVK_BINDING_IN, CUVK_BINDING_OUT
constexpr std::uint32_t kSetsPerRun = 2;      // the launch and its before_each launch

static_assert(CUVK_BINDING_IN == 0 && CUVK_BINDING_OUT == 1, "descriptor layout below");
static_assert(kPushConstantBytes == 16, "push-constant block");
constexpr std::uint32_t kBdaPushConstantBytes = sizeof(CuvkBdaPush);  // params + 2 addresses
static_assert(kBdaPushConstantBytes == 32, "bda push-constant block");

// Access masks of the stages cuvk records work in (compute shaders and transfers).
VkAccessFlags write_access(VkPipelineStageFlags stages) {
  VkAccessFlags access = 0;
  if ((stages & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) != 0) access |= VK_ACCESS_SHADER_WRITE_BIT;
  if ((stages & VK_PIPELINE_STAGE_TRANSFER_BIT) != 0) access |= VK_ACCESS_TRANSFER_WRITE_BIT;
  return access;
}
VkAccessFlags read_write_access(VkPipelineStageFlags stages) {
  VkAccessFlags access = write_access(stages);
  if ((stages & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) != 0) access |= VK_ACCESS_SHADER_READ_BIT;
  if ((stages & VK_PIPELINE_STAGE_TRANSFER_BIT) != 0) access |= VK_ACCESS_TRANSFER_READ_BIT;
  return access;
}
constexpr VkPipelineStageFlags kWorkStages =
    VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;

// A memory type allowed by type_bits with every `required` flag; among those, the first with the
// most `preferred` and fewest `avoided` flags; ~0U when there is none.
std::uint32_t find_memory_type(const VkPhysicalDeviceMemoryProperties& memory,
                               std::uint32_t type_bits, VkMemoryPropertyFlags required,
                               VkMemoryPropertyFlags preferred, VkMemoryPropertyFlags avoided) {
  std::uint32_t best = ~0U;
  int best_score = -1;
  for (std::uint32_t t = 0; t < memory.memoryTypeCount; ++t) {
    const VkMemoryPropertyFlags flags = memory.memoryTypes[t].propertyFlags;
    if ((type_bits & (1U << t)) == 0 || (flags & required) != required) continue;
    const int score = ((flags & preferred) == preferred ? 2 : 0) + ((flags & avoided) == 0 ? 1 : 0);
    if (score > best_score) {
      best = t;
      best_score = score;
    }
  }
  return best;
}

// The device and what outlives the backend object: buffers keep it alive through a shared_ptr, so
// freeing a buffer after the backend is still valid.
struct DeviceContext {
  explicit DeviceContext(const BackendOptions& options) : instance(options) {}
  VulkanInstance instance;  // first: destroyed last
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VolkDeviceTable table{};
  vk::Device device;  // destroyed before the instance, after every child (they hold the context)
  VkQueue queue = VK_NULL_HANDLE;
};

class VulkanBuffer final : public DeviceBuffer {
 public:
  VulkanBuffer(std::shared_ptr<DeviceContext> context, std::size_t bytes, vk::Buffer buffer,
               vk::Memory memory, VkDeviceAddress address)
      : DeviceBuffer(bytes),
        context_(std::move(context)),
        memory_(std::move(memory)),
        buffer_(std::move(buffer)),
        address_(address) {}
  VkBuffer handle() const { return buffer_.get(); }
  VkDeviceAddress address() const { return address_; }  // 0 without bufferDeviceAddress
  const DeviceContext* context() const { return context_.get(); }

 private:
  std::shared_ptr<DeviceContext> context_;  // first: outlives the handles below
  vk::Memory memory_;                       // freed after the buffer bound to it
  vk::Buffer buffer_;
  VkDeviceAddress address_ = 0;
};

struct BoundBuffer {
  vk::Memory memory;  // declared first: the buffer is destroyed before its memory is freed
  vk::Buffer buffer;
};

class VulkanBackend final : public Backend {
 public:
  VulkanBackend(int index, const BackendOptions& options);
  ~VulkanBackend() override;
  VulkanBackend(const VulkanBackend&) = delete;
  VulkanBackend& operator=(const VulkanBackend&) = delete;

  const DeviceInfo& info() const override { return info_; }
  std::unique_ptr<DeviceBuffer> allocate(std::size_t bytes) override;
  void upload(DeviceBuffer& dst, const void* src, std::size_t bytes) override;
  void download(const DeviceBuffer& src, void* dst, std::size_t bytes) override;
  void fill(DeviceBuffer& dst, std::uint32_t word) override;
  std::vector<std::string> kernels() const override;
  std::string binding_unsupported(Binding binding) const override;
  std::vector<double> run(const Launch& launch, const RunOptions& opt) override;
  HostCostSamples host_cost(const Launch& launch, int samples) override;
  std::vector<std::pair<std::string, double>> startup_ms() const override { return startup_; }

  // Budget minus usage of the device-local heaps (VK_EXT_memory_budget), else their size.
  std::uint64_t free_memory_bytes() const override {
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{};
    budget.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT;
    VkPhysicalDeviceMemoryProperties2 props{};
    props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2;
    if (facts_.memory_budget) props.pNext = &budget;
    vkGetPhysicalDeviceMemoryProperties2(context_->physical, &props);
    std::uint64_t free_bytes = 0;
    for (std::uint32_t h = 0; h < props.memoryProperties.memoryHeapCount; ++h) {
      const VkMemoryHeap& heap = props.memoryProperties.memoryHeaps[h];
      if ((heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) == 0) continue;
      if (!facts_.memory_budget) {
        free_bytes += heap.size;
      } else if (budget.heapBudget[h] > budget.heapUsage[h]) {
        free_bytes += budget.heapBudget[h] - budget.heapUsage[h];
      }
    }
    return free_bytes;
  }

  // `cuvk inspect`: the driver's statistics of the kernel's pipeline (see backend.h).
  std::vector<PipelineExecutableReport> executable_reports(const std::string& kernel,
                                                           Binding binding,
                                                           std::uint32_t block_size) override;

 private:
  struct Resolved {       // a validated launch
    bool engine = false;  // kCopyEngine: vkCmdCopyBuffer of copy_bytes, no pipeline
    VkPipelineStageFlagBits stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;  // where its work runs
    VkPipeline pipeline = VK_NULL_HANDLE;
    Binding binding = Binding::descriptor;  // bda: addresses in push constants, no descriptor set
    VkBuffer in = VK_NULL_HANDLE;
    VkBuffer out = VK_NULL_HANDLE;
    VkDeviceAddress in_address = 0;  // bda only
    VkDeviceAddress out_address = 0;
    VkDeviceSize copy_bytes = 0;
    Geometry geometry;
    CuvkParams params{};
    VkDescriptorSet set = VK_NULL_HANDLE;
  };

  const VolkDeviceTable& vk() const { return context_->table; }
  VkDevice device() const { return context_->device.get(); }
  BoundBuffer make_buffer(VkDeviceSize size, VkBufferUsageFlags usage,
                          VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                          VkMemoryPropertyFlags avoided, bool dedicated);
  const VulkanBuffer& own(const DeviceBuffer& buffer, const char* what) const;
  void ensure_usable() const;
  void ensure_staging();
  VkPipeline pipeline(const std::string& kernel, std::uint32_t block_size, Binding binding);
  Resolved resolve(const Launch& launch, const char* what);
  void prepare_descriptor_sets(std::vector<Resolved>& launches);
  VkCommandBuffer begin();
  void begin(VkCommandBuffer cb, VkCommandBufferUsageFlags flags);
  void submit(VkCommandBuffer cb);
  void wait();
  void submit_and_wait();
  void barrier(VkCommandBuffer cb, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
               VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);
  void record(VkCommandBuffer cb, const Resolved& r);
  void serialise(VkCommandBuffer cb, VkPipelineStageFlags stages);

  std::shared_ptr<DeviceContext> context_;  // first: outlives every handle below
  DeviceInfo info_;
  PhysicalFacts facts_;
  vk::CommandPool command_pool_;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;  // freed with its pool
  vk::Fence fence_;
  vk::QueryPool query_pool_;
  vk::DescriptorSetLayout set_layout_;
  vk::PipelineLayout pipeline_layout_;
  vk::PipelineLayout bda_layout_;  // bda modules: no set, CuvkBdaPush push constants
  vk::DescriptorPool descriptor_pool_;
  // Keyed by SPIR-V module name (`<kernel>` or `<kernel>_bda`) and block size.
  std::map<std::pair<std::string, std::uint32_t>, vk::Pipeline> pipelines_;
  bool bda_ = false;                 // bufferDeviceAddress enabled: bda launches can run
  std::string bda_unsupported_;      // why not, when !bda_
  bool capture_statistics_ = false;  // VK_KHR_pipeline_executable_properties enabled (inspect)
  BoundBuffer staging_;
  void* staging_map_ = nullptr;  // persistently mapped; unmapped when its memory is freed
  bool hung_ = false;  // a submission missed its deadline: the device cannot be used safely
  std::vector<std::pair<std::string, double>> startup_;  // one-time costs, in order
};

VulkanBackend::VulkanBackend(int index, const BackendOptions& options) {
  const Clock::time_point instance_start = Clock::now();
  context_ = std::make_shared<DeviceContext>(options);
  startup_.emplace_back("instance", ms_since(instance_start));
  const std::vector<VkPhysicalDevice> physicals = context_->instance.physical_devices();
  if (index < 0 || static_cast<std::size_t>(index) >= physicals.size()) {
    throw Error("Vulkan device index " + std::to_string(index) + " out of range (" +
                std::to_string(physicals.size()) + " device(s))");
  }
  context_->physical = physicals[static_cast<std::size_t>(index)];
  facts_ = describe(context_->physical, index);
  info_ = facts_.info;
  if (facts_.api_version < kVulkan11) {
    throw Error("Vulkan device " + std::to_string(index) + " (" + info_.name +
                ") supports only Vulkan " + format_version(facts_.api_version) +
                "; cuvk needs 1.1");
  }
  if (facts_.compute_family == kNoFamily) {
    throw Error("Vulkan device " + std::to_string(index) + " (" + info_.name +
                ") has no compute queue");
  }
  if (facts_.timestamp_valid_bits == 0) {
    throw Error("queue family " + std::to_string(facts_.compute_family) +
                " has no timestamps (timestampValidBits = 0)");
  }

  const float priority = 1.0F;
  VkDeviceQueueCreateInfo queue_info{};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = facts_.compute_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  std::vector<const char*> extensions;
  if (facts_.portability_subset) extensions.push_back(kPortabilitySubset);  // required if offered
  // bufferDeviceAddress, where offered, for the bda binding mode. Core 1.2 features need a 1.2
  // instance too; a 1.1 device gets it through VK_KHR_buffer_device_address.
  const void* features_chain = nullptr;
  VkPhysicalDeviceBufferDeviceAddressFeatures bda_features{};
  bda_features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES;
  const bool core12 = std::min(facts_.api_version, context_->instance.api_version()) >= kVulkan12;
  if (facts_.buffer_device_address && (core12 || facts_.bda_extension)) {
    bda_features.bufferDeviceAddress = VK_TRUE;
    features_chain = &bda_features;
    if (!core12) extensions.push_back(VK_KHR_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME);
    bda_ = true;
  } else {
    bda_unsupported_ = "Vulkan device " + info_.name + " has no bufferDeviceAddress feature";
  }
  // Pipeline statistics only when asked (`cuvk inspect`), never for timed runs.
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exec_features{};
  exec_features.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  if (options.pipeline_statistics && facts_.pipeline_executable_info) {
    exec_features.pipelineExecutableInfo = VK_TRUE;
    exec_features.pNext = const_cast<void*>(features_chain);
    features_chain = &exec_features;
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    capture_statistics_ = true;
  }
  VkDeviceCreateInfo device_info{};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.pNext = features_chain;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  device_info.ppEnabledExtensionNames = extensions.data();
  device_info.pEnabledFeatures = nullptr;  // no robustBufferAccess: no bounds checks, as in CUDA
  const Clock::time_point device_start = Clock::now();
  VkDevice raw_device = VK_NULL_HANDLE;
  CUVK_VK(vkCreateDevice, context_->physical, &device_info, nullptr, &raw_device);
  volkLoadDeviceTable(&context_->table, raw_device);
  context_->device = vk::Device(raw_device, context_->table.vkDestroyDevice);
  vk().vkGetDeviceQueue(device(), facts_.compute_family, 0, &context_->queue);

  const VolkDeviceTable* table = &context_->table;
  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pool_info.queueFamilyIndex = facts_.compute_family;
  VkCommandPool raw_pool = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateCommandPool, device(), &pool_info, nullptr, &raw_pool);
  command_pool_ = vk::CommandPool(table, device(), raw_pool);

  VkCommandBufferAllocateInfo cb_info{};
  cb_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cb_info.commandPool = raw_pool;
  cb_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cb_info.commandBufferCount = 1;
  CUVK_VK(vk().vkAllocateCommandBuffers, device(), &cb_info, &command_buffer_);

  VkFenceCreateInfo fence_info{};
  fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  VkFence raw_fence = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateFence, device(), &fence_info, nullptr, &raw_fence);
  fence_ = vk::Fence(table, device(), raw_fence);

  VkQueryPoolCreateInfo query_info{};
  query_info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
  query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  query_info.queryCount = kQueriesPerRep * static_cast<std::uint32_t>(kMaxRepsPerBatch);
  VkQueryPool raw_query = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateQueryPool, device(), &query_info, nullptr, &raw_query);
  query_pool_ = vk::QueryPool(table, device(), raw_query);

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
  startup_.emplace_back("device", ms_since(device_start));  // and its pools, fence and layouts
}

VulkanBackend::~VulkanBackend() {
  // Nothing is in flight after a completed call; after an exception or a timeout something may be.
  if (device() != VK_NULL_HANDLE) vk().vkDeviceWaitIdle(device());
}

BoundBuffer VulkanBackend::make_buffer(VkDeviceSize size, VkBufferUsageFlags usage,
                                       VkMemoryPropertyFlags required,
                                       VkMemoryPropertyFlags preferred,
                                       VkMemoryPropertyFlags avoided, bool dedicated) {
  const VolkDeviceTable* table = &context_->table;
  VkBufferCreateInfo buffer_info{};
  buffer_info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  buffer_info.size = size;
  buffer_info.usage = usage;
  buffer_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer raw_buffer = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateBuffer, device(), &buffer_info, nullptr, &raw_buffer);
  BoundBuffer bound;
  bound.buffer = vk::Buffer(table, device(), raw_buffer);

  VkMemoryRequirements requirements{};
  vk().vkGetBufferMemoryRequirements(device(), raw_buffer, &requirements);
  const std::uint32_t type =
      find_memory_type(facts_.memory, requirements.memoryTypeBits, required, preferred, avoided);
  if (type == ~0U) {
    throw Error("Vulkan device " + info_.name + " has no suitable memory type for a buffer of " +
                std::to_string(size) + " bytes");
  }
  VkMemoryDedicatedAllocateInfo dedicated_info{};
  dedicated_info.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
  dedicated_info.buffer = raw_buffer;
  VkMemoryAllocateInfo alloc_info{};
  alloc_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc_info.pNext = dedicated ? &dedicated_info : nullptr;
  alloc_info.allocationSize = requirements.size;
  alloc_info.memoryTypeIndex = type;
  VkMemoryAllocateFlagsInfo flags_info{};  // a buffer with a device address needs it on its memory
  flags_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
  flags_info.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  if ((usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0) {
    flags_info.pNext = alloc_info.pNext;
    alloc_info.pNext = &flags_info;
  }
  VkDeviceMemory raw_memory = VK_NULL_HANDLE;
  CUVK_VK(vk().vkAllocateMemory, device(), &alloc_info, nullptr, &raw_memory);
  bound.memory = vk::Memory(table, device(), raw_memory);
  CUVK_VK(vk().vkBindBufferMemory, device(), raw_buffer, raw_memory, 0);
  return bound;
}

std::unique_ptr<DeviceBuffer> VulkanBackend::allocate(std::size_t bytes) {
  ensure_usable();
  if (bytes > info_.max_buffer_bytes) {
    throw Error("buffer of " + std::to_string(bytes) +
                " bytes exceeds the largest Vulkan storage buffer of " + info_.name + " (" +
                std::to_string(info_.max_buffer_bytes) + " bytes)");
  }
  // Whole words (vkCmdFillBuffer, VK_WHOLE_SIZE descriptors), never zero (Vulkan forbids it).
  const VkDeviceSize size =
      std::max<VkDeviceSize>((static_cast<VkDeviceSize>(bytes) + 3) & ~VkDeviceSize{3}, 4);
  VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                             VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (bda_) usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;  // same buffers for both modes
  BoundBuffer bound =
      make_buffer(size, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0,
                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,  // plain VRAM rather than the BAR window
                  /*dedicated=*/true);
  VkDeviceAddress address = 0;
  if (bda_) {
    VkBufferDeviceAddressInfo address_info{};
    address_info.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
    address_info.buffer = bound.buffer.get();
    const PFN_vkGetBufferDeviceAddress get_address = vk().vkGetBufferDeviceAddress != nullptr
                                                         ? vk().vkGetBufferDeviceAddress
                                                         : vk().vkGetBufferDeviceAddressKHR;
    address = get_address(device(), &address_info);
  }
  return std::make_unique<VulkanBuffer>(context_, bytes, std::move(bound.buffer),
                                        std::move(bound.memory), address);
}

const VulkanBuffer& VulkanBackend::own(const DeviceBuffer& buffer, const char* what) const {
  const auto* vb = dynamic_cast<const VulkanBuffer*>(&buffer);
  if (vb == nullptr || vb->context() != context_.get()) {
    throw Error(std::string("Vulkan backend: ") + what + " is not a buffer of this backend");
  }
  return *vb;
}

void VulkanBackend::ensure_usable() const {
  if (hung_) {
    throw Error("Vulkan device " + info_.name +
                " is unusable: an earlier submission did not finish in time");
  }
}

void VulkanBackend::ensure_staging() {
  if (staging_.buffer) return;
  BoundBuffer bound = make_buffer(
      kStagingBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
      VK_MEMORY_PROPERTY_HOST_CACHED_BIT,  // fast host reads for download()
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, /*dedicated=*/false);
  void* mapped = nullptr;
  CUVK_VK(vk().vkMapMemory, device(), bound.memory.get(), 0, VK_WHOLE_SIZE, 0, &mapped);
  staging_ = std::move(bound);
  staging_map_ = mapped;
}

VkCommandBuffer VulkanBackend::begin() {
  ensure_usable();
  CUVK_VK(vk().vkResetCommandPool, device(), command_pool_.get(), 0);
  begin(command_buffer_, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
  return command_buffer_;
}

void VulkanBackend::begin(VkCommandBuffer cb, VkCommandBufferUsageFlags flags) {
  VkCommandBufferBeginInfo begin_info{};
  begin_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin_info.flags = flags;
  CUVK_VK(vk().vkBeginCommandBuffer, cb, &begin_info);
  // Order this submission after every earlier one on the device: their transfer and shader writes
  // become visible here (RAW, WAW) and their reads finish before anything here writes (WAR).
  barrier(cb, kWorkStages, write_access(kWorkStages), kWorkStages, read_write_access(kWorkStages));
}

// The fence is unsignalled here: created so, and reset by every successful wait().
void VulkanBackend::submit(VkCommandBuffer cb) {
  VkSubmitInfo submit_info{};
  submit_info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit_info.commandBufferCount = 1;
  submit_info.pCommandBuffers = &cb;
  CUVK_VK(vk().vkQueueSubmit, context_->queue, 1, &submit_info, fence_.get());
}

void VulkanBackend::wait() {
  VkFence fence = fence_.get();
  const VkResult result = vk().vkWaitForFences(device(), 1, &fence, VK_TRUE, kFenceTimeoutNs);
  if (result == VK_TIMEOUT) {
    hung_ = true;
    throw Error("GPU did not finish within " + std::to_string(kFenceTimeoutNs / 1000000000ULL) +
                " s (vkWaitForFences timed out on " + info_.name + ")");
  }
  vk::check(result, "vkWaitForFences", __FILE__, __LINE__);
  CUVK_VK(vk().vkResetFences, device(), 1, &fence);
}

void VulkanBackend::submit_and_wait() {
  CUVK_VK(vk().vkEndCommandBuffer, command_buffer_);
  submit(command_buffer_);
  wait();
}

void VulkanBackend::barrier(VkCommandBuffer cb, VkPipelineStageFlags src_stage,
                            VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                            VkAccessFlags dst_access) {
  VkMemoryBarrier memory_barrier{};
  memory_barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  memory_barrier.srcAccessMask = src_access;
  memory_barrier.dstAccessMask = dst_access;
  vk().vkCmdPipelineBarrier(cb, src_stage, dst_stage, 0, 1, &memory_barrier, 0, nullptr, 0,
                            nullptr);
}

void VulkanBackend::upload(DeviceBuffer& dst, const void* src, std::size_t bytes) {
  const VulkanBuffer& buffer = own(dst, "upload destination");
  if (bytes > dst.bytes()) {
    throw Error("upload of " + std::to_string(bytes) + " bytes into a buffer of " +
                std::to_string(dst.bytes()) + " bytes");
  }
  if (bytes == 0) return;
  if (src == nullptr) throw Error("upload from a null host pointer");
  ensure_usable();
  ensure_staging();
  const auto* from = static_cast<const unsigned char*>(src);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t chunk = std::min<std::size_t>(bytes - done, kStagingBytes);
    std::memcpy(staging_map_, from + done, chunk);  // coherent: visible to the submit below
    VkCommandBuffer cb = begin();
    VkBufferCopy region{};
    region.srcOffset = 0;
    region.dstOffset = done;
    region.size = chunk;
    vk().vkCmdCopyBuffer(cb, staging_.buffer.get(), buffer.handle(), 1, &region);
    submit_and_wait();
    done += chunk;
  }
}

void VulkanBackend::download(const DeviceBuffer& src, void* dst, std::size_t bytes) {
  const VulkanBuffer& buffer = own(src, "download source");
  if (bytes > src.bytes()) {
    throw Error("download of " + std::to_string(bytes) + " bytes from a buffer of " +
                std::to_string(src.bytes()) + " bytes");
  }
  if (bytes == 0) return;
  if (dst == nullptr) throw Error("download into a null host pointer");
  ensure_usable();
  ensure_staging();
  auto* to = static_cast<unsigned char*>(dst);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t chunk = std::min<std::size_t>(bytes - done, kStagingBytes);
    VkCommandBuffer cb = begin();
    VkBufferCopy region{};
    region.srcOffset = done;
    region.dstOffset = 0;
    region.size = chunk;
    vk().vkCmdCopyBuffer(cb, buffer.handle(), staging_.buffer.get(), 1, &region);
    barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    submit_and_wait();
    std::memcpy(to + done, staging_map_, chunk);
    done += chunk;
  }
}

void VulkanBackend::fill(DeviceBuffer& dst, std::uint32_t word) {
  const VulkanBuffer& buffer = own(dst, "fill destination");
  VkCommandBuffer cb = begin();
  vk().vkCmdFillBuffer(cb, buffer.handle(), 0, VK_WHOLE_SIZE, word);
  submit_and_wait();
}

// The catalogue's kernel names: the `<kernel>_bda` modules are the bda forms of these, chosen by
// Launch::binding rather than by name.
std::vector<std::string> VulkanBackend::kernels() const {
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

std::string VulkanBackend::binding_unsupported(Binding binding) const {
  switch (binding) {
    case Binding::descriptor:
      return {};
    case Binding::bda:
      return bda_ ? std::string() : bda_unsupported_;
    case Binding::pointer:
      break;
  }
  return "Vulkan shaders take a descriptor set or buffer device addresses, not pointers";
}

VkPipeline VulkanBackend::pipeline(const std::string& kernel, std::uint32_t block_size,
                                   Binding binding) {
  const std::string name = binding == Binding::bda ? kernel + std::string(kBdaSuffix) : kernel;
  const auto key = std::make_pair(name, block_size);
  const auto found = pipelines_.find(key);
  if (found != pipelines_.end()) return found->second.get();

  const auto& modules = spirv_modules();
  const auto module = std::find_if(modules.begin(), modules.end(),
                                   [&name](const SpirvModule& m) { return name == m.name; });
  if (module == modules.end()) {
    throw Error("unknown Vulkan kernel '" + name + "' (no embedded SPIR-V module of that name)");
  }
  const VolkDeviceTable* table = &context_->table;
  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = module->words * sizeof(std::uint32_t);
  module_info.pCode = module->code;
  VkShaderModule raw_module = VK_NULL_HANDLE;
  const Clock::time_point start = Clock::now();
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
  pipeline_info.layout = binding == Binding::bda ? bda_layout_.get() : pipeline_layout_.get();
  if (capture_statistics_) pipeline_info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkPipeline raw_pipeline = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateComputePipelines, device(), VK_NULL_HANDLE, 1, &pipeline_info, nullptr,
          &raw_pipeline);
  vk::Pipeline owned(table, device(), raw_pipeline);
  startup_.emplace_back("pipeline " + name + " (block " + std::to_string(block_size) + ")",
                        ms_since(start));
  return pipelines_.emplace(key, std::move(owned)).first->second.get();
}

VulkanBackend::Resolved VulkanBackend::resolve(const Launch& launch, const char* what) {
  const Geometry& g = launch.geometry;
  const std::string where = std::string(what) + " '" + launch.kernel + "': ";
  if (launch.in == nullptr || launch.out == nullptr) {
    throw Error(where + "input and output buffers are required");
  }
  Resolved r;
  r.in = own(*launch.in, "launch input").handle();
  r.out = own(*launch.out, "launch output").handle();
  r.params = launch.params;
  r.geometry = g;
  if (launch.kernel == kCopyEngine) {  // geometry and params do not apply
    if (r.in == r.out) throw Error(where + "input and output must be different buffers");
    if (launch.out->bytes() == 0 || launch.in->bytes() < launch.out->bytes()) {
      throw Error(where + "copies the output's " + std::to_string(launch.out->bytes()) +
                  " bytes, so the input needs at least as many (it has " +
                  std::to_string(launch.in->bytes()) + ")");
    }
    r.engine = true;
    r.stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    r.copy_bytes = launch.out->bytes();
    return r;
  }
  if (g.block_size == 0 || g.block_size > info_.max_block_size) {
    throw Error(where + "block size " + std::to_string(g.block_size) + " outside 1.." +
                std::to_string(info_.max_block_size) + " on " + info_.name);
  }
  if (g.grid_x == 0 || g.grid_x > info_.max_grid_x) {
    throw Error(where + "grid_x " + std::to_string(g.grid_x) + " outside 1.." +
                std::to_string(info_.max_grid_x) + " on " + info_.name);
  }
  if (g.grid_y == 0 || g.grid_y > info_.max_grid_y) {
    throw Error(where + "grid_y " + std::to_string(g.grid_y) + " outside 1.." +
                std::to_string(info_.max_grid_y) + " on " + info_.name);
  }
  if (const std::string why = binding_unsupported(launch.binding); !why.empty()) {
    throw Error(where + why);
  }
  r.binding = launch.binding;
  if (r.binding == Binding::bda) {
    r.in_address = own(*launch.in, "launch input").address();
    r.out_address = own(*launch.out, "launch output").address();
  }
  r.pipeline = pipeline(launch.kernel, g.block_size, launch.binding);
  return r;
}

void VulkanBackend::record(VkCommandBuffer cb, const Resolved& r) {
  if (r.engine) {
    VkBufferCopy region{};
    region.size = r.copy_bytes;
    vk().vkCmdCopyBuffer(cb, r.in, r.out, 1, &region);
    return;
  }
  vk().vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, r.pipeline);
  if (r.binding == Binding::bda) {  // no descriptor set: the addresses travel with the params
    const CuvkBdaPush push{r.params, r.in_address, r.out_address};
    vk().vkCmdPushConstants(cb, bda_layout_.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                            kBdaPushConstantBytes, &push);
    vk().vkCmdDispatch(cb, r.geometry.grid_x, r.geometry.grid_y, 1);
    return;
  }
  vk().vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_.get(), 0, 1,
                               &r.set, 0, nullptr);
  vk().vkCmdPushConstants(cb, pipeline_layout_.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                          kPushConstantBytes, &r.params);
  vk().vkCmdDispatch(cb, r.geometry.grid_x, r.geometry.grid_y, 1);
}

// Serialises work like a CUDA stream: what follows sees the earlier writes and never overtakes.
// `stages` are those the run's work uses, so kernel-only runs get a compute->compute barrier.
void VulkanBackend::serialise(VkCommandBuffer cb, VkPipelineStageFlags stages) {
  barrier(cb, stages, write_access(stages), stages, read_write_access(stages));
}

// One descriptor set per kernel launch, from a pool reset each time (nothing is in flight now).
void VulkanBackend::prepare_descriptor_sets(std::vector<Resolved>& launches) {
  CUVK_VK(vk().vkResetDescriptorPool, device(), descriptor_pool_.get(), 0);
  for (Resolved& r : launches) {
    if (r.engine || r.binding == Binding::bda) continue;
    const VkDescriptorSetLayout layout = set_layout_.get();
    VkDescriptorSetAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    alloc.descriptorPool = descriptor_pool_.get();
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &layout;
    CUVK_VK(vk().vkAllocateDescriptorSets, device(), &alloc, &r.set);
    VkDescriptorBufferInfo buffers[kBindingsPerSet]{};
    buffers[CUVK_BINDING_IN] = {r.in, 0, VK_WHOLE_SIZE};
    buffers[CUVK_BINDING_OUT] = {r.out, 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet writes[kBindingsPerSet]{};
    for (std::uint32_t b = 0; b < kBindingsPerSet; ++b) {
      writes[b].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      writes[b].dstSet = r.set;
      writes[b].dstBinding = b;
      writes[b].descriptorCount = 1;
      writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[b].pBufferInfo = &buffers[b];
    }
    vk().vkUpdateDescriptorSets(device(), kBindingsPerSet, writes, 0, nullptr);
  }
}

std::vector<double> VulkanBackend::run(const Launch& launch, const RunOptions& opt) {
  ensure_usable();
  if (opt.reps < 1) {
    throw Error("Vulkan run: reps must be at least 1, got " + std::to_string(opt.reps));
  }
  std::vector<Resolved> resolved;
  resolved.push_back(resolve(launch, "launch"));
  if (opt.before_each != nullptr) {
    resolved.push_back(resolve(*opt.before_each, "before_each launch"));
  }

  prepare_descriptor_sets(resolved);
  const Resolved& timed = resolved[0];
  const Resolved* flush = opt.before_each != nullptr ? &resolved[1] : nullptr;
  VkPipelineStageFlags stages = timed.stage;  // what the serialising barriers must cover
  if (flush != nullptr) stages |= flush->stage;

  const std::uint32_t bits = facts_.timestamp_valid_bits;
  const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  std::vector<double> times_ms;
  times_ms.reserve(static_cast<std::size_t>(opt.reps));
  std::vector<std::uint64_t> stamps;
  for (int first = 0; first < opt.reps; first += kMaxRepsPerBatch) {
    const int count = std::min(kMaxRepsPerBatch, opt.reps - first);
    const std::uint32_t queries = kQueriesPerRep * static_cast<std::uint32_t>(count);
    VkCommandBuffer cb = begin();
    vk().vkCmdResetQueryPool(cb, query_pool_.get(), 0, queries);
    for (std::uint32_t rep = 0; rep < static_cast<std::uint32_t>(count); ++rep) {
      if (flush != nullptr) {  // outside the interval, with its barrier
        record(cb, *flush);
        serialise(cb, stages);
      }
      // BOTTOM_OF_PIPE latches once every earlier command has completed entirely, whatever its
      // stages (a dispatch has no TRANSFER stage to wait for): the semantics of a CUDA event.
      vk().vkCmdWriteTimestamp(cb, kTimestampStage, query_pool_.get(), kQueriesPerRep * rep);
      record(cb, timed);
      vk().vkCmdWriteTimestamp(cb, kTimestampStage, query_pool_.get(), kQueriesPerRep * rep + 1);
      serialise(cb, stages);
    }
    submit_and_wait();

    stamps.assign(queries, 0);
    CUVK_VK(vk().vkGetQueryPoolResults, device(), query_pool_.get(), 0, queries,
            stamps.size() * sizeof(std::uint64_t), stamps.data(), sizeof(std::uint64_t),
            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    for (std::uint32_t rep = 0; rep < static_cast<std::uint32_t>(count); ++rep) {
      const std::uint64_t start = stamps[kQueriesPerRep * rep] & mask;
      const std::uint64_t end = stamps[kQueriesPerRep * rep + 1] & mask;
      const std::uint64_t ticks = (end - start) & mask;  // modulo the counter width: wrap-safe
      times_ms.push_back(static_cast<double>(ticks) * facts_.timestamp_period_ns / kNsPerMs);
    }
  }
  return times_ms;
}

// The Vulkan counterparts of CUDA's launch costs, all on the host's steady clock:
// launch_us     = vkResetCommandPool + record (begin, barrier, bind, push, dispatch, end) +
//                 vkQueueSubmit of that fresh command buffer;
// submit_us     = vkQueueSubmit of a command buffer recorded once beforehand;
// round_trip_us = launch_us's work plus vkWaitForFences until the GPU has finished.
// The pipeline and descriptor set are made once, before any sample.
HostCostSamples VulkanBackend::host_cost(const Launch& launch, int samples) {
  ensure_usable();
  if (samples < 1) {
    throw Error("Vulkan host_cost: samples must be at least 1, got " + std::to_string(samples));
  }
  std::vector<Resolved> resolved;
  resolved.push_back(resolve(launch, "host-cost launch"));
  prepare_descriptor_sets(resolved);
  const Resolved& r = resolved[0];
  const auto issue = [this, &r]() {
    VkCommandBuffer cb = begin();
    record(cb, r);
    CUVK_VK(vk().vkEndCommandBuffer, cb);
    submit(cb);
  };

  HostCostSamples cost;
  cost.launch_us.reserve(static_cast<std::size_t>(samples));
  cost.round_trip_us.reserve(static_cast<std::size_t>(samples));
  cost.submit_us.reserve(static_cast<std::size_t>(samples));
  for (int i = 0; i < samples; ++i) {
    Clock::time_point start = Clock::now();
    issue();
    cost.launch_us.push_back(us_since(start));
    wait();
    start = Clock::now();
    issue();
    wait();
    cost.round_trip_us.push_back(us_since(start));
  }

  // A second pool holds the command buffer recorded once and resubmitted (begin() resets the
  // first pool). Each submission is waited for before the next, so no simultaneous use.
  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.queueFamilyIndex = facts_.compute_family;
  VkCommandPool raw_pool = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateCommandPool, device(), &pool_info, nullptr, &raw_pool);
  const vk::CommandPool pool(&context_->table, device(), raw_pool);
  VkCommandBufferAllocateInfo cb_info{};
  cb_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cb_info.commandPool = raw_pool;
  cb_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cb_info.commandBufferCount = 1;
  VkCommandBuffer recorded = VK_NULL_HANDLE;
  CUVK_VK(vk().vkAllocateCommandBuffers, device(), &cb_info, &recorded);
  begin(recorded, 0);
  record(recorded, r);
  CUVK_VK(vk().vkEndCommandBuffer, recorded);
  for (int i = 0; i < samples; ++i) {
    const Clock::time_point start = Clock::now();
    submit(recorded);
    cost.submit_us.push_back(us_since(start));
    wait();
  }
  return cost;
}

std::string statistic_value(const VkPipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      return s.value.b32 == VK_TRUE ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      return std::to_string(s.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      return std::to_string(s.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      return format_double(s.value.f64);
    default:
      return "?";
  }
}

std::vector<PipelineExecutableReport> VulkanBackend::executable_reports(const std::string& kernel,
                                                                        Binding binding,
                                                                        std::uint32_t block_size) {
  ensure_usable();
  if (!capture_statistics_) {
    throw Error(facts_.pipeline_executable_info
                    ? "this Vulkan backend was made without pipeline_statistics"
                    : info_.driver + " does not offer VK_KHR_pipeline_executable_properties");
  }
  if (const std::string why = binding_unsupported(binding); !why.empty()) throw Error(why);
  VkPipelineInfoKHR pipeline_info{};
  pipeline_info.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR;
  pipeline_info.pipeline = pipeline(kernel, block_size, binding);
  VkDevice dev = device();
  const auto executables = enumerate<VkPipelineExecutablePropertiesKHR>(
      "vkGetPipelineExecutablePropertiesKHR", __FILE__, __LINE__,
      [this, dev, &pipeline_info](std::uint32_t* n, VkPipelineExecutablePropertiesKHR* p) {
        for (std::uint32_t i = 0; p != nullptr && i < *n; ++i) {
          p[i] = {};
          p[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
        }
        return vk().vkGetPipelineExecutablePropertiesKHR(dev, &pipeline_info, n, p);
      });
  std::vector<PipelineExecutableReport> reports;
  for (std::uint32_t e = 0; e < executables.size(); ++e) {
    PipelineExecutableReport report;
    report.name = executables[e].name;
    report.description = executables[e].description;
    report.subgroup_size = executables[e].subgroupSize;
    VkPipelineExecutableInfoKHR exec_info{};
    exec_info.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR;
    exec_info.pipeline = pipeline_info.pipeline;
    exec_info.executableIndex = e;
    const auto stats = enumerate<VkPipelineExecutableStatisticKHR>(
        "vkGetPipelineExecutableStatisticsKHR", __FILE__, __LINE__,
        [this, dev, &exec_info](std::uint32_t* n, VkPipelineExecutableStatisticKHR* p) {
          for (std::uint32_t i = 0; p != nullptr && i < *n; ++i) {
            p[i] = {};
            p[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
          }
          return vk().vkGetPipelineExecutableStatisticsKHR(dev, &exec_info, n, p);
        });
    for (const VkPipelineExecutableStatisticKHR& s : stats)
      report.statistics.push_back({s.name, s.description, statistic_value(s)});
    reports.push_back(std::move(report));
  }
  return reports;
}

}  // namespace

std::vector<DeviceInfo> vulkan_devices(const BackendOptions& options) {
  const VulkanInstance instance(options);
  const std::vector<VkPhysicalDevice> physicals = instance.physical_devices();
  std::vector<DeviceInfo> infos;
  infos.reserve(physicals.size());
  for (std::size_t i = 0; i < physicals.size(); ++i) {
    infos.push_back(describe(physicals[i], static_cast<int>(i)).info);
  }
  return infos;
}

std::unique_ptr<Backend> make_vulkan_backend(int index, const BackendOptions& options) {
  return std::make_unique<VulkanBackend>(index, options);
}

}  // namespace cuvk
