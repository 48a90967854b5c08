// One measured row: a test x layout x variant x sweep point x block size on one API and binding.
// The runner fills it; the results layer writes, reads, compares and prints it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "axes.h"
#include "backend.h"
#include "clock_sample.h"
#include "counters.h"
#include "stats.h"

namespace cuvk {

enum class Status { ok, failed, unavailable };
const char* status_name(Status s);

// What an ok row's output was compared with (issue 31). `verified` only where every output element
// was compared with something independent and matched: a CPU reference, an expected-output file or
// the other API's output (which started from a different poison). Two bindings of one API that
// agree are `consistent`; a row that ran but could not be compared is `unchecked` (check_note says
// why); a pair declared timing only is `timing_only`. Files written before the field: not_recorded.
enum class Check { not_recorded, verified, consistent, unchecked, timing_only };
const char* check_name(Check c);  // as files spell it: "verified", "timing_only", ...
std::optional<Check> parse_check(const std::string& name);
// The status as tables print it: "ok, verified", "ok, unchecked", "ok, timing only", "failed", ...
std::string status_label(Status s, Check c);

// A hash of an output buffer's bytes. cuvk writes XXH3-64 (fast enough to stay off the first
// row's path); files written before it carry FNV-1a 64. Hashes of different kinds never compare.
enum class HashKind { xxh3_64, fnv1a64 };
struct OutputHash {
  HashKind kind = HashKind::xxh3_64;
  std::uint64_t value = 0;
  friend bool operator==(const OutputHash& a, const OutputHash& b) {
    return a.kind == b.kind && a.value == b.value;
  }
  friend bool operator!=(const OutputHash& a, const OutputHash& b) { return !(a == b); }
};
inline const char* hash_kind_name(HashKind k) {  // as files spell it: xxh3_64, fnv1a64
  return k == HashKind::xxh3_64 ? "xxh3_64" : "fnv1a64";
}

struct ResultRow {
  std::string test, layout, variant, kernel;  // layout "" where none
  Api api = Api::cuda;
  Binding binding = Binding::pointer;  // how the kernel reached its buffers (CUDA: pointer)
  // Copy-engine rows of an API with queue families (Vulkan): the family whose queue ran the copy
  // and its capabilities ("graphics|compute|transfer|sparse"). Unset / "" on every other row.
  std::optional<std::uint32_t> queue_family;
  std::string queue_flags;
  // Chain rows (KernelModel::chain_steps): how the chain's steps were submitted; unset on every other row.
  std::optional<Submission> submission;
  std::uint32_t n = 0, block_size = 0;  // the problem size and the launch's block size
  // The run had several sizes (--n list): the point label names n ("n=16k,offset=4"), so tables
  // and labels keep the sizes apart. Not written: the reader sets it from settings.sizes.
  bool n_in_label = false;
  AxisValues axes;                      // the sweep point (offset, stride, ...)
  std::uint32_t threads = 0;  // params.n: threads that do work
  Geometry geometry;
  Status status = Status::unavailable;
  std::string reason;
  Summary time_ms;
  std::uint64_t useful_bytes = 0, moved_bytes = 0;
  double gbps_useful = 0.0, gbps_moved = 0.0;
  std::uint32_t sectors_per_request = 0;
  double request_efficiency = 0.0;
  std::optional<double> pct_of_ceiling;  // gbps_moved over the same API's copy vec4 gbps_moved
  // Whether the check is `verified` (kept beside `check`: files and readers before issue 31 read it).
  bool verified = false;
  Check check = Check::not_recorded;
  // What the output was compared with, in order: "cpu reference", "expected file", "cuda",
  // "vulkan descriptor", "vulkan bda". Both rows of a cross-API comparison name each other.
  std::vector<std::string> checked_against;
  std::string check_note;  // unchecked / consistent: why nothing independent was compared
  std::uint64_t mismatches = 0, checked = 0;
  std::optional<std::uint64_t> first_bad_index;
  // The hash of the output buffer's bytes after the correctness run: equal hashes on two APIs
  // mean bit-identical outputs (both are also checked element by element against the CPU).
  std::optional<OutputHash> output_hash;
  std::string stop_reason;  // converged | time_budget | sample_budget
  std::optional<ClockSample> clocks_start, clocks_end;  // NVML, around the timed repetitions
  // Hardware counters (`--counters`), measured after the timed repetitions; unset without it.
  std::optional<RowCounters> counters;
  // Chain rows: the host's wall time per step, a backend call of at least kChainHostSteps steps
  // (whole chains, each waited for) over their steps, in microseconds (runner_chain.cpp).
  std::optional<double> host_us_per_step;
  std::optional<std::uint32_t> host_chains;  // the whole chains behind it (within the budget)
  // Caveats a reader must see next to the number: cache_resident, above_dram_peak,
  // clock_below_start, throttled, ci_not_met.
  std::vector<std::string> flags;
};

// Human-readable description of the row's parameter point ("offset=1", "stride=4", ""), its
// size first where the run had several ("n=16k,offset=1": ResultRow::n_in_label).
std::string point_label(const ResultRow& row);
// A size as --n takes it: "16k", "1M", "2G" where it is a whole multiple, else the digits.
std::string size_label(std::uint64_t n);

// Whether two rows measured the same point (API, binding and queue family aside): equal on every
// identity point dimension (dims.h: test, layout, variant, n, sweep axes, block size). Parity,
// baselines and the run summary pair rows with it.
bool same_point(const ResultRow& a, const ResultRow& b);

// Whether two rows of one point are the same lane: equal on every identity lane dimension
// (lanes.h: API, binding, queue family). Each Vulkan
// lane of a point pairs with the point's CUDA row; a baseline row matches the same lane's row.
bool same_lane(const ResultRow& a, const ResultRow& b);

// The variant as tables show it: "engine", or for a row on a queue family "engine q1 (transfer)"
// (a family without flags, inferred for a file from before copy queues, is not shown).
std::string variant_label(const std::string& variant, const std::optional<std::uint32_t>& family,
                          const std::string& flags);
std::string variant_label(const ResultRow& row);

}  // namespace cuvk
