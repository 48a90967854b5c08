// Sweep axes as data. An axis names a parameter that a test may sweep (offset, stride): the JSON
// `params` field and the point label use its name, the CLI option that lists its values is derived
// from it, and `param` says where the value reaches the kernel's parameter block. Adding an axis =
// one entry in axes.cpp + its field in params.h where a kernel reads it (and the tests that sweep
// it name it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "params.h"

namespace cuvk {

struct Axis {
  std::string name;    // "offset": the params field in result files, the point label's key
  std::string option;  // "--offsets": the run option listing its values
  std::string help;    // what the value means, for --help
  std::vector<std::uint32_t> defaults;  // swept when the option is not given
  std::uint32_t neutral = 0;            // a point's value when its test does not sweep the axis
  std::uint32_t min_value = 0;          // smaller values are refused (stride 0)
  // Where the value reaches the kernel; nullptr: it does not (a size only the host uses).
  std::uint32_t CuvkParams::*param = nullptr;
};

const std::vector<Axis>& axes();
const Axis* find_axis(const std::string& name);  // nullptr when unknown

// One value per axis, in axes() order; every axis starts at its neutral value.
class AxisValues {
 public:
  AxisValues();
  std::uint32_t get(const std::string& name) const;  // throws Error for an unknown axis
  void set(const std::string& name, std::uint32_t value);
  const std::vector<std::uint32_t>& values() const { return values_; }
  bool operator==(const AxisValues& o) const { return values_ == o.values_; }
  bool operator!=(const AxisValues& o) const { return values_ != o.values_; }
  bool operator<(const AxisValues& o) const { return values_ < o.values_; }

 private:
  std::vector<std::uint32_t> values_;
};

// Copies every axis value into the parameter block (Axis::param).
void apply_axes(const AxisValues& values, CuvkParams& params);

// The one point formatter: "offset=4", "stride=8", "offset=1,stride=2" or "". `swept` names the
// axes the point's test sweeps (those are always shown); any other axis is shown only where its
// value is not neutral (rows of tests this cuvk does not know still read).
std::string point_label(const AxisValues& values, const std::vector<std::string>& swept);

}  // namespace cuvk
