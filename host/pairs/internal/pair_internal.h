// Internals of the declaration reader shared by its files: toml++ (header-only use, compiled
// once in reader.cpp), the Fields helper that reads one table and refuses unknown keys.
#pragma once

#define TOML_HEADER_ONLY 0
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pair.h"

namespace cuvk::pairs {

namespace fs = std::filesystem;

inline int line_of(const toml::node& node) {
  return static_cast<int>(node.source().begin.line);
}

// One TOML table being read: every key taken is remembered, finish() refuses the others.
class Fields {
 public:
  Fields(const toml::table& table, const std::string& file, const std::string& prefix)
      : t_(table), file_(file), prefix_(prefix) {}

  [[noreturn]] void fail(const std::string& key, const std::string& why, int line = 0) const {
    throw DeclarationError(where(key, line ? line : line_of(t_)) + ": " + why);
  }
  std::string where(const std::string& key, int line) const {
    std::string w = file_;
    if (line > 0) w += fmt::format(":{}", line);
    return w + ": " + field(key);
  }
  std::string field(const std::string& key) const {
    return prefix_.empty() ? key : prefix_ + "." + key;
  }
  int line(const std::string& key) const {
    const toml::node* n = t_.get(key);
    return n ? line_of(*n) : line_of(t_);
  }
  bool has(const std::string& key) const { return t_.contains(key); }
  const toml::node* node(const std::string& key) {
    taken_.insert(key);
    return t_.get(key);
  }

  std::optional<std::string> str(const std::string& key, bool required) {
    const toml::node* n = node(key);
    if (!n) {
      if (required) fail(key, "missing (a string)");
      return std::nullopt;
    }
    if (!n->is_string())
      fail(key, std::string("must be a string, not ") + type_of(*n), line_of(*n));
    const std::string s = **n->as_string();
    if (s.empty()) fail(key, "must not be empty", line_of(*n));
    return s;
  }
  // A string or an integer, kept as expression text.
  std::optional<std::string> expr_text(const std::string& key, bool required) {
    const toml::node* n = node(key);
    if (!n) {
      if (required) fail(key, "missing (an integer or an expression in n)");
      return std::nullopt;
    }
    if (n->is_integer()) return std::to_string(**n->as_integer());
    if (!n->is_string())
      fail(key, std::string("must be an integer or an expression string, not ") + type_of(*n),
           line_of(*n));
    return **n->as_string();
  }
  std::optional<std::int64_t> integer(const std::string& key, std::int64_t lo, std::int64_t hi) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_integer())
      fail(key, std::string("must be an integer, not ") + type_of(*n), line_of(*n));
    const std::int64_t v = **n->as_integer();
    if (v < lo || v > hi)
      fail(key, fmt::format("{} is out of range [{}, {}]", v, lo, hi), line_of(*n));
    return v;
  }
  std::optional<double> number(const std::string& key) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    double v = 0;
    if (n->is_integer()) {
      v = static_cast<double>(**n->as_integer());
    } else if (n->is_floating_point()) {
      v = **n->as_floating_point();
    } else {
      fail(key, std::string("must be a number, not ") + type_of(*n), line_of(*n));
    }
    if (!std::isfinite(v)) fail(key, "must be finite", line_of(*n));
    return v;
  }
  std::optional<bool> boolean(const std::string& key) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_boolean())
      fail(key, std::string("must be true or false, not ") + type_of(*n), line_of(*n));
    return **n->as_boolean();
  }
  std::vector<std::string> strings(const std::string& key) {
    const toml::node* n = node(key);
    std::vector<std::string> out;
    if (!n) return out;
    const toml::array* a = n->as_array();
    if (!a) fail(key, std::string("must be an array of strings, not ") + type_of(*n), line_of(*n));
    for (const toml::node& e : *a) {
      if (!e.is_string()) fail(key, "must be an array of strings", line_of(e));
      out.push_back(**e.as_string());
    }
    return out;
  }
  // Refuses keys nobody took, naming the first one.
  void finish(const std::vector<std::string>& allowed) const {
    for (const auto& [k, v] : t_) {
      const std::string key(k.str());
      if (taken_.count(key)) continue;
      throw DeclarationError(fmt::format("{}: unknown key (known here: {})",
                                         where(key, static_cast<int>(k.source().begin.line)),
                                         fmt::join(allowed, ", ")));
    }
  }
  void take(const std::string& key) { taken_.insert(key); }
  const std::string& file() const { return file_; }

  static const char* type_of(const toml::node& n) {
    switch (n.type()) {
      case toml::node_type::table:
        return "a table";
      case toml::node_type::array:
        return "an array";
      case toml::node_type::string:
        return "a string";
      case toml::node_type::integer:
        return "an integer";
      case toml::node_type::floating_point:
        return "a float";
      case toml::node_type::boolean:
        return "a boolean";
      default:
        return "a date or time";
    }
  }

 private:
  const toml::table& t_;
  std::string file_, prefix_;
  std::set<std::string> taken_;
};

// A path in the declaration: relative to the declaration's folder; must name a readable file.
inline std::string resolve(Fields& f, const std::string& key, const std::string& value,
                           const fs::path& dir) {
  const fs::path p = fs::path(value).is_absolute() ? fs::path(value) : dir / value;
  std::error_code ec;
  if (!fs::is_regular_file(p, ec))
    f.fail(key, "'" + p.string() + "' is not a readable file", f.line(key));
  return p.lexically_normal().string();
}

inline bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// root[key] as a table; an empty table when absent and not required.
const toml::table& sub_table(const toml::table& root, const std::string& key,
                             const std::string& file, bool required);
// The parts of parse_pair() in reader_parts.cpp.
void read_buffers(const toml::table& root, const std::string& file, const fs::path& dir,
                  PairDeclaration& d);
void read_scalars(const toml::table& root, const std::string& file, PairDeclaration& d);
void read_launch(const toml::table& root, const std::string& file, PairDeclaration& d);
// A launch table's fields: threads or grid and shared_bytes (`shape`), block_sizes (`sizes`).
// The caller finishes the table (its own keys besides).
void read_launch_fields(Fields& f, LaunchDecl& launch, bool shape, bool sizes);
// Evaluates a launch's expressions at n and each of `blocks`; `where` prefixes the field.
void validate_launch(const LaunchDecl& launch, const std::vector<std::uint32_t>& blocks,
                     std::uint64_t n, const std::string& where);
// The block sizes expressions are checked at: the declared ones, else the default block (256).
std::vector<std::uint32_t> check_blocks(const LaunchDecl& launch);
// The [cuda] and [glsl] tables' fields (reader.cpp), for the pair's tables and each step's:
// `entry_required` (cuda); `defaults` gives the source and options a step inherits; `bda`:
// whether the bda keys are allowed (not in steps).
void read_cuda_fields(Fields& f, const fs::path& dir, CudaDecl& cuda, bool entry_required,
                      const CudaDecl* defaults);
void read_glsl_fields(Fields& f, const fs::path& dir, GlslDecl& glsl, bool bda);
// [[step]], repeat, state, sizes and n_max (reader_steps.cpp).
void read_steps(const toml::table& root, const std::string& file, const fs::path& dir,
                PairDeclaration& d);
void read_sequence_keys(Fields& root, PairDeclaration& d);
void validate_steps(const PairDeclaration& d);
const toml::array& table_array(const toml::table& root, const std::string& key,
                               const std::string& file, std::size_t max);
// Checks a buffer's input or expected-output file for `count` elements from its header or size
// alone (files.cpp); throws DeclarationError naming the file.
void check_buffer_file(const PairDeclaration& d, const BufferDecl& b, const std::string& path,
                       std::uint64_t count);
// Evaluates every expression at the default n (and each declared block size); `root_line` gives
// the line of a root-level field.
void validate_expressions(const PairDeclaration& d,
                          const std::function<int(const std::string&)>& root_line);

}  // namespace cuvk::pairs
