// What a kernel model asks of a device before anything is allocated: each buffer's allocation
// (guard bands included), the launch at a block size against the grid limits, the whole model's
// sizes and grids (UsageError naming the file and field). Pure: no device, no runner.
#include "kernel_model.h"

#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "error.h"
#include "launch_geometry.h"
#include "numbers.h"

namespace cuvk {

std::uint64_t allocation_bytes(const ModelBuffer& b) {
  return b.guarded ? 2 * kGuardBytes + round_up(b.bytes(), kViewAlignment) : b.bytes();
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

}  // namespace cuvk
