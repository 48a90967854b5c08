// Hardware counters beside the rows (`cuvk run --counters`), read through NVIDIA's CUPTI, which
// cuvk opens at run time (libcupti.so.13 with libnvperf_host/_target.so, like NVML): a build or a
// machine without it runs as before and every row says `unavailable: <reason>`.
//
// Two instruments:
// - the range profiler, per kernel (CUDA only: it attaches to a CUDA context): one launch of the
//   row's kernel after the L2 flush, replayed by cuvk until every pass of the metrics ran;
// - PM sampling, GPU-wide counters read at a fixed time interval whatever issued the work, so
//   one sampler measures a batch of back-to-back dispatches of either API the same way.
// This file holds the data and the pure parts (metric names, the decode of evaluated values, the
// attribution of samples to the batch's dispatches); cupti.cpp talks to CUPTI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"

namespace cuvk {

// ---- the range profiler: one launch of one CUDA kernel ----

// Metric names, in the order KernelCounters is decoded from.
const std::vector<std::string>& kernel_metrics();

struct KernelCounters {
  double ld_sectors = 0, ld_requests = 0, st_sectors = 0, st_requests = 0;  // global, L1
  double dram_read_bytes = 0, dram_write_bytes = 0;
  double ctas_launched = 0;
  double achieved_occupancy_pct = 0;   // warps active over the SM's maximum, while active
  double ld_bytes_per_sector_pct = 0;  // ncu's smsp__sass_average_data_bytes_per_sector_..._ld
  double gpu_time_ns = 0;              // the profiled launch (profiled: slower than timed)
  std::size_t passes = 0;              // replays the metrics needed
  // Sectors per request of loads / stores; nullopt where the kernel made no such request.
  std::optional<double> ld_sectors_per_request() const;
  std::optional<double> st_sectors_per_request() const;
  // The worse of the two, as the sector model's sectors_per_request (worst stream).
  std::optional<double> sectors_per_request() const;
};

// `values` in kernel_metrics() order (as CUPTI evaluated them). Throws Error on a wrong count.
KernelCounters decode_kernel(const std::vector<double>& values, std::size_t passes);

// ---- PM sampling: GPU-wide samples over a batch of dispatches ----

// One PM-sampling metric: what it is called in cuvk's output and the CUPTI names to try, the
// chip-specific (one-pass "Triage" group) first. `required`: no sampling without it.
struct PmMetric {
  const char* key;
  std::vector<const char*> names;
  bool required;
};
enum PmIndex : std::size_t {
  kPmDramRead,        // bytes
  kPmDramWrite,       // bytes
  kPmSmThroughput,    // % of peak, elapsed
  kPmSmActiveCycles,  // SM active cycles, average SM
  kPmGpcCycles,       // GPC cycles elapsed
  kPmCtasActive,      // CTAs resident per SM (average over the sample)
  kPmWarpsActive,     // warps resident per SM (a second configuration, cupti_pm.cpp)
  kPmCtasLaunched,    // CTAs launched GPU-wide (front end)
  kPmSmemKib,         // shared memory configured per TPC, KiB (the carve-out)
  kPmRegisters,       // registers allocated to compute per TPC
  kPmDramPct,         // DRAM throughput, % of peak
  kPmInstExecuted,    // instructions executed, GPU-wide
  kPmCount
};
const std::vector<PmMetric>& pm_metrics();

// A PM metric whose raw value on a chip's sampler is off by a known factor: what it reads times
// `scale` is what its key says. Measured, not assumed (docs/COUNTERS.md, "Warps resident").
struct PmCalibration {
  const char* chip;
  const char* metric;
  double scale;
};
const std::vector<PmCalibration>& pm_calibrations();
// The factor for `metric` on `chip`: 1 for a metric that needs none; nullopt for one that needs a
// calibration this chip does not have (then it is not sampled: no uncalibrated figure is shown).
std::optional<double> pm_scale(const std::string& chip, const std::string& metric);
// For each pm_metrics() entry, the first of its names that `chip` has (`chip_base_metrics`, its
// own list) and that needs no calibration it lacks, "" where none; then `extra`, a developer's
// metrics (CUVK_COUNTERS_PM_EXTRA: sampled in the same pass, never dropped, seen only in the dump
// and the provenance). Throws Error if a required metric has none or the chip lacks an extra one.
std::vector<std::string> choose_pm_metrics(const std::string& chip,
                                           const std::vector<std::string>& chip_base_metrics,
                                           const std::vector<std::string>& extra = {});
// "a,b,,c" -> {"a", "b", "c"}; null -> {}.
std::vector<std::string> comma_list(const char* text);
constexpr double kSmsPerTpc = 2.0;  // every NVIDIA GPU since Volta: two SMs per TPC

// One decoded sample: its interval on the GPU's clock and a value per pm_metrics() entry (NaN
// for a metric the chip could not sample).
struct PmSample {
  std::uint64_t start_ns = 0, end_ns = 0;
  std::vector<double> values;
};

// The per-sample series a row keeps (the busy samples), for plots over time.
struct PmPoint {
  double t_us = 0;  // sample start, from the first busy sample
  double dram_read_gbps = 0, dram_write_gbps = 0, sm_throughput_pct = 0, warps_per_sm = 0,
         ctas_per_sm = 0;
};

struct SampledCounters {
  std::uint64_t interval_ns = 0;
  std::size_t samples = 0;          // decoded, the whole window (idle before and after included)
  std::size_t busy_samples = 0;     // those from the batch's first busy sample to its last
  std::size_t dropped_samples = 0;  // the first and any longer than kMaxSampleIntervals
  std::uint32_t dispatches = 0;
  double batch_gpu_ms = 0;  // the batch's own GPU timers, summed
  double busy_ms = 0;       // the busy samples' span
  // Per dispatch: the whole window's bytes / dispatches (idle samples move nothing).
  double dram_read_bytes_per_dispatch = 0, dram_write_bytes_per_dispatch = 0;
  // Over the busy span: throughputs and averages.
  double dram_read_gbps = 0, dram_write_gbps = 0, dram_pct = 0, sm_throughput_pct = 0,
         sm_active_pct = 0, warps_per_sm = 0, ctas_per_sm = 0, ctas_launched_per_dispatch = 0,
         smem_kib_per_sm = 0, registers_per_sm = 0, inst_per_dispatch = 0;
  std::vector<PmPoint> series;
};

// A sample counts as busy when its SMs were active at least kBusySmActive of its cycles or its
// DRAM moved at least kBusyDramGbps (the copy engines move data with idle SMs). Absolute
// thresholds: an idle GPU stays far below both, any kernel of cuvk's far above.
constexpr double kBusySmActive = 0.05;
constexpr double kBusyDramGbps = 50.0;
// A sample longer than this many intervals is not a regular one (the first sample after Start
// can hold what the counters saw before it): it is dropped, and counted.
constexpr double kMaxSampleIntervals = 1.5;

// Attributes a window of samples to the `dispatches` dispatches of the batch that ran inside it
// (`batch_gpu_ms`: their summed GPU times): the first sample and irregular ones dropped, the busy
// span from the first busy sample to the last. Throws Error when no sample is busy.
SampledCounters attribute(const std::vector<PmSample>& samples, std::uint64_t interval_ns,
                          std::uint32_t dispatches, double batch_gpu_ms);

// ---- the batch a row samples ----

// At least this many busy samples per batch (the floor), from a batch of about
// kSampleBatchMs of GPU time at the 20 us interval (130 samples: a short batch suffices, and
// every sample decoded costs host time).
constexpr std::size_t kMinBusySamples = 100;
constexpr double kSampleBatchMs = 2.6;
// One dispatch where it alone is that long (a 256 MiB copy on a transfer-only queue: 3 ms), so
// that the window stays well inside a counter data image (512 samples, cupti_pm.cpp).
constexpr int kMinDispatches = 1, kMaxDispatches = 20000;
// Dispatches in the first batch, from the row's median time (timed with the L2 flush: the
// batch, without it, may run faster).
int batch_dispatches(double median_ms);
// Where a batch of `dispatches` gave fewer than kMinBusySamples busy samples: the dispatches
// of a second batch that gives them with a margin (0: the first sufficed, or the most already).
int rebatch_dispatches(int dispatches, std::size_t busy_samples);

// ---- what a row carries ----

struct RowCounters {
  std::optional<KernelCounters> kernel;
  std::string kernel_unavailable;  // why not (set when !kernel)
  std::optional<SampledCounters> sampled;
  std::string sampled_unavailable;
};

// Measured against the sector model: relative differences beyond this are flagged.
constexpr double kModelTolerance = 0.05;

// The row's measured sectors per request (range profiler) and DRAM bytes per dispatch (PM
// sampling, read + write), where measured.
std::optional<double> measured_sectors_per_request(const RowCounters& c);
std::optional<double> measured_dram_bytes(const RowCounters& c);
// Whether measured and modeled differ by more than kModelTolerance (false when not measured).
bool differs_from_model(std::optional<double> measured, double modeled);

// ---- the metric names against a chip's own list ----

// The base metric a full name rolls up ("TPC.TriageCompute.tpc__warps_active_realtime.avg.
// per_cycle_elapsed" -> "TPC.TriageCompute.tpc__warps_active_realtime").
std::string metric_base_name(const std::string& metric);
// The names of `metrics` whose base is not in `chip_base_metrics`.
std::vector<std::string> unknown_metrics(const std::vector<std::string>& metrics,
                                         const std::vector<std::string>& chip_base_metrics);

// ---- the session: CUPTI opened for one GPU ----

class CounterSession {
 public:
  virtual ~CounterSession() = default;
  // The chip ("GH100") and the PM metric names in use (one per pm_metrics() entry, "" where the
  // chip has none), for the run's provenance.
  virtual std::string chip() const = 0;
  virtual std::vector<std::string> pm_names() const = 0;
  virtual std::uint64_t interval_ns() const = 0;
  // "" where the instrument works on this GPU, else why not (each may fail on its own).
  virtual std::string kernel_unavailable() const = 0;
  virtual std::string sampling_unavailable() const = 0;
  // Whether the range profiler holds the counters now (the sampler must be switched back on for
  // PM sampling; switching costs host time, so a CUDA row measures with the one enabled first).
  virtual bool range_enabled() const { return false; }
  // Host seconds spent since the last call, by step ("switch to range profiler", "PM decode"...),
  // for the run's cost figures.
  virtual std::vector<std::pair<std::string, double>> take_costs() { return {}; }
  // Range profiler around one kernel launch (CUDA) of `ctas` CTAs: `before` runs outside the range
  // before every pass (the L2 flush), `kernel` inside it. Throws Error with CUPTI's reason, or
  // where the profiler counted other than `ctas` CTAs launched (its counts are not the launch's).
  virtual KernelCounters profile_kernel(const std::function<void()>& before,
                                        const std::function<void()>& kernel, double ctas) = 0;
  // PM sampling while `work` runs (any API, any process). Throws Error with CUPTI's reason.
  virtual std::vector<PmSample> sample(const std::function<void()>& work) = 0;
  // Where CUVK_COUNTERS_DUMP names a directory: the last profile's or sample's raw CUPTI data and
  // decoded values go there as test fixtures (`label`.json; the .bin images with
  // CUVK_COUNTERS_DUMP_RAW=1), with the batch's dispatches and GPU time. No-op otherwise.
  virtual void dump(const std::string& label, const std::string& what_ran, std::uint32_t dispatches,
                    double batch_gpu_ms) = 0;
};

// Opens CUPTI for the GPU with this UUID (found through the CUDA driver, which both APIs share
// on NVIDIA). Null with `why` set where it cannot: no CUPTI, no CUDA driver, no such GPU,
// profiling restricted to administrators, or cuvk built without the CUPTI headers.
std::unique_ptr<CounterSession> open_counters(const Uuid& gpu, std::string* why);

}  // namespace cuvk
