// `cuvk trace`'s maths on synthetic traces: parsing and checking the records, launch rate,
// residency, tail; and the JSON and text writers on a small document.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "params.h"
#include "trace_file.h"
#include "trace_summary.h"

namespace cuvk {
namespace {

void put(std::vector<std::uint32_t>& w, std::uint32_t block, std::uint32_t sm, std::uint64_t start,
         std::uint64_t end) {
  const std::size_t at = std::size_t{block} * CUVK_TRACE_WORDS;
  if (w.size() < at + CUVK_TRACE_WORDS) w.resize(at + CUVK_TRACE_WORDS, 0);
  w[at] = sm;
  w[at + 1] = block;
  w[at + 2] = static_cast<std::uint32_t>(start);
  w[at + 3] = static_cast<std::uint32_t>(start >> 32);
  w[at + 4] = static_cast<std::uint32_t>(end);
  w[at + 5] = static_cast<std::uint32_t>(end >> 32);
  w[at + 6] = CUVK_TRACE_MARK;
}

// `sms` SMs, `per_sm` blocks resident on each at once, every block `dur` ns, waves back to back:
// block b starts at (b / (sms * per_sm)) * dur on SM b % sms.
std::vector<TraceBlock> waves(std::uint32_t blocks, std::uint32_t sms, std::uint32_t per_sm,
                              double dur) {
  std::vector<TraceBlock> out;
  for (std::uint32_t b = 0; b < blocks; ++b) {
    const double start = static_cast<double>(b / (sms * per_sm)) * dur;
    out.push_back({b % sms, b, start, start + dur});
  }
  return out;
}

TEST(TraceParse, TicksBecomeNsFromTheFirstStartAcrossThe32BitBoundary) {
  std::vector<std::uint32_t> w;
  const std::uint64_t base = 0xFFFFFFF0ull;  // the low word wraps inside the trace
  put(w, 0, 3, base + 100, base + 300);
  put(w, 1, 5, base, base + 200);
  const TraceRecords r = parse_trace(w, 2, 1.0, true, 132);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.blocks.size(), 2u);
  EXPECT_DOUBLE_EQ(r.blocks[0].start_ns, 100.0);
  EXPECT_DOUBLE_EQ(r.blocks[0].end_ns, 300.0);
  EXPECT_DOUBLE_EQ(r.blocks[1].start_ns, 0.0);
  EXPECT_EQ(r.blocks[1].sm, 5u);
  EXPECT_EQ(r.first_start_ticks, base);
  const TraceRecords half = parse_trace(w, 2, 2.0, true, 0);  // 2 ticks per ns
  EXPECT_DOUBLE_EQ(half.blocks[0].end_ns, 150.0);
}

TEST(TraceParse, NamesEveryKindOfBadRecord) {
  std::vector<std::uint32_t> w;
  put(w, 0, 1, 10, 20);
  put(w, 1, 1, 10, 20);
  EXPECT_EQ(parse_trace(w, 2, 1.0, true, 0).error, "");
  std::vector<std::uint32_t> unwritten = w;
  unwritten[CUVK_TRACE_WORDS + 6] = 0;
  EXPECT_EQ(parse_trace(unwritten, 2, 1.0, true, 0).error,
            "1 of 2 trace records are wrong; first: block 1 never written");
  std::vector<std::uint32_t> moved = w;
  moved[CUVK_TRACE_WORDS + 1] = 7;
  EXPECT_NE(parse_trace(moved, 2, 1.0, true, 0).error.find("block 1 holds block index 7"),
            std::string::npos);
  std::vector<std::uint32_t> backwards;
  put(backwards, 0, 1, 30, 20);
  EXPECT_NE(parse_trace(backwards, 1, 1.0, true, 0).error.find("ends before it starts"),
            std::string::npos);
  EXPECT_NE(parse_trace(w, 2, 1.0, true, 1).error.find("ran on SM 1 of 1"), std::string::npos);
  EXPECT_NE(parse_trace(w, 2, 1.0, false, 0).error.find("SM id where the API gives none"),
            std::string::npos);
  std::vector<std::uint32_t> no_sm;
  put(no_sm, 0, CUVK_TRACE_NO_SM, 1, 2);
  EXPECT_EQ(parse_trace(no_sm, 1, 1.0, false, 0).error, "");
  EXPECT_NE(parse_trace(no_sm, 1, 1.0, true, 0).error.find("has no SM id"), std::string::npos);
  EXPECT_NE(parse_trace(w, 3, 1.0, true, 0).error.find("2 records for 3 blocks"),
            std::string::npos);
}

TEST(TraceSummary, WavesGiveTheirRateResidencyAndTail) {
  // 4 SMs x 2 resident x 10 waves of 1000 ns: 80 blocks, 8 start every 1000 ns.
  const TraceSummary s = summarize_trace(waves(80, 4, 2, 1000.0), 10);
  EXPECT_EQ(s.blocks, 80u);
  EXPECT_TRUE(s.sm_known);
  EXPECT_EQ(s.sms_seen, 4u);
  EXPECT_DOUBLE_EQ(s.span_ns, 10000.0);
  EXPECT_DOUBLE_EQ(s.resident_mean, 2.0);
  EXPECT_DOUBLE_EQ(s.resident_max, 2.0);
  EXPECT_DOUBLE_EQ(s.in_flight_mean, 8.0);
  EXPECT_DOUBLE_EQ(s.in_flight_max, 8.0);  // back-to-back blocks do not overlap
  EXPECT_DOUBLE_EQ(s.first_wave_blocks, 8.0);
  // Starts at ranks 7 (t = 0) and 71 (t = 8000): 64 blocks in 8 us.
  EXPECT_DOUBLE_EQ(s.launch_rate_per_us, 8.0);
  EXPECT_DOUBLE_EQ(s.tail_last_start_ns, 1000.0);
  EXPECT_DOUBLE_EQ(s.tail_95_ns, 0.0);  // the last wave ends all at once
  EXPECT_DOUBLE_EQ(s.block_median_ns, 1000.0);
  EXPECT_DOUBLE_EQ(s.clock_step_ns, 1000.0);
  ASSERT_EQ(s.residency.size(), 10u);
  for (const ResidencyBin& b : s.residency) EXPECT_DOUBLE_EQ(b.per_sm, 2.0);
}

TEST(TraceSummary, RefillIsTheGapFromAnEndToTheNextStartOnThatSm) {
  // 2 SMs x 2 resident, 3 waves of 1000 ns with 50 ns between a wave's end and the next start.
  std::vector<TraceBlock> blocks;
  for (std::uint32_t b = 0; b < 12; ++b) {
    const double start = static_cast<double>(b / 4) * 1050.0;
    blocks.push_back({b % 2, b, start, start + 1000.0});
  }
  const TraceSummary s = summarize_trace(blocks);
  EXPECT_EQ(s.refills, 8u);  // every block after the first wave
  EXPECT_DOUBLE_EQ(s.refill_median_ns, 50.0);
  EXPECT_DOUBLE_EQ(s.refill_p95_ns, 50.0);
  // A start with two slots freed before it is measured from the later end.
  const TraceSummary later =
      summarize_trace({{0, 0, 0.0, 100.0}, {0, 1, 0.0, 200.0}, {0, 2, 300.0, 400.0}});
  EXPECT_EQ(later.refills, 1u);
  EXPECT_DOUBLE_EQ(later.refill_median_ns, 100.0);
  for (TraceBlock& b : blocks) b.sm = kNoSm;
  EXPECT_EQ(summarize_trace(blocks).refills, 0u);  // needs SM ids
}

TEST(TraceSummary, AStragglerMakesTheTail) {
  std::vector<TraceBlock> blocks = waves(80, 4, 2, 1000.0);
  blocks.back().end_ns += 5000.0;  // one block of the last wave runs 6 us
  const TraceSummary s = summarize_trace(blocks, 4);
  EXPECT_DOUBLE_EQ(s.span_ns, 15000.0);
  EXPECT_DOUBLE_EQ(s.tail_last_start_ns, 6000.0);
  EXPECT_DOUBLE_EQ(s.tail_95_ns, 5000.0);             // 95% (76 blocks) done at 10 us
  EXPECT_DOUBLE_EQ(s.residency.back().per_sm, 0.25);  // 1 block over 4 SMs
}

TEST(TraceSummary, WithoutSmIdsResidencyIsTheWholeGpu) {
  std::vector<TraceBlock> blocks = waves(40, 4, 2, 500.0);
  for (TraceBlock& b : blocks) b.sm = kNoSm;
  const TraceSummary s = summarize_trace(blocks);
  EXPECT_FALSE(s.sm_known);
  EXPECT_EQ(s.sms_seen, 0u);
  EXPECT_DOUBLE_EQ(s.resident_mean, 8.0);
  EXPECT_DOUBLE_EQ(s.resident_max, 8.0);
}

TEST(TraceSummary, EmptyAndSimultaneous) {
  EXPECT_EQ(summarize_trace({}).blocks, 0u);
  const TraceSummary s = summarize_trace({{0, 0, 0.0, 5.0}, {1, 1, 0.0, 5.0}});
  EXPECT_DOUBLE_EQ(s.launch_rate_per_us, 0.0);  // no time between starts: no rate claimed
  EXPECT_DOUBLE_EQ(s.in_flight_max, 2.0);
}

TEST(TraceWriters, JsonCarriesTheSchemaAndSvgIsDrawn) {
  TraceDocument doc;
  doc.kernel = "copy";
  doc.n = 80 * 256;
  doc.block_size = 256;
  TraceLane lane;
  lane.api = Api::vulkan;
  lane.binding = Binding::descriptor;
  lane.geometry = {256, 80, 1};
  lane.verified = true;
  lane.support.sm_ids_unavailable = "no SM builtins";
  lane.blocks = waves(80, 4, 2, 1000.0);
  lane.summary = summarize_trace(lane.blocks);
  doc.lanes.push_back(lane);
  TraceLane cuda;
  cuda.unavailable = "no CUDA device";
  doc.lanes.push_back(cuda);
  const nlohmann::json j = trace_json(doc);
  EXPECT_EQ(j["schema"], "cuvk.trace/1");
  EXPECT_EQ(j["lanes"][0]["blocks"].size(), 80u);
  EXPECT_EQ(j["lanes"][0]["summary"]["sms_seen"], 4);
  EXPECT_EQ(j["lanes"][1]["unavailable"], "no CUDA device");
  const std::string text = trace_text(doc);
  EXPECT_NE(text.find("launch rate"), std::string::npos);
  EXPECT_NE(text.find("unavailable: no CUDA device"), std::string::npos);
}

}  // namespace
}  // namespace cuvk
