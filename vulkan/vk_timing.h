// Timing: GPU times from vkCmdWriteTimestamp pairs around each repetition of a launch (the
// timestamp query pool lives here), and the host-side costs of issuing work. Private to vulkan/.
#pragma once

#include <volk.h>

#include <cstdint>
#include <vector>

#include "backend.h"
#include "vk_commands.h"
#include "vk_context.h"
#include "vk_launch.h"
#include "vk_raii.h"

namespace cuvk::vk {

// Where timestamps latch: once every earlier command has completed entirely, whatever its stages
// (a dispatch has no TRANSFER stage to wait for): the semantics of a CUDA event.
constexpr VkPipelineStageFlagBits kTimestampStage = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
// Repetitions recorded into one command buffer (two timestamp queries each).
constexpr int kMaxRepsPerBatch = 1024;
constexpr std::uint32_t kQueriesPerRep = 2;

// The queue a Timer times work on: its family and how to read that family's timestamps.
struct TimedQueue {
  std::uint32_t family = 0;
  std::uint32_t timestamp_valid_bits = 0;
  double timestamp_period_ns = 0.0;
};

// A chain's steps (Launch::chain) resolved, step k's launch at steps[k], and how to submit them.
struct ChainWork {
  std::vector<const ResolvedLaunch*> steps;
  const ResolvedLaunch* flush = nullptr;  // before each repetition, outside the interval
  // Copies before each repetition, before the flush, outside the interval (Launch::restore).
  std::vector<const ResolvedLaunch*> restore;
  Submission submission = Submission::recorded;
};

class Timer {
 public:
  // Creates the timestamp query pool (two queries per repetition of a batch); `commands` submits
  // to `queue`. `reset_on`: where the queries are reset before each batch when `queue`'s family
  // cannot reset them itself (vkCmdResetQueryPool needs a graphics or compute queue); null: in
  // the batch's own command buffer.
  Timer(const DeviceContext& context, const TimedQueue& queue, CommandStream& commands,
        CommandStream* reset_on = nullptr);
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // `timed` reps times, each between two timestamps and followed by a serialising barrier;
  // `flush` (if any) before each, outside the interval. GPU milliseconds per repetition.
  std::vector<double> run(const ResolvedLaunch& timed, const ResolvedLaunch* flush, int reps);

  // A chain per repetition, in its submission mode (vk_chain.cpp): GPU ms from the timestamp
  // before its first step to the one after its last.
  std::vector<double> run_chain(const ChainWork& work, int reps);

  // Backend::host_cost of the launch `r` (its descriptor set prepared).
  HostCostSamples host_cost(const ResolvedLaunch& r, int samples);

 private:
  const VolkDeviceTable& vk() const { return context_.table; }
  VkDevice device() const { return context_.device.get(); }
  void record_batch(VkCommandBuffer cb, const ResolvedLaunch& timed, const ResolvedLaunch* flush,
                    VkPipelineStageFlags stages, std::uint32_t count);
  // Steps first..last of `w` into `cb` (the opening timestamp with step 0, the closing one with
  // the last step).
  void record_chain(VkCommandBuffer cb, const ChainWork& w, std::uint32_t first,
                    std::uint32_t last);
  void submit_recorded_once(const ResolvedLaunch& r, int samples, HostCostSamples& cost);
  // A command pool of its own on the timer's queue family and `count` primary command buffers
  // from it (begin() resets commands_'s pool, so work recorded once lives here).
  vk::CommandPool own_pool(std::vector<VkCommandBuffer>& buffers, std::uint32_t count);

  const DeviceContext& context_;
  TimedQueue queue_;
  CommandStream& commands_;
  CommandStream* reset_on_ = nullptr;
  vk::QueryPool query_pool_;
};

}  // namespace cuvk::vk
