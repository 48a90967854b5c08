// The row helpers declared in row.h: status names, row identity (same point, same lane) and labels.
#include "row.h"

#include <utility>

#include <fmt/format.h>

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

const char* check_name(Check c) {
  switch (c) {
    case Check::not_recorded: return "not_recorded";
    case Check::verified: return "verified";
    case Check::consistent: return "consistent";
    case Check::unchecked: return "unchecked";
    case Check::timing_only: return "timing_only";
  }
  return "?";
}

std::optional<Check> parse_check(const std::string& name) {
  for (Check c : {Check::not_recorded, Check::verified, Check::consistent, Check::unchecked,
                  Check::timing_only})
    if (name == check_name(c)) return c;
  return std::nullopt;
}

std::string status_label(Status s, Check c) {
  if (s != Status::ok) return status_name(s);
  switch (c) {
    case Check::verified: return "ok, verified";
    case Check::consistent: return "ok, consistent";
    case Check::unchecked: return "ok, unchecked";
    case Check::timing_only: return "ok, timing only";
    case Check::not_recorded: break;
  }
  return "ok, check not recorded";
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
  return fmt::format("{} q{} ({})", variant, *family, flags);
}

std::string variant_label(const ResultRow& row) {
  const std::string label = variant_label(row.variant, row.queue_family, row.queue_flags);
  return row.submission ? label + " " + submission_name(*row.submission) : label;
}

std::string point_label(const ResultRow& row) {
  const TestCase* t = find_test(row.test);
  const std::string axes = point_label(row.axes, t ? t->sweeps : std::vector<std::string>{});
  if (!row.n_in_label) return axes;
  return "n=" + size_label(row.n) + (axes.empty() ? "" : "," + axes);
}

std::string size_label(std::uint64_t n) {
  for (const auto& [shift, suffix] : {std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "k"}})
    if (n != 0 && n % (std::uint64_t{1} << shift) == 0)
      return fmt::format("{}{}", n >> shift, suffix);
  return std::to_string(n);
}

}  // namespace cuvk
