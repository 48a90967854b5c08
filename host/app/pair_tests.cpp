// `cuvk run --pair`: declarations -> compiled, checked pairs -> catalogue entries (pair_tests.h).
#include "pair_tests.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "catalogue.h"
#include "error.h"

namespace cuvk {
namespace {

using pairs::PairDeclaration;

// The kernel a pair's rows and backends name: apart from the built-in kernels ("copy_vec4" is one).
std::string module_name(const PairDeclaration& d) { return "pair:" + d.name; }

std::uint64_t eval(const PairDeclaration& d, const std::string& expr, std::uint64_t n,
                   std::uint32_t block, const std::string& field) {
  const std::int64_t v = pairs::eval_expr(
      expr, {{"n", static_cast<std::int64_t>(n)}, {"block", static_cast<std::int64_t>(block)}},
      d.file + ": " + field);
  if (v < 0)
    throw pairs::DeclarationError(
        fmt::format("{}: {}: '{}' is negative ({})", d.file, field, expr, v));
  return static_cast<std::uint64_t>(v);
}

template <typename T>
void put(std::vector<std::uint8_t>& out, std::uint64_t i, T v) {
  std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
}

// One buffer's initial contents by its declared init (pair.h, BufferInit).
std::vector<std::uint8_t> initial_contents(const PairDeclaration& d, const pairs::BufferDecl& b,
                                           std::uint64_t count, std::uint64_t run_seed) {
  using pairs::InitKind;
  const pairs::BufferInit& init = b.init;
  if (init.kind == InitKind::file) return pairs::load_buffer_file(d, b, init.file, count);
  std::vector<std::uint8_t> out(count * b.element_bytes, 0);
  if (init.kind == InitKind::zero) return out;
  std::mt19937_64 rng(init.seed * 0x9E3779B97F4A7C15ull ^ run_seed);
  for (std::uint64_t i = 0; i < count; ++i) {
    const bool random = init.kind == InitKind::random, index = init.kind == InitKind::index;
    const double value = index ? static_cast<double>(i) : init.constant;
    switch (b.type) {
      case ElementType::f32:
      case ElementType::f64: {
        double v = value;
        if (random) {  // uniform in [min, max), never zero: a zero hides a missing multiply
          std::uniform_real_distribution<double> u(init.min, init.max);
          do v = u(rng);
          while (v == 0.0 || static_cast<float>(v) == 0.0f);
        }
        if (b.type == ElementType::f32) put(out, i, static_cast<float>(v));
        else put(out, i, v);
        break;
      }
      case ElementType::i32:
      case ElementType::u32: {
        std::int64_t v = static_cast<std::int64_t>(value);
        if (random)
          v = std::uniform_int_distribution<std::int64_t>(static_cast<std::int64_t>(init.min),
                                                          static_cast<std::int64_t>(init.max))(rng);
        if (index) v = static_cast<std::int64_t>(i & 0xFFFFFFFFu);
        put(out, i, static_cast<std::uint32_t>(v));
        break;
      }
      case ElementType::raw16:
        put(out, i, static_cast<std::uint16_t>(random ? rng() : static_cast<std::uint64_t>(value)));
        break;
      case ElementType::bytes: {
        std::uint8_t* e = out.data() + i * b.element_bytes;
        for (std::uint32_t k = 0; k < b.element_bytes; ++k)
          e[k] = static_cast<std::uint8_t>(random ? rng() : static_cast<std::uint64_t>(value));
        if (index) {
          std::memset(e, 0, b.element_bytes);
          const std::uint32_t low = static_cast<std::uint32_t>(i);
          std::memcpy(e, &low, std::min<std::uint32_t>(4, b.element_bytes));
        }
        break;
      }
    }
  }
  return out;
}

// The launch at a block size by `decl`'s [launch] (or a step's: pairs::step_declarations).
std::function<ModelLaunch(std::uint32_t)> launch_rule(std::shared_ptr<const PairDeclaration> decl,
                                                      std::uint64_t n) {
  return [decl, n](std::uint32_t block) {
    const PairDeclaration& dd = *decl;
    ModelLaunch l;
    if (dd.launch.grid.empty()) {  // no shape: a pair of [[step]]s (each step has its own)
      if (!dd.launch.threads.empty())
        l.threads = eval(dd, dd.launch.threads, n, block, "launch.threads");
    } else {
      const std::uint64_t gx = eval(dd, dd.launch.grid[0], n, block, "launch.grid[0]");
      const std::uint64_t gy =
          dd.launch.grid.size() > 1 ? eval(dd, dd.launch.grid[1], n, block, "launch.grid[1]") : 1;
      l.grid = std::make_pair(gx, gy);
    }
    l.shared_bytes = eval(dd, dd.launch.shared_bytes, n, block, "launch.shared_bytes");
    l.useful_bytes = eval(dd, dd.useful_bytes, n, block, "useful_bytes");
    return l;
  };
}

KernelModel kernel_model(const PreparedPair& p, std::uint64_t n) {
  const PairDeclaration& d = p.decl;
  KernelModel u;
  u.file = d.file;
  u.n = n;
  u.n_rule = p.n_rule;
  for (std::size_t i = 0; i < d.buffers.size(); ++i) {
    const pairs::BufferDecl& b = d.buffers[i];
    ModelBuffer ub;
    ub.name = b.name;
    ub.element = b.type;
    ub.element_bytes = b.element_bytes;
    ub.count = eval(d, b.count, n, 0, "buffer '" + b.name + "'.count");
    ub.output = b.output;
    ub.poisoned = b.output && !b.init.given;
    ub.tolerance = b.tolerance;
    ub.expected = !b.expected.empty();
    ub.partial = b.partial;
    ub.nan_fraction = b.nan_fraction;
    u.buffers.push_back(ub);
  }
  u.scalars = pairs::pack_scalars(d, n);
  u.block_sizes = d.launch.block_sizes;
  u.bda = p.spirv_bda.has_value();
  u.timing_only = d.timing_only;
  u.notes[Api::cuda] = p.cuda_note;
  u.not_built[Api::cuda] = !p.cuda;  // Vulkan: its SPIR-V, or the run stopped at the compile error
  const auto decl = std::make_shared<PairDeclaration>(d);
  u.launch = launch_rule(decl, n);
  if (pairs::is_sequence(d)) {
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
      const PreparedStep& step = p.steps[k];
      ModelStep us;
      us.kernel = step.module;
      us.name = d.steps.empty() ? "" : step.view.file.substr(d.file.size() + 2);
      us.block = d.steps.empty() ? 0 : d.steps[k].block;
      us.launch = launch_rule(std::make_shared<PairDeclaration>(step.view), n);
      u.steps.push_back(std::move(us));
    }
    u.repeat = d.repeat;
    u.state = static_cast<ModelState>(d.state);
  }
  const std::vector<ModelBuffer> buffers = u.buffers;
  u.contents = [decl, buffers](std::uint64_t run_seed) {
    ModelContents c;
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      const pairs::BufferDecl& b = decl->buffers[i];
      c.initial.push_back(buffers[i].poisoned
                              ? std::vector<std::uint8_t>()
                              : initial_contents(*decl, b, buffers[i].count, run_seed));
      c.expected.push_back(b.expected.empty() ? std::vector<std::uint8_t>()
                                              : pairs::load_buffer_file(*decl, b, b.expected,
                                                                        buffers[i].count));
    }
    return c;
  };
  return u;
}

}  // namespace

int cuda_arch_of(const DeviceInfo& device) {
  for (const auto& [key, value] : device.properties) {
    if (key != "compute_capability") continue;
    const auto dot = value.find('.');
    if (dot == std::string::npos) return 0;
    try {
      return std::stoi(value.substr(0, dot)) * 10 + std::stoi(value.substr(dot + 1));
    } catch (const std::exception&) {
      return 0;
    }
  }
  return 0;
}

namespace {

std::uint64_t pair_buffer_bytes(const PairDeclaration& d, std::uint64_t n) {
  std::uint64_t bytes = 0;
  for (const pairs::BufferDecl& b : d.buffers)
    bytes += eval(d, b.count, n, 0, "buffer '" + b.name + "'.count") * b.element_bytes;
  return bytes;
}

}  // namespace

std::uint64_t cpu_pair_n(const PairDeclaration& d) {
  std::uint64_t n = d.n;
  while (n > 1 && pair_buffer_bytes(d, n) > kCpuPairBytes) {
    try {
      pair_buffer_bytes(d, n / 2);  // a count that no longer evaluates: stop at the last n that did
    } catch (const std::exception&) {
      break;
    }
    n /= 2;
  }
  if (pairs::size_allowed(d, n)) return n;
  // Declared sizes (n_max allows every smaller n): the largest that fits, else the smallest.
  std::uint64_t best = *std::min_element(d.sizes.begin(), d.sizes.end());
  for (const std::uint64_t s : d.sizes)
    if (s <= n && s > best) best = s;
  return best;
}

namespace {

// The n a pair runs at, and how it was chosen: --n; its declared n on a GPU; on a CPU device
// (lavapipe) cpu_pair_n(), so that a first run there ends in seconds.
std::string size_text(const std::vector<std::uint64_t>& sizes) {
  return fmt::format("{}", fmt::join(sizes, ", "));
}

// --n's sizes within those the pair declares; none: DeclarationError naming the field. `skipped`:
// the note naming the others, or "".
std::vector<std::uint64_t> run_sizes(const PairDeclaration& d, const std::vector<std::uint32_t>& n,
                                     std::string& skipped) {
  std::vector<std::uint64_t> in, out;
  for (const std::uint32_t s : n) (pairs::size_allowed(d, s) ? in : out).push_back(s);
  const std::string field = d.n_max ? "n_max" : "sizes";
  const std::string declared = d.n_max ? fmt::format("n up to {}", d.n_max) : size_text(d.sizes);
  if (in.empty())
    throw pairs::DeclarationError(d.file + ": " + field + ": " +
                                  (n.size() == 1 ? "--n " + size_text(out) + " is not"
                                                 : "none of --n " + size_text(out) + " is") +
                                  " a size this pair declares (" + declared + ")");
  if (!out.empty())
    skipped = d.file + ": skips --n " + size_text(out) + ": not among the sizes it declares (" +
              field + ": " + declared + ")";
  return in;
}

std::pair<std::uint64_t, std::string> pair_n(const PairDeclaration& d,
                                             std::optional<std::uint64_t> n, bool cpu_device) {
  const std::string file = std::filesystem::path(d.file).filename().string();
  if (n) return {*n, "--n"};
  if (!cpu_device) return {d.n, "declared in " + file};
  const std::uint64_t small = cpu_pair_n(d);
  if (small == d.n) return {d.n, "declared in " + file};
  return {small, fmt::format("{}'s n = {} scaled down for CPU devices to {} MiB of buffers", file,
                             d.n, kCpuPairBytes >> 20)};
}

// One kernel compiled (GLSL; CUDA where NVRTC loads) and its interfaces checked.
PreparedStep prepare_step(const PairDeclaration& view, const std::string& module,
                          const std::string& nvrtc_unavailable, int arch) {
  PreparedStep s;
  s.view = view;
  s.module = module;
  s.spirv = pairs::compile_glsl(view, Binding::descriptor);
  if (nvrtc_unavailable.empty()) s.cuda = pairs::compile_cuda(view, arch);
  pairs::check_interfaces(view, s.cuda ? &*s.cuda : nullptr, &s.spirv);
  return s;
}

}  // namespace

std::vector<std::shared_ptr<PreparedPair>> prepare_pairs(const std::vector<std::string>& files,
                                                         int cuda_arch,
                                                         const std::vector<std::uint32_t>& n,
                                                         bool cpu_device, const RunGrid& grid) {
  std::vector<std::shared_ptr<PreparedPair>> out;
  const int arch = cuda_arch > 0 ? cuda_arch : pairs::kDefaultCudaArch;
  // Each run registers its pairs afresh: a second run in one process (`--device all`, GPU after
  // GPU; `cuvk explain`'s experiment run) would otherwise meet its own pairs already registered.
  unregister_pair_tests();
  for (const std::string& file : files) {
    auto p = std::make_shared<PreparedPair>();
    p->decl = pairs::read_pair_file(file);
    p->sizes = n.empty() ? std::vector<std::uint64_t>{}
                         : run_sizes(p->decl, n, p->skipped);
    std::tie(p->n, p->n_rule) = pair_n(
        p->decl, p->sizes.empty() ? std::nullopt : std::optional<std::uint64_t>(p->sizes[0]),
        cpu_device);
    if (p->sizes.empty()) p->sizes = {p->n};
    const std::string nvrtc =
        grid.cuda ? pairs::nvrtc_unavailable() : "the run has no CUDA lane: --api";
    const std::vector<PairDeclaration> views = pairs::step_declarations(p->decl);
    for (std::size_t k = 0; k < views.size(); ++k)
      p->steps.push_back(prepare_step(
          views[k],
          module_name(p->decl) + (p->decl.steps.empty() ? "" : "/" + p->decl.steps[k].name),
          nvrtc, arch));
    p->spirv = p->steps[0].spirv;
    p->cuda = p->steps[0].cuda;
    if (pairs::supports_bda(p->decl)) p->spirv_bda = pairs::compile_glsl(p->decl, Binding::bda);
    if (!nvrtc.empty()) {
      p->cuda_note = "not compiled (" + nvrtc + ")";
    } else {
      p->cuda_note =
          fmt::format("compiled for sm_{} by {}{}", arch, p->cuda->compiler,
                      cuda_arch > 0 ? "" : " (no CUDA device: its default architecture)");
    }
    if (p->spirv_bda) pairs::check_interfaces(p->decl, nullptr, &*p->spirv_bda);
    for (const PreparedStep& s : p->steps)
      if (p->warning.empty())
        p->warning = pairs::fold_warning(s.view, s.spirv, p->n, grid.block_sizes, grid.max_grid_x);
    if (p->spirv_bda && p->warning.empty())
      p->warning = pairs::fold_warning(p->decl, *p->spirv_bda, p->n, grid.block_sizes, grid.max_grid_x);
    TestCase t;
    t.name = p->decl.name;
    t.description = p->decl.description.empty() ? "kernel pair " + file : p->decl.description;
    t.variants = {"scalar"};
    for (const std::uint64_t s : p->sizes) t.sizes.push_back(static_cast<std::uint32_t>(s));
    t.cpu_sizes = t.sizes;
    t.sizes_fixed = true;
    const std::shared_ptr<const PreparedPair> pair = p;
    t.plan = [pair](const Point& point) {
      Plan plan;
      plan.kernel = module_name(pair->decl);
      plan.model =
          std::make_shared<const KernelModel>(kernel_model(*pair, point.n ? point.n : pair->n));
      return plan;
    };
    register_pair_test(std::move(t));
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

std::vector<std::pair<std::string, double>> compile_ms(const PreparedPair& p, Api api) {
  std::vector<std::pair<std::string, double>> ms;
  for (const PreparedStep& s : p.steps) {
    if (api == Api::cuda && s.cuda)
      ms.emplace_back("compile " + s.module + " (" + s.cuda->compiler + ")", s.cuda->compile_ms);
    if (api == Api::vulkan)
      ms.emplace_back("compile " + s.module + " (" + s.spirv.compiler + ")", s.spirv.compile_ms);
  }
  if (api == Api::cuda) return ms;
  const std::string name = module_name(p.decl);
  if (p.spirv_bda)
    ms.emplace_back("compile " + name + " bda (" + p.spirv_bda->compiler + ")",
                    p.spirv_bda->compile_ms);
  return ms;
}

}  // namespace

std::vector<std::pair<std::string, double>> pair_compile_ms(
    const std::vector<std::shared_ptr<PreparedPair>>& pairs, Api api) {
  std::vector<std::pair<std::string, double>> ms;
  for (const auto& p : pairs)
    for (auto& c : compile_ms(*p, api)) ms.push_back(std::move(c));
  return ms;
}

std::vector<std::pair<std::string, std::string>> pair_input_files(const PreparedPair& pair) {
  const pairs::PairDeclaration& d = pair.decl;
  std::vector<std::pair<std::string, std::string>> files = {
      {"--pair", d.file},
      {"cuda.source", d.cuda.source},
      {"glsl.source", d.glsl.source},
      {"glsl.spirv", d.glsl.spirv},
      {"glsl.bda_source", d.glsl.bda_source},
      {"glsl.bda_spirv", d.glsl.bda_spirv}};
  for (std::size_t k = 0; k < d.steps.size(); ++k) {
    const std::string step = fmt::format("step[{}].", k);
    files.emplace_back(step + "cuda.source", d.steps[k].cuda.source);
    files.emplace_back(step + "glsl.source", d.steps[k].glsl.source);
    files.emplace_back(step + "glsl.spirv", d.steps[k].glsl.spirv);
  }
  for (const pairs::BufferDecl& b : d.buffers) {
    if (b.init.kind == pairs::InitKind::file)
      files.emplace_back("buffer '" + b.name + "' file", b.init.file);
    files.emplace_back("buffer '" + b.name + "' expected", b.expected);
  }
  for (const PreparedStep& s : pair.steps)
    for (const std::string& inc : s.spirv.includes) files.emplace_back("a GLSL #include", inc);
  if (pair.spirv_bda)
    for (const std::string& inc : pair.spirv_bda->includes) files.emplace_back("a GLSL #include", inc);
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& f : files)
    if (!f.second.empty()) out.push_back(std::move(f));
  return out;
}

void load_pairs(const std::vector<std::shared_ptr<PreparedPair>>& pairs, Backend* cuda,
                Backend* vulkan) {
  for (const auto& p : pairs)
    for (std::size_t k = 0; k < p->steps.size(); ++k) {  // one module per kernel
      const PreparedStep& step = p->steps[k];
      RuntimeModule m;
      m.name = step.module;
      m.buffers = static_cast<std::uint32_t>(p->decl.buffers.size());
      for (const pairs::ScalarDecl& s : p->decl.scalars)
        m.scalar_sizes.push_back(pairs::scalar_bytes(s.type));
      if (cuda && step.cuda) {
        RuntimeModule c = m;
        c.entry = step.cuda->lowered_name;
        c.cuda_image = step.cuda->cubin;
        if (k == 0) c.compile_ms = compile_ms(*p, Api::cuda);
        cuda->load_module(c);
      }
      if (vulkan) {
        if (k == 0 && vulkan->info().max_scalar_bytes > 0)
          pairs::check_push_constant_room(p->decl, vulkan->info().max_scalar_bytes,
                                          vulkan->info().name);
        RuntimeModule v = m;
        v.entry = step.spirv.entry;
        v.spirv = step.spirv.words;
        if (p->spirv_bda && k == 0) v.spirv_bda = p->spirv_bda->words;
        if (k == 0) v.compile_ms = compile_ms(*p, Api::vulkan);
        vulkan->load_module(v);
      }
    }
}

}  // namespace cuvk
