// The declaration reader: TOML (toml++), every field validated, every error naming the file, the
// field and the line.
#define TOML_IMPLEMENTATION  // toml++ compiled once, here (pair_internal.h)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "bounded_read.h"
#include "pair_internal.h"

namespace cuvk::pairs {
namespace {

constexpr std::size_t kMaxFileBytes = 1u << 20;  // a declaration is small

void check_defines(Fields& f, const std::string& key, const std::vector<std::string>& defines) {
  for (const auto& def : defines) {
    const std::string name = def.substr(0, def.find('='));
    if (!is_identifier(name)) f.fail(key, "'" + def + "' is not NAME or NAME=VALUE", f.line(key));
  }
}

void read_bda_fields(Fields& f, const fs::path& dir, GlslDecl& g) {
  const auto bda_source = f.str("bda_source", false);
  const auto bda_spirv = f.str("bda_spirv", false);
  if (bda_source && bda_spirv)
    f.fail("bda_spirv", "give at most one of glsl.bda_source and glsl.bda_spirv",
           f.line("bda_spirv"));
  if (bda_source) g.bda_source = resolve(f, "bda_source", *bda_source, dir);
  if (bda_spirv) g.bda_spirv = resolve(f, "bda_spirv", *bda_spirv, dir);
  g.bda_defines = f.strings("bda_defines");
  check_defines(f, "bda_defines", g.bda_defines);
  if (bda_spirv && !g.bda_defines.empty())
    f.fail("bda_defines", "bda_defines apply to GLSL source, not to glsl.bda_spirv",
           f.line("bda_defines"));
  if (!g.bda_defines.empty() && !bda_source && g.source.empty())
    f.fail("bda_defines", "needs glsl.source or glsl.bda_source to compile", f.line("bda_defines"));
}

// The pair's [cuda]: with [[step]] it gives the source (and options) the steps share, no entry.
void read_cuda(const toml::table& root, const std::string& file, const fs::path& dir,
               PairDeclaration& d) {
  const bool steps = root.contains("step");
  Fields f(sub_table(root, "cuda", file, true), file, "cuda");
  if (steps && f.has("entry"))
    f.fail("entry", "with [[step]] each step names its own entry ([step.cuda] entry)",
           f.line("entry"));
  read_cuda_fields(f, dir, d.cuda, !steps, nullptr);
  f.finish({"source", "entry", "options"});
}

// The pair's [glsl]: absent with [[step]] (each step gives its shader in [step.glsl]).
void read_glsl(const toml::table& root, const std::string& file, const fs::path& dir,
               PairDeclaration& d) {
  if (root.contains("step")) {
    if (const toml::node* g = root.get("glsl"))
      throw DeclarationError(
          fmt::format("{}:{}: glsl: with [[step]] each step gives its shader ([step.glsl] source "
                      "or spirv); remove the pair's [glsl]",
                      file, line_of(*g)));
    return;
  }
  Fields f(sub_table(root, "glsl", file, true), file, "glsl");
  read_glsl_fields(f, dir, d.glsl, true);
  f.finish({"source", "spirv", "entry", "defines", "bda_source", "bda_spirv", "bda_defines"});
}

}  // namespace

void read_cuda_fields(Fields& f, const fs::path& dir, CudaDecl& c, bool entry_required,
                      const CudaDecl* defaults) {
  const auto source = f.str("source", defaults == nullptr);
  c.source = source ? resolve(f, "source", *source, dir) : defaults->source;
  if (const auto entry = f.str("entry", entry_required)) c.entry = *entry;
  if (!c.entry.empty() && !is_identifier(c.entry))
    f.fail("entry", "'" + c.entry + "' is not a C identifier", f.line("entry"));
  c.options = f.has("options") || !defaults ? f.strings("options") : defaults->options;
}

void read_glsl_fields(Fields& f, const fs::path& dir, GlslDecl& g, bool bda) {
  const auto source = f.str("source", false);
  const auto spirv = f.str("spirv", false);
  if (source.has_value() == spirv.has_value())
    f.fail("source", "give exactly one of " + f.field("source") + " (a .comp file) and " +
                         f.field("spirv") + " (a .spv file)");
  if (source) g.source = resolve(f, "source", *source, dir);
  if (spirv) g.spirv = resolve(f, "spirv", *spirv, dir);
  if (const auto e = f.str("entry", false)) g.entry = *e;
  if (!is_identifier(g.entry))
    f.fail("entry", "'" + g.entry + "' is not an identifier", f.line("entry"));
  g.defines = f.strings("defines");
  check_defines(f, "defines", g.defines);
  if (spirv && !g.defines.empty())
    f.fail("defines", "defines apply to " + f.field("source") + ", not to a ready " +
                          f.field("spirv"), f.line("defines"));
  if (bda) read_bda_fields(f, dir, g);
}

namespace {

// toml++ 3.3 (Debian 12) reaches __builtin_unreachable() in is_non_ascii_horizontal_whitespace()
// for these code points wherever it looks for whitespace (found by fuzz_pair_reader): undefined
// behaviour, so they are refused before parsing. Inside strings they can be written as \uXXXX.
bool trips_tomlpp(std::uint32_t c) {
  return (c >= 0xA1 && c <= 0x499) || (c >= 0x2C5E && c <= 0x3057 && c != 0x3000) ||
         (c >= 0xFB26 && c <= 0xFEFE);
}

void refuse_troublesome_characters(const std::string& text, const std::string& path) {
  int line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b == '\n') ++line;
    if (b < 0xC0) continue;
    const std::size_t extra = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : 1;
    if (i + extra >= text.size()) return;  // cut short: toml++ reports invalid UTF-8
    std::uint32_t c = b & (0x3F >> extra);
    for (std::size_t k = 1; k <= extra; ++k)
      c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    if (trips_tomlpp(c)) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(c));
      throw DeclarationError(
          fmt::format("{}:{}: character {} is not read here (toml++ 3.3 mishandles it); write it "
                      "as \\u{} inside a string, or use ASCII",
                      path, line, hex, hex + 2));
    }
    i += extra;
  }
}

// Issue 49, class 10: a NUL in any string (a path, a name, an entry point, a define: "x.comp\u0000.y")
// would be cut there by the C APIs the string reaches (open, NVRTC, shaderc, Vulkan), so that
// "x.comp" is used silently; refused wherever it stands, naming the field by its path.
void refuse_nul_strings(const toml::node& n, const std::string& where, const std::string& file) {
  if (const toml::table* t = n.as_table()) {
    for (const auto& [k, v] : *t)
      refuse_nul_strings(v, where.empty() ? std::string(k.str()) : where + "." + std::string(k.str()),
                         file);
  } else if (const toml::array* a = n.as_array()) {
    for (std::size_t i = 0; i < a->size(); ++i)
      refuse_nul_strings(*a->get(i), fmt::format("{}[{}]", where, i), file);
  } else if (const auto* s = n.as_string(); s && (**s).find('\0') != std::string::npos) {
    throw DeclarationError(fmt::format(
        "{}:{}: {}: the string holds a NUL character (\\u0000) at offset {}: a path or name would "
        "be cut there; remove it",
        file, line_of(n), where, (**s).find('\0')));
  }
}

// No output, no verdict (issue 31): a pair compares at least one output buffer, unless it says it
// is timing only; then it declares none.
void check_outputs(const toml::table& root, const std::string& file, const PairDeclaration& d) {
  const bool any_output = std::any_of(d.buffers.begin(), d.buffers.end(),
                                      [](const BufferDecl& b) { return b.output; });
  if (d.timing_only && any_output) {
    const toml::node* t = root.get("timing_only");
    throw DeclarationError(
        fmt::format("{}:{}: timing_only: true, but a buffer is an output (output = true): a "
                    "timing-only pair compares nothing, so it declares no output",
                    file, t ? line_of(*t) : 0));
  }
  if (!d.timing_only && !any_output)
    throw DeclarationError(file + ": no buffer is an output (output = true): nothing would be "
                           "compared, so no row could be verified; mark the buffer the kernels "
                           "write, or declare timing_only = true to time it unchecked");
}

}  // namespace

const toml::table& sub_table(const toml::table& root, const std::string& key,
                             const std::string& file, bool required) {
  static const toml::table empty;
  const toml::node* n = root.get(key);
  if (!n) {
    if (required) throw DeclarationError(file + ": [" + key + "]: missing (a table)");
    return empty;
  }
  if (!n->is_table())
    throw DeclarationError(fmt::format("{}:{}: {}: must be a table, not {}", file, line_of(*n), key,
                                       Fields::type_of(*n)));
  return *n->as_table();
}

// Buffers, scalars and the launch: pair_parts.cpp.
PairDeclaration parse_pair(const std::string& text, const std::string& path) {
  refuse_troublesome_characters(text, path);
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw DeclarationError(fmt::format("{}:{}: {}", path, e.source().begin.line, e.description()));
  }
  refuse_nul_strings(root, "", path);
  const fs::path dir = fs::path(path).parent_path();
  PairDeclaration d;
  d.file = path;
  Fields f(root, path, "");
  d.name = *f.str("name", true);
  if (!is_identifier(d.name))
    f.fail("name", "'" + d.name + "' is not an identifier (letters, digits, _)", f.line("name"));
  if (const auto s = f.str("description", false)) d.description = *s;
  if (const auto v = f.integer("n", 1, std::numeric_limits<std::uint32_t>::max()))
    d.n = static_cast<std::uint64_t>(*v);
  d.useful_bytes = *f.expr_text("useful_bytes", true);
  check_expr(d.useful_bytes, {"n", "block"}, f.where("useful_bytes", f.line("useful_bytes")));
  d.timing_only = f.boolean("timing_only").value_or(false);
  for (const char* t : {"cuda", "glsl", "launch", "buffer", "scalar", "step"}) f.take(t);
  read_sequence_keys(f, d);  // repeat, state, sizes, n_max (reader_steps.cpp)
  f.finish({"name", "description", "n", "useful_bytes", "timing_only", "cuda", "glsl", "launch",
            "buffer", "scalar", "step", "repeat", "state", "sizes", "n_max"});
  read_cuda(root, path, dir, d);
  read_glsl(root, path, dir, d);
  read_buffers(root, path, dir, d);
  check_outputs(root, path, d);
  read_scalars(root, path, d);
  read_launch(root, path, d);
  read_steps(root, path, dir, d);
  validate_expressions(d, [&](const std::string& field) {
    // The line of a root-level field, for expression errors.
    const toml::node* n = root.get(field);
    return n ? line_of(*n) : 0;
  });
  validate_steps(d);
  return d;
}

PairDeclaration read_pair_file(const std::string& path) {
  // At most kMaxFileBytes + 1 bytes of a regular file: /dev/zero or a FIFO is refused, not read.
  std::string text;
  if (const std::string why = read_bounded(path, kMaxFileBytes, &text); !why.empty())
    throw DeclarationError(path + ": cannot read the pair declaration: it " + why);
  return parse_pair(text, path);
}

}  // namespace cuvk::pairs
