// Timed runs and host costs. Times come from vkCmdWriteTimestamp pairs at
// VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT around each launch (each latches when all earlier commands
// have completed, like a CUDA event); a barrier after every launch serialises repetitions like a
// CUDA stream. The optional before_each launch (L2 flush) and its barrier are outside the
// interval. kCopyEngine launches are one vkCmdCopyBuffer, timed the same way.
#include "vk_timing.h"

#include <volk.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "error.h"
#include "timestamps.h"
#include "vk_check.h"
#include "vk_util.h"

namespace cuvk::vk {

Timer::Timer(const DeviceContext& context, const TimedQueue& queue, CommandStream& commands,
             CommandStream* reset_on)
    : context_(context), queue_(queue), commands_(commands), reset_on_(reset_on) {
  VkQueryPoolCreateInfo query_info{};
  query_info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
  query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  query_info.queryCount = kQueriesPerRep * static_cast<std::uint32_t>(kMaxRepsPerBatch);
  VkQueryPool raw_query = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateQueryPool, device(), &query_info, nullptr, &raw_query);
  query_pool_ = vk::QueryPool(&context_.table, device(), raw_query);
}

// One batch: reset its queries (unless reset_on_ did), then per repetition [flush, barrier,]
// timestamp, launch, timestamp, barrier.
void Timer::record_batch(VkCommandBuffer cb, const ResolvedLaunch& timed,
                         const ResolvedLaunch* flush, VkPipelineStageFlags stages,
                         std::uint32_t count) {
  if (reset_on_ == nullptr)
    vk().vkCmdResetQueryPool(cb, query_pool_.get(), 0, kQueriesPerRep * count);
  for (std::uint32_t rep = 0; rep < count; ++rep) {
    if (flush != nullptr) {  // outside the interval, with its barrier
      record_launch(vk(), cb, *flush);
      commands_.serialise(cb, stages);
    }
    vk().vkCmdWriteTimestamp(cb, kTimestampStage, query_pool_.get(), kQueriesPerRep * rep);
    record_launch(vk(), cb, timed);
    vk().vkCmdWriteTimestamp(cb, kTimestampStage, query_pool_.get(), kQueriesPerRep * rep + 1);
    commands_.serialise(cb, stages);
  }
}

std::vector<double> Timer::run(const ResolvedLaunch& timed, const ResolvedLaunch* flush, int reps) {
  VkPipelineStageFlags stages = timed.stage;  // what the serialising barriers must cover
  if (flush != nullptr) stages |= flush->stage;

  std::vector<double> times_ms;
  times_ms.reserve(static_cast<std::size_t>(reps));
  std::vector<std::uint64_t> stamps;
  for (int first = 0; first < reps; first += kMaxRepsPerBatch) {
    const int count = std::min(kMaxRepsPerBatch, reps - first);
    const std::uint32_t queries = kQueriesPerRep * static_cast<std::uint32_t>(count);
    if (reset_on_ != nullptr) {  // a transfer-only queue: reset on a compute queue, waited for
      VkCommandBuffer reset_cb = reset_on_->begin();
      vk().vkCmdResetQueryPool(reset_cb, query_pool_.get(), 0, queries);
      reset_on_->submit_and_wait();
    }
    VkCommandBuffer cb = commands_.begin();
    record_batch(cb, timed, flush, stages, static_cast<std::uint32_t>(count));
    commands_.submit_and_wait();

    stamps.assign(queries, 0);
    CUVK_VK(vk().vkGetQueryPoolResults, device(), query_pool_.get(), 0, queries,
            stamps.size() * sizeof(std::uint64_t), stamps.data(), sizeof(std::uint64_t),
            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    for (std::uint32_t rep = 0; rep < static_cast<std::uint32_t>(count); ++rep) {
      // Masked to the valid bits, modulo the counter's width, order checked (timestamps.h).
      times_ms.push_back(timing::timestamp_interval_ms(
          stamps[kQueriesPerRep * rep], stamps[kQueriesPerRep * rep + 1],
          queue_.timestamp_valid_bits, queue_.timestamp_period_ns));
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
HostCostSamples Timer::host_cost(const ResolvedLaunch& r, int samples) {
  const auto issue = [this, &r]() {
    VkCommandBuffer cb = commands_.begin();
    record_launch(vk(), cb, r);
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
  submit_recorded_once(r, samples, cost);
  return cost;
}

// submit_us: a second pool holds the command buffer recorded once and resubmitted (begin() resets
// the first pool). Each submission is waited for before the next, so no simultaneous use.
vk::CommandPool Timer::own_pool(std::vector<VkCommandBuffer>& buffers, std::uint32_t count) {
  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.queueFamilyIndex = queue_.family;
  VkCommandPool raw_pool = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateCommandPool, device(), &pool_info, nullptr, &raw_pool);
  vk::CommandPool pool(&context_.table, device(), raw_pool);
  buffers.assign(count, VK_NULL_HANDLE);
  VkCommandBufferAllocateInfo cb_info{};
  cb_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cb_info.commandPool = raw_pool;
  cb_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cb_info.commandBufferCount = count;
  CUVK_VK(vk().vkAllocateCommandBuffers, device(), &cb_info, buffers.data());
  return pool;
}

void Timer::submit_recorded_once(const ResolvedLaunch& r, int samples, HostCostSamples& cost) {
  std::vector<VkCommandBuffer> buffers;
  const vk::CommandPool pool = own_pool(buffers, 1);
  VkCommandBuffer recorded = buffers[0];
  commands_.begin(recorded, 0);
  record_launch(vk(), recorded, r);
  CUVK_VK(vk().vkEndCommandBuffer, recorded);
  for (int i = 0; i < samples; ++i) {
    const Clock::time_point start = Clock::now();
    commands_.submit(recorded);
    cost.submit_us.push_back(us_since(start));
    commands_.wait();
  }
}

}  // namespace cuvk::vk
