// The grid both APIs launch for a number of threads (every run, `cuvk trace`, the L2 flush).
#pragma once

#include <cstdint>

#include "backend.h"

namespace cuvk {

// The geometry both APIs launch for `threads` threads in blocks of `block`: ceil(threads / block)
// blocks, folded into y past `max_x` (UsageError past `max_y`). Every run and `cuvk trace` use it.
Geometry launch_geometry(std::uint32_t threads, std::uint32_t block, std::uint32_t max_x,
                         std::uint32_t max_y);

}  // namespace cuvk
