// The checks before any launch: the declaration against the CUDA entry's parameters (read from
// the PTX) and against the SPIR-V's interface (host/inspect/spirv_reflect: blocks, entry points,
// SpecId and the workgroup size).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pair.h"
#include "spirv_reflect.h"

namespace cuvk::pairs {
namespace {

// ---- CUDA: the .entry's parameter list ----

struct PtxParam {
  std::uint32_t bytes = 0;
  char kind = 'b';  // 'f' float, 'u'/'s' integer, 'b' untyped bits
  std::string text;
};

std::vector<PtxParam> ptx_params(const PairDeclaration& decl, const CompiledCuda& cuda) {
  const std::string& ptx = cuda.ptx;
  const std::string head = ".entry " + cuda.lowered_name;
  std::size_t at = ptx.find(head + "(");
  if (at == std::string::npos) at = ptx.find(head + " (");
  if (at == std::string::npos) at = ptx.find(head + "\n");
  if (at == std::string::npos)
    throw DeclarationError(decl.file + ": cuda.entry '" + decl.cuda.entry + "': no .entry " +
                           cuda.lowered_name + " in the PTX (is it a __global__ function?)");
  const std::size_t open = ptx.find('(', at);
  const std::size_t brace = ptx.find('{', at);
  std::vector<PtxParam> params;
  if (open == std::string::npos || (brace != std::string::npos && brace < open)) return params;
  const std::size_t close = ptx.find(')', open);
  std::istringstream list(ptx.substr(open + 1, close - open - 1));
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item.find(".param") == std::string::npos) continue;
    PtxParam p;
    p.text = item.substr(item.find(".param"));
    while (!p.text.empty() && std::isspace(static_cast<unsigned char>(p.text.back())))
      p.text.pop_back();
    // .param .align A .b8 name[N]: N bytes (a struct by value).
    const std::size_t bracket = p.text.find('[');
    if (p.text.find(".b8") != std::string::npos && bracket != std::string::npos) {
      p.bytes = static_cast<std::uint32_t>(std::strtoul(p.text.c_str() + bracket + 1, nullptr, 10));
    } else {
      for (const char* t : {".u", ".s", ".f", ".b"}) {
        const std::size_t k = p.text.find(t, 6);
        if (k == std::string::npos || !std::isdigit(static_cast<unsigned char>(p.text[k + 2])))
          continue;
        p.kind = t[1];
        p.bytes = static_cast<std::uint32_t>(std::strtoul(p.text.c_str() + k + 2, nullptr, 10)) / 8;
        break;
      }
    }
    params.push_back(p);
  }
  return params;
}

void check_cuda(const PairDeclaration& decl, const CompiledCuda& cuda) {
  const std::vector<PtxParam> params = ptx_params(decl, cuda);
  const std::string entry = decl.file + ": cuda.entry '" + decl.cuda.entry + "'";
  const std::size_t want = decl.buffers.size() + decl.scalars.size();
  if (params.size() != want)
    throw DeclarationError(fmt::format(
        "{} takes {} parameters; the declaration has {} buffers + {} scalars = {} (convention: "
        "buffer pointers in order, then scalars in order)",
        entry, params.size(), decl.buffers.size(), decl.scalars.size(), want));
  for (std::size_t i = 0; i < decl.buffers.size(); ++i)
    if (params[i].bytes != 8)
      throw DeclarationError(fmt::format(
          "{}: parameter {} is '{}' ({} bytes); buffer[{}] '{}' needs a pointer (8 bytes)", entry,
          i, params[i].text, params[i].bytes, i, decl.buffers[i].name));
  for (std::size_t j = 0; j < decl.scalars.size(); ++j) {
    const ScalarDecl& s = decl.scalars[j];
    const PtxParam& p = params[decl.buffers.size() + j];
    const bool fl = s.type == ScalarType::f32 || s.type == ScalarType::f64;
    const bool kind_ok = p.kind == 'b' || (fl ? p.kind == 'f' : p.kind != 'f');
    if (p.bytes != scalar_bytes(s.type) || !kind_ok)
      throw DeclarationError(
          fmt::format("{}: parameter {} is '{}'; scalar[{}] '{}' is {} ({} bytes)", entry,
                      decl.buffers.size() + j, p.text, j, s.name, scalar_type_name(s.type),
                      scalar_bytes(s.type)));
  }
}

// ---- Vulkan: the SPIR-V interface ----

// The scalar type at the bottom of vectors and arrays ("float32", "int32"), and the element's
// array stride where the block's last member is an array.
struct Element {
  const spirv::Type* base = nullptr;
  std::uint32_t stride = 0;
  std::string name;
};

Element buffer_element(const spirv::Module& m, std::uint32_t struct_type) {
  Element e;
  const spirv::Type* s = m.type(struct_type);
  if (!s || s->members.empty()) return e;
  std::uint32_t id = s->members.back().type;
  const spirv::Type* t = m.type(id);
  if (t && (t->kind == spirv::Type::Kind::runtime_array || t->kind == spirv::Type::Kind::array)) {
    e.stride = t->array_stride.value_or(0);
    id = t->element;
  }
  e.name = m.type_name(id);
  t = m.type(id);
  while (t && (t->kind == spirv::Type::Kind::vector || t->kind == spirv::Type::Kind::array ||
               t->kind == spirv::Type::Kind::matrix))
    t = m.type(t->element);
  e.base = t;
  return e;
}

// "" when the shader's element fits the declared buffer, else what the shader has.
std::string element_mismatch(const spirv::Module& m, const BufferDecl& b,
                             std::uint32_t struct_type) {
  const Element e = buffer_element(m, struct_type);
  if (!e.base) return "";
  using K = spirv::Type::Kind;
  const bool is_f = e.base->kind == K::float_, is_i = e.base->kind == K::int_;
  bool ok = true;
  switch (b.type) {
    case ElementType::f32:
      ok = is_f && e.base->width == 32;
      break;
    case ElementType::f64:
      ok = is_f && e.base->width == 64;
      break;
    case ElementType::i32:
    case ElementType::u32:
      ok = is_i && e.base->width == 32;
      break;
    case ElementType::raw16:
      ok = ((is_f || is_i) && e.base->width == 16) || (is_i && e.base->width == 32);
      break;
    case ElementType::bytes:
      ok = e.stride == 0 || e.stride == b.element_bytes;
      break;
  }
  if (ok) return "";
  return "elements of " + e.name + (e.stride ? fmt::format(" (array stride {})", e.stride) : "");
}

[[noreturn]] void spirv_fail(const PairDeclaration& decl, Binding binding,
                             const std::string& what) {
  throw DeclarationError(decl.file + ": SPIR-V (" + binding_name(binding) +
                         " form) vs declaration: " + what);
}

std::string buffer_label(const PairDeclaration& decl, std::size_t i) {
  return fmt::format("buffer[{}] '{}' ({})", i, decl.buffers[i].name,
                     element_type_name(decl.buffers[i].type));
}

void check_push_constants(const PairDeclaration& decl, const spirv::Module& m, Binding binding) {
  const spirv::Block* push = nullptr;
  for (const auto& b : m.blocks)
    if (b.storage_class == spirv::kPushConstant) push = &b;
  const bool bda = binding == Binding::bda;
  const std::size_t want = decl.scalars.size() + (bda ? decl.buffers.size() : 0);
  const spirv::Type* s = push ? m.type(push->struct_type) : nullptr;
  const std::size_t have = s ? s->members.size() : 0;
  if (have == 0 && decl.step_view) return;  // a step that reads no scalar may declare no block
  if (have != want)
    spirv_fail(
        decl, binding,
        fmt::format("the push-constant block has {} members; the declaration has {} scalars{}",
                    have, decl.scalars.size(),
                    bda ? fmt::format(" + {} buffer addresses", decl.buffers.size()) : ""));
  const ScalarLayout l = scalar_layout(decl);
  using K = spirv::Type::Kind;
  for (std::size_t j = 0; j < decl.scalars.size(); ++j) {
    const ScalarDecl& sc = decl.scalars[j];
    const spirv::Member& mem = s->members[j];
    const spirv::Type* t = m.type(mem.type);
    const bool fl = sc.type == ScalarType::f32 || sc.type == ScalarType::f64;
    const bool type_ok = t && (fl ? t->kind == K::float_ : t->kind == K::int_) &&
                         t->width == scalar_bytes(sc.type) * 8;
    if (!type_ok || mem.offset.value_or(~0u) != l.offsets[j])
      spirv_fail(decl, binding,
                 fmt::format("scalar[{}] '{}' is {} at offset {}; push-constant member {} '{}' is "
                             "{} at offset {}",
                             j, sc.name, scalar_type_name(sc.type), l.offsets[j], j, mem.name,
                             m.type_name(mem.type),
                             mem.offset ? std::to_string(*mem.offset) : std::string("?")));
  }
  for (std::size_t i = 0; bda && i < decl.buffers.size(); ++i) {
    const spirv::Member& mem = s->members[decl.scalars.size() + i];
    const spirv::Type* t = m.type(mem.type);
    if (!t || t->kind != K::pointer || t->storage_class != spirv::kPhysicalStorageBuffer ||
        mem.offset.value_or(~0u) != bda_address_offset(decl, i))
      spirv_fail(decl, binding,
                 fmt::format("{} needs a buffer_reference at push-constant offset {}; member '{}' "
                             "is {}",
                             buffer_label(decl, i), bda_address_offset(decl, i), mem.name,
                             m.type_name(mem.type)));
    const std::string bad = element_mismatch(m, decl.buffers[i], t->element);
    if (!bad.empty())
      spirv_fail(decl, binding,
                 buffer_label(decl, i) + ": the shader's reference '" + mem.name + "' has " + bad);
  }
}

void check_descriptors(const PairDeclaration& decl, const spirv::Module& m, Binding binding) {
  std::vector<const spirv::Block*> at(decl.buffers.size(), nullptr);
  for (const auto& b : m.blocks) {
    if (b.storage_class != spirv::kStorageBuffer && b.storage_class != spirv::kUniform) continue;
    const std::uint32_t set = b.set.value_or(0), bind = b.binding.value_or(0);
    const spirv::Type* block_type = m.type(b.struct_type);
    const std::string label = b.variable.empty() && block_type ? block_type->name : b.variable;
    const std::string where = fmt::format("'{}' (set {}, binding {})", label, set, bind);
    if (binding == Binding::bda)
      spirv_fail(decl, binding, "the bda form binds no descriptors, but the shader has " + where);
    if (set != 0 || bind >= decl.buffers.size())
      spirv_fail(decl, binding,
                 fmt::format("the shader binds {}; the declaration's {} buffers are set 0, "
                             "bindings 0..{}",
                             where, decl.buffers.size(), decl.buffers.size() - 1));
    at[bind] = &b;
  }
  for (std::size_t i = 0; i < at.size() && binding == Binding::descriptor; ++i) {
    if (!at[i] && decl.step_view) continue;  // a step's shader declares the buffers it uses
    if (!at[i])
      spirv_fail(decl, binding,
                 fmt::format("{}: the shader has no storage buffer at set 0, binding {}",
                             buffer_label(decl, i), i));
    const std::string bad = element_mismatch(m, decl.buffers[i], at[i]->struct_type);
    const spirv::Type* block_type = m.type(at[i]->struct_type);
    const std::string label =
        at[i]->variable.empty() && block_type ? block_type->name : at[i]->variable;
    if (!bad.empty())
      spirv_fail(decl, binding,
                 buffer_label(decl, i) + ": the shader's '" + label + "' has " + bad);
  }
}

void check_spirv(const PairDeclaration& decl, const CompiledSpirv& spirv) {
  const spirv::Module m = spirv::reflect(spirv.words.data(), spirv.words.size());
  const spirv::Execution& e = m.execution;
  if (std::find(e.entries.begin(), e.entries.end(), spirv.entry) == e.entries.end()) {
    std::string list;
    for (const auto& n : e.entries) list += (list.empty() ? "" : ", ") + n;
    spirv_fail(decl, spirv.binding,
               "glsl.entry '" + spirv.entry + "' is not a compute entry point (the module has: " +
                   (list.empty() ? "none" : list) + ")");
  }
  // The short form sets SpecId 0 to the block size: only where SpecId 0 is the workgroup's x
  // and decorates nothing else.
  if (!e.spec_clash.empty()) spirv_fail(decl, spirv.binding, e.spec_clash);
  if (!e.spec_x)
    spirv_fail(decl, spirv.binding,
               "the workgroup size must come from specialization constant 0: declare "
               "`layout(local_size_x_id = 0) in;`" +
                   (e.size_spec_id ? fmt::format(" (the shader's is specialization constant {})",
                                                 *e.size_spec_id)
                    : e.fixed.empty() ? ""
                                      : " (the shader has " + e.fixed + ")"));
  check_descriptors(decl, m, spirv.binding);
  check_push_constants(decl, m, spirv.binding);
}

}  // namespace

std::string fold_warning(const PairDeclaration& decl, const CompiledSpirv& spirv, std::uint64_t n,
                         const std::vector<std::uint32_t>& run_block_sizes,
                         std::uint32_t max_grid_x) {
  if (!decl.launch.grid.empty() || max_grid_x == 0) return "";  // a named grid is never folded
  const std::vector<std::uint32_t>& blocks =
      decl.launch.block_sizes.empty() ? run_block_sizes : decl.launch.block_sizes;
  for (std::uint32_t block : blocks) {
    if (block == 0) continue;
    const std::int64_t threads =
        eval_expr(decl.launch.threads,
                  {{"n", static_cast<std::int64_t>(n)}, {"block", static_cast<std::int64_t>(block)}},
                  decl.file + ": launch.threads");
    const std::uint64_t groups = (static_cast<std::uint64_t>(std::max<std::int64_t>(threads, 0)) +
                                  block - 1) / block;
    if (groups <= max_grid_x) continue;
    if (spirv::grid_y_reads(spirv.words.data(), spirv.words.size()).any()) return "";
    const std::string shader = std::filesystem::path(decl.glsl.source.empty() ? decl.glsl.spirv
                                                                 : decl.glsl.source)
                                   .filename()
                                   .string();
    return fmt::format(
        "{}: {} ({} form) reads neither gl_WorkGroupID.y, gl_NumWorkGroups nor "
        "gl_GlobalInvocationID.y, but at block {} launch.threads = {} takes {} workgroups, more "
        "than the device's {} in x: the grid is folded into y, where an index from x alone repeats "
        "y = 0's and leaves elements unwritten (docs/PAIRS.md, Geometry)",
        decl.file, shader, binding_name(spirv.binding), block, threads, groups, max_grid_x);
  }
  return "";
}

void check_interfaces(const PairDeclaration& decl, const CompiledCuda* cuda,
                      const CompiledSpirv* spirv) {
  if (cuda) check_cuda(decl, *cuda);
  if (spirv) check_spirv(decl, *spirv);
}

}  // namespace cuvk::pairs
