// `cuvk run`'s checks of the tests' selectors (cmd_run.h): --layouts / --variants values the
// catalogue knows, and selectors that apply to a selected test.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <fmt/ranges.h>

#include "axes.h"
#include "catalogue.h"
#include "run.h"
#include "error.h"

namespace cuvk {

// Checks a --layouts / --variants filter against what the catalogue has.
std::vector<std::string> parse_axis(const std::vector<std::string>& names, const std::string& what,
                                    std::vector<std::string> TestCase::*axis) {
  std::vector<std::string> known;
  for (const TestCase& t : catalogue())
    for (const std::string& v : t.*axis)
      if (std::find(known.begin(), known.end(), v) == known.end()) known.push_back(v);
  for (const std::string& n : names)
    if (std::find(known.begin(), known.end(), n) == known.end()) {
      throw UsageError(
          fmt::format("{}: unknown value '{}' (known: {})", what, n, fmt::join(known, ", ")));
    }
  return names;
}

// An option that chooses among the tests' layouts or sweep values (--layouts, --offsets,
// --strides, --copy-mibs) must apply to a selected test: else it would select nothing and be
// ignored without a word. A kernel pair has no layouts and sweeps no axis.
void check_selectors_apply(const RunArgs& a, const std::vector<std::string>& tests) {
  check_node_args(a);  // --concurrent needs a device list (run_devices.cpp)
  std::string selected = fmt::format("{}", fmt::join(tests, ", "));
  if (!a.pairs.empty()) selected += selected.empty() ? "kernel pairs only" : ", kernel pairs";
  const auto those = [](const std::function<bool(const TestCase&)>& has) {
    std::string list;
    for (const TestCase& t : catalogue())
      if (has(t)) list += (list.empty() ? "" : ", ") + t.name;
    return list;
  };
  const auto any_selected = [&tests](const std::function<bool(const TestCase&)>& has) {
    for (const std::string& name : tests)
      if (const TestCase* t = find_test(name); t && has(*t)) return true;
    return false;
  };
  const auto has_layouts = [](const TestCase& t) { return !t.layouts.empty(); };
  if (!a.layouts.empty() && !any_selected(has_layouts))
    throw UsageError("--layouts: no selected test has layouts (selected: " + selected +
                     "; with layouts: " + those(has_layouts) + ")");
  for (const Axis& axis : axes()) {
    const auto given = a.axis_values.find(axis.name);
    if (given == a.axis_values.end() || given->second.empty()) continue;
    const auto sweeps = [&axis](const TestCase& t) {
      return std::find(t.sweeps.begin(), t.sweeps.end(), axis.name) != t.sweeps.end();
    };
    if (!any_selected(sweeps))
      throw UsageError(axis.option + ": no selected test sweeps " + axis.name + " (selected: " +
                       selected + "; sweeping it: " + those(sweeps) + ")");
  }
}

}  // namespace cuvk
