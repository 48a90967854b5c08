#include "axes.h"

#include <fmt/format.h>

#include "error.h"

namespace cuvk {

const std::vector<Axis>& axes() {
  static const std::vector<Axis> table = {
      {"offset", "--offsets",
       "element offset applied inside the kernel (read_offset, write_offset): list or ranges, "
       "e.g. 0,1,8 or 0-32 or 0-32:4",
       {0, 1, 2, 4, 7, 8, 16, 31, 32}, 0, 0, &CuvkParams::offset},
      {"stride", "--strides", "element stride of the input (stride): list or ranges",
       {1, 2, 3, 4, 8, 16, 32}, 1, 1, &CuvkParams::stride},
      // Sizes no kernel sees: the copy engine copies this many MiB (copy_engine); where each
      // queue and cudaMemcpyAsync reach their plateau. Off by default (no values): small copies
      // converge slowly, and the default run already has the copy engine at n (copy engine).
      {"copy_mib", "--copy-mibs",
       "MiB copied by the API's own copy command on every queue family (test copy_engine, off "
       "unless given): list or ranges, e.g. 1,4,16,64,256,1024",
       {}, 0, 1, nullptr},
  };
  return table;
}

const Axis* find_axis(const std::string& name) {
  for (const Axis& a : axes())
    if (a.name == name) return &a;
  return nullptr;
}

namespace {

std::size_t axis_index(const std::string& name) {
  const std::vector<Axis>& all = axes();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].name == name) return i;
  throw Error("unknown sweep axis '" + name + "'");
}

}  // namespace

AxisValues::AxisValues() {
  for (const Axis& a : axes()) values_.push_back(a.neutral);
}

std::uint32_t AxisValues::get(const std::string& name) const { return values_[axis_index(name)]; }

void AxisValues::set(const std::string& name, std::uint32_t value) {
  values_[axis_index(name)] = value;
}

void apply_axes(const AxisValues& values, CuvkParams& params) {
  const std::vector<Axis>& all = axes();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].param != nullptr) params.*(all[i].param) = values.values()[i];
}

std::string point_label(const AxisValues& values, const std::vector<std::string>& swept) {
  std::string label;
  const std::vector<Axis>& all = axes();
  for (std::size_t i = 0; i < all.size(); ++i) {
    bool show = values.values()[i] != all[i].neutral;
    for (const std::string& s : swept) show = show || s == all[i].name;
    if (show)
      label += fmt::format("{}{}={}", label.empty() ? "" : ",", all[i].name, values.values()[i]);
  }
  return label;
}

}  // namespace cuvk
