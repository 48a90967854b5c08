// Two readings of a reflected module (spirv_reflect.h): grid_y_reads, where a shader reads the
// grid's y (WorkgroupId.y, NumWorkgroups.y, GlobalInvocationId.y), found by following the three
// built-ins' loads; summarize_accesses, its memory accesses counted by kind.
#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "spirv_reflect.h"

namespace cuvk::spirv {

GridYReads grid_y_reads(const std::uint32_t* words, std::size_t count) {
  reflect(words, count);  // throws on what is no SPIR-V module
  struct Inst {
    std::uint32_t op;
    const std::uint32_t* w;
    std::uint32_t wc;
    bool in_function;
  };
  std::vector<Inst> insts;
  std::map<std::uint32_t, spv::BuiltIn> builtin;  // variable id -> the three built-ins read here
  std::map<std::uint32_t, std::uint32_t> constants;
  bool in_function = false;
  for (std::size_t i = kHeaderWords; i < count;) {
    const std::uint32_t wc = words[i] >> spv::WordCountShift, op = words[i] & spv::OpCodeMask;
    if (wc == 0 || i + wc > count) break;
    const std::uint32_t* w = words + i;
    in_function = in_function || op == spv::OpFunction;
    insts.push_back({op, w, wc, in_function});
    if (op == spv::OpDecorate && wc >= 4 && w[2] == spv::DecorationBuiltIn &&
        (w[3] == spv::BuiltInWorkgroupId || w[3] == spv::BuiltInNumWorkgroups ||
         w[3] == spv::BuiltInGlobalInvocationId))
      builtin[w[1]] = static_cast<spv::BuiltIn>(w[3]);
    if (op == spv::OpConstant && wc >= 4) constants[w[2]] = w[3];
    i += wc;
  }
  GridYReads reads;
  const auto read_y = [&reads](spv::BuiltIn b) {
    if (b == spv::BuiltInWorkgroupId) reads.workgroup_id_y = true;
    if (b == spv::BuiltInNumWorkgroups) reads.num_workgroups = true;
    if (b == spv::BuiltInGlobalInvocationId) reads.global_id_y = true;
  };
  // Whole vectors loaded from the built-ins (id -> built-in): read by their x alone?
  std::map<std::uint32_t, spv::BuiltIn> vectors;
  for (const Inst& in : insts) {
    if (!in.in_function) continue;
    const auto base = in.wc >= 4 ? builtin.find(in.w[3]) : builtin.end();
    if ((in.op == spv::OpAccessChain || in.op == spv::OpInBoundsAccessChain) &&
        base != builtin.end()) {
      const auto index = in.wc >= 5 ? constants.find(in.w[4]) : constants.end();
      if (base->second == spv::BuiltInNumWorkgroups || index == constants.end() ||
          index->second != 0)
        read_y(base->second);  // .y, .z or a dynamic index
      continue;
    }
    if (in.op == spv::OpLoad && base != builtin.end()) {
      if (base->second == spv::BuiltInNumWorkgroups) read_y(base->second);
      vectors[in.w[2]] = base->second;
      continue;
    }
    for (std::uint32_t k = 1; k < in.wc; ++k)  // any other use of a built-in: counted as a read
      if (const auto b = builtin.find(in.w[k]); b != builtin.end()) read_y(b->second);
  }
  for (const Inst& in : insts) {
    if (!in.in_function || vectors.empty()) continue;
    if (in.op == spv::OpLoad && in.wc >= 3 && vectors.count(in.w[2])) continue;  // the load itself
    if (in.op == spv::OpCompositeExtract && in.wc >= 5 && vectors.count(in.w[3])) {
      if (in.wc > 5 || in.w[4] != 0) read_y(vectors[in.w[3]]);
      continue;
    }
    for (std::uint32_t k = 1; k < in.wc; ++k)
      if (const auto v = vectors.find(in.w[k]); v != vectors.end()) read_y(v->second);
  }
  return reads;
}

std::vector<std::pair<std::string, int>> summarize_accesses(const Module& module,
                                                            const std::vector<std::uint32_t>& classes) {
  std::vector<std::pair<std::string, int>> out;
  for (const Access& a : module.accesses) {
    if (std::find(classes.begin(), classes.end(), a.storage_class) == classes.end()) continue;
    std::string key = std::string(a.store ? "store " : "load ") + module.type_name(a.value_type) +
                      " " + storage_class_name(a.storage_class);
    if (a.alignment) key += fmt::format(" aligned {}", a.alignment);
    auto it = std::find_if(out.begin(), out.end(), [&key](const auto& e) { return e.first == key; });
    if (it == out.end()) out.emplace_back(key, 1);
    else ++it->second;
  }
  return out;
}

}  // namespace cuvk::spirv
