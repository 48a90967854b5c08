// `cuvk explain` (issue 38): the ranking rules on synthetic measurements (docs/EXPLAIN.md), the
// counter evidence read from a recorded H100 run (results/h100/counters/why_blocks.json), the
// machine-code evidence from recorded SASS (results/h100/inspect_update_xy.txt), and the command
// end to end on lavapipe (no CUDA there: it says it could not compare).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "error.h"
#include "explain.h"
#include "explain_printer.h"
#include "kernel_inspection.h"
#include "parity.h"
#include "run_reader.h"
#include "sass_compare.h"

namespace cuvk {
namespace {

RatioCi ratio(double r, double half = 0.002) {
  return {r, r - half, r + half};
}

explain::Case copy_scalar_case() {  // FINDINGS 1 on the H100, block 256
  explain::Case c;
  c.label = "copy scalar";
  c.ratio = ratio(1.072);
  c.verdict = Verdict::slower;
  c.experiments = {{"binding", "bda", ratio(1.070)},
                   {"launch rate", "the grid-stride variant", ratio(1.025)}};
  c.evidence = {
      {"launch rate", "CTAs launched per us", "", 1067, 1003, "", std::nullopt, "", false},
      {"instructions", "instructions per dispatch", "", 3.98e7, 4.2e7, "", std::nullopt, ""}};
  return c;
}

TEST(ExplainShare, AnExperimentThatClosesPartOfTheGapGetsThatShare) {
  const auto s = explain::experiment_share(ratio(1.10), ratio(1.04));
  ASSERT_TRUE(s);
  EXPECT_NEAR(*s, 0.6, 1e-9);
  EXPECT_NEAR(*explain::experiment_share(ratio(1.10), ratio(0.98)), 1.0, 1e-9);  // clamped
  EXPECT_NEAR(*explain::experiment_share(ratio(0.90), ratio(0.95)), 0.5, 1e-9);  // Vulkan faster
}

TEST(ExplainShare, NoShareWhereTheExperimentMovesTheRatioLessThanItsIntervals) {
  EXPECT_FALSE(explain::experiment_share(ratio(1.10), ratio(1.099)));  // within the noise
  EXPECT_FALSE(explain::experiment_share(ratio(1.10), ratio(1.20)));   // wider gap
  EXPECT_FALSE(explain::experiment_share(ratio(1.0, 0), ratio(0.9)));  // no gap at all
  EXPECT_FALSE(explain::experiment_share(ratio(1.10, 0.04), ratio(1.05, 0.04)));  // wide CIs
  EXPECT_NEAR(*explain::experiment_share(ratio(1.10), ratio(0.95)), 1.0, 1e-9);   // past 1, less
  EXPECT_FALSE(explain::experiment_share(ratio(0.86), ratio(2.30)));  // turned round: not closed
  explain::Case c;
  c.ratio = ratio(0.86);
  c.experiments = {{"dispatch overhead", "a chain of 64 dispatches", ratio(2.30)}};
  const std::vector<explain::Finding> f = explain::rank(c);
  EXPECT_EQ(f[0].kind, explain::Kind::ruled_out);
  EXPECT_NE(f[0].measurement.find("the gap turns round"), std::string::npos) << f[0].measurement;
}

TEST(ExplainRank, OneFindingPerCauseSharesFirstThenEvidenceThenRuledOut) {
  const std::vector<explain::Finding> f = explain::rank(copy_scalar_case());
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].title, "launch rate");  // the grid-stride experiment and the counters together
  EXPECT_EQ(f[0].kind, explain::Kind::share);
  EXPECT_NEAR(*f[0].share, (1.072 - 1.025) / 0.072, 1e-9);
  EXPECT_NE(f[0].measurement.find("grid-stride"), std::string::npos) << f[0].measurement;
  EXPECT_NE(f[0].measurement.find("-6.0%"), std::string::npos) << f[0].measurement;
  EXPECT_EQ(f[1].title, "instructions");
  EXPECT_EQ(f[1].kind, explain::Kind::evidence);
  EXPECT_EQ(f[2].title, "binding");
  EXPECT_EQ(f[2].kind, explain::Kind::ruled_out);
  // (1 - 0.65) x 0.072 = 0.025 is inside the 3% tolerance: no "not explained" line.
}

TEST(ExplainRank, TheResidualIsPrintedWhereNothingAccountsForTheGap) {
  explain::Case c;  // read_offset 32 (FINDINGS 1, 5): the counters show only the launch rate
  c.ratio = ratio(1.09);
  c.experiments = {{"binding", "bda", ratio(1.091)}};
  c.evidence = {
      {"launch rate", "CTAs launched per us", "", 1000, 958, "", std::nullopt, "", false},
      {"DRAM traffic", "DRAM bytes per dispatch", "B", 5.4e8, 5.4e8, "", std::nullopt, ""}};
  const std::vector<explain::Finding> f = explain::rank(c);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].title, "launch rate");
  EXPECT_EQ(f[2].title, "DRAM traffic");  // the same bytes on both APIs: says nothing
  EXPECT_EQ(f[2].kind, explain::Kind::ruled_out);
  EXPECT_NE(f[2].measurement.find("equal within 1%"), std::string::npos) << f[2].measurement;
  EXPECT_EQ(f.back().kind, explain::Kind::residual);
  EXPECT_NEAR(*f.back().share, 1.0, 1e-9);
  EXPECT_NE(f.back().measurement.find("1.090"), std::string::npos) << f.back().measurement;
}

TEST(ExplainRank, AModelShareRanksWithTheExperiments) {
  explain::Case c;
  c.ratio = ratio(1.20);
  c.experiments = {{"block size", "block 1024", ratio(1.15)}};  // share 0.25
  c.evidence = {
      {"DRAM traffic", "DRAM bytes per dispatch", "B", 1e9, 1.16e9, "", 0.8, "DRAM-bound"}};
  const std::vector<explain::Finding> f = explain::rank(c);
  EXPECT_EQ(f[0].title, "DRAM traffic");
  EXPECT_NEAR(*f[0].share, 0.8, 1e-9);
  EXPECT_EQ(f[1].title, "block size");
  ASSERT_EQ(f.size(), 3u);  // (1 - 0.8) x 0.2 = 0.04 is above the 3% tolerance
  EXPECT_EQ(f[2].kind, explain::Kind::residual);
}

TEST(ExplainRank, AResidualAboveTheToleranceIsPrintedWithItsShare) {
  explain::Case c;
  c.ratio = ratio(1.30);
  c.experiments = {{"launch rate", "the grid-stride variant", ratio(1.15)}};  // half the gap
  const std::vector<explain::Finding> f = explain::rank(c);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].kind, explain::Kind::residual);
  EXPECT_NEAR(*f[1].share, 0.5, 1e-9);
}

// update_xy soa vec2 on the H200 (results/h200/explain/update_xy_soa_vec2.json): a block size
// closes 69% of the gap, but it is a remedy, not a cause: the instructions rank before it.
TEST(ExplainRank, ABlockSizeIsARemedyRankedAfterTheCausesEvidence) {
  explain::Case c;
  c.ratio = ratio(1.082);
  c.experiments = {{"binding", "bda", ratio(0.993)}, {"block size", "block 64", ratio(1.026)}};
  c.evidence = {
      {"instructions", "instructions per dispatch", "", 31457280, 34603008, "", std::nullopt, ""}};
  const std::vector<explain::Finding> f = explain::rank(c);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].title, "binding");
  EXPECT_EQ(f[1].title, "instructions");
  EXPECT_EQ(f[2].title, "block size");
  EXPECT_EQ(f[2].kind, explain::Kind::remedy);
  EXPECT_NEAR(*f[2].share, (1.082 - 1.026) / 0.082, 1e-9);
  EXPECT_STREQ(explain::kind_name(f[2].kind), "remedy");
}

// examples/copy_small_blocks on the H100 (descriptor): bda moves 1.178 to 1.173, a 3% share
// outside the noise; the launch rate's evidence (-16% CTAs per us) ranks before it.
TEST(ExplainRank, ASmallShareRanksAsEvidence) {
  explain::Case c;
  c.ratio = ratio(1.178, 0.001);
  c.experiments = {{"binding", "bda", ratio(1.173, 0.001)}};
  c.evidence = {
      {"launch rate", "CTAs launched per us", "", 1627, 1369, "", std::nullopt, "", false}};
  const std::vector<explain::Finding> f = explain::rank(c);
  ASSERT_GE(f.size(), 2u);
  EXPECT_EQ(f[0].title, "launch rate");
  EXPECT_EQ(f[1].title, "binding");
  EXPECT_EQ(f[1].kind, explain::Kind::evidence);
  ASSERT_TRUE(f[1].share);
  EXPECT_NEAR(*f[1].share, 0.005 / 0.178, 1e-9);
  EXPECT_EQ(f.back().kind, explain::Kind::residual);  // nothing closed the gap
}

TEST(ExplainRank, ARemedyDoesNotShrinkTheResidual) {
  explain::Case c;  // copy scalar at block 128: block 1024 closes it, the causes only 40%
  c.ratio = ratio(1.20);
  c.experiments = {{"block size", "block 1024", ratio(1.0)},
                   {"launch rate", "the grid-stride variant", ratio(1.12)}};
  const std::vector<explain::Finding> f = explain::rank(c);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].title, "launch rate");
  EXPECT_EQ(f[1].title, "block size");
  EXPECT_EQ(f[2].kind, explain::Kind::residual);
  EXPECT_NEAR(*f[2].share, 0.6, 1e-9);
}

std::string source_file(const std::string& relative) {
  std::ifstream in(std::string(CUVK_SOURCE_DIR) + "/" + relative);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ExplainCounters, LaunchRateAndResidencyFromARecordedH100Run) {
  const RunFile run =
      read_results(std::string(CUVK_SOURCE_DIR) + "/results/h100/counters/why_blocks.json");
  const ParityResult p = compare_apis(run.rows, kDefaultTolerance);
  const ParityLine* line = nullptr;
  for (const ParityLine& l : p.lines)
    if (l.point.variant == "scalar" && l.point.block_size == 256 && l.vulkan &&
        l.vulkan->binding == Binding::descriptor && l.state == PairState::compared)
      line = &l;
  ASSERT_NE(line, nullptr);
  std::string why;
  const std::vector<explain::Evidence> e =
      explain::counter_evidence(*line->cuda, *line->vulkan, why);
  ASSERT_EQ(e.size(), 3u) << why;
  EXPECT_EQ(e[0].cause, "launch rate");
  // FINDINGS 5 (counters): 1129/us on CUDA, 1046/us on Vulkan at block 256 (-7%).
  EXPECT_NEAR(e[0].cuda, 1129, 1);
  EXPECT_NEAR(e[0].vulkan, 1046, 1);
  EXPECT_NE(e[0].detail.find("CTAs resident per SM"), std::string::npos);
  EXPECT_EQ(e[2].cause, "DRAM traffic");
  EXPECT_NEAR(e[2].cuda, 537e6, 5e6);  // 2 x 256 MiB moved
  EXPECT_FALSE(e[2].model_share);      // 50% of peak: not DRAM-bound, no model share
  const explain::Case c{"copy scalar", line->ratio, line->verdict, kDefaultTolerance, {}, e, {}};
  const std::vector<explain::Finding> f = explain::rank(c);
  EXPECT_EQ(f.front().title, "launch rate");
  // Vulkan runs 10.5% fewer instructions (35.7M against 39.8M): not a cause of its slower time.
  const auto inst = std::find_if(
      f.begin(), f.end(), [](const explain::Finding& x) { return x.title == "instructions"; });
  ASSERT_NE(inst, f.end());
  EXPECT_EQ(inst->kind, explain::Kind::ruled_out) << inst->measurement;
  EXPECT_EQ(f.back().kind, explain::Kind::residual);  // no experiment ran: the gap is left
}

TEST(ExplainCounters, ARowWithoutCountersSaysSo) {
  ResultRow a, b;
  std::string why;
  EXPECT_TRUE(explain::counter_evidence(a, b, why).empty());
  EXPECT_NE(why.find("--counters"), std::string::npos) << why;
}

// One listing of `cuvk inspect`'s output: the lines after `header` up to the next "--- ".
std::string listing(const std::string& text, const std::string& header) {
  const std::size_t at = text.find(header);
  if (at == std::string::npos) return "";
  const std::size_t from = text.find('\n', at) + 1;
  return text.substr(from, text.find("\n--- ", from) - from);
}

TEST(ExplainMachineCode, RecordedSassOfUpdateXyAosNamesTheGuardedStores) {
  const std::string text = source_file("results/h100/inspect_update_xy.txt");
  inspect::KernelInspection k;
  k.cuda.sass.text = listing(text, "--- update_xy_aos: CUDA SASS (sm_90) ---");
  k.cuda.sass_summary = inspect::summarize_sass(k.cuda.sass.text);
  inspect::VulkanSide v;
  v.sass.text = listing(text, "--- update_xy_aos: Vulkan SASS (descriptor), block 256 ---");
  v.sass_summary = inspect::summarize_sass(v.sass.text);
  v.sass_differences = inspect::sass_differences(k.cuda.sass_summary, v.sass_summary);
  k.vulkan.push_back(v);
  std::string why;
  const auto e = explain::machine_code_evidence(k, why);
  ASSERT_TRUE(e) << why;
  EXPECT_EQ(e->cuda, 24);    // inspect_update_xy.txt: "SASS instructions CUDA SASS 24"
  EXPECT_EQ(e->vulkan, 27);  // "Vulkan SASS (descriptor) 27"
  EXPECT_NE(e->detail.find("guarded EXIT/BRA 2"), std::string::npos) << e->detail;
  EXPECT_NE(e->detail.find("predicated loads/stores 2"), std::string::npos) << e->detail;
  k.vulkan.front().sass.text.clear();
  EXPECT_FALSE(explain::machine_code_evidence(k, why));
  EXPECT_NE(why.find("Vulkan SASS"), std::string::npos);
}

TEST(ExplainPrinter, TableMarkdownAndJsonCarryTheRankedFindings) {
  explain::Report r;
  r.run = "test run";
  r.cases.push_back(copy_scalar_case());
  r.cases.back().not_run = {"machine code: no cuobjdump"};
  const std::string table = format_explain(r, Format::table);
  EXPECT_NE(table.find("grid-stride variant"), std::string::npos) << table;
  EXPECT_NE(table.find("launch rate"), std::string::npos) << table;
  EXPECT_NE(table.find("65%"), std::string::npos) << table;
  EXPECT_NE(table.find("not run: machine code: no cuobjdump"), std::string::npos);
  EXPECT_LT(table.find("launch rate"), table.find("instructions"));
  EXPECT_NE(format_explain(r, Format::md).find("| 1 | launch rate"), std::string::npos);
  const auto j = nlohmann::json::parse(format_explain(r, Format::json));
  EXPECT_EQ(j["schema"], kExplainSchema);
  EXPECT_EQ(j["cases"][0]["findings"][0]["title"], "launch rate");
  EXPECT_TRUE(j["cases"][0]["findings"][1]["share"].is_null());
}

// An explain file read back (`cuvk report FILE`, `--index`) prints as explain printed it.
TEST(ExplainPrinter, AFileReadBackPrintsTheSameAndABadOneIsRefused) {
  explain::Report r;
  r.run = "test run";
  r.same = 2;
  r.cases.push_back(copy_scalar_case());
  r.cases.back().not_run = {"trace: no trace lane ran"};
  const std::string json = format_explain(r, Format::json);
  ASSERT_TRUE(explain::is_explain_json(json));
  const explain::Document back = explain::read_explain(json, "x.json");
  for (Format f : {Format::table, Format::md, Format::json})
    EXPECT_EQ(format_explain(back, f), format_explain(r, f));
  EXPECT_FALSE(explain::is_explain_json(R"({"schema": "cuvk.parity/1"})"));
  try {
    explain::read_explain(R"({"schema": "cuvk.explain/1", "run": "r"})", "bad.json");
    FAIL() << "a file without cases was read";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "bad.json: tolerance: missing (required)");
  }
  std::string wrong_kind = json;
  wrong_kind.replace(wrong_kind.find("\"evidence\""), 10, "\"eviDence\"");
  EXPECT_THROW(explain::read_explain(wrong_kind, "k.json"), UsageError);
}

// Issue 49, item 9: an explain file's values are checked on reading, as a run file's are: each
// refusal one line naming the field's path (never the JSON library's own text), a newer schema
// named as such; and text from the file is printed with its control characters escaped.
TEST(ExplainPrinter, AFileIsCheckedFieldByFieldAndItsTextEscaped) {
  explain::Report r;
  r.run = "test run";
  r.same = 2;
  r.cases.push_back(copy_scalar_case());
  r.cases.back().not_run = {"trace: no trace lane ran"};
  const nlohmann::json good = nlohmann::json::parse(format_explain(r, Format::json));
  ASSERT_FALSE(good["cases"][0]["findings"][0]["share"].is_null());
  const auto refused = [&good](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json bad = good;
    change(bad);
    try {
      explain::read_explain(bad.dump(), "x.json");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("read without complaint");
  };
  using J = nlohmann::json;
  EXPECT_EQ(refused([](J& j) { j["same_points"] = -1; }),
            "x.json: same_points: expected an integer from 0 to 4294967295, found -1");
  EXPECT_EQ(refused([](J& j) { j["cases"][0]["findings"][0]["share"] = 1e308; }),
            "x.json: cases[0].findings[0].share: expected a fraction from 0 to 1, found 1e+308");
  EXPECT_EQ(refused([](J& j) { j["cases"][0]["findings"][0]["share"] = -0.5; }),
            "x.json: cases[0].findings[0].share: expected a finite number >= 0, found -0.5");
  EXPECT_EQ(refused([](J& j) { j["cases"][0]["verdict"] = "BOGUS"; }),
            "x.json: cases[0].verdict: unknown verdict 'BOGUS' (expected SAME, VULKAN FASTER, "
            "VULKAN SLOWER or UNCERTAIN)");
  EXPECT_EQ(refused([](J& j) { j["cases"][0]["ratio"] = "x"; }),
            "x.json: cases[0].ratio: expected an object, found a string");
  EXPECT_EQ(refused([](J& j) { j["cases"][0]["ratio"]["low"] = "0.9"; }),
            "x.json: cases[0].ratio.low: expected a finite number >= 0, found a string");
  EXPECT_EQ(refused([](J& j) { j["cases"][0]["not_run"][0] = 7; }),
            "x.json: cases[0].not_run[0]: expected a string, found a number");
  EXPECT_EQ(refused([](J& j) { j["cases"][0]["findings"][1].erase("title"); }),
            "x.json: cases[0].findings[1].title: missing (required)");
  EXPECT_EQ(refused([](J& j) { j["tolerance"] = 1e308; }),
            "x.json: tolerance: expected a fraction above 0 and below 1, found 1e+308");
  EXPECT_EQ(refused([](J& j) { j["schema"] = "cuvk.explain/2"; }),
            "x.json: written by a newer cuvk (schema 'cuvk.explain/2'; this cuvk reads up to "
            "\"cuvk.explain/1\"): upgrade cuvk to read it");
  EXPECT_EQ(refused([](J& j) { j["schema"] = "cuvk.explain/one"; }),
            "x.json: foreign schema 'cuvk.explain/one' (expected \"cuvk.explain/1\")");
  for (const std::string& text : {refused([](J& j) { j["run"] = 3; }),
                                  refused([](J& j) { j["cases"] = J::object(); })})
    EXPECT_EQ(text.find("json.exception"), std::string::npos) << text;

  nlohmann::json hostile = good;
  hostile["run"] = "run \x1b[31mred\x07";
  hostile["cases"][0]["not_run"][0] = "trace: \x1b]0;title\x07 \u202e";
  const explain::Document d = explain::read_explain(hostile.dump(), "h.json");
  for (Format f : {Format::table, Format::md}) {
    const std::string text = format_explain(d, f);
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
    EXPECT_EQ(text.find("\u202e"), std::string::npos) << text;
    EXPECT_NE(text.find("run \\x1b[31mred\\x07"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace cuvk

namespace cuvk {
namespace {

// A lane's summary as `cuvk trace --output` wrote it (results/SCHEMA.md, cuvk.trace/1).
TraceSummary recorded_summary(const nlohmann::json& lane) {
  const nlohmann::json& j = lane.at("summary");
  TraceSummary s;
  s.blocks = j.at("blocks").get<std::size_t>();
  s.launch_rate_per_us = j.at("launch_rate_blocks_per_us").get<double>();
  s.resident_mean = j.at("resident_per_sm_mean").get<double>();
  s.refills = j.at("refills").get<std::size_t>();
  if (!j.at("refill_median_ns").is_null())
    s.refill_median_ns = j.at("refill_median_ns").get<double>();
  s.tail_95_ns = j.at("tail_95_ns").get<double>();
  return s;
}

// FINDINGS 1 on the H100, copy scalar at block 128 (results/h100/traces/copy_128.json.gz):
// Vulkan starts 1154 blocks per us where CUDA starts 1657; that is launch-rate evidence in the
// gap's direction, ranked first where no experiment ran.
TEST(ExplainTrace, ARecordedCopyTraceIsLaunchRateEvidence) {
  const std::string path = std::string(CUVK_SOURCE_DIR) + "/results/h100/traces/copy_128.json.gz";
  std::FILE* pipe = popen(("gzip -dc '" + path + "'").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  char buf[1 << 16];
  for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, pipe)) > 0;) text.append(buf, got);
  ASSERT_EQ(pclose(pipe), 0) << path;
  const nlohmann::json doc = nlohmann::json::parse(text);
  std::optional<TraceSummary> cuda, vulkan;
  for (const nlohmann::json& lane : doc.at("lanes")) {
    if (lane.at("api") == "cuda") cuda = recorded_summary(lane);
    if (lane.at("api") == "vulkan" && lane.at("binding") == "descriptor")
      vulkan = recorded_summary(lane);
  }
  ASSERT_TRUE(cuda && vulkan);
  const explain::Evidence e = explain::trace_evidence(*cuda, *vulkan);
  EXPECT_NEAR(e.cuda, 1656.6, 0.1);
  EXPECT_NEAR(e.vulkan, 1153.6, 0.1);
  EXPECT_NE(e.detail.find("blocks resident per SM 7.7 / 5.6"), std::string::npos) << e.detail;
  explain::Case c;
  c.ratio = ratio(1.17);
  c.evidence = {e};
  const std::vector<explain::Finding> f = explain::rank(c);
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f[0].title, "launch rate");
  EXPECT_EQ(f[0].kind, explain::Kind::evidence);
  EXPECT_NE(f[0].measurement.find("blocks started per us (trace): CUDA 1657, Vulkan 1154 (-30.4%)"),
            std::string::npos)
      << f[0].measurement;
  c.ratio = ratio(0.85);  // were Vulkan the faster, the slower launch rate could not explain it
  EXPECT_EQ(explain::rank(c)[0].kind, explain::Kind::ruled_out);
}

}  // namespace
}  // namespace cuvk
