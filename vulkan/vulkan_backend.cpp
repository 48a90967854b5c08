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
// - kCopyEngine launches are one vkCmdCopyBuffer, timed the same way, on the compute queue or on
//   the queue of any other family that can copy (Launch::queue_family): every such family with
//   queues and timestamps gets one queue at device creation, with its own command pool and
//   timestamp query pool, and the test buffers are then shared between the families
//   (VK_SHARING_MODE_CONCURRENT). Every submission is waited for before the next, on any queue.
// - Every command buffer starts with a global barrier from all earlier transfer/compute work: a
//   fence wait orders only the host, so without it submissions would not be ordered on the device.
//
// The backend by concern (each a file pair vk_<name>.h / .cpp):
//   instance           loader (volk), instance, validation layer, debug messenger
//   physical_device    describe(): a physical device's facts -> DeviceInfo, extensions, features
//   queue_families     which queue families can copy buffers (pure logic)
//   context            the shared device context; logical device creation and enabled features
//   memory             buffers, memory types, allocation, the free-memory budget
//   staging            upload / download / fill through the staging buffer
//   pipelines          shader modules, specialization constant, layouts, pipeline map, descriptors,
//                      a pipeline's cache data (`cuvk inspect`)
//   pipeline_statistics  pipeline executable statistics (`cuvk inspect`)
//   commands           command buffers, barriers, submit and wait
//   launch             launch checks; recording a dispatch or the copy engine's copy
//   timing             timestamps around each repetition (run) and host costs (host_cost)
// This file wires them into the Backend interface and its capabilities (Traces, ExecutableReports,
// PipelineCache).
#include "vulkan_backend.h"

#include <volk.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "error.h"
#include "vk_commands.h"
#include "vk_context.h"
#include "vk_instance.h"
#include "vk_launch.h"
#include "vk_memory.h"
#include "vk_physical_device.h"
#include "vk_pipeline_statistics.h"
#include "vk_pipelines.h"
#include "vk_queue_families.h"
#include "vk_host_transfers.h"
#include "vk_staging.h"
#include "vk_timing.h"

namespace cuvk {
namespace {

// Another queue family's queue, for copy-engine launches: its commands and timestamps.
struct CopyQueue {
  QueueFamily family;
  std::unique_ptr<vk::CommandStream> commands;
  std::unique_ptr<vk::Timer> timer;
};

class VulkanBackend final : public Backend,
                            public Traces,
                            public ExecutableReports,
                            public PipelineCache {
 public:
  VulkanBackend(int index, const BackendOptions& options)
      : VulkanBackend(vk::open_device(index, options), options.timeout_s) {}
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
  std::unique_ptr<HostRegistration> register_host(void* data, std::size_t bytes) override {
    return staging_.register_host(data, bytes);
  }
  std::uint64_t free_memory_bytes() const override { return allocator_.free_memory_bytes(); }
  std::vector<std::string> kernels() const override {
    std::vector<std::string> names = vk::Pipelines::kernel_names();
    for (const std::string& name : pipelines_.runtime_names()) names.push_back(name);
    return names;
  }
  void load_module(const RuntimeModule& module) override;
  std::string hung() const override {
    // Any queue's timeout (the compute queue's or a copy family's) marks the device (vk_raii.h).
    return vk::device_hung(context_->device.get())
               ? "a submission did not finish within the timeout (--timeout)"
               : "";
  }
  std::string binding_unsupported(Binding binding) const override {
    return vk::binding_unsupported(binding, features_);
  }
  TraceSupport trace_support() const override { return features_.trace; }
  std::vector<QueueFamily> copy_queue_families() const override;
  std::vector<double> run(const Launch& launch, const RunOptions& opt) override;
  std::string submission_unsupported(Submission s) const override {
    if (s == Submission::recorded || s == Submission::rerecorded || s == Submission::submit_each ||
        s == Submission::wait_each)
      return "";
    return std::string("vulkan backend cannot submit chains as ") + submission_name(s) +
           " (a CUDA submission mode)";
  }
  HostCostSamples host_cost(const Launch& launch, int samples) override;
  std::vector<std::pair<std::string, double>> startup_ms() const override;
  // `cuvk inspect`: the driver's statistics of the kernel's pipeline and its cache (backend.h).
  std::vector<PipelineExecutableReport> executable_reports(const std::string& kernel,
                                                           Binding binding,
                                                           std::uint32_t block_size) override;
  std::vector<std::uint8_t> pipeline_cache_data(const std::string& kernel, Binding binding,
                                                std::uint32_t block_size) override;

 protected:
  Capability* capability(std::type_index type) override {
    if (type == typeid(HostTransfers)) return host_transfers();
    return offer<Traces, ExecutableReports, PipelineCache>(this, type);
  }

 private:
  VulkanBackend(vk::OpenedDevice opened, double timeout_s);
  vk::ResolvedLaunch resolve(const Launch& launch, const char* what) {
    return vk::resolve_launch(launch, what, info_, features_, allocator_, pipelines_);
  }
  void open_copy_queues();
  vk::Timer& timer_for(const Launch& launch, const RunOptions& opt);
  std::vector<double> run_chain(const Launch& launch, const RunOptions& opt);
  std::vector<double> run_sequence(const Launch& launch, const RunOptions& opt);

  // Declaration order is creation order (the device's children after the context) and, reversed,
  // destruction order.
  std::shared_ptr<vk::DeviceContext> context_;  // first: outlives every handle below
  DeviceInfo info_;
  vk::PhysicalFacts facts_;
  vk::EnabledFeatures features_;
  std::vector<std::pair<std::string, double>> startup_;  // instance and device
  vk::CommandStream commands_;                           // command pool, command buffer, fence
  vk::Timer timer_;                                      // timestamp query pool
  vk::Pipelines pipelines_;  // set layout, pipeline layouts, descriptor pool, pipelines
  vk::Allocator allocator_;
  vk::Staging staging_;                 // staging buffer, made at the first transfer
  std::vector<CopyQueue> copy_queues_;  // the other copy families' queues (Launch::queue_family)
  std::unique_ptr<vk::AsyncTransfers> transfers_;  // HostTransfers, made when first asked for
  std::uint64_t timeout_ns_ = vk::kFenceTimeoutNs;
  // HostTransfers where host memory can be imported (VK_EXT_external_memory_host), else null.
  HostTransfers* host_transfers() {
    if (!features_.host_import) return nullptr;
    if (!transfers_)
      transfers_ = std::make_unique<vk::AsyncTransfers>(*context_, facts_.compute_family,
                                                        info_.name, allocator_, staging_,
                                                        timeout_ns_);
    return transfers_.get();
  }

 public:
  // Every physical device of this backend's instance, described (vulkan_devices_of).
  std::vector<DeviceInfo> instance_devices() const {
    const std::vector<VkPhysicalDevice> physicals = context_->instance.physical_devices();
    std::vector<DeviceInfo> infos;
    for (std::size_t i = 0; i < physicals.size(); ++i)
      infos.push_back(vk::describe(physicals[i], static_cast<int>(i)).info);
    return infos;
  }
};

VulkanBackend::VulkanBackend(vk::OpenedDevice opened, double timeout_s)
    : context_(std::move(opened.context)),
      info_(opened.facts.info),
      facts_(std::move(opened.facts)),
      features_(std::move(opened.features)),
      startup_(std::move(opened.startup)),
      commands_(*context_, facts_.compute_family, context_->queue, info_.name),
      timer_(*context_,
             {facts_.compute_family, facts_.timestamp_valid_bits, facts_.timestamp_period_ns},
             commands_),
      pipelines_(*context_, features_.capture_statistics),
      allocator_(context_, facts_, features_.bda),
      staging_(*context_, allocator_, commands_, features_.host_import) {
  open_copy_queues();
  info_.properties.emplace_back("device_group",
                                vk::describe_device_group(context_->instance.get(), context_->physical));
  info_.properties.emplace_back("external_memory_host",
                                features_.host_import ? "enabled (VK_EXT_external_memory_host)"
                                                      : "not offered");
  startup_.emplace_back("device", vk::ms_since(opened.device_start));  // with pools and layouts
  if (!(timeout_s > 0.0) || timeout_s > 1e9) throw Error("timeout must be positive seconds");
  const auto timeout_ns = static_cast<std::uint64_t>(timeout_s * 1e9);
  commands_.set_timeout_ns(timeout_ns);
  timeout_ns_ = timeout_ns;
  for (CopyQueue& q : copy_queues_) q.commands->set_timeout_ns(timeout_ns);
}

void VulkanBackend::load_module(const RuntimeModule& module) {
  commands_.ensure_usable();
  for (const auto& c : module.compile_ms) startup_.push_back(c);
  const auto start = vk::Clock::now();
  pipelines_.load(module, info_.max_scalar_bytes);
  startup_.emplace_back("load module " + module.name, vk::ms_since(start));
}

// Every family that can copy with BackendOptions::copy_queues (those without queues or timestamps
// too: their rows say so); otherwise the compute family alone, the one every test runs on.
std::vector<QueueFamily> VulkanBackend::copy_queue_families() const {
  if (features_.copy_queues) return facts_.copy_families;
  std::vector<QueueFamily> own;
  for (const QueueFamily& f : facts_.copy_families)
    if (f.own) own.push_back(f);
  return own;
}

// Commands and timestamps for each queue the context opened besides the compute queue. A family
// that cannot reset queries itself (no graphics, no compute) has them reset on the compute queue.
void VulkanBackend::open_copy_queues() {
  for (const auto& [index, queue] : context_->family_queues) {
    if (index == facts_.compute_family) continue;
    for (const QueueFamily& family : facts_.copy_families) {
      if (family.index != index) continue;
      const bool resets = family.compute || family.flags.find("graphics") != std::string::npos;
      CopyQueue q;
      q.family = family;
      q.commands = std::make_unique<vk::CommandStream>(
          *context_, index, queue, info_.name,
          family.compute ? vk::kWorkStages
                         : static_cast<VkPipelineStageFlags>(VK_PIPELINE_STAGE_TRANSFER_BIT));
      const vk::TimedQueue timed{index, family.timestamp_valid_bits, facts_.timestamp_period_ns};
      q.timer =
          std::make_unique<vk::Timer>(*context_, timed, *q.commands, resets ? nullptr : &commands_);
      copy_queues_.push_back(std::move(q));
    }
  }
}

// The compute queue's timer, or that of the copy family a copy-engine launch asks for.
vk::Timer& VulkanBackend::timer_for(const Launch& launch, const RunOptions& opt) {
  if (launch.queue_family < 0 ||
      static_cast<std::uint32_t>(launch.queue_family) == facts_.compute_family) {
    return timer_;
  }
  const std::string family = "queue family " + std::to_string(launch.queue_family);
  if (launch.kernel != kCopyEngine) {
    throw Error("Vulkan run: '" + launch.kernel + "' on " + family +
                ": only copy-engine launches run outside the compute queue");
  }
  for (CopyQueue& q : copy_queues_) {
    if (static_cast<std::int32_t>(q.family.index) != launch.queue_family) continue;
    if (opt.before_each != nullptr && !q.family.compute) {
      throw Error("Vulkan run: " + family + " (" + q.family.flags +
                  ") cannot run the before_each kernel");
    }
    q.commands->ensure_usable();
    return *q.timer;
  }
  throw Error("Vulkan run: " + family +
              " has no queue here (not a copy family, or no queues or timestamps)");
}

VulkanBackend::~VulkanBackend() {
  // Nothing is in flight after a completed call; after an exception something may be. After a
  // timeout the work may never end: waiting for it would hang.
  if (vk::device_hung(context_->device.get())) return;
  if (context_->device.get() != VK_NULL_HANDLE) {
    context_->table.vkDeviceWaitIdle(context_->device.get());
  }
}

std::vector<std::pair<std::string, double>> VulkanBackend::startup_ms() const {
  std::vector<std::pair<std::string, double>> all = startup_;
  const auto& pipelines = pipelines_.creation_ms();
  all.insert(all.end(), pipelines.begin(), pipelines.end());
  return all;
}

std::vector<double> VulkanBackend::run(const Launch& launch, const RunOptions& opt) {
  commands_.ensure_usable();
  if (opt.reps < 1) {
    throw Error("Vulkan run: reps must be at least 1, got " + std::to_string(opt.reps));
  }
  vk::Timer& timer = timer_for(launch, opt);
  if (!launch.sequence.empty()) return run_sequence(launch, opt);
  if (launch.chain.steps > 0) return run_chain(launch, opt);
  std::vector<vk::ResolvedLaunch> resolved;
  resolved.push_back(resolve(launch, "launch"));
  if (opt.before_each != nullptr) {
    resolved.push_back(resolve(*opt.before_each, "before_each launch"));
  }
  vk::prepare_descriptor_sets(pipelines_, resolved);
  const vk::ResolvedLaunch* flush = opt.before_each != nullptr ? &resolved[1] : nullptr;
  return timer.run(resolved[0], flush, opt.reps);
}

// Steps 0, 1 and 2 resolved: step k > 0 reads and writes what step k - 2 did (chain_step).
std::vector<double> VulkanBackend::run_chain(const Launch& launch, const RunOptions& opt) {
  if (const std::string why = submission_unsupported(launch.chain.submission); !why.empty())
    throw Error("Vulkan run: " + why);
  const std::uint32_t k = launch.chain.steps;
  std::vector<vk::ResolvedLaunch> resolved;
  for (std::uint32_t i = 0; i < k && i < vk::kChainDistinctSteps; ++i)
    resolved.push_back(resolve(chain_step(launch, i), "chain step"));
  if (opt.before_each != nullptr)
    resolved.push_back(resolve(*opt.before_each, "before_each launch"));
  vk::prepare_descriptor_sets(pipelines_, resolved);
  vk::ChainWork work;
  work.submission = launch.chain.submission;
  for (std::uint32_t i = 0; i < k; ++i) work.steps.push_back(&resolved[i == 0 ? 0 : 2 - i % 2]);
  if (opt.before_each != nullptr) work.flush = &resolved.back();
  return timer_.run_chain(work, opt.reps);
}

// The distinct steps, the restore copies and the flush resolved once; each repetition's work is
// the steps `repeat` times over (Launch::sequence).
std::vector<double> VulkanBackend::run_sequence(const Launch& launch, const RunOptions& opt) {
  if (const std::string why = submission_unsupported(launch.chain.submission); !why.empty())
    throw Error("Vulkan run: " + why);
  const std::size_t k = launch.sequence.size();
  if (k > kMaxSequenceSteps || launch.repeat == 0 || k * launch.repeat > kMaxSequenceLaunches)
    throw Error("Vulkan run: a sequence of " + std::to_string(k) + " steps repeated " +
                std::to_string(launch.repeat) + " times (1.." +
                std::to_string(kMaxSequenceSteps) + " steps, 1.." +
                std::to_string(kMaxSequenceLaunches) + " launches)");
  std::vector<vk::ResolvedLaunch> resolved;
  for (const Launch& step : launch.sequence) resolved.push_back(resolve(step, "sequence step"));
  for (const Launch& copy : launch.restore) {
    if (copy.kernel != kCopyEngine) throw Error("Vulkan run: a restore launch must be a copy");
    resolved.push_back(resolve(copy, "restore copy"));
  }
  if (opt.before_each != nullptr)
    resolved.push_back(resolve(*opt.before_each, "before_each launch"));
  vk::prepare_descriptor_sets(pipelines_, resolved);
  vk::ChainWork work;
  work.submission = launch.chain.submission;
  for (std::uint32_t r = 0; r < launch.repeat; ++r)
    for (std::size_t i = 0; i < k; ++i) work.steps.push_back(&resolved[i]);
  for (std::size_t i = 0; i < launch.restore.size(); ++i) work.restore.push_back(&resolved[k + i]);
  if (opt.before_each != nullptr) work.flush = &resolved.back();
  return timer_.run_chain(work, opt.reps);
}

HostCostSamples VulkanBackend::host_cost(const Launch& launch, int samples) {
  commands_.ensure_usable();
  if (samples < 1) {
    throw Error("Vulkan host_cost: samples must be at least 1, got " + std::to_string(samples));
  }
  std::vector<vk::ResolvedLaunch> resolved;
  resolved.push_back(resolve(launch, "host-cost launch"));
  vk::prepare_descriptor_sets(pipelines_, resolved);
  return timer_.host_cost(resolved[0], samples);
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
  return vk::executable_statistics(context_->table, context_->device.get(), pipeline);
}

std::vector<std::uint8_t> VulkanBackend::pipeline_cache_data(const std::string& kernel,
                                                             Binding binding,
                                                             std::uint32_t block_size) {
  commands_.ensure_usable();
  if (const std::string why = binding_unsupported(binding); !why.empty()) throw Error(why);
  return pipelines_.cache_data(kernel, block_size, binding);
}

}  // namespace

std::vector<DeviceInfo> vulkan_devices(const BackendOptions& options) {
  const vk::VulkanInstance instance(options);
  const std::vector<VkPhysicalDevice> physicals = instance.physical_devices();
  std::vector<DeviceInfo> infos;
  infos.reserve(physicals.size());
  for (std::size_t i = 0; i < physicals.size(); ++i) {
    infos.push_back(vk::describe(physicals[i], static_cast<int>(i)).info);
  }
  return infos;
}

std::vector<DeviceInfo> vulkan_devices_of(const Backend& opened) {
  const auto* vb = dynamic_cast<const VulkanBackend*>(&opened);
  if (vb == nullptr) throw Error("vulkan_devices_of: not a Vulkan backend");
  return vb->instance_devices();
}

std::unique_ptr<Backend> make_vulkan_backend(int index, const BackendOptions& options) {
  return std::make_unique<VulkanBackend>(index, options);
}

}  // namespace cuvk
