// A kernel model on the devices (runner_parts.h): each buffer's allocation (between guard bands
// where it is guarded) and its image as uploaded, a sequence's launch and its state check after
// the timed repetitions, the block sizes a job runs, and the model's checks before anything is
// allocated: sizes and grids against the devices. How outputs are checked is check/'s.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "error.h"
#include "numbers.h"
#include "output_check.h"
#include "runner_parts.h"

namespace cuvk::runner_detail {
std::vector<std::uint8_t> guarded_image(const ModelBuffer& b, const std::vector<std::uint8_t>& data,
                                        std::uint32_t poison) {
  std::vector<std::uint8_t> image(allocation_bytes(b));
  for (std::uint64_t i = 0; i < image.size(); ++i) image[i] = guard_byte(i);
  std::uint8_t* interior = image.data() + kGuardBytes;
  if (b.poisoned || data.size() != b.bytes()) {
    for (std::uint64_t i = 0; i < b.bytes(); ++i) interior[i] = poison_byte(poison, i);
  } else {
    std::memcpy(interior, data.data(), data.size());
  }
  return image;
}

void add_sequence(const KernelModel& u, const Lane& lane, std::uint32_t block, Backend& b,
                  LaneBuffers& lb, Launch& launch) {
  const DeviceInfo& info = b.info();
  for (const ModelStep& step : u.steps) {
    Launch s = launch;
    s.kernel = step.kernel;
    s.geometry =
        model_geometry(u, block, info.max_grid_x, info.max_grid_y, info.max_block_size, &step);
    s.shared_bytes = static_cast<std::uint32_t>(step.launch(s.geometry.block_size).shared_bytes);
    launch.sequence.push_back(std::move(s));
  }
  launch.repeat = u.repeat;
  launch.chain.submission = *lane.submission;
  if (u.state != ModelState::restore) return;
  const std::size_t buffers = u.buffers.size();
  for (std::size_t i = 0; i < buffers; ++i) {
    if (u.buffers[i].poisoned) continue;
    lb.owned.push_back(b.allocate(lb.images[i].size()));
    b.upload(*lb.owned.back(), lb.images[i].data(), lb.images[i].size());
    launch.restore.push_back(copy_launch(*lb.owned.back(), *lb.owned[i]));
  }
}

void check_state(const KernelModel& u, Backend& b, const LaneBuffers& lb, ResultRow& row) {
  const std::vector<std::vector<std::uint8_t>>& got = lb.got;
  if (u.state == ModelState::none || row.status != Status::ok) return;
  for (std::size_t i = 0; i < u.buffers.size(); ++i) {
    const ModelBuffer& buf = u.buffers[i];
    if (!buf.output) continue;
    std::vector<std::uint8_t> now(got[i].size());
    b.download(*lb.owned[i], now.data(), now.size());
    std::uint64_t differ = 0, first = 0;
    for (std::uint64_t e = 0; e < buf.count; ++e) {
      const std::uint64_t at = kGuardBytes + e * buf.element_bytes;
      if (std::memcmp(now.data() + at, got[i].data() + at, buf.element_bytes) == 0) continue;
      if (differ++ == 0) first = e;
    }
    if (differ == 0) continue;
    row.status = Status::failed;
    row.first_bad_index = first;
    row.mismatches += differ;
    row.reason = fmt::format(
                     "buffer '{}': {} of {} elements differ after the timed repetitions from "
                     "after the first run, first at index {}",
                     buf.name, differ, buf.count, first) +
                 (u.state == ModelState::idempotent
                      ? ": the sequence is not idempotent (state = \"idempotent\"); declare "
                        "state = \"restore\" to put its inputs back before each repetition"
                      : ": the inputs were restored before each repetition, so the sequence is "
                        "not deterministic");
    return;
  }
}

std::vector<std::uint32_t> job_block_sizes(const Job& job, const RunConfig& cfg) {
  return job.plan.block_sizes(cfg.block_sizes);
}

}  // namespace cuvk::runner_detail
