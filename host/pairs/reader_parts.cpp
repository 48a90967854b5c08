// The declaration reader's buffers, scalars and launch, and the evaluation of every expression at
// the default n.
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "pair_internal.h"

namespace cuvk::pairs {
namespace {

constexpr std::uint32_t kMaxStructBytes = 4096;
constexpr std::int64_t kMaxBlockSize = 1024;  // CUDA's limit; the device may allow less
constexpr std::int64_t kMaxGrid = std::numeric_limits<std::uint32_t>::max();
constexpr std::int64_t kMaxSharedBytes = 1 << 30;
constexpr std::uint32_t kDefaultBlock =
    256;  // the block used to check expressions when none is declared

std::optional<ElementType> parse_element_type(const std::string& s) {
  for (ElementType t : {ElementType::f32, ElementType::f64, ElementType::i32, ElementType::u32,
                        ElementType::raw16, ElementType::bytes})
    if (s == element_type_name(t)) return t;
  return std::nullopt;
}

std::optional<ScalarType> parse_scalar_type(const std::string& s) {
  for (ScalarType t : {ScalarType::i32, ScalarType::u32, ScalarType::f32, ScalarType::i64,
                       ScalarType::u64, ScalarType::f64})
    if (s == scalar_type_name(t)) return t;
  return std::nullopt;
}

bool is_float(ElementType t) {
  return t == ElementType::f32 || t == ElementType::f64;
}
bool is_int(ElementType t) {
  return t == ElementType::i32 || t == ElementType::u32;
}

// An integer-valued number within the element type's range (integer buffers' min, max, value).
void check_integral(Fields& f, const std::string& key, double v, ElementType t) {
  const double lo = t == ElementType::i32 ? -2147483648.0 : 0.0;
  const double hi = t == ElementType::i32     ? 2147483647.0
                    : t == ElementType::u32   ? 4294967295.0
                    : t == ElementType::raw16 ? 65535.0
                                              : 255.0;
  if (v != std::floor(v) || v < lo || v > hi)
    f.fail(key,
           fmt::format("must be an integer in [{}, {}] for type {}", static_cast<long long>(lo),
                       static_cast<long long>(hi), element_type_name(t)),
           f.line(key));
}

// An f32 value (a buffer's min, max or value, a scalar's value) within float's range: beyond it the
// value would become infinity when narrowed, silently.
void check_f32(Fields& f, const std::string& key, double v, int line) {
  if (std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max()))
    f.fail(key,
           "is beyond the range of f32 (magnitude at most " +
               [] {
                 std::ostringstream o;
                 o << std::setprecision(9) << std::numeric_limits<float>::max();
                 return o.str();
               }() +
               ")",
           line);
}

std::optional<InitKind> parse_init(const std::string& s) {
  for (InitKind k :
       {InitKind::random, InitKind::zero, InitKind::constant, InitKind::index, InitKind::file})
    if (s == init_kind_name(k)) return k;
  return std::nullopt;
}

// Keys that belong to one init kind only.
void only_with(Fields& f, const std::string& key, const BufferInit& init, InitKind kind) {
  if (f.has(key) && init.kind != kind)
    f.fail(key,
           std::string("only with init = \"") + init_kind_name(kind) + "\" (init is \"" +
               init_kind_name(init.kind) + "\")",
           f.line(key));
}

void read_init(Fields& f, const fs::path& dir, std::size_t index, BufferDecl& b) {
  const std::string init = f.str("init", false).value_or("random");
  const auto kind = parse_init(init);
  if (!kind)
    f.fail("init", "unknown init '" + init + "' (random, zero, constant, index, file)",
           f.line("init"));
  b.init.kind = *kind;
  b.init.given = f.has("init");
  for (const char* k : {"seed", "min", "max"}) only_with(f, k, b.init, InitKind::random);
  only_with(f, "value", b.init, InitKind::constant);
  only_with(f, "file", b.init, InitKind::file);
  b.init.seed =
      static_cast<std::uint64_t>(f.integer("seed", 0, std::numeric_limits<std::int64_t>::max())
                                     .value_or(1 + static_cast<std::int64_t>(index)));
  if (is_int(b.type)) {
    b.init.min = 0;
    b.init.max = 1000;
  }
  const auto lo = f.number("min"), hi = f.number("max");
  if ((lo || hi) && !is_float(b.type) && !is_int(b.type))
    f.fail(lo ? "min" : "max",
           "a range needs a numeric type (f32, f64, i32, u32), not " +
               std::string(element_type_name(b.type)),
           f.line(lo ? "min" : "max"));
  if (lo) b.init.min = *lo;
  if (hi) b.init.max = *hi;
  if (is_int(b.type)) {
    check_integral(f, "min", b.init.min, b.type);
    check_integral(f, "max", b.init.max, b.type);
  }
  if (b.type == ElementType::f32)
    for (const char* k : {"min", "max"})
      if (const auto v = f.number(k)) check_f32(f, k, *v, f.line(k));
  if (!(b.init.min < b.init.max) && !(is_int(b.type) && b.init.min == b.init.max))
    f.fail(lo ? "min" : "max",
           fmt::format("min ({:f}) must be below max ({:f})", b.init.min, b.init.max),
           f.line(lo ? "min" : "max"));
  if (b.init.kind == InitKind::constant) {
    const auto v = f.number("value");
    if (!v) f.fail("value", "missing: init = \"constant\" needs a value");
    if (!is_float(b.type)) check_integral(f, "value", *v, b.type);
    if (b.type == ElementType::f32) check_f32(f, "value", *v, f.line("value"));
    b.init.constant = *v;
  }
  if (b.init.kind == InitKind::file) b.init.file = resolve(f, "file", *f.str("file", true), dir);
}

void read_output(Fields& f, const fs::path& dir, BufferDecl& b) {
  b.output = f.boolean("output").value_or(false);
  for (const char* k : {"ulp", "abs", "expected", "partial", "nan_fraction"})
    if (!b.output && f.has(k)) f.fail(k, "only for an output buffer (output = true)", f.line(k));
  b.partial = f.boolean("partial").value_or(false);
  if (b.partial && b.init.given)
    f.fail("partial",
           "needs a write-only output (no init): unwritten elements are told by cuvk's poison",
           f.line("partial"));
  if (const auto frac = f.number("nan_fraction")) {
    if (!is_float(b.type))
      f.fail("nan_fraction", "only f32 and f64 outputs hold NaNs, not " +
                                 std::string(element_type_name(b.type)),
             f.line("nan_fraction"));
    if (!(*frac >= 0.0 && *frac <= 1.0))
      f.fail("nan_fraction", "must be between 0 and 1", f.line("nan_fraction"));
    b.nan_fraction = *frac;
  }
  if (f.has("ulp") && f.has("abs")) f.fail("abs", "give at most one of ulp and abs", f.line("abs"));
  if (const auto ulp = f.integer("ulp", 0, std::numeric_limits<std::int32_t>::max())) {
    if (!is_float(b.type))
      f.fail("ulp",
             "a ULP tolerance needs f32 or f64, not " + std::string(element_type_name(b.type)),
             f.line("ulp"));
    b.tolerance = {Tolerance::Kind::ulp, static_cast<double>(*ulp)};
  }
  if (const auto abs = f.number("abs")) {
    if (!is_float(b.type) && !is_int(b.type))
      f.fail("abs",
             "an absolute tolerance needs a numeric type, not " +
                 std::string(element_type_name(b.type)),
             f.line("abs"));
    if (*abs < 0) f.fail("abs", "must not be negative", f.line("abs"));
    b.tolerance = {Tolerance::Kind::abs, *abs};
  }
  if (const auto e = f.str("expected", false)) b.expected = resolve(f, "expected", *e, dir);
}

void read_buffer(const toml::table& t, const std::string& file, const fs::path& dir,
                 std::size_t index, PairDeclaration& d) {
  Fields f(t, file, fmt::format("buffer[{}]", index));
  BufferDecl b;
  b.line = line_of(t);
  b.name = *f.str("name", true);
  if (!is_identifier(b.name))
    f.fail("name", "'" + b.name + "' is not an identifier", f.line("name"));
  for (const auto& other : d.buffers)
    if (other.name == b.name) f.fail("name", "'" + b.name + "' names two buffers", f.line("name"));
  const std::string type = *f.str("type", true);
  const auto et = parse_element_type(type);
  if (!et)
    f.fail("type", "unknown type '" + type + "' (f32, f64, i32, u32, raw16, struct)",
           f.line("type"));
  b.type = *et;
  const auto bytes = f.integer("bytes", 1, kMaxStructBytes);
  if (b.type == ElementType::bytes && !bytes)
    f.fail("bytes", "missing: type = \"struct\" needs its size in bytes");
  if (b.type != ElementType::bytes && bytes)
    f.fail("bytes", "only for type = \"struct\"", f.line("bytes"));
  b.element_bytes = bytes                          ? static_cast<std::uint32_t>(*bytes)
                    : b.type == ElementType::f64   ? 8
                    : b.type == ElementType::raw16 ? 2
                                                   : 4;
  b.count = *f.expr_text("count", true);
  check_expr(b.count, {"n"}, f.where("count", f.line("count")));
  read_init(f, dir, index, b);
  read_output(f, dir, b);
  f.finish({"name", "type", "bytes", "count", "init", "seed", "min", "max", "value", "file",
            "output", "ulp", "abs", "expected", "partial", "nan_fraction"});
  d.buffers.push_back(b);
}

}  // namespace

const toml::array& table_array(const toml::table& root, const std::string& key,
                               const std::string& file, std::size_t max) {
  static const toml::array empty;
  const toml::node* n = root.get(key);
  if (!n) return empty;
  const toml::array* a = n->as_array();
  if (!a || !a->is_array_of_tables())
    throw DeclarationError(
        fmt::format("{}:{}: {}: must be an array of tables ([[{}]])", file, line_of(*n), key, key));
  if (a->size() > max)
    throw DeclarationError(
        fmt::format("{}:{}: {}: {} entries, at most {}", file, line_of(*n), key, a->size(), max));
  return *a;
}


void read_buffers(const toml::table& root, const std::string& file, const fs::path& dir,
                  PairDeclaration& d) {
  const toml::array& a = table_array(root, "buffer", file, kMaxBuffers);
  if (a.empty()) throw DeclarationError(file + ": buffer: missing (at least one [[buffer]])");
  for (std::size_t i = 0; i < a.size(); ++i) read_buffer(*a[i].as_table(), file, dir, i, d);
}

void read_scalars(const toml::table& root, const std::string& file, PairDeclaration& d) {
  const toml::array& a = table_array(root, "scalar", file, kMaxScalars);
  for (std::size_t i = 0; i < a.size(); ++i) {
    Fields f(*a[i].as_table(), file, fmt::format("scalar[{}]", i));
    ScalarDecl s;
    s.line = line_of(*a[i].as_table());
    s.name = *f.str("name", true);
    if (!is_identifier(s.name))
      f.fail("name", "'" + s.name + "' is not an identifier", f.line("name"));
    for (const auto& b : d.buffers)
      if (b.name == s.name) f.fail("name", "'" + s.name + "' also names a buffer", f.line("name"));
    for (const auto& o : d.scalars)
      if (o.name == s.name) f.fail("name", "'" + s.name + "' names two scalars", f.line("name"));
    const std::string type = *f.str("type", true);
    const auto st = parse_scalar_type(type);
    if (!st)
      f.fail("type", "unknown type '" + type + "' (i32, u32, f32, i64, u64, f64)", f.line("type"));
    s.type = *st;
    const bool fl = s.type == ScalarType::f32 || s.type == ScalarType::f64;
    const toml::node* v = f.node("value");
    if (!v) f.fail("value", "missing (a number, or an integer expression in n)");
    if (v->is_floating_point()) {
      if (!fl) f.fail("value", "a float for an integer scalar of type " + type, line_of(*v));
      s.number = **v->as_floating_point();
      if (!std::isfinite(*s.number)) f.fail("value", "must be finite", line_of(*v));
      if (s.type == ScalarType::f32) check_f32(f, "value", *s.number, line_of(*v));
    } else if (v->is_integer() || v->is_string()) {
      s.value = *f.expr_text("value", true);
      check_expr(s.value, {"n"}, f.where("value", line_of(*v)));
    } else {
      f.fail("value",
             std::string("must be a number or an expression string, not ") + Fields::type_of(*v),
             line_of(*v));
    }
    f.finish({"name", "type", "value"});
    d.scalars.push_back(s);
  }
}

void read_launch_fields(Fields& f, LaunchDecl& l, bool shape, bool sizes) {
  const auto threads = shape ? f.expr_text("threads", false) : std::nullopt;
  const toml::node* grid = shape ? f.node("grid") : nullptr;
  if (shape && threads.has_value() == (grid != nullptr))
    f.fail("threads", "give exactly one of " + f.field("threads") + " (an expression in n) and " +
                          f.field("grid") + " (blocks in x[, y])");
  if (threads) {
    l.threads = *threads;
    check_expr(l.threads, {"n", "block"}, f.where("threads", f.line("threads")));
  } else if (grid) {
    const toml::array* a = grid->as_array();
    if (!a || a->empty() || a->size() > 2)
      f.fail("grid", "must be an array of 1 or 2 entries (blocks in x, y)", line_of(*grid));
    for (const toml::node& e : *a) {
      if (e.is_integer()) {
        l.grid.push_back(std::to_string(**e.as_integer()));
      } else if (e.is_string()) {
        l.grid.push_back(**e.as_string());
      } else {
        f.fail("grid", "entries must be integers or expression strings", line_of(e));
      }
      check_expr(l.grid.back(), {"n", "block"}, f.where("grid", line_of(e)));
    }
  }
  if (const toml::node* bs = sizes ? f.node("block_sizes") : nullptr) {
    const toml::array* a = bs->as_array();
    if (!a || a->empty())
      f.fail("block_sizes", "must be a non-empty array of integers", line_of(*bs));
    for (const toml::node& e : *a) {
      if (!e.is_integer() || **e.as_integer() < 1 || **e.as_integer() > kMaxBlockSize)
        f.fail("block_sizes", "entries must be integers in [1, 1024]", line_of(e));
      const auto v = static_cast<std::uint32_t>(**e.as_integer());
      if (std::find(l.block_sizes.begin(), l.block_sizes.end(), v) != l.block_sizes.end())
        f.fail("block_sizes", fmt::format("{} given twice", v), line_of(e));
      l.block_sizes.push_back(v);
    }
  }
  if (!shape) return;
  if (const auto sb = f.expr_text("shared_bytes", false)) l.shared_bytes = *sb;
  check_expr(l.shared_bytes, {"n", "block"}, f.where("shared_bytes", f.line("shared_bytes")));
}

// With [[step]] the pair's [launch] is optional and gives only block_sizes (each step its shape).
void read_launch(const toml::table& root, const std::string& file, PairDeclaration& d) {
  const bool steps = root.contains("step");
  const toml::table& t = sub_table(root, "launch", file, !steps);
  Fields f(t, file, "launch");
  d.launch.line = line_of(t);
  read_launch_fields(f, d.launch, !steps, true);
  if (steps)
    f.finish({"block_sizes (with [[step]], each step gives threads or grid and shared_bytes in "
              "[step.launch])"});
  else
    f.finish({"threads", "grid", "block_sizes", "shared_bytes"});
}

namespace {

std::int64_t eval_ranged(const std::string& expr, const std::map<std::string, std::int64_t>& vars,
                         const std::string& where, std::int64_t lo, std::int64_t hi) {
  const std::int64_t v = eval_expr(expr, vars, where);
  if (v < lo || v > hi)
    throw DeclarationError(
        fmt::format("{}: '{}' = {} is out of range [{}, {}]", where, expr, v, lo, hi));
  return v;
}

std::string at(const std::string& file, int line) {
  return line > 0 ? fmt::format("{}:{}", file, line) : file;
}

}  // namespace

void validate_expressions(const PairDeclaration& d,
                          const std::function<int(const std::string&)>& root_line) {
  // The push constants' size is the Vulkan device's to judge (maxPushConstantsSize: 128 on
  // lavapipe, 256 on NVIDIA): check_push_constant_room, before the module is loaded.
  const std::string n_note = fmt::format(" (at n = {})", d.n);
  const std::int64_t n = static_cast<std::int64_t>(d.n);
  for (std::size_t i = 0; i < d.buffers.size(); ++i) {
    const BufferDecl& b = d.buffers[i];
    const std::string where = fmt::format("{}: buffer[{}].count{}", at(d.file, b.line), i, n_note);
    const auto count = static_cast<std::uint64_t>(eval_ranged(
        b.count, {{"n", n}}, where, 1, std::numeric_limits<std::int64_t>::max() / b.element_bytes));
    if (b.init.kind == InitKind::file) check_buffer_file(d, b, b.init.file, count);
    if (!b.expected.empty()) check_buffer_file(d, b, b.expected, count);
  }
  for (std::size_t i = 0; i < d.scalars.size(); ++i) {
    const ScalarDecl& s = d.scalars[i];
    if (s.number) continue;
    const std::string where = fmt::format("{}: scalar[{}].value{}", at(d.file, s.line), i, n_note);
    const std::int64_t lo =
        s.type == ScalarType::i32 ? std::numeric_limits<std::int32_t>::min()
        : s.type == ScalarType::i64 || s.type == ScalarType::f32 || s.type == ScalarType::f64
            ? std::numeric_limits<std::int64_t>::min()
            : 0;
    const std::int64_t hi = s.type == ScalarType::i32   ? std::numeric_limits<std::int32_t>::max()
                            : s.type == ScalarType::u32 ? std::numeric_limits<std::uint32_t>::max()
                                                        : std::numeric_limits<std::int64_t>::max();
    eval_ranged(s.value, {{"n", n}}, where, lo, hi);
  }
  std::vector<std::uint32_t> blocks = d.launch.block_sizes;
  if (blocks.empty()) blocks.push_back(kDefaultBlock);
  validate_launch(d.launch, blocks, d.n, at(d.file, d.launch.line) + ": launch.");
  for (std::uint32_t block : blocks)
    eval_ranged(d.useful_bytes, {{"n", n}, {"block", block}},
                fmt::format("{}: useful_bytes (at n = {}, block = {})",
                            at(d.file, root_line("useful_bytes")), d.n, block),
                0, std::numeric_limits<std::int64_t>::max());
}

void validate_launch(const LaunchDecl& l, const std::vector<std::uint32_t>& blocks,
                     std::uint64_t n, const std::string& where) {
  for (std::uint32_t block : blocks) {
    const std::map<std::string, std::int64_t> vars{{"n", static_cast<std::int64_t>(n)},
                                                   {"block", block}};
    const std::string note = fmt::format(" (at n = {}, block = {})", n, block);
    if (!l.threads.empty())
      eval_ranged(l.threads, vars, where + "threads" + note, 1, kMaxGrid * kMaxBlockSize);
    for (std::size_t i = 0; i < l.grid.size(); ++i)
      eval_ranged(l.grid[i], vars, fmt::format("{}grid[{}]{}", where, i, note), 1, kMaxGrid);
    eval_ranged(l.shared_bytes, vars, where + "shared_bytes" + note, 0, kMaxSharedBytes);
  }
}

std::vector<std::uint32_t> check_blocks(const LaunchDecl& l) {
  std::vector<std::uint32_t> blocks = l.block_sizes;
  if (blocks.empty()) blocks.push_back(kDefaultBlock);
  return blocks;
}

void check_push_constant_room(const PairDeclaration& d, std::uint32_t max_bytes,
                              const std::string& device) {
  const std::uint32_t scalar_bytes = scalar_layout(d).size;
  if (scalar_bytes > max_bytes)
    throw DeclarationError(fmt::format(
        "{}: scalar: the scalars take {} bytes of push constants; the Vulkan device ({}) allows {} "
        "(maxPushConstantsSize)",
        d.file, scalar_bytes, device, max_bytes));
  const std::uint32_t bda_bytes = bda_address_offset(d, d.buffers.size());
  if (supports_bda(d) && bda_bytes > max_bytes)
    throw DeclarationError(fmt::format(
        "{}: glsl: the bda form's push constants (scalars, then {} buffer addresses) take {} "
        "bytes; the Vulkan device ({}) allows {} (maxPushConstantsSize; drop the bda form)",
        d.file, d.buffers.size(), bda_bytes, device, max_bytes));
}

}  // namespace cuvk::pairs
