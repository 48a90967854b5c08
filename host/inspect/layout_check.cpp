#include "layout_check.h"

#include <algorithm>
#include <cstddef>
#include <optional>

#include <fmt/format.h>

#include "params.h"

#ifdef CUVK_HAVE_CUDA
#include <vector_types.h>  // float4, float2: what copy_vec4, l2_flush, update_xy_*_vec2 access
#endif

namespace cuvk {
namespace {

#ifdef CUVK_HAVE_CUDA
using CudaFloat4 = float4;
using CudaFloat2 = float2;
#else
struct alignas(16) CudaFloat4 {  // CUDA's float4 layout, for builds without the CUDA headers
  float x, y, z, w;
};
struct alignas(8) CudaFloat2 {  // CUDA's float2 layout, likewise
  float x, y;
};
#endif

template <typename T>
constexpr std::uint32_t u32(T v) {
  return static_cast<std::uint32_t>(v);
}

#define CUVK_MEMBER(T, glsl, m) \
  CppMember { glsl, u32(offsetof(T, m)), u32(sizeof(T::m)) }

// One CuvkParams member of params.h's CUVK_KERNEL_PARAMS list, as its GLSL twin names it.
#define CUVK_PARAM_TWIN(name) CUVK_MEMBER(CuvkParams, #name, name),

const CppLayout* twin(const std::vector<CppLayout>& cpp, const std::string& glsl_name) {
  const auto it = std::find_if(cpp.begin(), cpp.end(),
                               [&glsl_name](const CppLayout& l) { return l.glsl_name == glsl_name; });
  return it == cpp.end() ? nullptr : &*it;
}

// A GLSL struct of 32-bit scalars only (float, uint) has, in C and CUDA, the layout of a struct of
// the same members: member k at 4*k, size 4*count. Such a struct needs no hand-kept twin: the twin
// is derived here, so a test's element struct lives in its .comp and .cu alone. Anything else
// (a vec3, a nested struct) still needs an entry in cpp_layouts().
std::optional<CppLayout> derived_twin(const spirv::Module& m, std::uint32_t id) {
  const spirv::Type* s = m.type(id);
  if (s == nullptr || s->kind != spirv::Type::Kind::struct_ || s->members.empty()) return std::nullopt;
  CppLayout layout{s->name, s->name + " (derived: C struct of the same 32-bit scalars)", 0, {}};
  for (const spirv::Member& mem : s->members) {
    const std::string type = m.type_name(mem.type);
    if (type != "float" && type != "uint") return std::nullopt;
    layout.members.push_back({mem.name, layout.size, u32(sizeof(float))});
    layout.size += u32(sizeof(float));
  }
  return layout;
}

class Checker {
 public:
  Checker(const spirv::Module& m, const std::vector<CppLayout>& cpp, std::vector<LayoutCheck>& out)
      : m_(m), cpp_(cpp), out_(out) {}

  void add(const std::string& where, std::uint32_t glsl, std::uint32_t cpp, const std::string& note) {
    out_.push_back({where, std::to_string(glsl), fmt::format("{}{}", cpp, note), glsl == cpp});
  }
  void add(const std::string& where, const std::string& glsl, const std::string& cpp) {
    out_.push_back({where, glsl, cpp, glsl == cpp});
  }

  // A struct against its twin: size, member count, each member's name, offset and size, and the
  // members' own types.
  void compare_struct(std::uint32_t id, const CppLayout& t, const std::string& where) {
    const spirv::Type* s = m_.type(id);
    add(where + " size", m_.size_of(id), t.size, " (sizeof(" + t.cpp_name + "))");
    add(where + " member count", std::to_string(s->members.size()),
        std::to_string(t.members.size()));
    for (std::size_t k = 0; k < s->members.size() && k < t.members.size(); ++k) {
      const spirv::Member& g = s->members[k];
      const CppMember& c = t.members[k];
      const std::string at = where + "." + (g.name.empty() ? std::to_string(k) : g.name);
      add(at + " name", g.name, c.name);
      add(at + " offset", g.offset.value_or(0), c.offset, " (offsetof(" + t.cpp_name + ", ...))");
      add(at + " size", m_.size_of(g.type), c.size, "");
      compare_nested(g.type, at);
    }
  }

  // Arrays (stride against the element's twin) and nested structs.
  void compare_nested(std::uint32_t id, const std::string& where) {
    const spirv::Type* t = m_.type(id);
    if (t == nullptr) return;
    if (t->kind == spirv::Type::Kind::array || t->kind == spirv::Type::Kind::runtime_array) {
      compare_element(t->element, t->array_stride.value_or(0), where + "[]");
    } else if (t->kind == spirv::Type::Kind::struct_) {
      const std::optional<CppLayout> c = twin_of(id);
      if (!c) {
        add(where + " type", t->name, "no C++ twin");
      } else {
        compare_struct(id, *c, where + " (" + t->name + ")");
      }
    }
  }

  // The hand-kept twin, else one derived for a struct of 32-bit scalars.
  std::optional<CppLayout> twin_of(std::uint32_t id) const {
    if (const CppLayout* c = twin(cpp_, m_.type_name(id))) return *c;
    return derived_twin(m_, id);
  }

  void compare_element(std::uint32_t element, std::uint32_t stride, const std::string& where) {
    const std::string name = m_.type_name(element);
    const std::optional<CppLayout> c = twin_of(element);
    if (!c) {
      add(where + " element type", name, "no C++ twin");
      return;
    }
    add(where + " array stride", stride, c->size, " (sizeof(" + c->cpp_name + "))");
    if (m_.type(element)->kind == spirv::Type::Kind::struct_)
      compare_struct(element, *c, where + " (" + name + ")");
  }

 private:
  const spirv::Module& m_;
  const std::vector<CppLayout>& cpp_;
  std::vector<LayoutCheck>& out_;
};

}  // namespace

const std::vector<CppLayout>& cpp_layouts() {
  static const std::vector<CppLayout> layouts = {
      {"float", "float", u32(sizeof(float)), {}},
      {"uint", "uint32_t", u32(sizeof(std::uint32_t)), {}},
      {"vec4", "float4", u32(sizeof(CudaFloat4)), {}},
      {"vec2", "float2", u32(sizeof(CudaFloat2)), {}},
      {"CuvkParams",
       "CuvkParams",
       u32(sizeof(CuvkParams)),
       {CUVK_KERNEL_PARAMS(CUVK_PARAM_TWIN)}},  // every member of params.h's list
      {"CuvkParticle",
       "CuvkParticle",
       u32(sizeof(CuvkParticle)),
       {CUVK_MEMBER(CuvkParticle, "x", x), CUVK_MEMBER(CuvkParticle, "y", y),
        CUVK_MEMBER(CuvkParticle, "z", z), CUVK_MEMBER(CuvkParticle, "w", w)}},
      {"CuvkPair",
       "CuvkPair",
       u32(sizeof(CuvkPair)),
       {CUVK_MEMBER(CuvkPair, "x", x), CUVK_MEMBER(CuvkPair, "y", y)}},
      // The push constants: CuvkParams passed by value (descriptor modules) or CuvkBdaPush (bda
      // modules), the bytes vkCmdPushConstants sends.
      {"PushConstants", "CuvkParams", u32(sizeof(CuvkParams)), {{"p", 0, u32(sizeof(CuvkParams))}}},
      {"PushConstants(bda)",
       "CuvkBdaPush",
       u32(sizeof(CuvkBdaPush)),
       {CUVK_MEMBER(CuvkBdaPush, "p", params), CUVK_MEMBER(CuvkBdaPush, "inbuf", in_address),
        CUVK_MEMBER(CuvkBdaPush, "outbuf", out_address)}},
      // The traced bda twins (`cuvk trace`): the trace buffer's address after the others.
      {"PushConstants(trace bda)",
       "CuvkTraceBdaPush",
       u32(sizeof(CuvkTraceBdaPush)),
       {CUVK_MEMBER(CuvkTraceBdaPush, "p", params),
        CUVK_MEMBER(CuvkTraceBdaPush, "inbuf", in_address),
        CUVK_MEMBER(CuvkTraceBdaPush, "outbuf", out_address),
        CUVK_MEMBER(CuvkTraceBdaPush, "tracebuf", trace_address)}},
  };
  return layouts;
}

std::vector<LayoutCheck> check_layouts(const spirv::Module& module, const std::string& module_name,
                                       const std::vector<CppLayout>& cpp) {
  std::vector<LayoutCheck> out;
  Checker checker(module, cpp, out);
  for (const spirv::Block& b : module.blocks) {
    const spirv::Type* s = module.type(b.struct_type);
    if (s == nullptr) continue;
    if (b.storage_class == spirv::kPushConstant) {
      const bool pointers = std::any_of(s->members.begin(), s->members.end(), [&](const spirv::Member& m) {
        const spirv::Type* t = module.type(m.type);
        return t != nullptr && t->kind == spirv::Type::Kind::pointer;
      });
      const std::string key = !pointers                ? "PushConstants"
                              : s->members.size() == 4 ? "PushConstants(trace bda)"
                                                       : "PushConstants(bda)";
      const CppLayout* c = twin(cpp, key);
      if (c == nullptr) {
        checker.add(module_name + ": push constants", key, "no C++ twin");
      } else {
        checker.compare_struct(b.struct_type, *c, module_name + ": push constants " + s->name);
      }
      continue;
    }
    // A buffer: its members (cuvk's are runtime arrays) against their element types' twins.
    for (const spirv::Member& mem : s->members)
      checker.compare_nested(mem.type, module_name + ": " + s->name + "." + mem.name);
  }
  return out;
}

}  // namespace cuvk
