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
std::uint64_t allocation_bytes(const ModelBuffer& b) {
  return b.guarded ? 2 * kGuardBytes + round_up(b.bytes(), kViewAlignment) : b.bytes();
}

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

Geometry model_geometry(const KernelModel& u, std::uint32_t block, std::uint32_t max_x,
                        std::uint32_t max_y, std::uint32_t max_block, const ModelStep* step) {
  if (!step && !u.steps.empty()) step = &u.steps[0];
  if (step && step->block) block = step->block;
  const std::string file = step && !step->name.empty() ? u.file + ": " + step->name : u.file;
  if (block == 0 || block > max_block)
    throw UsageError(fmt::format(
        "{}{}{} threads per block; the devices allow 1..{}", file,
        step && step->block ? ": launch.block: " : ": launch.block_sizes: ", block, max_block));
  const ModelLaunch l = step ? step->launch(block) : u.launch(block);
  if (!l.grid) {
    if (l.threads == 0 || l.threads > std::numeric_limits<std::uint32_t>::max())
      throw UsageError(
          fmt::format("{}: launch.threads: {} threads (1..4294967295)", file, l.threads));
    const std::uint64_t groups = (l.threads + block - 1) / block;
    if (groups > std::uint64_t{max_x} * max_y)
      throw UsageError(
          fmt::format("{}: launch.threads: {} threads need {} blocks of {}; the devices allow {}",
                      file, l.threads, groups, block, std::uint64_t{max_x} * max_y));
    return launch_geometry(static_cast<std::uint32_t>(l.threads), block, max_x, max_y);
  }
  const auto [gx, gy] = *l.grid;
  if (gx == 0 || gy == 0 || gx > max_x || gy > max_y)
    throw UsageError(
        fmt::format("{}: launch.grid: [{}, {}] blocks; the devices allow 1..{} x 1..{}", file, gx,
                    gy, max_x, max_y));
  return Geometry{block, static_cast<std::uint32_t>(gx), static_cast<std::uint32_t>(gy)};
}

std::uint64_t check_model(const KernelModel& u, const std::vector<std::uint32_t>& blocks,
                          std::uint32_t max_x, std::uint32_t max_y, std::uint32_t max_block,
                          std::uint64_t max_buffer) {
  std::uint64_t total = 0;
  for (const ModelBuffer& b : u.buffers) {
    const std::string where = u.file + ": buffer '" + b.name + "'.count: ";
    if (b.count == 0) throw UsageError(where + "0 elements");
    if (b.count > std::numeric_limits<std::uint64_t>::max() / 2 / b.element_bytes ||
        b.bytes() > max_buffer)
      throw UsageError(
          fmt::format("{}{} elements of {} bytes; the device allows {} bytes per buffer", where,
                      b.count, b.element_bytes, max_buffer));
    total += allocation_bytes(b);
  }
  for (std::uint32_t block : blocks) {
    model_geometry(u, block, max_x, max_y, max_block);
    for (const ModelStep& step : u.steps) model_geometry(u, block, max_x, max_y, max_block, &step);
  }
  // Restore (issue 34): a saved copy of every buffer that starts with contents.
  if (u.state == ModelState::restore)
    for (const ModelBuffer& b : u.buffers) total += b.poisoned ? 0 : allocation_bytes(b);
  return total;
}

}  // namespace cuvk::runner_detail
