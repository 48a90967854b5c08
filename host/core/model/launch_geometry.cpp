#include "launch_geometry.h"

#include <string>

#include <fmt/format.h>

#include "error.h"
#include "util.h"

namespace cuvk {

Geometry launch_geometry(std::uint32_t threads, std::uint32_t block, std::uint32_t max_x,
                         std::uint32_t max_y) {
  if (threads == 0 || block == 0)
    throw UsageError(
        fmt::format("a launch of {} threads in blocks of {} would do no work", threads, block));
  const std::uint64_t groups = ceil_div<std::uint64_t>(threads, block);
  Geometry g;
  g.block_size = block;
  const std::uint64_t gy = ceil_div<std::uint64_t>(groups, max_x);
  const std::uint64_t gx = ceil_div<std::uint64_t>(groups, gy);
  if (gy > max_y)
    throw UsageError(fmt::format("n = {} needs more workgroups than the devices allow", threads));
  g.grid_x = static_cast<std::uint32_t>(gx);
  g.grid_y = static_cast<std::uint32_t>(gy);
  return g;
}

}  // namespace cuvk
