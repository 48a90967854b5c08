// The counters of `cuvk run --counters`: the range profiler around one launch of each CUDA kernel
// (before the first row, profile_kernels_first; or with its row where that failed), and, after
// each row's timed repetitions, PM sampling over a batch of back-to-back dispatches (both APIs),
// then measured against the sector model. Nothing here is timed: the row's times come from the
// repetitions before it.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "error.h"
#include "interrupt.h"
#include "runner_parts.h"

namespace cuvk::runner_detail {
namespace {

std::string kernel_why(const ApiState& a, const Launch& launch) {
  if (a.api != Api::cuda)
    return "per-kernel counters come from CUPTI's range profiler, which attaches to CUDA "
           "contexts only (this row's DRAM and SM figures are PM-sampled)";
  if (launch.kernel == kCopyEngine) return "cudaMemcpyAsync runs no kernel to profile";
  return a.counters->kernel_unavailable();
}

std::string dump_label(const ResultRow& row) {
  std::string label = row.kernel + "_" + api_name(row.api) + "_" + binding_name(row.binding);
  for (std::uint32_t v : row.axes.values()) label += fmt::format("_{}", v);
  label += fmt::format("_b{}", row.block_size);
  if (row.queue_family) label += fmt::format("_q{}", *row.queue_family);
  return label;
}

double ctas_of(const Launch& l) {
  return static_cast<double>(l.geometry.grid_x) * static_cast<double>(l.geometry.grid_y);
}

}  // namespace

std::string kernel_launch_key(const std::string& kernel, const Geometry& g, const CuvkParams& p) {
  return fmt::format("{}_g{}x{}_b{}_n{}_o{}_s{}_a{}", kernel, g.grid_x, g.grid_y, g.block_size, p.n,
                     p.offset, p.stride, p.aux);
}

// A run-time kernel's scalars are its own (a pair's: any size), not a CuvkParams block: its key
// names the kernel and geometry with zero parameters (pair kernels are named "pair:...", so a key
// never meets a built-in one).
std::string kernel_launch_key(const Launch& l) {
  const bool builtin = l.scalars.size() == kBuiltinScalarBytes;
  return kernel_launch_key(l.kernel, l.geometry, builtin ? builtin_params(l) : CuvkParams{});
}

void profile_kernels_first(ApiState& a, const std::vector<PlannedLaunch>& launches, bool flush,
                           RunOutcome& out) {
  CounterSession* s = a.counters;
  if (!s || a.api != Api::cuda || !a.backend || !s->kernel_unavailable().empty()) return;
  PhaseTimer timer(out.phase_s, "counters");
  Backend& b = *a.backend;
  for (const PlannedLaunch& p : launches) {
    if (interrupted()) break;
    const KernelModel& m = p.plan->kernel_model();
    Launch launch;
    launch.kernel = p.plan->kernel;
    launch.geometry = p.geometry;
    launch.scalars = m.scalars;
    launch.binding = native_binding(a.api);
    const std::string key = kernel_launch_key(launch);
    if (p.plan->kernel == kCopyEngine || a.profiled.count(key)) continue;
    try {
      // The model's buffers, of its sizes: inputs 1.0f, outputs 0 (the kernels' addresses do
      // not depend on the data).
      std::vector<std::unique_ptr<DeviceBuffer>> buffers;
      for (const ModelBuffer& mb : m.buffers) {
        buffers.push_back(b.allocate(std::max<std::uint64_t>(mb.bytes(), sizeof(float))));
        b.fill(*buffers.back(), mb.output ? 0u : 0x3F800000u);
        launch.buffers.push_back(whole(*buffers.back()));
      }
      a.profiled[key] = s->profile_kernel(
          [&] {
            if (flush) b.run(a.flush, RunOptions{1, nullptr});
          },
          [&] {
            b.run(launch, RunOptions{1, nullptr});
          },
          ctas_of(launch));
    } catch (const std::exception&) {  // profiled with its row instead, which says why not
    }
    s->dump("range_" + key, p.plan->kernel + " before the first row", 1, 0);
  }
  for (const auto& [step, sec] : s->take_costs()) add_phase(out.counters_cost_s, step, sec);
}

void collect_counters(const ApiState& a, const Launch& launch, const Launch* flush, RunOutcome& out,
                      ResultRow& row) {
  PhaseTimer timer(out.phase_s, "counters");
  RowCounters c;
  CounterSession* s = a.counters;
  if (!s) {
    c.kernel_unavailable = c.sampled_unavailable = a.counters_reason;
    row.counters = std::move(c);
    return;
  }
  Backend& b = *a.backend;
  c.kernel_unavailable = kernel_why(a, launch);
  auto profile = [&] {
    if (c.kernel_unavailable.empty()) {
      if (auto k = a.profiled.find(kernel_launch_key(launch)); k != a.profiled.end()) {
        c.kernel = k->second;  // profiled before the first row
        return;
      }
    }
    if (c.kernel_unavailable.empty()) try {
        c.kernel = s->profile_kernel(
            [&] {
              if (flush) b.run(*flush, RunOptions{1, nullptr});
            },
            [&] {
              b.run(launch, RunOptions{1, nullptr});
            },
            ctas_of(launch));
      } catch (const Error& e) {
        c.kernel_unavailable = e.what();
      }
  };
  c.sampled_unavailable = s->sampling_unavailable();
  int reps = batch_dispatches(row.time_ms.median);
  double batch_ms = 0;
  auto sample = [&] {
    if (c.sampled_unavailable.empty()) try {
        for (int batch = 0; batch < 2; ++batch) {  // a second only where the first gave too few
          std::vector<double> times;
          const std::vector<PmSample> samples = s->sample([&] {
            times = b.run(launch, RunOptions{reps, nullptr});
          });
          batch_ms = std::accumulate(times.begin(), times.end(), 0.0);
          c.sampled =
              attribute(samples, s->interval_ns(), static_cast<std::uint32_t>(reps), batch_ms);
          const int more = rebatch_dispatches(reps, c.sampled->busy_samples);
          if (more == 0) break;
          reps = more;
        }
      } catch (const Error& e) {
        c.sampled.reset();
        c.sampled_unavailable = e.what();
      }
  };
  if (s->range_enabled()) {  // the profiler the previous CUDA row left on goes first
    profile();
    sample();
  } else {
    sample();
    profile();
  }
  for (const auto& [step, sec] : s->take_costs()) add_phase(out.counters_cost_s, step, sec);
  s->dump(dump_label(row),
          row.test + " " + row.layout + " " + row.variant + " " + point_label(row) + " " +
              api_name(row.api) + " " + binding_name(row.binding),
          static_cast<std::uint32_t>(reps), batch_ms);
  if (launch.kernel != kCopyEngine &&
      differs_from_model(measured_sectors_per_request(c), row.sectors_per_request))
    row.flags.push_back("sectors_differ_from_model");
  if (differs_from_model(measured_dram_bytes(c), static_cast<double>(row.moved_bytes)))
    row.flags.push_back("dram_differs_from_model");
  row.counters = std::move(c);
}

}  // namespace cuvk::runner_detail
