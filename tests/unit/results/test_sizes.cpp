// Issue 33: problem size is an axis. Rows at different n stay apart and are labelled in the
// reader, parity, the baseline comparison, the run summary and the printers.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "baseline.h"
#include "baseline_printer.h"
#include "merge.h"
#include "merge_printer.h"
#include "parity.h"
#include "parity_printer.h"
#include "results_fixture.h"
#include "run_file.h"
#include "run_printer.h"
#include "run_reader.h"
#include "run_summary.h"
#include "verdicts.h"

using namespace cuvk;

namespace {

// A fixture row at size n (its bytes and threads scaled with it).
nlohmann::json sized(const std::string& api, std::uint32_t n, double median) {
  nlohmann::json r = fixture::row("copy", api, median, median * 0.999, median * 1.001);
  r["params"]["n"] = n;
  r["params"]["threads"] = n;
  for (const char* k : {"useful_bytes", "moved_bytes"}) r[k] = 8ull * n;
  r["gbps_useful"] = r["gbps_moved"] = 8.0 * n / (median * 1e6);
  return r;
}

RunFile parse(const nlohmann::json& rows, const std::string& name = "t.json") {
  return parse_results(fixture::document(rows).dump(), name);
}

// CUDA and Vulkan at 1k and 4k: Vulkan is slower at 4k only.
nlohmann::json two_sizes() {
  return {sized("cuda", 1024, 1.0), sized("vulkan", 1024, 1.0), sized("cuda", 4096, 1.0),
          sized("vulkan", 4096, 2.0)};
}

}  // namespace

TEST(SizeAxis, TheReaderKeepsSizesApartAndLabelsThem) {
  const RunFile run = parse(two_sizes());
  ASSERT_EQ(run.rows.size(), 4u);
  for (const ResultRow& r : run.rows) {
    EXPECT_TRUE(r.n_in_label);
    EXPECT_EQ(point_label(r), r.n == 1024 ? "n=1k" : "n=4k");
  }
  EXPECT_NE(row_identity(run.rows[0]), row_identity(run.rows[2]));
  // What the writer writes of a sized row, the reader reads back at its size.
  const ResultRow back = read_row(JsonIn("t.json", row_json(run.rows[3])));
  EXPECT_EQ(back.n, 4096u);
  EXPECT_EQ(row_identity(back), row_identity(run.rows[3]));
  // One size: the labels are as they always were.
  for (const ResultRow& r : parse({sized("cuda", 1024, 1.0), sized("vulkan", 1024, 1.0)}).rows) {
    EXPECT_FALSE(r.n_in_label);
    EXPECT_EQ(point_label(r), "");
  }
}

TEST(SizeAxis, ParityAndTheRunSummaryPairRowsOfOneSize) {
  const RunFile run = parse(two_sizes());
  const ParityResult p = compare_apis(run.rows, kDefaultTolerance);
  ASSERT_EQ(p.lines.size(), 2u);
  EXPECT_EQ(p.lines[0].point.n, 1024u);
  EXPECT_EQ(p.lines[0].verdict, Verdict::same);
  EXPECT_EQ(p.lines[1].point.n, 4096u);
  EXPECT_EQ(p.lines[1].verdict, Verdict::slower);
  const std::vector<ParitySummaryRow> s = parity_summary(run.rows);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_DOUBLE_EQ(*s[0].vulkan_over_cuda, 1.0);
  EXPECT_DOUBLE_EQ(*s[1].vulkan_over_cuda, 2.0);
}

TEST(SizeAxis, TheBaselineMatchesRowsOfTheSameSize) {
  const RunFile base = parse(two_sizes(), "base.json");
  const RunFile now = parse({sized("vulkan", 4096, 1.0), sized("vulkan", 16384, 1.0)}, "now.json");
  const BaselineResult b = compare_baseline(now, base, kDefaultTolerance);
  ASSERT_EQ(b.lines.size(), 2u);
  ASSERT_TRUE(b.lines[0].base);
  EXPECT_EQ(b.lines[0].base->n, 4096u);
  EXPECT_EQ(b.lines[0].verdict, Verdict::faster);  // 2 ms then, 1 ms now: at 4k
  EXPECT_FALSE(b.lines[1].compared);
  EXPECT_EQ(b.lines[1].reason, "not in the baseline");
  EXPECT_EQ(b.only_in_baseline.size(), 3u);  // CUDA at 1k and 4k, Vulkan at 1k
}

TEST(SizeAxis, EveryPrinterLabelsTheSize) {
  RunDocument doc;
  doc.outcome.rows = parse(two_sizes()).rows;
  doc.outcome.n = 1024;
  doc.outcome.sizes = {1024, 4096};
  const std::string table = format_run(doc, Format::table);
  EXPECT_NE(table.find("n = 1k,4k"), std::string::npos) << table;
  for (const std::string& f : {table, format_run(doc, Format::md)}) {
    EXPECT_NE(f.find(" n=1k "), std::string::npos) << f;
    EXPECT_NE(f.find(" n=4k "), std::string::npos) << f;
  }
  const std::string csv = format_run(doc, Format::csv);
  EXPECT_NE(csv.find("copy,,scalar,vulkan,1024,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("copy,,scalar,vulkan,4096,"), std::string::npos) << csv;
  // parity, the baseline comparison and `cuvk report` name the size of each line too
  const RunFile run = parse(two_sizes());
  const std::string parity = parity_text(run, compare_apis(run.rows, kDefaultTolerance), false);
  EXPECT_NE(parity.find("n=1k"), std::string::npos) << parity;
  EXPECT_NE(parity.find("n=4k"), std::string::npos) << parity;
  const std::string base = baseline_text(compare_baseline(run, run, kDefaultTolerance), false);
  EXPECT_NE(base.find("n=1k"), std::string::npos) << base;
  EXPECT_NE(base.find("n=4k"), std::string::npos) << base;
  const std::string merged = format_merged({run}, Format::table);
  EXPECT_NE(merged.find("n=1k"), std::string::npos) << merged;
  EXPECT_NE(merged.find("n=4k"), std::string::npos) << merged;
  const nlohmann::json j = run_json(doc);
  EXPECT_EQ(j["settings"]["sizes"], nlohmann::json({1024, 4096}));
}

// Issue 49's mutation audit: the merged table's ratio inverted (CUDA over Vulkan) went unnoticed.
// It is Vulkan's time over CUDA's, per run and per size: 1 at 1k, 2 at 4k (Vulkan 2 ms, CUDA 1).
TEST(SizeAxis, TheMergedRatioIsVulkanOverCudaPerRun) {
  const RunFile slow_vulkan = parse(two_sizes(), "a.json");
  const RunFile fast_vulkan =
      parse({sized("cuda", 4096, 4.0), sized("vulkan", 4096, 1.0)}, "b.json");
  const std::vector<MergedRow> m = merge_runs({slow_vulkan, fast_vulkan});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].point.n, 1024u);
  EXPECT_EQ(m[1].point.n, 4096u);
  ASSERT_EQ(m[0].runs.size(), 2u);
  ASSERT_EQ(m[1].runs.size(), 2u);
  ASSERT_TRUE(m[0].runs[0].vulkan_over_cuda);
  EXPECT_DOUBLE_EQ(m[0].runs[0].vulkan_over_cuda->ratio, 1.0);
  EXPECT_FALSE(m[0].runs[1].vulkan_over_cuda);  // run B has no 1k point
  ASSERT_TRUE(m[1].runs[0].vulkan_over_cuda);
  EXPECT_DOUBLE_EQ(m[1].runs[0].vulkan_over_cuda->ratio, 2.0);
  ASSERT_TRUE(m[1].runs[1].vulkan_over_cuda);
  EXPECT_DOUBLE_EQ(m[1].runs[1].vulkan_over_cuda->ratio, 0.25);
  EXPECT_LT(m[1].runs[1].vulkan_over_cuda->low, 0.25);
  EXPECT_GT(m[1].runs[1].vulkan_over_cuda->high, 0.25);
}

// The plateau is the GB/s at the largest n measured; the size reported is the smallest n whose
// GB/s reaches 90% of it, even where the curve dips after it. A point at one size has no curve.
TEST(SizeAxis, PlateauAndTheSizeReachingNinetyPercentOnSyntheticData) {
  const std::vector<std::pair<std::uint32_t, double>> curve = {
      {1024, 1.0}, {4096, 5.0}, {16384, 9.1}, {65536, 8.9}, {262144, 10.0}};
  std::vector<ResultRow> rows;
  for (const auto& [n, gbps] : curve)
    rows.push_back(
        parse(nlohmann::json::array({sized("cuda", n, 8.0 * n / (gbps * 1e6))})).rows[0]);
  rows.push_back(
      parse(nlohmann::json::array({sized("vulkan", 4096, 1.0)})).rows[0]);  // one size: no curve
  std::reverse(rows.begin(), rows.end());  // the order of the rows does not matter
  const std::vector<SizeCurveRow> c = size_curves(rows);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].point.api, Api::cuda);
  EXPECT_EQ(c[0].point.n, 262144u);
  EXPECT_EQ(c[0].gbps.size(), 5u);
  EXPECT_EQ(c[0].plateau_n, 262144u);
  EXPECT_NEAR(c[0].plateau_gbps, 10.0, 1e-9);
  EXPECT_EQ(c[0].n_at_fraction, 16384u);  // 9.1 >= 0.9 x 10; 5.0 is not
  for (ResultRow& r : rows)
    if (r.api == Api::cuda && r.n == 4096) r.gbps_useful = 9.05;  // 4k now above 90%
  EXPECT_EQ(size_curves(rows)[0].n_at_fraction, 4096u);
  // Issue 49's mutation audit: the plateau taken as the curve's maximum went unnoticed. A peak
  // before the largest n (11 GB/s at 64k) is not the plateau: the largest n's 10 GB/s is.
  std::vector<ResultRow> peaked = rows;
  for (ResultRow& r : peaked)
    if (r.api == Api::cuda && r.n == 65536) r.gbps_useful = 11.0;
  const std::vector<SizeCurveRow> p = size_curves(peaked);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].plateau_n, 262144u);
  EXPECT_NEAR(p[0].plateau_gbps, 10.0, 1e-9);
  EXPECT_EQ(p[0].n_at_fraction, 4096u);
  // What the run file's summary says, and what the run table prints under the rows.
  RunDocument doc;
  doc.outcome.rows = rows;
  const nlohmann::json s = run_json(doc)["summary"]["size_curves"];
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0]["n_at_fraction"], 4096);
  EXPECT_EQ(s[0]["plateau_n"], 262144);
  EXPECT_EQ(s[0]["point"], "");
  EXPECT_EQ(s[0]["api"], "cuda");
  const std::string table = format_run(doc, Format::table);
  EXPECT_NE(table.find("Size curves"), std::string::npos) << table;
}
