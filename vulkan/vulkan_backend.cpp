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
#include "vk_check.h"
#include "vk_commands.h"
#include "vk_context.h"
#include "vk_instance.h"
#include "vk_memory.h"
#include "vk_physical_device.h"
#include "vk_pipeline_statistics.h"
#include "vk_pipelines.h"
#include "vk_raii.h"
#include "vk_staging.h"
#include "vk_util.h"

namespace {
constexpr VkPipelineStageFlagBits kTimestampStage = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
}  // namespace

namespace cuvk {
namespace {

// Instance and physical-device facts: vk_instance.h, vk_physical_device.h; device context:
// vk_context.h; memory and staging: vk_memory.h, vk_staging.h; command buffers, barriers, submit
// and wait: vk_commands.h; pipelines, layouts and descriptor sets: vk_pipelines.h; pipeline
// executable statistics: vk_pipeline_statistics.h; helpers: vk_util.h.
using namespace vk;  // NOLINT(google-build-using-namespace): private to this file

// Repetitions recorded into one command buffer (two timestamp queries each).
constexpr int kMaxRepsPerBatch = 1024;
constexpr std::uint32_t kQueriesPerRep = 2;
constexpr double kNsPerMs = 1e6;

class VulkanBackend final : public Backend {
 public:
  VulkanBackend(int index, const BackendOptions& options)
      : VulkanBackend(open_device(index, options)) {}
  ~VulkanBackend() override;
  VulkanBackend(const VulkanBackend&) = delete;
  VulkanBackend& operator=(const VulkanBackend&) = delete;

  const DeviceInfo& info() const override { return info_; }
  std::unique_ptr<DeviceBuffer> allocate(std::size_t bytes) override {
    commands_.ensure_usable();
    return allocator_.allocate(bytes);
  }
  void upload(DeviceBuffer& dst, const void* src, std::size_t bytes) override {
    staging_.upload(dst, src, bytes);
  }
  void download(const DeviceBuffer& src, void* dst, std::size_t bytes) override {
    staging_.download(src, dst, bytes);
  }
  void fill(DeviceBuffer& dst, std::uint32_t word) override { staging_.fill(dst, word); }
  std::uint64_t free_memory_bytes() const override { return allocator_.free_memory_bytes(); }
  std::vector<std::string> kernels() const override { return Pipelines::kernel_names(); }
  std::string binding_unsupported(Binding binding) const override;
  std::vector<double> run(const Launch& launch, const RunOptions& opt) override;
  HostCostSamples host_cost(const Launch& launch, int samples) override;
  std::vector<std::pair<std::string, double>> startup_ms() const override;

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

  explicit VulkanBackend(OpenedDevice opened);
  const VolkDeviceTable& vk() const { return context_->table; }
  VkDevice device() const { return context_->device.get(); }
  vk::QueryPool make_query_pool() const;
  Resolved resolve(const Launch& launch, const char* what);
  void prepare_descriptor_sets(std::vector<Resolved>& launches);
  void record(VkCommandBuffer cb, const Resolved& r);

  // Declaration order is creation order (the device's children after the context) and, reversed,
  // destruction order.
  std::shared_ptr<DeviceContext> context_;  // first: outlives every handle below
  DeviceInfo info_;
  PhysicalFacts facts_;
  EnabledFeatures features_;
  std::vector<std::pair<std::string, double>> startup_;  // one-time costs, in order
  Clock::time_point device_start_;
  CommandStream commands_;  // command pool, command buffer, fence
  vk::QueryPool query_pool_;
  Pipelines pipelines_;  // set layout, pipeline layouts, descriptor pool, pipelines
  Allocator allocator_;
  Staging staging_;  // staging buffer, made at the first transfer
};

VulkanBackend::VulkanBackend(OpenedDevice opened)
    : context_(std::move(opened.context)),
      info_(opened.facts.info),
      facts_(std::move(opened.facts)),
      features_(std::move(opened.features)),
      startup_(std::move(opened.startup)),
      device_start_(opened.device_start),
      commands_(*context_, facts_.compute_family, info_.name),
      query_pool_(make_query_pool()),
      pipelines_(*context_, features_.capture_statistics),
      allocator_(context_, facts_, features_.bda),
      staging_(*context_, allocator_, commands_) {
  startup_.emplace_back("device", ms_since(device_start_));  // and its pools, fence and layouts
}

vk::QueryPool VulkanBackend::make_query_pool() const {
  VkQueryPoolCreateInfo query_info{};
  query_info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
  query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  query_info.queryCount = kQueriesPerRep * static_cast<std::uint32_t>(kMaxRepsPerBatch);
  VkQueryPool raw_query = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateQueryPool, device(), &query_info, nullptr, &raw_query);
  return vk::QueryPool(&context_->table, device(), raw_query);
}

VulkanBackend::~VulkanBackend() {
  // Nothing is in flight after a completed call; after an exception or a timeout something may be.
  if (device() != VK_NULL_HANDLE) vk().vkDeviceWaitIdle(device());
}

std::string VulkanBackend::binding_unsupported(Binding binding) const {
  switch (binding) {
    case Binding::descriptor:
      return {};
    case Binding::bda:
      return features_.bda ? std::string() : features_.bda_unsupported;
    case Binding::pointer:
      break;
  }
  return "Vulkan shaders take a descriptor set or buffer device addresses, not pointers";
}

std::vector<std::pair<std::string, double>> VulkanBackend::startup_ms() const {
  std::vector<std::pair<std::string, double>> all = startup_;
  const auto& pipelines = pipelines_.creation_ms();
  all.insert(all.end(), pipelines.begin(), pipelines.end());
  return all;
}

VulkanBackend::Resolved VulkanBackend::resolve(const Launch& launch, const char* what) {
  const Geometry& g = launch.geometry;
  const std::string where = std::string(what) + " '" + launch.kernel + "': ";
  if (launch.in == nullptr || launch.out == nullptr) {
    throw Error(where + "input and output buffers are required");
  }
  Resolved r;
  r.in = allocator_.own(*launch.in, "launch input").handle();
  r.out = allocator_.own(*launch.out, "launch output").handle();
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
    r.in_address = allocator_.own(*launch.in, "launch input").address();
    r.out_address = allocator_.own(*launch.out, "launch output").address();
  }
  r.pipeline = pipelines_.get(launch.kernel, g.block_size, launch.binding);
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
    vk().vkCmdPushConstants(cb, pipelines_.layout(Binding::bda), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                            kBdaPushConstantBytes, &push);
    vk().vkCmdDispatch(cb, r.geometry.grid_x, r.geometry.grid_y, 1);
    return;
  }
  vk().vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE,
                               pipelines_.layout(Binding::descriptor), 0, 1, &r.set, 0, nullptr);
  vk().vkCmdPushConstants(cb, pipelines_.layout(Binding::descriptor), VK_SHADER_STAGE_COMPUTE_BIT,
                          0, kPushConstantBytes, &r.params);
  vk().vkCmdDispatch(cb, r.geometry.grid_x, r.geometry.grid_y, 1);
}

// One descriptor set per kernel launch, from a pool reset each time (nothing is in flight now).
void VulkanBackend::prepare_descriptor_sets(std::vector<Resolved>& launches) {
  pipelines_.reset_sets();
  for (Resolved& r : launches) {
    if (r.engine || r.binding == Binding::bda) continue;
    r.set = pipelines_.make_set(r.in, r.out);
  }
}

std::vector<double> VulkanBackend::run(const Launch& launch, const RunOptions& opt) {
  commands_.ensure_usable();
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
    VkCommandBuffer cb = commands_.begin();
    vk().vkCmdResetQueryPool(cb, query_pool_.get(), 0, queries);
    for (std::uint32_t rep = 0; rep < static_cast<std::uint32_t>(count); ++rep) {
      if (flush != nullptr) {  // outside the interval, with its barrier
        record(cb, *flush);
        commands_.serialise(cb, stages);
      }
      // BOTTOM_OF_PIPE latches once every earlier command has completed entirely, whatever its
      // stages (a dispatch has no TRANSFER stage to wait for): the semantics of a CUDA event.
      vk().vkCmdWriteTimestamp(cb, kTimestampStage, query_pool_.get(), kQueriesPerRep * rep);
      record(cb, timed);
      vk().vkCmdWriteTimestamp(cb, kTimestampStage, query_pool_.get(), kQueriesPerRep * rep + 1);
      commands_.serialise(cb, stages);
    }
    commands_.submit_and_wait();

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
  commands_.ensure_usable();
  if (samples < 1) {
    throw Error("Vulkan host_cost: samples must be at least 1, got " + std::to_string(samples));
  }
  std::vector<Resolved> resolved;
  resolved.push_back(resolve(launch, "host-cost launch"));
  prepare_descriptor_sets(resolved);
  const Resolved& r = resolved[0];
  const auto issue = [this, &r]() {
    VkCommandBuffer cb = commands_.begin();
    record(cb, r);
    CUVK_VK(vk().vkEndCommandBuffer, cb);
    commands_.submit(cb);
  };

  HostCostSamples cost;
  cost.launch_us.reserve(static_cast<std::size_t>(samples));
  cost.round_trip_us.reserve(static_cast<std::size_t>(samples));
  cost.submit_us.reserve(static_cast<std::size_t>(samples));
  for (int i = 0; i < samples; ++i) {
    Clock::time_point start = Clock::now();
    issue();
    cost.launch_us.push_back(us_since(start));
    commands_.wait();
    start = Clock::now();
    issue();
    commands_.wait();
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
  commands_.begin(recorded, 0);
  record(recorded, r);
  CUVK_VK(vk().vkEndCommandBuffer, recorded);
  for (int i = 0; i < samples; ++i) {
    const Clock::time_point start = Clock::now();
    commands_.submit(recorded);
    cost.submit_us.push_back(us_since(start));
    commands_.wait();
  }
  return cost;
}

std::vector<PipelineExecutableReport> VulkanBackend::executable_reports(const std::string& kernel,
                                                                        Binding binding,
                                                                        std::uint32_t block_size) {
  commands_.ensure_usable();
  if (!features_.capture_statistics) {
    throw Error(facts_.pipeline_executable_info
                    ? "this Vulkan backend was made without pipeline_statistics"
                    : info_.driver + " does not offer VK_KHR_pipeline_executable_properties");
  }
  if (const std::string why = binding_unsupported(binding); !why.empty()) throw Error(why);
  const VkPipeline pipeline = pipelines_.get(kernel, block_size, binding);
  return executable_statistics(vk(), device(), pipeline);
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