#include "catalogue.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <limits>

#include <fmt/format.h>

#include "backend.h"
#include "error.h"
#include "util.h"

namespace cuvk {
namespace {

constexpr std::uint32_t kFloat = sizeof(float);
constexpr float kAddX = 10.0f;  // update_xy: x += 10, y += 20 (seeds 000, 003)
constexpr float kAddY = 20.0f;

AccessStream stream(std::uint64_t base_bytes, std::uint64_t stride_bytes, std::uint32_t elem_bytes,
                    std::uint64_t count) {
  return AccessStream{base_bytes, stride_bytes, elem_bytes, count};
}

CuvkParams params(std::uint32_t threads, const Point& pt) {
  return kernel_params(threads, pt.axes);
}

BuiltinPlan plan_read_x(const Point& pt) {
  const std::uint32_t n = pt.n;
  const bool aos = pt.layout == "aos";
  BuiltinPlan plan;
  plan.kernel = kernel_name("read_x", pt.layout, pt.variant);
  plan.params = params(n, pt);
  plan.in_words = 4ull * n;  // four floats per particle in both layouts
  plan.out_words = n;
  const AccessStream load = aos ? stream(0, sizeof(CuvkParticle), kFloat, n) : stream(0, kFloat, kFloat, n);
  plan.traffic = traffic({{load}, {stream(0, kFloat, kFloat, n)}});
  plan.reference = [n, aos](Span<const float> in, Span<float> out) {
    for (std::uint32_t i = 0; i < n; ++i) out[i] = aos ? in[4ull * i] : in[i];
  };
  return plan;
}

// read_x3: particles {x, y, z} of 12 bytes; the AoS load strides by 3 floats (seed 004).
BuiltinPlan plan_read_x3(const Point& pt) {
  const std::uint32_t n = pt.n;
  const bool aos = pt.layout == "aos";
  constexpr std::uint32_t kFields = 3;
  BuiltinPlan plan;
  plan.kernel = kernel_name("read_x3", pt.layout, pt.variant);
  plan.params = params(n, pt);
  plan.in_words = std::uint64_t{kFields} * n;  // three floats per particle in both layouts
  plan.out_words = n;
  const AccessStream load =
      aos ? stream(0, kFields * kFloat, kFloat, n) : stream(0, kFloat, kFloat, n);
  plan.traffic = traffic({{load}, {stream(0, kFloat, kFloat, n)}});
  plan.reference = [n, aos](Span<const float> in, Span<float> out) {
    for (std::uint32_t i = 0; i < n; ++i) out[i] = aos ? in[std::uint64_t{kFields} * i] : in[i];
  };
  return plan;
}

// vec2: the pair (AoS) or two consecutive elements of each plane (SoA) as one 8-byte access. SoA
// vec2 rounds the plane length up to even (the y plane then starts 8-byte aligned): the padding
// element is data like the others.
BuiltinPlan plan_update_xy(const Point& pt) {
  const std::uint32_t n = pt.n;
  const bool aos = pt.layout == "aos", wide = pt.variant == "vec2";
  const std::uint32_t plane = wide && !aos ? n + (n & 1u) : n;  // floats per SoA plane
  const std::uint32_t threads = wide && !aos ? plane / 2 : n;
  const std::uint32_t elem = wide ? 2 * kFloat : kFloat;
  BuiltinPlan plan;
  plan.kernel = kernel_name("update_xy", pt.layout, pt.variant);
  plan.params = params(threads, pt);
  plan.params.aux = wide && !aos ? plane : 0;
  plan.in_words = 2ull * plane;
  plan.out_words = 2ull * plane;
  std::vector<AccessStream> streams;
  if (aos && wide) {
    streams = {stream(0, sizeof(CuvkPair), sizeof(CuvkPair), n)};
  } else if (aos) {
    streams = {stream(0, sizeof(CuvkPair), kFloat, n), stream(kFloat, sizeof(CuvkPair), kFloat, n)};
  } else {
    streams = {stream(0, elem, elem, threads), stream(std::uint64_t{plane} * kFloat, elem, elem, threads)};
  }
  plan.traffic = traffic({streams, streams});  // the result has the input's layout
  plan.reference = [plane, aos](Span<const float> in, Span<float> out) {
    for (std::uint64_t i = 0; i < plane; ++i) {
      const std::uint64_t xi = aos ? 2 * i : i, yi = aos ? 2 * i + 1 : plane + i;
      out[xi] = in[xi] + kAddX;
      out[yi] = in[yi] + kAddY;
    }
  };
  return plan;
}

BuiltinPlan plan_read_offset(const Point& pt) {
  const std::uint32_t n = pt.n, off = pt.axes.get("offset");
  BuiltinPlan plan;
  plan.kernel = "read_offset";
  plan.params = params(n, pt);
  plan.in_words = std::uint64_t{n} + off;
  plan.out_words = n;
  plan.traffic = traffic({{stream(std::uint64_t{off} * kFloat, kFloat, kFloat, n)},
                          {stream(0, kFloat, kFloat, n)}});
  plan.reference = [n, off](Span<const float> in, Span<float> out) {
    std::copy_n(in.begin() + off, n, out.begin());
  };
  return plan;
}

BuiltinPlan plan_write_offset(const Point& pt) {
  const std::uint32_t n = pt.n, off = pt.axes.get("offset");
  BuiltinPlan plan;
  plan.kernel = "write_offset";
  plan.params = params(n, pt);
  plan.in_words = n;
  plan.out_words = std::uint64_t{n} + off;
  plan.traffic = traffic({{stream(0, kFloat, kFloat, n)},
                          {stream(std::uint64_t{off} * kFloat, kFloat, kFloat, n)}});
  plan.reference = [n, off](Span<const float> in, Span<float> out) {
    std::copy_n(in.begin(), n, out.begin() + off);  // out[0, off) keeps the poison
  };
  return plan;
}

// The input holds n floats; thread i < ceil(n / stride) reads a[i * stride]. The array (and so
// the memory footprint) stays fixed across the sweep while the useful fraction falls as 1/stride.
BuiltinPlan plan_stride(const Point& pt) {
  const std::uint32_t s = pt.axes.get("stride");
  const std::uint32_t threads = ceil_div(pt.n, s);
  BuiltinPlan plan;
  plan.kernel = "stride";
  plan.params = params(threads, pt);
  plan.in_words = pt.n;
  plan.out_words = threads;
  plan.traffic = traffic({{stream(0, std::uint64_t{s} * kFloat, kFloat, threads)},
                          {stream(0, kFloat, kFloat, threads)}});
  plan.reference = [threads, s](Span<const float> in, Span<float> out) {
    for (std::uint64_t i = 0; i < threads; ++i) out[i] = in[i * s];
  };
  return plan;
}

// copy: n floats; the vec4 form copies ceil(n / 4) 16-byte elements (buffers rounded up to them);
// the engine form is the API's own buffer copy (cudaMemcpyAsync / vkCmdCopyBuffer) of n floats.
// The grid-stride copy launches this many threads (about one wave on an H100: 132 SMs x 2048),
// each looping, on both APIs: few workgroups instead of one per 256 elements.
constexpr std::uint32_t kGridStrideThreads = 1u << 18;

BuiltinPlan plan_copy(const Point& pt) {
  const bool wide = pt.variant == "vec4";
  const std::uint32_t elem = wide ? 4 * kFloat : kFloat;
  const std::uint32_t threads = wide ? ceil_div(pt.n, 4u) : pt.n;
  const std::uint64_t words = std::uint64_t{threads} * (elem / kFloat);
  BuiltinPlan plan;
  plan.kernel = kernel_name("copy", "", pt.variant);
  plan.params = params(threads, pt);
  if (pt.variant == "grid") plan.launch_threads = std::min(threads, kGridStrideThreads);
  plan.in_words = words;
  plan.out_words = words;
  plan.traffic = traffic({{stream(0, elem, elem, threads)}, {stream(0, elem, elem, threads)}});
  plan.reference = [](Span<const float> in, Span<float> out) {
    std::copy(in.begin(), in.end(), out.begin());
  };
  return plan;
}

// copy_engine: the API's own buffer copy (cudaMemcpyAsync device to device / vkCmdCopyBuffer on
// each queue family that can copy) of copy_mib MiB, whatever n is: the size sweep of the copy
// engines, where each reaches its plateau.
constexpr std::uint64_t kWordsPerMiB = (1u << 20) / kFloat;

BuiltinPlan plan_copy_engine(const Point& pt) {
  const std::uint64_t words = std::uint64_t{pt.axes.get("copy_mib")} * kWordsPerMiB;
  if (words > std::numeric_limits<std::uint32_t>::max())
    throw UsageError(
        fmt::format("--copy-mibs: {} MiB overflows 32-bit indices", pt.axes.get("copy_mib")));
  const auto n = static_cast<std::uint32_t>(words);
  BuiltinPlan plan;
  plan.kernel = kernel_name("copy_engine", "", pt.variant);  // kCopyEngine
  plan.params = params(n, pt);
  plan.in_words = words;
  plan.out_words = words;
  plan.traffic = traffic({{stream(0, kFloat, kFloat, n)}, {stream(0, kFloat, kFloat, n)}});
  plan.reference = [](Span<const float> in, Span<float> out) {
    std::copy(in.begin(), in.end(), out.begin());
  };
  return plan;
}

// chain: K dependent dispatches of y = step(x), each reading what the previous one wrote; one
// row per submission mode. Its traffic is one step's (n floats read, n written): the row's time
// is the chain's GPU span over K.
BuiltinPlan plan_chain(const Point& pt) {
  BuiltinPlan plan;
  plan.kernel = "chain";
  plan.params = params(pt.n, pt);
  plan.in_words = pt.n;
  plan.out_words = pt.n;
  plan.chain_steps = kChainSteps;
  plan.traffic = traffic({{stream(0, kFloat, kFloat, pt.n)}, {stream(0, kFloat, kFloat, pt.n)}});
  plan.reference = [](Span<const float> in, Span<float> out) {
    chain_reference(in, out, kChainSteps);
  };
  return plan;
}

TestCase chain_test() {
  TestCase t{"chain",
             "K = 64 dependent dispatches of y = step(x) (mantissa LCG, bit-exact), ping-pong "
             "between two buffers; one row per submission mode, time = GPU span / K; n elements",
             {}, {"scalar"}, {}, plan_chain};
  t.sizes = {1u << 12, 1u << 16, 1u << 20};  // 4k, 64k, 1M: the launch-bound regime and beyond
  t.cpu_sizes = {1u << 12, 1u << 16};        // lavapipe: a 1M step takes milliseconds
  t.named_only = true;
  return t;
}

std::vector<TestCase> make_catalogue() {
  const std::vector<std::string> scalar = {"scalar"};
  return {
      {"read_x", "particles {x,y,z,w}: out[i] = x of particle i (article 001); n particles",
       {"aos", "soa"}, scalar, {}, plan_read_x},
      {"read_x3",
       "particles {x,y,z} of 12 bytes: out[i] = x of particle i (article 004: AoS with 3 fields "
       "behaves like stride 3); n particles",
       {"aos", "soa"}, scalar, {}, plan_read_x3},
      {"update_xy",
       "{x,y}: x += 10, y += 20 into a result buffer (articles 000, 003); n pairs (vec2: the pair, "
       "or two elements of each SoA plane, as one 8-byte access)",
       {"aos", "soa"}, {"scalar", "vec2"}, {}, plan_update_xy},
      {"read_offset", "b[i] = a[i + offset] (article 000); n threads", {}, scalar, {"offset"},
       plan_read_offset},
      {"write_offset", "b[i + offset] = a[i] (article 000); n threads", {}, scalar, {"offset"},
       plan_write_offset},
      {"stride", "b[i] = a[i * stride] over an array of n floats (article 004); n/stride threads",
       {}, scalar, {"stride"}, plan_stride},
      {"copy",
       "b[i] = a[i], n floats: the bandwidth ceiling (vec4: 16 bytes per thread; engine: the "
       "driver's own copy; grid: 256K threads in a grid-stride loop, few workgroups)",
       {}, {"scalar", "vec4", "engine", "grid"}, {}, plan_copy},
      {"copy_engine",
       "the API's own buffer copy of copy_mib MiB (n unused): cudaMemcpyAsync device to device, "
       "and vkCmdCopyBuffer on every Vulkan queue family that can copy, one row each",
       {}, {"engine"}, {"copy_mib"}, plan_copy_engine},
      chain_test(),
  };
}

}  // namespace

std::uint32_t chain_word(std::uint32_t x) {
  return (x & CUVK_CHAIN_KEEP) | ((x * CUVK_CHAIN_MUL + CUVK_CHAIN_ADD) & ~CUVK_CHAIN_KEEP);
}

void chain_reference(Span<const float> in, Span<float> out, std::uint32_t steps) {
  for (std::size_t i = 0; i < in.size() && i < out.size(); ++i) {
    std::uint32_t x = 0;
    std::memcpy(&x, &in[i], sizeof x);
    for (std::uint32_t k = 0; k < steps; ++k) x = chain_word(x);
    std::memcpy(&out[i], &x, sizeof x);
  }
}

CuvkParams kernel_params(std::uint32_t threads, const AxisValues& axes) {
  CuvkParams p{};
  p.n = threads;
  apply_axes(axes, p);
  return p;
}

namespace {

// A built-in test's kernel model (kernel_model.h) from what its plan_* says: two buffers of
// floats, the point's random input and a poisoned output checked against the CPU reference
// (unguarded, as they were measured), the CuvkParams block as its one scalar, params.n or
// launch_threads threads, the chain's steps.
std::shared_ptr<const KernelModel> builtin_model(const BuiltinPlan& plan, const Point& pt) {
  auto m = std::make_shared<KernelModel>();
  m->check = CheckBy::cpu_reference;
  m->reference = plan.reference;
  m->chain_steps = plan.chain_steps;
  m->n = pt.n;
  ModelBuffer in, out;
  in.name = "in";
  in.count = plan.in_words;
  in.point_input = true;
  out.name = "out";
  out.count = plan.out_words;
  out.output = out.poisoned = true;
  in.guarded = out.guarded = false;
  m->buffers = {in, out};
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(&plan.params);
  m->scalars.assign(bytes, bytes + sizeof plan.params);
  m->bda = true;
  const std::uint64_t threads = plan.launch_threads ? plan.launch_threads : plan.params.n;
  const std::uint64_t useful = plan.traffic.useful_bytes;
  m->launch = [threads, useful](std::uint32_t) {
    return ModelLaunch{threads, std::nullopt, 0, useful};
  };
  return m;
}

}  // namespace

Plan make_plan(const BuiltinPlan& b, const Point& pt) {
  Plan plan;
  plan.kernel = b.kernel;
  plan.traffic = b.traffic;
  plan.model = builtin_model(b, pt);
  return plan;
}

const std::vector<TestCase>& catalogue() {
  static const std::vector<TestCase> tests = [] {
    std::vector<TestCase> t = make_catalogue();
    for (TestCase& c : t) {
      if (!c.builtin) throw Error("catalogue: test '" + c.name + "' has no plan_* (builtin)");
      c.plan = [b = c.builtin](const Point& pt) { return make_plan(b(pt), pt); };
    }
    return t;
  }();
  return tests;
}

namespace {
std::deque<TestCase>& pair_tests() {  // a deque: registering never moves the earlier entries
  static std::deque<TestCase> tests;
  return tests;
}
}  // namespace

const TestCase* find_test(const std::string& name) {
  for (const TestCase& t : catalogue())
    if (t.name == name) return &t;
  for (const TestCase& t : pair_tests())
    if (t.name == name) return &t;
  return nullptr;
}

void unregister_pair_tests() { pair_tests().clear(); }

void register_pair_test(TestCase test) {
  if (find_test(test.name) != nullptr)
    throw UsageError("pair '" + test.name + "': a test of that name exists already");
  pair_tests().push_back(std::move(test));
}

std::string kernel_name(const std::string& test, const std::string& layout,
                        const std::string& variant) {
  if (variant == "engine") return kCopyEngine;  // the API's own copy command, whatever the test
  std::string name = test;
  if (!layout.empty()) name += "_" + layout;
  if (!variant.empty() && variant != "scalar") name += "_" + variant;
  return name;
}

Point make_point(const std::string& layout, const std::string& variant, std::uint32_t n,
                 const std::map<std::string, std::uint32_t>& axis_values) {
  Point p{layout, variant, n, {}};
  for (const auto& [name, value] : axis_values) p.axes.set(name, value);
  return p;
}

const SuiteKernels& suite_kernels() {
  static const SuiteKernels kernels;
  return kernels;
}

namespace {

bool selected(const std::vector<std::string>& filter, const std::string& value) {
  return filter.empty() || value.empty() ||
         std::find(filter.begin(), filter.end(), value) != filter.end();
}

// Every combination of the swept axes' values, the first axis outermost.
std::vector<AxisValues> sweep_points(
    const std::vector<std::string>& sweeps,
    const std::map<std::string, std::vector<std::uint32_t>>& axis_values) {
  std::vector<AxisValues> points(1);
  for (const std::string& name : sweeps) {
    const Axis* axis = find_axis(name);
    if (axis == nullptr) throw Error("catalogue: unknown sweep axis '" + name + "'");
    const auto given = axis_values.find(name);
    const std::vector<std::uint32_t>& values =
        given != axis_values.end() ? given->second : axis->defaults;
    std::vector<AxisValues> next;
    for (const AxisValues& p : points)
      for (std::uint32_t v : values) {
        AxisValues q = p;
        q.set(name, v);
        next.push_back(q);
      }
    points = std::move(next);
  }
  return points;
}

}  // namespace

std::vector<Point> points_of(const TestCase& t, std::uint32_t n,
                             const std::map<std::string, std::vector<std::uint32_t>>& axis_values,
                             const std::vector<std::string>& layouts,
                             const std::vector<std::string>& variants) {
  std::vector<Point> points;
  const std::vector<std::string> all_layouts =
      t.layouts.empty() ? std::vector<std::string>{""} : t.layouts;
  const std::vector<AxisValues> sweep = sweep_points(t.sweeps, axis_values);
  for (const std::string& layout : all_layouts)
    for (const std::string& variant : t.variants)
      for (const AxisValues& values : sweep)
        if (selected(layouts, layout) && selected(variants, variant))
          points.push_back(Point{layout, variant, n, values});
  return points;
}

std::vector<std::string> catalogue_kernels() {
  std::vector<std::string> names = {suite_kernels().l2_flush_kernel};
  for (const TestCase& t : catalogue()) {
    const std::vector<std::string> layouts =
        t.layouts.empty() ? std::vector<std::string>{""} : t.layouts;
    for (const std::string& layout : layouts)
      for (const std::string& variant : t.variants)
        names.push_back(kernel_name(t.name, layout, variant));
  }
  return names;
}

std::vector<std::string> missing_kernels(const std::vector<std::string>& required,
                                         const std::vector<std::string>& available) {
  std::vector<std::string> missing;
  for (const std::string& k : required)
    if (std::find(available.begin(), available.end(), k) == available.end()) missing.push_back(k);
  return missing;
}

}  // namespace cuvk
