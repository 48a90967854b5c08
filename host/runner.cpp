#include "runner.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <thread>

#include "error.h"
#include "interrupt.h"
#include "util.h"

namespace cuvk {
namespace {

constexpr std::uint64_t kIndexLimit = std::uint64_t{1} << 32;  // kernels index with 32-bit uints
constexpr std::uint64_t kCpuFlushBytes = 8ull << 20;           // a CPU device's last-level cache
constexpr std::uint64_t kUnknownL2FlushBytes = 256ull << 20;   // Vulkan does not report L2 size
constexpr std::uint64_t kMinGpuFlushBytes = 64ull << 20;
constexpr std::uint64_t kFlushL2Multiple = 3;  // read 3x the L2 size to evict it
constexpr std::uint64_t kFlushVecBytes = 16;

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <typename F>
void parallel_for(std::uint64_t count, F&& body) {
  const unsigned workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  const std::uint64_t chunk = ceil_div<std::uint64_t>(count, workers);
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) {
    const std::uint64_t lo = w * chunk, hi = std::min(count, lo + chunk);
    if (lo >= hi) break;
    threads.emplace_back([lo, hi, &body] { body(lo, hi); });
  }
  for (std::thread& t : threads) t.join();
}

// Fresh non-zero random floats: a random sign and a random mantissa in [1, 2).
std::vector<float> random_input(std::uint64_t words, std::uint64_t seed) {
  std::vector<float> v(words);
  parallel_for(words, [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t i = lo; i < hi; ++i) {
      const std::uint64_t h = splitmix64(seed ^ splitmix64(i));
      const std::uint32_t bits = static_cast<std::uint32_t>(((h >> 63) << 31) | 0x3F800000u |
                                                            ((h >> 20) & 0x7FFFFFu));
      std::memcpy(&v[i], &bits, sizeof bits);
    }
  });
  return v;
}

float poison_float() {
  float f;
  std::memcpy(&f, &kPoisonWord, sizeof f);
  return f;
}

std::uint64_t fnv1a64(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  return h;
}

// Bitwise comparison of every element: data movement and the +10/+20 adds are exact in IEEE
// float, so any difference is an error.
void verify(const std::vector<float>& got, const std::vector<float>& expected, ResultRow& row) {
  row.checked = expected.size();
  row.mismatches = 0;
  for (std::uint64_t i = 0; i < expected.size(); ++i) {
    if (std::memcmp(&got[i], &expected[i], sizeof(float)) != 0) {
      if (row.mismatches == 0) row.first_bad_index = i;
      ++row.mismatches;
    }
  }
  row.verified = row.mismatches == 0;
}

struct Job {
  const TestCase* test;
  Point point;
  Plan plan;
};

std::vector<Point> points_of(const TestCase& t, const RunConfig& cfg, std::uint32_t n) {
  std::vector<Point> points;
  const std::vector<std::string> layouts =
      t.layouts.empty() ? std::vector<std::string>{""} : t.layouts;
  const std::vector<std::uint32_t> none = {0};
  const std::vector<std::uint32_t>& sweep =
      t.sweep == Sweep::offset ? cfg.offsets : t.sweep == Sweep::stride ? cfg.strides : none;
  auto selected = [](const std::vector<std::string>& filter, const std::string& value) {
    return filter.empty() || value.empty() ||
           std::find(filter.begin(), filter.end(), value) != filter.end();
  };
  for (const std::string& layout : layouts)
    for (const std::string& variant : t.variants)
      for (std::uint32_t v : sweep) {
        if (!selected(cfg.layouts, layout) || !selected(cfg.variants, variant)) continue;
        Point p{layout, variant, n, 0, 1};
        if (t.sweep == Sweep::offset) p.offset = v;
        if (t.sweep == Sweep::stride) p.stride = v;
        points.push_back(p);
      }
  return points;
}

Geometry geometry_for(std::uint32_t threads, std::uint32_t block, std::uint32_t max_x,
                      std::uint32_t max_y) {
  const std::uint64_t groups = std::max<std::uint64_t>(1, ceil_div<std::uint64_t>(threads, block));
  Geometry g;
  g.block_size = block;
  const std::uint64_t gy = ceil_div<std::uint64_t>(groups, max_x);
  const std::uint64_t gx = ceil_div<std::uint64_t>(groups, gy);
  if (gy > max_y) throw UsageError("n = " + std::to_string(threads) + " needs more workgroups than the devices allow");
  g.grid_x = static_cast<std::uint32_t>(gx);
  g.grid_y = static_cast<std::uint32_t>(gy);
  return g;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

const std::vector<std::uint32_t>& default_offsets() {
  static const std::vector<std::uint32_t> v = {0, 1, 2, 4, 7, 8, 16, 31, 32};
  return v;
}
const std::vector<std::uint32_t>& default_strides() {
  static const std::vector<std::uint32_t> v = {1, 2, 3, 4, 8, 16, 32};
  return v;
}

const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::failed: return "failed";
    case Status::unavailable: return "unavailable";
  }
  return "?";
}

bool same_point(const ResultRow& a, const ResultRow& b) {
  return a.test == b.test && a.layout == b.layout && a.variant == b.variant && a.n == b.n &&
         a.offset == b.offset && a.stride == b.stride && a.block_size == b.block_size;
}

std::string point_label(const ResultRow& row) {
  const TestCase* t = find_test(row.test);
  if (t && t->sweep == Sweep::offset) return "offset=" + std::to_string(row.offset);
  if (t && t->sweep == Sweep::stride) return "stride=" + std::to_string(row.stride);
  return "";
}

namespace {

using WallClock = std::chrono::steady_clock;

double seconds_since(WallClock::time_point t0) {
  return std::chrono::duration<double>(WallClock::now() - t0).count();
}

const char* stop_name(StopReason r) {
  switch (r) {
    case StopReason::converged: return "converged";
    case StopReason::time_budget: return "time_budget";
    case StopReason::sample_budget: return "sample_budget";
    case StopReason::more: break;
  }
  return "more";
}

struct Active {
  Api api;
  Backend* backend;
  std::string reason;
  std::unique_ptr<DeviceBuffer> scratch, sink;  // L2 flush / clock settling
  Launch flush;
};

// Flags that qualify a measured row: what a reader must know before trusting the number.
void add_flags(ResultRow& row, const RunConfig& cfg, const RunOutcome& out) {
  if (cfg.l2 == L2Mode::warm && out.l2_bytes > 0 && row.moved_bytes <= out.l2_bytes)
    row.flags.push_back("cache_resident");
  if (out.dram_peak_gbps && row.gbps_moved > *out.dram_peak_gbps)
    row.flags.push_back("above_dram_peak");
  if (row.clocks_start && row.clocks_end) {
    if (row.clocks_end->sm_mhz < row.clocks_start->sm_mhz) row.flags.push_back("clock_below_start");
    if ((row.clocks_start->event_reasons | row.clocks_end->event_reasons) & kThrottleMask)
      row.flags.push_back("throttled");
  }
  if (row.stop_reason != "converged") row.flags.push_back("ci_not_met");
}

}  // namespace

RunOutcome run_suite(const RunConfig& cfg, const BackendSet& set) {
  if (cfg.reps < 1) throw UsageError("--reps must be at least 1");
  if (cfg.warmup < 0) throw UsageError("--warmup must not be negative");
  if (cfg.block_sizes.empty()) throw UsageError("no block size given");
  if (cfg.vk_bindings.empty()) throw UsageError("no Vulkan binding mode given");
  for (Binding b : cfg.vk_bindings)
    if (b == Binding::pointer) throw UsageError("Vulkan binding modes are descriptor and bda");
  for (std::uint32_t b : cfg.block_sizes)
    if (b == 0 || b % kWarpSize != 0)
      throw UsageError("block size " + std::to_string(b) + " is not a positive multiple of 32");
  if (!(cfg.target_ci > 0.0)) throw UsageError("--target-ci must be positive");
  if (cfg.max_time_s < 0.0) throw UsageError("--max-time must not be negative");

  std::vector<Active> apis;
  for (Api a : cfg.apis)
    apis.push_back({a, a == Api::cuda ? set.cuda : set.vulkan,
                    a == Api::cuda ? set.cuda_reason : set.vulkan_reason, nullptr, nullptr, {}});

  // Limits common to every device that will run, so both APIs get identical geometry.
  std::uint32_t max_x = std::numeric_limits<std::uint32_t>::max(), max_y = max_x, max_block = max_x;
  std::uint64_t max_buffer = std::numeric_limits<std::uint64_t>::max();
  bool any_gpu = false, any_backend = false;
  RunOutcome out;
  std::uint64_t flush_bytes = 0, bus_bits = 0;
  for (const Active& a : apis) {
    if (!a.backend) continue;
    const DeviceInfo& d = a.backend->info();
    any_backend = true;
    any_gpu = any_gpu || !d.is_cpu;
    max_x = std::min(max_x, d.max_grid_x);
    max_y = std::min(max_y, d.max_grid_y);
    max_block = std::min(max_block, d.max_block_size);
    max_buffer = std::min(max_buffer, d.max_buffer_bytes);
    out.l2_bytes = std::max(out.l2_bytes, d.l2_bytes);
    bus_bits = std::max<std::uint64_t>(bus_bits, d.memory_bus_bits);
  }
  for (const Active& a : apis) {
    if (!a.backend) continue;
    const DeviceInfo& d = a.backend->info();
    // Both APIs run on one GPU, so an L2 size reported by either applies to both.
    const std::uint64_t want = d.is_cpu       ? kCpuFlushBytes
                               : out.l2_bytes ? std::max(kMinGpuFlushBytes, kFlushL2Multiple * out.l2_bytes)
                                              : kUnknownL2FlushBytes;
    flush_bytes = std::max(flush_bytes, want);
  }
  for (std::uint32_t b : cfg.block_sizes)
    if (any_backend && b > max_block)
      throw UsageError("block size " + std::to_string(b) + " exceeds the device limit " +
                       std::to_string(max_block));
  out.flush_bytes = cfg.l2 == L2Mode::cold ? flush_bytes : 0;
  out.clock_monitor = set.clocks ? "NVML" : set.clocks_reason;
  if (set.clocks && set.clocks->max_mem_mhz() > 0 && bus_bits > 0)
    out.dram_peak_gbps = 2.0 * set.clocks->max_mem_mhz() * 1e6 * static_cast<double>(bus_bits) / 8.0 / kBytesPerGB;
  out.n = cfg.n ? cfg.n : (any_gpu ? kDefaultGpuN : kDefaultCpuN);
  out.n_rule = cfg.n ? "--n" : any_gpu ? "default for GPUs (well beyond L2)" : "default for CPU devices";
  out.max_time_s = cfg.max_time_s > 0.0 ? cfg.max_time_s : any_gpu ? kDefaultGpuMaxTimeS : kDefaultCpuMaxTimeS;

  // Plan every point first, so a bad size fails before anything runs.
  std::vector<Job> jobs;
  for (const std::string& name : cfg.tests) {
    const TestCase* t = find_test(name);
    if (!t) throw UsageError("unknown test '" + name + "'");
    for (const Point& p : points_of(*t, cfg, out.n)) {
      if (t->sweep == Sweep::stride && p.stride == 0) throw UsageError("stride 0 is not allowed");
      Plan plan = t->plan(p);
      for (std::uint64_t words : {plan.in_words, plan.out_words}) {
        if (words > kIndexLimit)
          throw UsageError(name + " at n=" + std::to_string(out.n) + ": " + std::to_string(words) +
                           " elements overflow 32-bit indices");
        if (words * sizeof(float) > max_buffer)
          throw UsageError(name + " at n=" + std::to_string(out.n) + " needs a buffer of " +
                           std::to_string(words * sizeof(float)) + " bytes; the device allows " +
                           std::to_string(max_buffer));
      }
      jobs.push_back({t, p, std::move(plan)});
    }
  }

  if (jobs.empty()) throw UsageError("the selection of tests, layouts and variants is empty");

  // Enough device memory for the largest point (its input and output) plus the flush scratch,
  // checked before anything is allocated.
  std::uint64_t need_bytes = 0;
  for (const Job& j : jobs)
    need_bytes = std::max<std::uint64_t>(need_bytes, (j.plan.in_words + j.plan.out_words) * sizeof(float));
  need_bytes += flush_bytes + kFlushVecBytes;
  for (const Active& a : apis)
    if (a.backend)
      if (const std::uint64_t free_bytes = a.backend->free_memory_bytes(); need_bytes > free_bytes)
        throw UsageError("n = " + std::to_string(out.n) + " needs " + std::to_string(need_bytes) +
                         " bytes of " + api_name(a.api) + " device memory; " +
                         std::to_string(free_bytes) + " bytes are free");

  // Every kernel the selection needs must exist on every backend that runs.
  std::vector<std::string> required = {"l2_flush"};
  for (const Job& j : jobs) required.push_back(j.plan.kernel);
  for (const Active& a : apis)
    if (a.backend)
      if (auto missing = missing_kernels(required, a.backend->kernels()); !missing.empty())
        throw Error(std::string(api_name(a.api)) + " backend lacks kernels: " + join(missing));

  // Per API: the flush scratch (also the clock-settling work), then settle the clocks.
  const float sentinel = 1.0f;  // the zeroed scratch never sums to it
  for (Active& a : apis) {
    if (!a.backend) continue;
    Backend& b = *a.backend;
    a.scratch = b.allocate(flush_bytes);
    a.sink = b.allocate(kFlushVecBytes);
    b.fill(*a.scratch, 0);
    const auto vecs = static_cast<std::uint32_t>(flush_bytes / kFlushVecBytes);
    a.flush.kernel = "l2_flush";
    a.flush.geometry = geometry_for(vecs, cfg.block_sizes.front(), max_x, max_y);
    a.flush.params.n = vecs;
    std::memcpy(&a.flush.params.aux, &sentinel, sizeof sentinel);
    a.flush.in = a.scratch.get();
    a.flush.out = a.sink.get();
    double settled_ms = 0.0;
    while (settled_ms < cfg.settle_ms) {
      for (double t : b.run(a.flush, RunOptions{20, nullptr})) settled_ms += t;
    }
    out.settle[api_name(a.api)] = settled_ms;
  }
  if (set.clocks && any_backend) out.clocks_after_settle = set.clocks->sample();

  const StopRule rule{static_cast<std::size_t>(cfg.reps), std::max<std::size_t>(cfg.max_samples, cfg.reps),
                      cfg.target_ci, out.max_time_s};
  std::size_t step = 0;
  // The binding axis: one lane per API and binding mode. CUDA has one (pointer); Vulkan one per
  // cfg.vk_bindings (descriptor, bda), each its own row, compared with the same CUDA row.
  struct Lane {
    std::size_t api;  // index into apis
    Binding binding;
  };
  std::vector<Lane> lanes;
  for (std::size_t k = 0; k < apis.size(); ++k) {
    if (apis[k].api != Api::vulkan) lanes.push_back({k, native_binding(apis[k].api)});
    else
      for (Binding b : cfg.vk_bindings) lanes.push_back({k, b});
  }
  const std::size_t steps = jobs.size() * cfg.block_sizes.size() * lanes.size();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const Job& job = jobs[j];
    const Plan& plan = job.plan;
    std::vector<float> input, expected;
    if (any_backend) {
      input = random_input(plan.in_words, splitmix64(cfg.seed) + j);
      expected.assign(plan.out_words, poison_float());
      plan.reference(input, expected);
    }
    for (std::size_t bi = 0; bi < cfg.block_sizes.size(); ++bi) {
      const std::uint32_t block = cfg.block_sizes[bi];
      const Geometry geom = geometry_for(plan.params.n, block, max_x, max_y);
      // Alternate which API (lane) goes first, so slow drift does not favour one of them.
      std::vector<std::size_t> order(lanes.size());
      for (std::size_t k = 0; k < order.size(); ++k)
        order[k] = ((j + bi) % 2) ? order.size() - 1 - k : k;
      std::vector<ResultRow> point_rows(lanes.size());
      for (std::size_t k : order) {
        Active& a = apis[lanes[k].api];
        const Binding binding = lanes[k].binding;
        // The copy engine is no shader: it has no binding mode, so it gets the native lane only.
        if (plan.kernel == kCopyEngine && binding != native_binding(a.api)) continue;
        ResultRow& row = point_rows[k];
        row.binding = binding;
        row.test = job.test->name;
        row.layout = job.point.layout;
        row.variant = job.point.variant;
        row.kernel = plan.kernel;
        row.api = a.api;
        row.n = out.n;
        row.offset = job.point.offset;
        row.stride = job.point.stride;
        row.block_size = block;
        row.threads = plan.params.n;
        row.geometry = geom;
        row.useful_bytes = plan.traffic.useful_bytes;
        row.moved_bytes = plan.traffic.moved_bytes;
        row.sectors_per_request = plan.traffic.sectors_per_request;
        row.request_efficiency = plan.traffic.request_efficiency;
        ++step;
        if (interrupted()) {
          out.interrupted = true;
          break;
        }
        if (!a.backend) {
          row.status = Status::unavailable;
          row.reason = a.reason;
          continue;
        }
        if (const std::string why = a.backend->binding_unsupported(binding); !why.empty()) {
          row.status = Status::unavailable;  // e.g. a driver without bufferDeviceAddress
          row.reason = why;
          continue;
        }
        if (cfg.progress)
          cfg.progress("[" + std::to_string(step) + "/" + std::to_string(steps) + "] " + plan.kernel +
                       (point_label(row).empty() ? "" : " " + point_label(row)) + " block " +
                       std::to_string(block) + " " + api_name(a.api) +
                       (a.api == Api::vulkan ? std::string(" ") + binding_name(binding) : ""));
        Backend& b = *a.backend;
        try {
          auto in = b.allocate(plan.in_words * sizeof(float));
          auto outbuf = b.allocate(plan.out_words * sizeof(float));
          b.upload(*in, input.data(), input.size() * sizeof(float));
          b.fill(*outbuf, kPoisonWord);
          const Launch launch{plan.kernel, geom, plan.params, in.get(), outbuf.get(), binding};
          b.run(launch, RunOptions{1, nullptr});  // the correctness run, untimed
          std::vector<float> got(plan.out_words);
          b.download(*outbuf, got.data(), got.size() * sizeof(float));
          verify(got, expected, row);
          row.output_hash = fnv1a64(got.data(), got.size() * sizeof(float));
          if (!row.verified) {
            row.status = Status::failed;
            row.reason = std::to_string(row.mismatches) + " of " + std::to_string(row.checked) +
                         " elements wrong, first at index " + std::to_string(*row.first_bad_index);
            continue;
          }
          const Launch* before = cfg.l2 == L2Mode::cold ? &a.flush : nullptr;
          if (cfg.warmup > 0) b.run(launch, RunOptions{cfg.warmup, before});
          if (set.clocks) row.clocks_start = set.clocks->sample();
          std::vector<double> samples;
          const auto t0 = WallClock::now();
          StopReason stop = StopReason::more;
          while (stop == StopReason::more) {
            const int batch = static_cast<int>(std::min<std::size_t>(
                static_cast<std::size_t>(cfg.reps), rule.max_samples - samples.size()));
            for (double t : b.run(launch, RunOptions{batch, before})) samples.push_back(t);
            row.time_ms = summarize(samples);
            stop = should_stop(row.time_ms, seconds_since(t0), rule);
          }
          if (set.clocks) row.clocks_end = set.clocks->sample();
          row.stop_reason = stop_name(stop);
          row.gbps_useful = gbps(row.useful_bytes, row.time_ms.median);
          row.gbps_moved = gbps(row.moved_bytes, row.time_ms.median);
          row.status = Status::ok;
          add_flags(row, cfg, out);
        } catch (const std::exception& e) {
          row.status = Status::failed;
          row.reason = e.what();
        }
      }
      for (ResultRow& r : point_rows)
        if (!r.test.empty() && (r.status != Status::unavailable || !out.interrupted))
          out.rows.push_back(std::move(r));
      if (out.interrupted) return out;
    }
  }

  // % of ceiling: each API and binding mode against its own wide copy at the same block size, in
  // this run (the copy engine rows have their API's native binding).
  for (ResultRow& r : out.rows) {
    if (r.status != Status::ok) continue;
    auto ceiling = std::find_if(out.rows.begin(), out.rows.end(), [&r](const ResultRow& c) {
      return c.api == r.api && c.test == "copy" && c.variant == "vec4" && c.status == Status::ok &&
             c.block_size == r.block_size && c.binding == r.binding;
    });
    if (ceiling != out.rows.end() && ceiling->gbps_moved > 0)
      r.pct_of_ceiling = 100.0 * r.gbps_moved / ceiling->gbps_moved;
  }

  // Host-side costs: a one-block copy, issued many times.
  for (Active& a : apis) {
    if (!a.backend || cfg.host_cost_samples <= 0) continue;
    Backend& b = *a.backend;
    const std::uint32_t block = cfg.block_sizes.front();
    auto in = b.allocate(block * sizeof(float));
    auto outbuf = b.allocate(block * sizeof(float));
    b.fill(*in, 0x3F800000u);
    const Launch tiny{"copy", geometry_for(block, block, max_x, max_y), CuvkParams{block, 0, 1, 0},
                      in.get(), outbuf.get()};
    HostCostSamples samples = b.host_cost(tiny, cfg.host_cost_samples);
    out.host.push_back({a.api, summarize(samples.launch_us), summarize(samples.submit_us),
                        summarize(samples.round_trip_us), b.startup_ms()});
  }
  return out;
}

}  // namespace cuvk
