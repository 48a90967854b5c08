// Dispatch traces (`cuvk trace`): the records a traced kernel wrote (host/contract/params.h),
// checked, and summarised as launch rate, blocks resident per SM over time and the tail. Pure
// functions of the records: no device, unit-tested on synthetic traces (tests/test_trace.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cuvk {

// One block (workgroup) as its thread 0 recorded it; times in ns from the first block's start.
struct TraceBlock {
  std::uint32_t sm = 0;  // kNoSm where the API cannot say
  std::uint32_t block = 0;
  double start_ns = 0.0, end_ns = 0.0;
};
constexpr std::uint32_t kNoSm = 0xFFFFFFFFu;

// The records of `blocks` blocks in `words` (CUVK_TRACE_WORDS per block), their ticks turned into
// ns (ticks / ticks_per_ns) from the earliest start. `error` says what is wrong, with the count of
// bad records and the first: a record never written (the buffer arrives zeroed), a block index
// that is not its position, an end before its start, an SM id where there should be none or none
// where there should be one, or one not below `sm_count` (0: unchecked).
struct TraceRecords {
  std::vector<TraceBlock> blocks;  // in block order
  std::uint64_t first_start_ticks = 0, last_end_ticks = 0;
  std::string error;  // "" when every record is sound
};
TraceRecords parse_trace(const std::vector<std::uint32_t>& words, std::size_t blocks,
                         double ticks_per_ns, bool sm_ids, std::uint32_t sm_count);

// Blocks resident per SM, averaged over one bin of the time axis.
struct ResidencyBin {
  double t0_ns = 0.0, t1_ns = 0.0;
  double per_sm = 0.0;  // blocks in flight in the bin, time-weighted, over the SMs seen (or 1)
};

struct TraceSummary {
  std::size_t blocks = 0;
  bool sm_known = false;
  std::size_t sms_seen = 0;  // distinct SM ids (0 when unknown)
  double span_ns = 0.0;      // first block start .. last block end
  double launch_rate_per_us =
      0.0;  // block starts per us between the 10th and 90th percentile start
  double steady_t0_ns = 0.0, steady_t1_ns = 0.0;  // that steady part
  double first_wave_blocks = 0.0;                 // blocks started before the first block ended
  // Blocks in flight per SM: time-weighted mean over the span and the most at once on any SM.
  // Without SM ids: blocks in flight on the whole GPU (per_sm fields then count the GPU).
  double resident_mean = 0.0, resident_max = 0.0;
  double in_flight_mean = 0.0, in_flight_max = 0.0;  // the whole GPU
  double tail_last_start_ns = 0.0;                   // last block start .. last block end
  double tail_95_ns = 0.0;                           // 95% of blocks finished .. last block end
  double block_median_ns = 0.0, block_p95_ns = 0.0;  // one block's start .. end
  // Refill: a block that started on an SM after one there had ended, its start minus the latest
  // such end not yet taken by another start: how soon the SM got new work after retiring a block
  // (per-block launch latency, an upper bound on it when the launcher was idle). Needs SM ids;
  // `refills` counts the blocks measured (0 without SM ids or without a second wave).
  std::size_t refills = 0;
  double refill_median_ns = 0.0, refill_p95_ns = 0.0;
  double clock_step_ns = 0.0;           // smallest non-zero difference between two recorded times
  std::vector<ResidencyBin> residency;  // `bins` equal bins over the span
};
TraceSummary summarize_trace(const std::vector<TraceBlock>& blocks, std::size_t bins = 100);

}  // namespace cuvk
