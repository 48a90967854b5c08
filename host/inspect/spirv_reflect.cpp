#include "spirv_reflect.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "error.h"
#include "numbers.h"

#ifdef CUVK_HAVE_SPIRV_TOOLS
#include <spirv-tools/libspirv.h>
#endif

namespace cuvk::spirv {
namespace {

std::string literal_string(const std::uint32_t* words, std::size_t count) {
  std::string s;
  for (std::size_t w = 0; w < count; ++w)
    for (int b = 0; b < 4; ++b) {
      const char c = static_cast<char>((words[w] >> (8 * b)) & 0xFFu);
      if (c == '\0') return s;
      s += c;
    }
  return s;
}

}  // namespace

const char* storage_class_name(std::uint32_t sc) {
  switch (sc) {
    case kUniformConstant: return "UniformConstant";
    case kInput: return "Input";
    case kUniform: return "Uniform";
    case kFunction: return "Function";
    case kPushConstant: return "PushConstant";
    case kStorageBuffer: return "StorageBuffer";
    case kPhysicalStorageBuffer: return "PhysicalStorageBuffer";
    default: return "other";
  }
}

const Type* Module::type(std::uint32_t id) const {
  const auto it = types.find(id);
  return it == types.end() ? nullptr : &it->second;
}

std::string Module::type_name(std::uint32_t id) const {
  const Type* t = type(id);
  if (t == nullptr) return "?";
  switch (t->kind) {
    case Type::Kind::void_: return "void";
    case Type::Kind::bool_: return "bool";
    case Type::Kind::float_:
      return t->width == 32   ? "float"
             : t->width == 64 ? "double"
                              : fmt::format("float{}", t->width);
    case Type::Kind::int_:
      if (t->width == 32) return t->is_signed ? "int" : "uint";
      return fmt::format("{}{}_t", t->is_signed ? "int" : "uint", t->width);
    case Type::Kind::vector: {
      const Type* e = type(t->element);
      std::string prefix = "vec";
      if (e && e->kind == Type::Kind::int_) prefix = e->is_signed ? "ivec" : "uvec";
      if (e && e->kind == Type::Kind::bool_) prefix = "bvec";
      if (e && e->kind == Type::Kind::float_ && e->width == 64) prefix = "dvec";
      return fmt::format("{}{}", prefix, t->count);
    }
    case Type::Kind::matrix: return "mat";
    case Type::Kind::array:
      return fmt::format("{}[{}]", type_name(t->element), t->count);
    case Type::Kind::runtime_array: return type_name(t->element) + "[]";
    case Type::Kind::struct_: return t->name.empty() ? "struct" : t->name;
    case Type::Kind::pointer: return "ptr<" + type_name(t->element) + ">";
    case Type::Kind::function: return "function";
    case Type::Kind::unknown: break;
  }
  return "?";
}

std::uint32_t Module::align_of(std::uint32_t id) const {
  const Type* t = type(id);
  if (t == nullptr) return 0;
  switch (t->kind) {
    case Type::Kind::bool_: return 4;
    case Type::Kind::int_:
    case Type::Kind::float_: return t->width / 8;
    case Type::Kind::vector: return (t->count == 2 ? 2 : 4) * align_of(t->element);
    case Type::Kind::array:
    case Type::Kind::runtime_array: return align_of(t->element);
    case Type::Kind::pointer: return 8;
    case Type::Kind::struct_: {
      std::uint32_t a = 1;
      for (const Member& m : t->members) a = std::max(a, align_of(m.type));
      return a;
    }
    default: return 0;
  }
}

std::uint32_t Module::size_of(std::uint32_t id) const {
  const Type* t = type(id);
  if (t == nullptr) return 0;
  switch (t->kind) {
    case Type::Kind::bool_: return 4;
    case Type::Kind::int_:
    case Type::Kind::float_: return t->width / 8;
    case Type::Kind::vector: return t->count * size_of(t->element);
    case Type::Kind::array:
      return t->count * (t->array_stride ? *t->array_stride : size_of(t->element));
    case Type::Kind::runtime_array: return 0;
    case Type::Kind::pointer: return 8;
    case Type::Kind::struct_: {
      std::uint32_t extent = 0;
      for (const Member& m : t->members)
        extent = std::max(extent, m.offset.value_or(0) + size_of(m.type));
      return round_up(extent, align_of(id));
    }
    default: return 0;
  }
}

namespace {

// What one pass over the instructions collects before types, blocks and accesses are resolved.
struct Parse {
  std::map<std::uint32_t, std::string> names;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> member_names;
  std::map<std::uint32_t, std::uint32_t> constants;   // id -> first value word
  std::map<std::uint32_t, std::uint32_t> value_type;  // id -> type id (pointers we follow)
  struct Var {
    std::uint32_t id, type, storage_class;
  };
  std::vector<Var> variables;
  struct Decor {
    std::uint32_t target, member, decoration, value;
    bool is_member;
  };
  std::vector<Decor> decorations;
  struct RawAccess {
    bool store;
    std::uint32_t type_or_zero, pointer, alignment;
  };
  std::vector<RawAccess> raw;
  // The workgroup size: every SpecId decoration (constant -> id, in module order), the
  // WorkgroupSize built-in, each OpSpecConstantComposite's first part, LocalSizeId's x.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> spec_ids;
  std::uint32_t workgroup_builtin = 0, size_id_x = 0;
  std::map<std::uint32_t, std::uint32_t> composite_x;
};

// One OpType* instruction; false when `op` declares no type.
bool parse_type(std::uint32_t op, const std::uint32_t* w, std::uint32_t wc, Module& m, Parse& p) {
  auto arg = [&](std::uint32_t k) { return k < wc ? w[k] : 0u; };
  switch (op) {
    case spv::OpTypeVoid:
      m.types[arg(1)].kind = Type::Kind::void_;
      return true;
    case spv::OpTypeBool:
      m.types[arg(1)].kind = Type::Kind::bool_;
      return true;
    case spv::OpTypeFunction:
      m.types[arg(1)].kind = Type::Kind::function;
      return true;
    case spv::OpTypeInt: {
      Type& t = m.types[arg(1)];
      t.kind = Type::Kind::int_;
      t.width = arg(2);
      t.is_signed = arg(3) != 0;
      return true;
    }
    case spv::OpTypeFloat: {
      Type& t = m.types[arg(1)];
      t.kind = Type::Kind::float_;
      t.width = arg(2);
      return true;
    }
    case spv::OpTypeVector:
    case spv::OpTypeMatrix: {
      Type& t = m.types[arg(1)];
      t.kind = op == spv::OpTypeVector ? Type::Kind::vector : Type::Kind::matrix;
      t.element = arg(2);
      t.count = arg(3);
      return true;
    }
    case spv::OpTypeArray: {
      Type& t = m.types[arg(1)];
      t.kind = Type::Kind::array;
      t.element = arg(2);
      t.count = p.constants.count(arg(3)) ? p.constants[arg(3)] : 0;
      return true;
    }
    case spv::OpTypeRuntimeArray: {
      Type& t = m.types[arg(1)];
      t.kind = Type::Kind::runtime_array;
      t.element = arg(2);
      return true;
    }
    case spv::OpTypeStruct: {
      Type& t = m.types[arg(1)];
      t.kind = Type::Kind::struct_;
      for (std::uint32_t k = 2; k < wc; ++k) t.members.push_back(Member{"", w[k], {}, false, false, false});
      return true;
    }
    case spv::OpTypePointer: {
      Type& t = m.types[arg(1)];
      t.kind = Type::Kind::pointer;
      t.storage_class = arg(2);
      t.element = arg(3);
      return true;
    }
    default: return false;
  }
}

// Every other instruction cuvk reads: names, decorations, constants, variables, loads, stores
// and the instructions whose result type lets a pointer be followed.
void parse_instruction(std::uint32_t op, const std::uint32_t* w, std::uint32_t wc, Parse& p) {
  auto arg = [&](std::uint32_t k) { return k < wc ? w[k] : 0u; };
  switch (op) {
    case spv::OpSpecConstantComposite:
      if (wc >= 4) p.composite_x[arg(2)] = arg(3);
      break;
    case spv::OpExecutionModeId:
      if (wc >= 6 && arg(2) == spv::ExecutionModeLocalSizeId) p.size_id_x = arg(3);
      break;
    case spv::OpName:
      p.names[arg(1)] = literal_string(w + 2, wc - 2);
      break;
    case spv::OpMemberName:
      p.member_names[{arg(1), arg(2)}] = literal_string(w + 3, wc - 3);
      break;
    case spv::OpDecorate:
      p.decorations.push_back({arg(1), 0, arg(2), arg(3), false});
      if (wc >= 4 && arg(2) == spv::DecorationSpecId) p.spec_ids.emplace_back(arg(1), arg(3));
      if (wc >= 4 && arg(2) == spv::DecorationBuiltIn && arg(3) == spv::BuiltInWorkgroupSize)
        p.workgroup_builtin = arg(1);
      break;
    case spv::OpMemberDecorate:
      p.decorations.push_back({arg(1), arg(2), arg(3), arg(4), true});
      break;
    case spv::OpConstant:
      p.constants[arg(2)] = arg(3);
      break;
    case spv::OpVariable:
      p.value_type[arg(2)] = arg(1);
      p.variables.push_back({arg(2), arg(1), arg(3)});
      break;
    case spv::OpLoad:
      p.value_type[arg(2)] = arg(1);
      p.raw.push_back({false, arg(1), arg(3),
                       (wc > 5 && (arg(4) & spv::MemoryAccessAlignedMask)) ? arg(5) : 0u});
      break;
    case spv::OpStore:
      p.raw.push_back(
          {true, 0, arg(1), (wc > 4 && (arg(3) & spv::MemoryAccessAlignedMask)) ? arg(4) : 0u});
      break;
    case spv::OpFunctionParameter:
    case spv::OpFunctionCall:
    case spv::OpAccessChain:
    case spv::OpInBoundsAccessChain:
    case spv::OpPtrAccessChain:
    case spv::OpInBoundsPtrAccessChain:
    case spv::OpCopyObject:
    case spv::OpConvertUToPtr:
    case spv::OpBitcast:
    case spv::OpSelect:
    case spv::OpPhi:
      p.value_type[arg(2)] = arg(1);
      break;
    default: break;
  }
}

// OpEntryPoint (GLCompute) and OpExecutionMode LocalSize; false for any other instruction.
bool parse_execution(std::uint32_t op, const std::uint32_t* w, std::uint32_t wc, Execution& e) {
  if (op == spv::OpEntryPoint) {
    if (wc >= 4 && w[1] == spv::ExecutionModelGLCompute)
      e.entries.push_back(literal_string(w + 3, wc - 3));
    return true;
  }
  if (op != spv::OpExecutionMode) return false;
  if (wc >= 6 && w[2] == spv::ExecutionModeLocalSize)
    e.fixed = fmt::format("LocalSize {} {} {}", w[3], w[4], w[5]);
  return true;
}

void apply_names_and_decorations(Module& m, const Parse& p) {
  for (auto& [id, t] : m.types) {
    if (t.kind != Type::Kind::struct_) continue;
    if (const auto n = p.names.find(id); n != p.names.end()) t.name = n->second;
    for (std::uint32_t k = 0; k < t.members.size(); ++k)
      if (const auto n = p.member_names.find({id, k}); n != p.member_names.end())
        t.members[k].name = n->second;
  }
  for (const Parse::Decor& d : p.decorations) {
    const auto it = m.types.find(d.target);
    if (it == m.types.end()) continue;
    Type& t = it->second;
    if (!d.is_member) {
      if (d.decoration == spv::DecorationBlock || d.decoration == spv::DecorationBufferBlock)
        t.block = true;
      if (d.decoration == spv::DecorationArrayStride) t.array_stride = d.value;
    } else if (d.member < t.members.size()) {
      Member& mem = t.members[d.member];
      if (d.decoration == spv::DecorationOffset) mem.offset = d.value;
      if (d.decoration == spv::DecorationNonWritable) mem.non_writable = true;
      if (d.decoration == spv::DecorationNonReadable) mem.non_readable = true;
      if (d.decoration == spv::DecorationRestrict) mem.restrict_ = true;
    }
  }
}

// Blocks: descriptor-bound buffers and push constants (variables), then buffer-reference blocks
// (pointee structs of PhysicalStorageBuffer pointers), named after the member holding the pointer.
void collect_blocks(Module& m, const Parse& p) {
  for (const Parse::Var& v : p.variables) {
    const Type* ptr = m.type(v.type);
    const Type* s = ptr ? m.type(ptr->element) : nullptr;
    if (!s || s->kind != Type::Kind::struct_ || !s->block) continue;
    if (v.storage_class != kStorageBuffer && v.storage_class != kUniform &&
        v.storage_class != kPushConstant)
      continue;
    Block b;
    b.storage_class = v.storage_class;
    b.struct_type = ptr->element;
    if (const auto n = p.names.find(v.id); n != p.names.end()) b.variable = n->second;
    for (const Parse::Decor& d : p.decorations) {
      if (d.is_member || d.target != v.id) continue;
      if (d.decoration == spv::DecorationDescriptorSet) b.set = d.value;
      if (d.decoration == spv::DecorationBinding) b.binding = d.value;
    }
    m.blocks.push_back(b);
  }
  for (const auto& [id, t] : m.types) {
    if (t.kind != Type::Kind::pointer || t.storage_class != kPhysicalStorageBuffer) continue;
    const Type* s = m.type(t.element);
    if (!s || s->kind != Type::Kind::struct_ || !s->block) continue;
    Block b;
    b.storage_class = kPhysicalStorageBuffer;
    b.struct_type = t.element;
    for (const auto& [sid, st] : m.types)
      if (st.kind == Type::Kind::struct_)
        for (const Member& mem : st.members)
          if (mem.type == id) b.variable = mem.name;
    m.blocks.push_back(b);
  }
}

void collect_accesses(Module& m, const Parse& p) {
  for (const Parse::RawAccess& a : p.raw) {
    const auto vt = p.value_type.find(a.pointer);
    const Type* ptr = vt == p.value_type.end() ? nullptr : m.type(vt->second);
    if (!ptr || ptr->kind != Type::Kind::pointer) continue;
    m.accesses.push_back({a.store, a.store ? ptr->element : a.type_or_zero, ptr->storage_class, a.alignment});
  }
}

// Which specialization constant sizes the workgroup's x (the WorkgroupSize built-in's first part,
// else LocalSizeId's x) and its SpecId; every SpecId with its constant's name; and a SpecId that
// sizes the workgroup while it also decorates another constant (glslang accepts
// `layout(constant_id = 0) const bool f` beside `local_size_x_id = 0`: one value would set both).
void workgroup_spec(const Parse& p, Execution& e) {
  const auto c = p.composite_x.find(p.workgroup_builtin);
  const std::uint32_t x = c != p.composite_x.end() ? c->second : p.size_id_x;
  auto name_of = [&](std::uint32_t id) {
    const auto n = p.names.find(id);
    return n != p.names.end() && !n->second.empty() ? n->second : fmt::format("%{}", id);
  };
  for (const auto& [target, spec_id] : p.spec_ids) {
    e.spec_constants.push_back({spec_id, name_of(target), target == x});
    if (x != 0 && target == x) e.size_spec_id = spec_id;
  }
  if (!e.size_spec_id) return;
  e.spec_x = *e.size_spec_id == 0;
  for (const SpecConstant& s : e.spec_constants)
    if (!s.sizes_workgroup && s.spec_id == *e.size_spec_id)
      e.spec_clash = fmt::format(
          "SpecId {} sizes the workgroup (local_size_x_id = {}) and also decorates the constant "
          "'{}': one value would set both; give '{}' another constant_id",
          s.spec_id, s.spec_id, s.name, s.name);
}

}  // namespace

Module reflect(const std::uint32_t* words, std::size_t count) {
  if (words == nullptr || count < kHeaderWords || words[0] != spv::MagicNumber)
    throw Error("not a SPIR-V module (bad magic number or too short)");
  Module m;
  m.version = words[1];
  Parse p;
  for (std::size_t i = kHeaderWords; i < count;) {
    const std::uint32_t wc = words[i] >> spv::WordCountShift, op = words[i] & spv::OpCodeMask;
    if (wc == 0 || i + wc > count) throw Error("malformed SPIR-V: instruction runs past the end");
    ++m.instructions;
    if (!parse_type(op, words + i, wc, m, p) && !parse_execution(op, words + i, wc, m.execution))
      parse_instruction(op, words + i, wc, p);
    i += wc;
  }
  workgroup_spec(p, m.execution);
  apply_names_and_decorations(m, p);
  collect_blocks(m, p);
  collect_accesses(m, p);
  return m;
}

#ifdef CUVK_HAVE_SPIRV_TOOLS
bool have_disassembler() { return true; }

std::string disassemble(const std::uint32_t* words, std::size_t count) {
  const std::unique_ptr<spv_context_t, void (*)(spv_context)> context(
      spvContextCreate(SPV_ENV_VULKAN_1_1), spvContextDestroy);
  spv_text text = nullptr;
  spv_diagnostic diagnostic = nullptr;
  const spv_result_t result = spvBinaryToText(
      context.get(), words, count,
      SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT, &text,
      &diagnostic);
  std::string out;
  if (result == SPV_SUCCESS && text != nullptr) out.assign(text->str, text->length);
  std::string why = diagnostic && diagnostic->error ? diagnostic->error : "spvBinaryToText failed";
  spvTextDestroy(text);
  spvDiagnosticDestroy(diagnostic);
  if (result != SPV_SUCCESS) throw Error("SPIR-V disassembly failed: " + why);
  return out;
}
#else
bool have_disassembler() { return false; }

std::string disassemble(const std::uint32_t*, std::size_t) {
  throw Error("this cuvk was built without SPIRV-Tools (Debian package spirv-tools), so it cannot "
              "disassemble SPIR-V; `spirv-dis` on a module does the same");
}
#endif

}  // namespace cuvk::spirv
