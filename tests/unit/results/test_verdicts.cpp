// The statistics of `parity` and `--baseline`: the ratio's interval, the verdict edges, pairing.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "baseline.h"
#include "error.h"
#include "parity.h"
#include "results_fixture.h"
#include "run_reader.h"
#include "verdicts.h"

using namespace cuvk;

namespace {

RunFile parse(const nlohmann::json& doc, const std::string& name = "t.json") {
  return parse_results(doc.dump(), name);
}

}  // namespace

TEST(RatioCi, ExactWhenBothMediansAreExact) {
  const RatioCi r = ratio_ci({2.0, 2.0, 2.0}, {1.0, 1.0, 1.0});
  EXPECT_DOUBLE_EQ(r.ratio, 2.0);
  EXPECT_DOUBLE_EQ(r.low, 2.0);
  EXPECT_DOUBLE_EQ(r.high, 2.0);
}

TEST(RatioCi, OneUncertainSideCarriesOver) {
  // Only the numerator is uncertain: the ratio's interval is the numerator's, scaled.
  const RatioCi r = ratio_ci({2.0, 1.8, 2.2}, {1.0, 1.0, 1.0});
  EXPECT_NEAR(r.low, 1.8, 1e-12);
  EXPECT_NEAR(r.high, 2.2, 1e-12);
  // Only the denominator: its upper bound lowers the ratio's lower bound and vice versa.
  const RatioCi d = ratio_ci({1.0, 1.0, 1.0}, {1.0, 0.8, 1.25});
  EXPECT_NEAR(d.low, 0.8, 1e-12);
  EXPECT_NEAR(d.high, 1.25, 1e-12);
}

TEST(RatioCi, CombinesInQuadratureInLogSpace) {
  // log gaps 0.03 (numerator low side) and 0.04 (denominator high side): 0.05 combined.
  const RatioCi r =
      ratio_ci({1.0, std::exp(-0.03), std::exp(0.06)}, {1.0, std::exp(-0.08), std::exp(0.04)});
  EXPECT_NEAR(std::log(r.low), -0.05, 1e-12);
  EXPECT_NEAR(std::log(r.high), 0.10, 1e-12);  // hypot(0.06, 0.08)
  EXPECT_DOUBLE_EQ(r.ratio, 1.0);
  // Narrower than the conservative box [n_low/d_high, n_high/d_low] = exp(-0.07), exp(0.14).
  EXPECT_GT(r.low, std::exp(-0.07));
  EXPECT_LT(r.high, std::exp(0.14));
}

TEST(RatioCi, ZeroLowerBoundIsUnbounded) {
  const RatioCi r = ratio_ci({1.0, 0.0, 1.1}, {1.0, 0.0, 1.1});
  EXPECT_EQ(r.low, 0.0);
  EXPECT_TRUE(std::isinf(r.high));
  EXPECT_EQ(judge(r, 0.03), Verdict::uncertain);
}

TEST(Verdict, EdgesOfTheToleranceBand) {
  const double tol = 0.03, lo = 1.0 - tol, hi = 1.0 + tol;
  auto v = [tol](double low, double high) { return judge({1.0, low, high}, tol); };
  EXPECT_EQ(v(1.0, 1.0), Verdict::same);
  EXPECT_EQ(v(lo, hi), Verdict::same);  // the edges belong to SAME
  EXPECT_EQ(v(std::nextafter(lo, 0.0), 1.0), Verdict::uncertain);
  EXPECT_EQ(v(1.0, std::nextafter(hi, 2.0)), Verdict::uncertain);
  EXPECT_EQ(v(0.5, 2.0), Verdict::uncertain);  // wider than the band on both sides
  EXPECT_EQ(v(0.90, std::nextafter(lo, 0.0)), Verdict::faster);
  EXPECT_EQ(v(0.90, lo), Verdict::uncertain);  // touching the band is not outside it
  EXPECT_EQ(v(std::nextafter(hi, 2.0), 1.2), Verdict::slower);
  EXPECT_EQ(v(hi, 1.2), Verdict::uncertain);
  EXPECT_EQ(judge({1.0, 0.985, 1.015}, 0.01), Verdict::uncertain);  // the tolerance is a parameter
  EXPECT_EQ(judge({1.0, 0.985, 1.015}, 0.02), Verdict::same);
}

TEST(Verdict, Names) {
  EXPECT_STREQ(parity_verdict_name(Verdict::faster), "VULKAN FASTER");
  EXPECT_STREQ(parity_verdict_name(Verdict::slower), "VULKAN SLOWER");
  EXPECT_STREQ(baseline_verdict_name(Verdict::slower), "SLOWER");
  EXPECT_STREQ(baseline_verdict_name(Verdict::same), "SAME");
}

TEST(Tolerance, ParsesPercent) {
  EXPECT_DOUBLE_EQ(parse_tolerance("3"), 0.03);
  EXPECT_DOUBLE_EQ(parse_tolerance("0.5%"), 0.005);
  for (const char* bad : {"", "%", "0", "-1", "100", "abc", "3x", "nan"})
    EXPECT_THROW(parse_tolerance(bad), UsageError) << bad;
}

TEST(CompareApis, VerdictsOutputsAndExitCodes) {
  using fixture::row;
  const nlohmann::json rows = {row("read_offset", "cuda", 1.0, 0.995, 1.005, 0),
                               row("read_offset", "vulkan", 1.0, 0.995, 1.005, 0),
                               row("read_offset", "cuda", 1.0, 0.995, 1.005, 1),
                               row("read_offset", "vulkan", 1.2, 1.19, 1.21, 1),
                               row("read_offset", "cuda", 1.0, 0.995, 1.005, 2),
                               row("read_offset", "vulkan", 0.8, 0.79, 0.81, 2),
                               row("read_offset", "cuda", 1.0, 0.995, 1.005, 3),
                               row("read_offset", "vulkan", 1.0, 0.9, 1.1, 3)};
  const ParityResult p = compare_apis(parse(fixture::document(rows)).rows, kDefaultTolerance);
  ASSERT_EQ(p.lines.size(), 4u);
  EXPECT_EQ(p.lines[0].verdict, Verdict::same);
  EXPECT_EQ(p.lines[1].verdict, Verdict::slower);
  EXPECT_EQ(p.lines[2].verdict, Verdict::faster);
  EXPECT_EQ(p.lines[3].verdict, Verdict::uncertain);
  EXPECT_NEAR(p.lines[1].ratio.ratio, 1.2, 1e-12);
  EXPECT_EQ(p.outputs_identical, 4u);
  EXPECT_EQ(p.exit_code, 1);

  const nlohmann::json same = {row("copy", "cuda", 1.0, 0.995, 1.005),
                               row("copy", "vulkan", 1.0, 0.995, 1.005)};
  EXPECT_EQ(compare_apis(parse(fixture::document(same)).rows, kDefaultTolerance).exit_code, 0);

  nlohmann::json mismatch = same;
  mismatch[1]["output_xxh3_64"] = "00000000000000bb";
  const ParityResult m = compare_apis(parse(fixture::document(mismatch)).rows, kDefaultTolerance);
  EXPECT_EQ(m.lines[0].verdict, Verdict::same);
  EXPECT_EQ(m.lines[0].outputs, OutputCheck::mismatch);
  EXPECT_EQ(m.exit_code, 1);

  // Hashes of two kinds (FNV-1a 64 from an older cuvk) say nothing about each other.
  nlohmann::json kinds = same;
  kinds[1]["output_fnv1a64"] = kinds[1]["output_xxh3_64"];
  kinds[1].erase("output_xxh3_64");
  const ParityResult k = compare_apis(parse(fixture::document(kinds)).rows, kDefaultTolerance);
  EXPECT_EQ(k.lines[0].outputs, OutputCheck::unknown);
  EXPECT_EQ(k.exit_code, 0);

  nlohmann::json failed = same;
  failed[1]["status"] = "failed";
  failed[1]["reason"] = "12 wrong elements";
  const ParityResult f = compare_apis(parse(fixture::document(failed)).rows, kDefaultTolerance);
  EXPECT_EQ(f.lines[0].state, PairState::failed);
  EXPECT_EQ(f.exit_code, 1);
}

TEST(CompareApis, UnavailableApiCannotBeCompared) {
  const nlohmann::json rows = {fixture::unavailable_row("copy", "cuda"),
                               fixture::row("copy", "vulkan", 1.0, 0.99, 1.01)};
  const ParityResult p =
      compare_apis(parse(fixture::document(rows, false)).rows, kDefaultTolerance);
  EXPECT_EQ(p.unavailable, 1u);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.not_compared_reason.find("CUDA unavailable: no CUDA driver found"), std::string::npos)
      << p.not_compared_reason;
  // A difference elsewhere says more than an unavailable point: exit 1.
  nlohmann::json more = rows;
  more.push_back(fixture::row("read_x", "cuda", 1.0, 0.99, 1.01));
  more.push_back(fixture::row("read_x", "vulkan", 2.0, 1.99, 2.01));
  EXPECT_EQ(compare_apis(parse(fixture::document(more)).rows, kDefaultTolerance).exit_code, 1);
  EXPECT_EQ(compare_apis({}, kDefaultTolerance).exit_code, 2);
}

TEST(CompareBaseline, MatchesRowsAndListsTheMissing) {
  using fixture::row;
  const nlohmann::json base_rows = {
      row("copy", "vulkan", 1.0, 0.99, 1.01), row("copy", "cuda", 1.0, 0.99, 1.01),
      row("read_x", "vulkan", 1.0, 0.99, 1.01, 0, "00000000000000aa", "aos")};
  const nlohmann::json now_rows = {row("copy", "vulkan", 1.5, 1.49, 1.51),
                                   row("copy", "cuda", 0.5, 0.49, 0.51),
                                   row("stride", "vulkan", 1.0, 0.99, 1.01)};
  const RunFile base = parse(fixture::document(base_rows), "base.json");
  const RunFile now = parse(fixture::document(now_rows), "now.json");
  const BaselineResult b = compare_baseline(now, base, kDefaultTolerance);
  ASSERT_EQ(b.lines.size(), 3u);
  EXPECT_EQ(b.lines[0].verdict, Verdict::slower);
  EXPECT_EQ(b.lines[1].verdict, Verdict::faster);
  EXPECT_FALSE(b.lines[2].compared);  // stride: not in the baseline
  EXPECT_EQ(b.lines[2].reason, "not in the baseline");
  ASSERT_EQ(b.only_in_baseline.size(), 1u);
  EXPECT_EQ(b.only_in_baseline[0].test, "read_x");
  EXPECT_EQ(b.exit_code, 1);  // a SLOWER row

  const BaselineResult same = compare_baseline(base, base, kDefaultTolerance);
  EXPECT_EQ(same.same, 3u);
  EXPECT_EQ(same.exit_code, 0);
}

// The exit-code rules a CI job needs (issue 12, class 4): FASTER alone passes, UNCERTAIN fails,
// comparing nothing is never success.
TEST(CompareBaseline, ExitCodesFollowTheCiRules) {
  using fixture::row;
  const RunFile base = parse(fixture::document({row("copy", "vulkan", 1.0, 0.99, 1.01),
                                                row("copy", "cuda", 1.0, 0.99, 1.01)}),
                             "base.json");
  const RunFile faster = parse(fixture::document({row("copy", "vulkan", 0.5, 0.49, 0.51),
                                                  row("copy", "cuda", 1.0, 0.99, 1.01)}),
                               "faster.json");
  EXPECT_EQ(compare_baseline(faster, base, kDefaultTolerance).exit_code, 0);  // FASTER + SAME
  // 1.03 with an interval across the 3% edge: UNCERTAIN, which a CI job must not wave through.
  const RunFile edge = parse(fixture::document({row("copy", "vulkan", 1.03, 1.0, 1.06),
                                                row("copy", "cuda", 1.0, 0.99, 1.01)}),
                             "edge.json");
  const BaselineResult u = compare_baseline(edge, base, kDefaultTolerance);
  EXPECT_EQ(u.uncertain, 1u);
  EXPECT_EQ(u.exit_code, 1);
  // No row of the run is in the baseline: nothing compared is exit 2, not success.
  const RunFile other =
      parse(fixture::document(nlohmann::json::array({row("stride", "vulkan", 1.0, 0.99, 1.01)})),
            "other.json");
  const BaselineResult none = compare_baseline(other, base, kDefaultTolerance);
  EXPECT_EQ(none.same + none.faster + none.slower + none.uncertain, 0u);
  EXPECT_EQ(none.exit_code, 2);
}

TEST(CompareBaseline, SameGpuCheck) {
  const nlohmann::json rows = {fixture::row("copy", "vulkan", 1.0, 0.99, 1.01)};
  const RunFile a = parse(fixture::document(rows, true, true, "NVIDIA H100 80GB HBM3"), "a.json");
  const RunFile b = parse(fixture::document(rows, true, true, "NVIDIA A100-SXM4-80GB"), "b.json");
  try {
    compare_baseline(a, b, kDefaultTolerance);
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("NVIDIA H100 80GB HBM3"), std::string::npos) << what;
    EXPECT_NE(what.find("NVIDIA A100-SXM4-80GB"), std::string::npos) << what;
  }
  nlohmann::json other_board = fixture::document(rows);
  other_board["devices"]["vulkan"]["uuid"] = "99999999-2222-3333-4444-555555555555";
  const std::vector<std::string> notes =
      check_same_gpu(parse(fixture::document(rows)), parse(other_board));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("another board"), std::string::npos) << notes[0];
}

TEST(CompareApis, OnePairPerVulkanBindingMode) {
  using fixture::row;
  nlohmann::json cuda = row("copy", "cuda", 1.0, 0.995, 1.005);
  cuda["binding"] = "pointer";
  nlohmann::json descriptor = row("copy", "vulkan", 1.0, 0.995, 1.005);
  descriptor["binding"] = "descriptor";
  nlohmann::json bda = row("copy", "vulkan", 1.2, 1.19, 1.21);
  bda["binding"] = "bda";
  for (const nlohmann::json& rows :
       {nlohmann::json{cuda, descriptor, bda}, nlohmann::json{bda, descriptor, cuda}}) {
    const ParityResult p = compare_apis(parse(fixture::document(rows)).rows, kDefaultTolerance);
    ASSERT_EQ(p.lines.size(), 2u) << rows.dump();
    for (const ParityLine& l : p.lines) {
      ASSERT_TRUE(l.cuda && l.vulkan);
      EXPECT_EQ(binding_name(l.vulkan->binding), l.vulkan_lane.value("binding"));
      EXPECT_EQ(l.verdict,
                l.vulkan->binding == Binding::bda ? Verdict::slower : Verdict::same);
    }
  }
  // Baseline rows match only the same binding mode.
  const RunFile both = parse(fixture::document({cuda, descriptor, bda}));
  const RunFile only_descriptor = parse(fixture::document({cuda, descriptor}));
  const BaselineResult b = compare_baseline(both, only_descriptor, kDefaultTolerance);
  EXPECT_EQ(b.same, 2u);
  ASSERT_EQ(b.lines.size(), 3u);
  EXPECT_EQ(b.lines[2].reason, "not in the baseline");
}
