// The row helpers declared in row.h: status names, row identity (same point, same lane) and labels.
#include "row.h"

#include "catalogue.h"
#include "dims.h"

namespace cuvk {

const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::failed: return "failed";
    case Status::unavailable: return "unavailable";
  }
  return "?";
}

bool same_point(const ResultRow& a, const ResultRow& b) {
  for (const PointDim& d : point_dims())  // dims.h: test, layout, variant, n, axes, block size
    if (d.identity && d.get(a) != d.get(b)) return false;
  return true;
}

bool same_lane(const ResultRow& a, const ResultRow& b) {
  return Lane::of(a) == Lane::of(b);  // lanes.h: the identity lane dimensions
}

std::string variant_label(const std::string& variant, const std::optional<std::uint32_t>& family,
                          const std::string& flags) {
  // A family without flags was not recorded by its file but inferred (run_reader.cpp): it is
  // matched on, not shown, so older files print as they did.
  if (!family || flags.empty()) return variant;
  return variant + " q" + std::to_string(*family) + " (" + flags + ")";
}

std::string variant_label(const ResultRow& row) {
  return variant_label(row.variant, row.queue_family, row.queue_flags);
}

std::string point_label(const ResultRow& row) {
  const TestCase* t = find_test(row.test);
  return point_label(row.axes, t ? t->sweeps : std::vector<std::string>{});
}

}  // namespace cuvk
