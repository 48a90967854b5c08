// The declaration's multi-step fields (issue 34; docs/PAIRS.md, "Steps, repeat and state" and
// "Sizes"): [[step]] tables, repeat, state, sizes and n_max; and the per-step views of a pair.
#include <limits>

#include <fmt/format.h>

#include "pair_internal.h"

namespace cuvk::pairs {
namespace {

constexpr std::int64_t kMaxRepeat = 65536;
constexpr std::int64_t kMaxN = std::numeric_limits<std::uint32_t>::max();

std::string step_label(std::size_t k, const std::string& name) {
  return fmt::format("step[{}]{}", k, name.empty() ? "" : " '" + name + "'");
}

// A size: an integer or a string with an optional binary suffix ("64k", "1M": 2^10, 2^20, 2^30).
std::uint64_t read_size(Fields& f, const std::string& key, const toml::node& e) {
  std::int64_t v = 0;
  if (e.is_integer()) {
    v = **e.as_integer();
  } else if (e.is_string()) {
    std::string text = **e.as_string();
    unsigned shift = 0;
    if (!text.empty()) {
      const char c = text.back();
      shift = c == 'k' || c == 'K' ? 10 : c == 'm' || c == 'M' ? 20 : c == 'g' || c == 'G' ? 30 : 0;
    }
    if (shift) text.pop_back();
    if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos)
      f.fail(key, "'" + **e.as_string() + "' is not a size (digits with an optional k, M or G)",
             line_of(e));
    v = static_cast<std::int64_t>(std::stoull(text) << shift);
  } else {
    f.fail(key, std::string("entries must be integers or size strings (\"64k\"), not ") +
                    Fields::type_of(e), line_of(e));
  }
  if (v < 1 || v > kMaxN)
    f.fail(key, fmt::format("{} is out of range [1, {}]", v, kMaxN), line_of(e));
  return static_cast<std::uint64_t>(v);
}

// Whether the sequence reads and writes a buffer: an output with a declared init is read (its
// init) and written (it is an output), so a repetition starts from what the last one left.
const BufferDecl* in_out_buffer(const PairDeclaration& d) {
  for (const BufferDecl& b : d.buffers)
    if (b.output && b.init.given) return &b;
  return nullptr;
}

void read_step(const toml::table& t, const std::string& file, const fs::path& dir,
               std::size_t k, PairDeclaration& d) {
  StepDecl s;
  s.line = line_of(t);
  Fields f(t, file, fmt::format("step[{}]", k));
  s.name = f.str("name", true).value();
  if (!is_identifier(s.name))
    f.fail("name", "'" + s.name + "' is not an identifier (letters, digits, _)", f.line("name"));
  for (const StepDecl& other : d.steps)
    if (other.name == s.name) f.fail("name", "'" + s.name + "' names two steps", f.line("name"));
  const std::string label = step_label(k, s.name);
  for (const char* key : {"cuda", "glsl", "launch"}) {
    const toml::node* n = f.node(key);
    if (!n) f.fail(key, "missing (a table: [step." + std::string(key) + "])", s.line);
    if (!n->is_table())
      f.fail(key, "must be a table, not " + std::string(Fields::type_of(*n)), line_of(*n));
  }
  Fields cuda(*t.get("cuda")->as_table(), file, label + ".cuda");
  read_cuda_fields(cuda, dir, s.cuda, true, &d.cuda);
  cuda.finish({"entry", "source", "options"});
  Fields glsl(*t.get("glsl")->as_table(), file, label + ".glsl");
  read_glsl_fields(glsl, dir, s.glsl, false);
  glsl.finish({"source", "spirv", "entry", "defines"});
  Fields launch(*t.get("launch")->as_table(), file, label + ".launch");
  s.launch.line = line_of(*t.get("launch"));
  read_launch_fields(launch, s.launch, true, false);
  if (const auto block = launch.integer("block", 1, 1024)) s.block = static_cast<std::uint32_t>(*block);
  launch.finish({"threads", "grid", "shared_bytes", "block"});
  f.finish({"name", "cuda", "glsl", "launch"});
  d.steps.push_back(std::move(s));
}

}  // namespace

const char* state_rule_name(StateRule rule) {
  switch (rule) {
    case StateRule::restore:
      return "restore";
    case StateRule::idempotent:
      return "idempotent";
    default:
      return "none";
  }
}

void read_sequence_keys(Fields& f, PairDeclaration& d) {
  if (const auto r = f.integer("repeat", 1, kMaxRepeat)) d.repeat = static_cast<std::uint32_t>(*r);
  if (const auto s = f.str("state", false)) {
    if (*s == "restore") d.state = StateRule::restore;
    else if (*s == "idempotent") d.state = StateRule::idempotent;
    else f.fail("state", "'" + *s + "' is not restore or idempotent", f.line("state"));
  }
  if (const toml::node* n = f.node("sizes")) {
    const toml::array* a = n->as_array();
    if (!a || a->empty()) f.fail("sizes", "must be a non-empty array of sizes", line_of(*n));
    for (const toml::node& e : *a) d.sizes.push_back(read_size(f, "sizes", e));
  }
  if (const toml::node* n = f.node("n_max")) {
    if (!d.sizes.empty()) f.fail("n_max", "give at most one of sizes and n_max", line_of(*n));
    d.n_max = read_size(f, "n_max", *n);
  }
  // Without `n`, the pair's default size is one it declares: the largest of `sizes`, or n_max
  // where that is below the usual default.
  if (!f.has("n") && !d.sizes.empty()) d.n = *std::max_element(d.sizes.begin(), d.sizes.end());
  if (!f.has("n") && d.n_max && d.n > d.n_max) d.n = d.n_max;
}

void read_steps(const toml::table& root, const std::string& file, const fs::path& dir,
                PairDeclaration& d) {
  const toml::array& a = table_array(root, "step", file, kMaxSequenceSteps);
  if (root.contains("step") && a.empty())
    throw DeclarationError(file + ": step: an empty array (give [[step]] tables, or none)");
  for (std::size_t k = 0; k < a.size(); ++k) read_step(*a[k].as_table(), file, dir, k, d);
  if (!is_sequence(d)) return;
  if (d.steps.size() * d.repeat > kMaxSequenceLaunches)
    throw DeclarationError(
        fmt::format("{}: repeat: {} steps x {} repeats is more than {} launches per repetition",
                    file, d.steps.size(), d.repeat, kMaxSequenceLaunches));
  if (supports_bda(d))
    throw DeclarationError(file + ": glsl: a sequence (repeat or state) runs the descriptor "
                           "binding only; drop the bda keys");
  if (const BufferDecl* b = in_out_buffer(d); b && d.state == StateRule::none) {
    const toml::node* at = root.get("step");
    throw DeclarationError(
        fmt::format("{}:{}: state: missing: buffer '{}' is read (its init) and written (an output) "
                    "by a sequence, so each timed repetition would start from what the last one "
                    "left; declare state = \"restore\" (put back before each repetition) or state "
                    "= \"idempotent\" (checked: repeating changes nothing)",
                    file, at ? line_of(*at) : b->line, b->name));
  }
}

void validate_steps(const PairDeclaration& d) {
  const std::vector<std::uint32_t> blocks = check_blocks(d.launch);
  for (std::size_t k = 0; k < d.steps.size(); ++k) {
    const StepDecl& s = d.steps[k];
    const std::vector<std::uint32_t> own = s.block ? std::vector<std::uint32_t>{s.block} : blocks;
    validate_launch(s.launch, own, d.n,
                    fmt::format("{}:{}: {}.launch.", d.file, s.launch.line, step_label(k, s.name)));
  }
  if (!size_allowed(d, d.n))
    throw DeclarationError(
        fmt::format("{}: n: {} is not among the sizes the pair declares ({})", d.file, d.n,
                    d.sizes.empty() ? fmt::format("n_max = {}", d.n_max) : std::string("sizes")));
}

bool is_sequence(const PairDeclaration& d) {
  return !d.steps.empty() || d.repeat > 1 || d.state != StateRule::none;
}

std::vector<PairDeclaration> step_declarations(const PairDeclaration& d) {
  if (d.steps.empty()) return {d};
  std::vector<PairDeclaration> out;
  for (std::size_t k = 0; k < d.steps.size(); ++k) {
    const StepDecl& s = d.steps[k];
    PairDeclaration v = d;
    v.steps.clear();
    v.step_view = true;
    v.file = d.file + ": " + step_label(k, s.name);
    v.cuda = s.cuda;
    v.glsl = s.glsl;
    v.launch = s.launch;
    v.launch.block_sizes = s.block ? std::vector<std::uint32_t>{s.block} : d.launch.block_sizes;
    out.push_back(std::move(v));
  }
  return out;
}

bool size_allowed(const PairDeclaration& d, std::uint64_t n) {
  if (d.n_max) return n <= d.n_max;
  if (d.sizes.empty()) return true;
  for (const std::uint64_t s : d.sizes)
    if (s == n) return true;
  return false;
}

}  // namespace cuvk::pairs
