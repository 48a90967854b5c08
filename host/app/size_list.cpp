// `--n`'s sizes: one count, a list, arithmetic ranges ("1M-4M:1M") and log ranges ("1k-256M:x4").
#include <limits>
#include <string>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "options.h"
#include "output_file.h"
#include "error.h"

namespace cuvk {
namespace {

constexpr std::uint64_t kMaxSize = std::numeric_limits<std::uint32_t>::max();

// One size: a count of at least 1 within 32-bit indices (the messages of a single --n).
std::uint64_t size_of(const std::string& text, const std::string& what) {
  const std::uint64_t n = parse_count(text, what);
  if (n == 0) throw UsageError(what + " must be at least 1");
  if (n > kMaxSize)
    throw UsageError(what + " " + text + " overflows 32-bit indices (at most 4294967295)");
  return n;
}

struct Range {
  std::uint64_t lo = 0, hi = 0;
  std::uint64_t step = 1;  // added, or with `log` multiplied
  bool log = false;
};

Range range_of(const std::string& item, std::size_t dash, const std::string& what) {
  Range r;
  const std::size_t colon = item.find(':', dash);
  r.lo = size_of(item.substr(0, dash), what);
  r.hi =
      size_of(item.substr(dash + 1, colon == std::string::npos ? colon : colon - dash - 1), what);
  if (r.hi < r.lo) throw UsageError(what + ": range '" + item + "' runs backwards");
  if (colon == std::string::npos) return r;
  std::string step = item.substr(colon + 1);
  r.log = !step.empty() && (step[0] == 'x' || step[0] == 'X');
  if (r.log) step.erase(0, 1);
  r.step = parse_count(step, what);
  if (r.log && r.step < 2)
    throw UsageError(what + ": factor x" + step + " in '" + item +
                     "'; a log range multiplies by at least 2");
  if (r.step == 0) throw UsageError(what + ": step 0 in '" + item + "'");
  return r;
}

}  // namespace

std::vector<std::uint32_t> parse_size_list(const std::string& text, const std::string& what,
                                           std::size_t cap) {
  std::vector<std::uint32_t> out;
  std::unordered_set<std::uint64_t> seen;  // a size given twice is one size
  const auto add = [&](std::uint64_t v) {
    if (!seen.insert(v).second) return;
    if (out.size() == cap)
      throw UsageError(fmt::format("{}: more than {} sizes (at most {})", what, cap, cap));
    out.push_back(static_cast<std::uint32_t>(v));
  };
  if (text.empty()) throw UsageError(what + ": empty value");
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) throw UsageError(what + ": empty item in '" + text + "'");
    if (item[0] == '-')
      throw UsageError(what + ": '" + item + "' is negative; expected a size of at least 1");
    const std::size_t dash = item.find('-');
    if (dash == std::string::npos) {
      add(size_of(item, what));
      continue;
    }
    const Range r = range_of(item, dash, what);
    for (std::uint64_t v = r.lo; v <= r.hi; v = r.log ? v * r.step : v + r.step) {
      add(v);
      if (r.log ? v > r.hi / r.step : r.hi - v < r.step) break;  // the next one is beyond hi
    }
  }
  return out;
}

}  // namespace cuvk
