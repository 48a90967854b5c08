// Chains of dependent dispatches (Launch::chain, issue 33) and sequences of run-time launches
// (Launch::sequence, issue 34: the same ChainWork, one step per launch, after the restore copies)
// in the Vulkan submission modes, timed
// by one timestamp before the first step and one after the last (Timer::run_chain, vk_timing.h):
//   recorded     one command buffer of the K dispatches, recorded once per call, re-submitted;
//   rerecorded   the same command buffer recorded again (its pool reset) for every repetition;
//   submit_each  K command buffers of one dispatch each, recorded once per call, one vkQueueSubmit
//                per dispatch; the first holds the opening timestamp, the last the closing one;
//   wait_each    as submit_each, each submission with the fence and waited for on the host.
// Each repetition ends with one vkWaitForFences (a blocking call: the driver decides whether it
// spins or sleeps) before its timestamps are read. Between steps in one command buffer: a
// compute-to-compute barrier, shader writes made available to the next step's shader reads (it
// reads what this step wrote) and writes (it writes the buffer the step before read and wrote).
// Across submissions the same barrier opens the next step's command buffer: a submission boundary
// orders nothing on the device by itself. The first command buffer opens with the stream's global
// barrier (CommandStream::begin), as every submission here does.
#include <volk.h>

#include <vector>

#include "error.h"
#include "timestamps.h"
#include "vk_check.h"
#include "vk_timing.h"

namespace cuvk::vk {
namespace {

void step_barrier(const VolkDeviceTable& vk, VkCommandBuffer cb) {
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, nullptr, 0,
                          nullptr);
}

bool per_step(Submission s) {
  return s == Submission::submit_each || s == Submission::wait_each;
}

}  // namespace

// The command buffers of one chain (one, or one per step), in a pool of their own.
void Timer::record_chain(VkCommandBuffer cb, const ChainWork& w, std::uint32_t first,
                         std::uint32_t last) {
  const std::uint32_t k = static_cast<std::uint32_t>(w.steps.size());
  if (first == 0) {
    commands_.begin(cb, 0);  // after every earlier submission, with the global barrier
    vk().vkCmdResetQueryPool(cb, query_pool_.get(), 0, kQueriesPerRep);
    for (const ResolvedLaunch* copy : w.restore) record_launch(vk(), cb, *copy);
    if (!w.restore.empty())  // the copies land before anything after them reads or writes
      commands_.serialise(cb, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    if (w.flush != nullptr) {  // outside the interval, with its barrier
      record_launch(vk(), cb, *w.flush);
      commands_.serialise(cb, static_cast<VkPipelineStageFlags>(w.flush->stage) |
                                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    }
    vk().vkCmdWriteTimestamp(cb, kTimestampStage, query_pool_.get(), 0);
  } else {
    VkCommandBufferBeginInfo begin_info{};
    begin_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    CUVK_VK(vk().vkBeginCommandBuffer, cb, &begin_info);
  }
  for (std::uint32_t i = first; i <= last; ++i) {
    if (i > 0) step_barrier(vk(), cb);
    record_launch(vk(), cb, *w.steps[i]);
  }
  if (last == k - 1) vk().vkCmdWriteTimestamp(cb, kTimestampStage, query_pool_.get(), 1);
  CUVK_VK(vk().vkEndCommandBuffer, cb);
}

std::vector<double> Timer::run_chain(const ChainWork& w, int reps) {
  const auto k = static_cast<std::uint32_t>(w.steps.size());
  if (k == 0) throw Error("Vulkan chain of no steps");
  std::vector<VkCommandBuffer> cbs;
  const vk::CommandPool pool = own_pool(cbs, per_step(w.submission) ? k : 1);
  const auto record_all = [&] {
    if (cbs.size() == 1)
      record_chain(cbs[0], w, 0, k - 1);
    else
      for (std::uint32_t i = 0; i < k; ++i) record_chain(cbs[i], w, i, i);
  };
  if (w.submission != Submission::rerecorded) record_all();  // recorded once per call

  std::vector<double> spans_ms;
  std::uint64_t stamps[kQueriesPerRep] = {};
  for (int rep = 0; rep < reps; ++rep) {
    if (w.submission == Submission::rerecorded) {
      CUVK_VK(vk().vkResetCommandPool, device(), pool.get(), 0);
      record_all();
    }
    for (std::size_t i = 0; i < cbs.size(); ++i) {
      const bool fenced = i + 1 == cbs.size() || w.submission == Submission::wait_each;
      commands_.submit(cbs[i], fenced);
      if (fenced) commands_.wait();
    }
    CUVK_VK(vk().vkGetQueryPoolResults, device(), query_pool_.get(), 0, kQueriesPerRep,
            sizeof stamps, stamps, sizeof(std::uint64_t),
            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    spans_ms.push_back(timing::timestamp_interval_ms(
        stamps[0], stamps[1], queue_.timestamp_valid_bits, queue_.timestamp_period_ns));
  }
  return spans_ms;
}

}  // namespace cuvk::vk
