#include "sector_model.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "util.h"

namespace cuvk {

std::uint32_t sectors_per_request(const AccessStream& s) {
  std::set<std::uint64_t> sectors;
  const std::uint64_t lanes = std::min<std::uint64_t>(kWarpSize, s.count);
  for (std::uint64_t lane = 0; lane < lanes; ++lane) {
    const std::uint64_t first = s.base_bytes + lane * s.stride_bytes;
    const std::uint64_t last = first + s.elem_bytes - 1;
    for (std::uint64_t sec = first / kSectorBytes; sec <= last / kSectorBytes; ++sec)
      sectors.insert(sec);
  }
  return static_cast<std::uint32_t>(sectors.size());
}

std::uint32_t ideal_sectors_per_request(const AccessStream& s) {
  const std::uint64_t lanes = std::min<std::uint64_t>(kWarpSize, s.count);
  return static_cast<std::uint32_t>(ceil_div<std::uint64_t>(lanes * s.elem_bytes, kSectorBytes));
}

std::uint64_t sectors_touched(const std::vector<AccessStream>& streams) {
  if (streams.empty()) return 0;
  const bool dense = std::all_of(streams.begin(), streams.end(), [](const AccessStream& s) {
    return s.stride_bytes <= kSectorBytes && s.elem_bytes <= s.stride_bytes;
  });
  if (dense) {
    // Consecutive accesses are at most one sector apart, so every sector between the lowest and
    // the highest byte is touched.
    std::uint64_t lo = UINT64_MAX, hi = 0;
    for (const AccessStream& s : streams) {
      if (s.count == 0) continue;
      lo = std::min(lo, s.base_bytes);
      hi = std::max(hi, s.base_bytes + (s.count - 1) * s.stride_bytes + s.elem_bytes);
    }
    return lo >= hi ? 0 : (hi - 1) / kSectorBytes - lo / kSectorBytes + 1;
  }
  if (streams.size() != 1)
    throw std::logic_error("sector model: several sparse streams on one buffer are not modelled");
  // Sparse: accesses are more than a sector apart; each touches its own sector(s).
  const AccessStream& s = streams.front();
  const std::uint64_t per_access =
      (s.base_bytes % kSectorBytes + s.elem_bytes + kSectorBytes - 1) / kSectorBytes;
  return s.count * per_access;
}

Traffic traffic(const std::vector<std::vector<AccessStream>>& buffers) {
  Traffic t;
  for (const auto& streams : buffers) {
    t.moved_bytes += sectors_touched(streams) * kSectorBytes;
    for (const AccessStream& s : streams) {
      t.useful_bytes += s.count * s.elem_bytes;
      const std::uint32_t actual = sectors_per_request(s);
      t.sectors_per_request = std::max(t.sectors_per_request, actual);
      if (actual > 0)
        t.request_efficiency = std::min(
            t.request_efficiency, static_cast<double>(ideal_sectors_per_request(s)) / actual);
    }
  }
  return t;
}

}  // namespace cuvk
