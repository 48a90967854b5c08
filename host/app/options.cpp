#include "options.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "catalogue.h"
#include "error.h"

namespace cuvk {

namespace {
std::vector<std::string> g_process_args;  // process_args()
}  // namespace

const std::vector<std::string>& process_args() {
  return g_process_args;
}

void set_process_args(int argc, const char* const* argv) {
  g_process_args.assign(argv, argv + argc);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

namespace {

std::uint64_t parse_u64(const std::string& s, const std::string& what) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(what + ": '" + s + "' is not a non-negative integer");
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
  if (errno == ERANGE) throw UsageError(what + ": '" + s + "' is too large");
  return v;
}

// One option's named choices: "all" (every choice, in `choices`' order; every other name is
// still checked), else each name once in the order given; a name not among them is refused
// naming the option's choices ("--api 'x': expected cuda, vulkan or all"), none at all as
// "--api: no API given".
template <class T>
std::vector<T> parse_choices(const std::vector<std::string>& names, const std::string& option,
                             const std::vector<T>& choices, const char* (*name_of)(T),
                             const std::string& noun) {
  std::vector<T> picked;
  bool all = false;
  for (const std::string& n : names) {
    if (n == "all") {
      all = true;
      continue;
    }
    const auto c = std::find_if(choices.begin(), choices.end(),
                                [&n, name_of](T choice) { return n == name_of(choice); });
    if (c == choices.end()) {
      std::vector<std::string> known;
      for (T choice : choices) known.emplace_back(name_of(choice));
      throw UsageError(
          fmt::format("{} '{}': expected {} or all", option, n, fmt::join(known, ", ")));
    }
    if (std::find(picked.begin(), picked.end(), *c) == picked.end()) picked.push_back(*c);
  }
  if (all) return choices;
  if (picked.empty()) throw UsageError(option + ": no " + noun + " given");
  return picked;
}

}  // namespace

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string hostname() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? buf : "unknown";
}

Format parse_format(const std::string& s) {
  if (s == "table") return Format::table;
  if (s == "md") return Format::md;
  if (s == "csv") return Format::csv;
  if (s == "json") return Format::json;
  throw UsageError("--format '" + s + "': expected table, md, csv or json");
}

std::vector<Api> parse_apis(const std::vector<std::string>& names) {
  return parse_choices(names, "--api", std::vector<Api>(kApis.begin(), kApis.end()), api_name,
                       "API");
}

// In the order given, each once; "all" = descriptor,bda.
std::vector<Binding> parse_vk_bindings(const std::vector<std::string>& names) {
  return parse_choices(names, "--vk-binding", {Binding::descriptor, Binding::bda}, binding_name,
                       "binding mode");
}

// The selected tests in catalogue order; "all" selects every test but those that run only where
// named (TestCase::named_only: chain).
std::vector<std::string> parse_tests(const std::vector<std::string>& names) {
  bool all = names.empty();
  for (const std::string& n : names) {
    if (n == "all") all = true;
    else if (!find_test(n)) {
      std::vector<std::string> known;
      for (const TestCase& t : catalogue()) known.push_back(t.name);
      throw UsageError(fmt::format("unknown test '{}' (known: {})", n, fmt::join(known, ", ")));
    }
  }
  std::vector<std::string> out;
  for (const TestCase& t : catalogue())
    if (std::find(names.begin(), names.end(), t.name) != names.end() || (all && !t.named_only))
      out.push_back(t.name);
  return out;
}

std::vector<std::uint32_t> parse_uint_list(const std::string& text, const std::string& what,
                                           std::size_t cap) {
  std::vector<std::uint32_t> out;
  std::unordered_set<std::uint32_t> seen;  // a value given twice is one point, not two rows
  const auto add = [&](std::uint32_t v) {
    if (out.size() < cap && seen.insert(v).second) out.push_back(v);
  };
  const auto check = [&](std::uint64_t v) {
    if (v > std::numeric_limits<std::uint32_t>::max())
      throw UsageError(fmt::format("{}: {} overflows 32-bit indices", what, v));
    return static_cast<std::uint32_t>(v);
  };
  for (const std::string& item : split(text, ',')) {
    if (item.empty()) throw UsageError(what + ": empty item in '" + text + "'");
    if (item[0] == '-')
      throw UsageError(what + ": '" + item + "' is negative; expected a non-negative integer");
    const std::size_t dash = item.find('-');
    if (dash == std::string::npos) {
      add(check(parse_u64(item, what)));
      continue;
    }
    const std::size_t colon = item.find(':', dash);
    const std::uint64_t lo = parse_u64(item.substr(0, dash), what);
    const std::uint64_t hi = parse_u64(
        item.substr(dash + 1, colon == std::string::npos ? std::string::npos : colon - dash - 1),
        what);
    const std::uint64_t step =
        colon == std::string::npos ? 1 : parse_u64(item.substr(colon + 1), what);
    if (step == 0) throw UsageError(what + ": step 0 in '" + item + "'");
    if (hi < lo) throw UsageError(what + ": range '" + item + "' runs backwards");
    check(hi);
    for (std::uint64_t v = lo; out.size() < cap; v += step) {
      add(static_cast<std::uint32_t>(v));
      if (hi - v < step) break;
    }
  }
  if (out.empty() && cap > 0) throw UsageError(what + ": no values in '" + text + "'");
  return out;
}

std::uint64_t parse_count(const std::string& text, const std::string& what) {
  if (text.empty()) throw UsageError(what + ": empty value");
  std::string digits = text;
  unsigned shift = 0;
  switch (text.back()) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    default: break;
  }
  if (shift) digits.pop_back();
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(what + ": '" + text + "' is not a count (digits with an optional k, M or G)");
  const std::uint64_t v = parse_u64(digits, what);
  if (v > (std::numeric_limits<std::uint64_t>::max() >> shift))
    throw UsageError(what + ": '" + text + "' is too large");
  return v << shift;
}

}  // namespace cuvk
