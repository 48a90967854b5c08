// `cuvk parity`, `run --baseline`, `report` and `run --device all` through the CLI, on lavapipe.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli.h"
#include "cmd_run.h"
#include "cuda_backend.h"

using nlohmann::json;

namespace {

struct Result {
  int code = 0;
  std::string out, err;
};

Result cli(std::vector<std::string> args) {
  args.insert(args.begin(), "cuvk");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  Result r;
  r.code = cuvk::cli_main(static_cast<int>(argv.size()), argv.data());
  r.out = ::testing::internal::GetCapturedStdout();
  r.err = ::testing::internal::GetCapturedStderr();
  return r;
}

// ctest runs each test in its own process, several at once: files are per process.
std::string tmp(const std::string& name) {
  return ::testing::TempDir() + "cuvk_parity_" + std::to_string(getpid()) + "_" + name;
}

json load(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f);
}

void save(const std::string& path, const json& j) {
  std::ofstream(path) << j.dump(1);
}

const std::vector<std::string> kQuick = {"--n",        "4096", "--reps",      "5",
                                         "--max-time", "0.05", "--settle-ms", "1"};

std::vector<std::string> with_quick(std::vector<std::string> args) {
  args.insert(args.end(), kQuick.begin(), kQuick.end());
  return args;
}

// One real lavapipe run (read_x and two offsets), shared by the tests below.
class ParityCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    run_path_ = tmp("run.json");
    const Result r = cli(with_quick({"run", "--tests", "read_x,read_offset", "--offsets", "0,1",
                                     "--format", "json", "--output", run_path_, "--quiet"}));
    ASSERT_EQ(r.code, cuvk::kExitOk) << r.err;
  }
  static void TearDownTestSuite() { std::remove(run_path_.c_str()); }

  // An ok row's times (median, min, max, interval) times `factor`, its GB/s to match: the
  // reader refuses a row whose values contradict each other.
  static void scale_times(json& row, double factor) {
    for (const char* k : {"median", "min", "max"})
      row["time_ms"][k] = row["time_ms"][k].get<double>() * factor;
    for (const char* k : {"low_ms", "high_ms"}) row["ci"][k] = row["ci"][k].get<double>() * factor;
    for (const char* k : {"gbps_useful", "gbps_moved"}) row[k] = row[k].get<double>() / factor;
  }

  // The lavapipe run with every Vulkan row copied as a CUDA row, its times divided by
  // `cuda_speedup` and both given tight intervals: a synthetic two-API run. No speedup used
  // below is exactly 1, so every CUDA row's times differ from its Vulkan twin's and a parity
  // that paired a row with itself, or read its sides the wrong way round, shows.
  static json two_api_run(double cuda_speedup, double vulkan_rel_ci = 0.002) {
    json doc = load(run_path_);
    json rows = json::array();
    for (json r : doc["results"]) {
      if (r["api"] != "vulkan") continue;
      const double t = r["time_ms"]["median"];
      r["ci"]["low_ms"] = t * (1 - vulkan_rel_ci);
      r["ci"]["high_ms"] = t * (1 + vulkan_rel_ci);
      json c = r;
      c["api"] = "cuda";
      c["binding"] = "pointer";
      scale_times(c, 1 / cuda_speedup);
      const double ct = c["time_ms"]["median"];
      c["ci"]["low_ms"] = ct * 0.998;
      c["ci"]["high_ms"] = ct * 1.002;
      rows.push_back(c);
      rows.push_back(r);
    }
    doc["results"] = rows;
    doc["devices"]["cuda"] = doc["devices"]["vulkan"];
    doc["devices"]["cuda"]["api"] = "cuda";
    return doc;
  }

  static std::vector<std::string> verdicts(const std::string& json_text) {
    std::vector<std::string> v;
    const json doc = json::parse(json_text);  // named: a range-for over a temporary's member dangles
    for (const json& r : doc["parity"]["rows"]) v.push_back(r["verdict"]);
    return v;
  }

  // Every parity row's Vulkan/CUDA ratio is `want` (Vulkan's median over CUDA's), each side
  // carrying its own API's median: the ratio's direction and the pairing, checked.
  static void expect_ratios(const std::string& json_text, double want) {
    const json doc = json::parse(json_text);
    ASSERT_EQ(doc["parity"]["rows"].size(), 4u);
    for (const json& row : doc["parity"]["rows"]) {
      const double cuda = row["cuda"]["median_ms"], vulkan = row["vulkan"]["median_ms"];
      EXPECT_NEAR(vulkan / cuda, want, 1e-9) << row.dump();
      EXPECT_NEAR(row["vulkan_over_cuda"].get<double>(), want, 1e-9) << row.dump();
    }
  }

  static std::string run_path_;
};
std::string ParityCli::run_path_;

// Where a CUDA device exists (tests/gpu.sh), a run has CUDA rows and parity compares: the tests
// of what it does without one skip there (tests/allowed_skips.txt, `gpu`).
bool have_cuda() {
  try {
    return !cuvk::cuda_devices().empty();
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

TEST(ParityCliNoGpu, ExitsTwoWithAClearReason) {
  if (have_cuda()) GTEST_SKIP() << "a CUDA device is here: parity can compare";
  const Result r = cli({"parity", "--tests", "read_x"});
  EXPECT_EQ(r.code, cuvk::kExitNotCompared);
  EXPECT_EQ(r.err.rfind("error: cannot compare CUDA with Vulkan: CUDA unavailable: ", 0), 0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(ParityCliNoGpu, UsageErrors) {
  EXPECT_EQ(cli({"parity", "--api", "vulkan"}).code, cuvk::kExitUsage);
  EXPECT_EQ(cli({"parity", "--tolerance", "0"}).code, cuvk::kExitUsage);
  EXPECT_EQ(cli({"parity", "--device", "all"}).code, cuvk::kExitUsage);
  EXPECT_EQ(cli({"parity", "--from", "/nonexistent.json"}).code, cuvk::kExitUsage);
}

TEST_F(ParityCli, FromALavapipeRunCannotCompare) {
  if (have_cuda()) GTEST_SKIP() << "a CUDA device is here: the run has CUDA rows to compare";
  const Result r = cli({"parity", "--from", run_path_});
  EXPECT_EQ(r.code, cuvk::kExitNotCompared);
  EXPECT_NE(r.err.find("error: " + run_path_ + ": cannot compare 4 of 4 points: CUDA unavailable"),
            std::string::npos)
      << r.err;
}

TEST_F(ParityCli, FromASyntheticTwoApiRun) {
  const std::string path = tmp("two_api.json");
  save(path, two_api_run(1.001));  // 0.1%: well within the tolerance
  Result r = cli({"parity", "--from", path, "--format", "json"});
  EXPECT_EQ(r.code, cuvk::kExitOk) << r.out << r.err;
  EXPECT_EQ(verdicts(r.out), std::vector<std::string>(4, "SAME"));
  EXPECT_EQ(json::parse(r.out)["parity"]["counts"]["outputs_identical"], 4);
  expect_ratios(r.out, 1.001);

  save(path, two_api_run(1.25));  // CUDA 25% faster: Vulkan slower everywhere
  r = cli({"parity", "--from", path, "--format", "json"});
  EXPECT_EQ(r.code, cuvk::kExitDiffers);
  EXPECT_EQ(verdicts(r.out), std::vector<std::string>(4, "VULKAN SLOWER"));
  expect_ratios(r.out, 1.25);

  save(path, two_api_run(0.8));
  r = cli({"parity", "--from", path});
  EXPECT_EQ(r.code, cuvk::kExitDiffers);
  EXPECT_NE(r.out.find("4 VULKAN FASTER"), std::string::npos) << r.out;

  save(path, two_api_run(1.001, 0.2));  // a wide Vulkan interval
  r = cli({"parity", "--from", path, "--format", "json"});
  EXPECT_EQ(r.code, cuvk::kExitDiffers);
  EXPECT_EQ(verdicts(r.out), std::vector<std::string>(4, "UNCERTAIN"));
  // ... which a wider tolerance accepts.
  EXPECT_EQ(cli({"parity", "--from", path, "--tolerance", "50"}).code, cuvk::kExitOk);

  json doc = two_api_run(1.001);
  doc["results"][0]["output_xxh3_64"] = "0123456789abcdef";
  save(path, doc);
  r = cli({"parity", "--from", path, "--format", "md"});
  EXPECT_EQ(r.code, cuvk::kExitDiffers);
  EXPECT_NE(r.out.find("MISMATCH"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| test"), std::string::npos) << r.out;

  r = cli({"parity", "--from", path, "--format", "csv"});
  EXPECT_EQ(r.out.rfind("comparison,test,layout,variant,api,binding,n,", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 5);  // header + 4 points

  EXPECT_EQ(cli({"parity", "--from", path, "--tests", "read_x"}).code, cuvk::kExitUsage);
  std::remove(path.c_str());
}

TEST_F(ParityCli, RunAgainstABaseline) {
  Result r = cli(with_quick({"run", "--tests", "read_x", "--baseline", run_path_}));
  EXPECT_TRUE(r.code == cuvk::kExitOk || r.code == cuvk::kExitDiffers)
      << r.err;  // lavapipe is noisy
  EXPECT_NE(r.out.find("This run vs baseline " + run_path_), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("only in the baseline"), std::string::npos) << r.out;  // read_offset rows
  EXPECT_NE(r.out.find("read_offset scalar offset=1"), std::string::npos) << r.out;

  // A baseline a million times faster than anything lavapipe does (its timings vary 100x under
  // load, so 1000x once gave an interval reaching down to 0.93: UNCERTAIN): every Vulkan row is
  // SLOWER, exit 1.
  json fast = load(run_path_);
  for (json& row : fast["results"])
    if (row["status"] == "ok") scale_times(row, 1e-6);
  const std::string fast_path = tmp("fast_baseline.json");
  save(fast_path, fast);
  r = cli(with_quick({"run", "--tests", "read_x", "--baseline", fast_path, "--format", "json",
                      "--output", tmp("now.json"), "--quiet"}));
  EXPECT_EQ(r.code, cuvk::kExitDiffers) << r.out << r.err;
  // Every ok read_x row of the run: 2 on Vulkan; 4 where CUDA runs too (tests/gpu.sh).
  std::size_t ok_rows = 0;
  const json run = load(run_path_);  // named: a range-for over a temporary's member dangles
  for (const json& row : run["results"])
    ok_rows += row["test"] == "read_x" && row["status"] == "ok";
  EXPECT_GE(ok_rows, 2u);
  EXPECT_NE(r.out.find(std::to_string(ok_rows) + " SLOWER"), std::string::npos) << r.out;

  // Another GPU model: a usage error naming both, before anything runs.
  json other = load(run_path_);
  other["devices"]["vulkan"]["name"] = "Imaginary GPU 9000 (no such model)";  // never the GPU here
  save(fast_path, other);
  r = cli(with_quick({"run", "--tests", "read_x", "--baseline", fast_path}));
  EXPECT_EQ(r.code, cuvk::kExitUsage);
  EXPECT_NE(r.err.find("Imaginary GPU 9000"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());

  // A damaged baseline: one line naming the file, nothing run.
  const std::string cut = "{\"schema\": \"cuvk.results/1\", \"res";
  std::ofstream(fast_path) << cut;
  r = cli(with_quick({"run", "--tests", "read_x", "--baseline", fast_path}));
  EXPECT_EQ(r.code, cuvk::kExitUsage);
  EXPECT_EQ(r.err, "error: " + fast_path + ": truncated JSON: the file ends (at byte " +
                       std::to_string(cut.size()) + ") before the document is complete\n");
  std::remove(fast_path.c_str());
  std::remove(tmp("now.json").c_str());
}

TEST_F(ParityCli, ReportMergesRunsIntoMarkdown) {
  const std::string b = tmp("two_api_b.json");
  save(b, two_api_run(1.001));
  Result r = cli({"report", run_path_, b, "--format", "md"});
  EXPECT_EQ(r.code, cuvk::kExitOk) << r.err;
  EXPECT_NE(r.out.find("## read_x"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| layout | variant | point"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("A Vulkan ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("B V/C"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| ---"), std::string::npos) << r.out;

  r = cli({"report", run_path_, b, "--format", "json"});
  const json j = json::parse(r.out);
  EXPECT_EQ(j["schema"], "cuvk.report/1");
  EXPECT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["rows"].size(), 4u);

  // One bad file among good ones: nothing printed, one line naming it.
  const std::string bad = tmp("truncated.json");
  std::ofstream(bad) << load(run_path_).dump().substr(0, 500);
  r = cli({"report", run_path_, bad, b});
  EXPECT_EQ(r.code, cuvk::kExitUsage);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("error: " + bad + ": truncated JSON"), std::string::npos) << r.err;
  std::ofstream(bad) << "{\"schema\": \"cuvk.results/7\"}";
  r = cli({"report", bad});
  EXPECT_NE(r.err.find("written by a newer cuvk"), std::string::npos) << r.err;
  std::remove(bad.c_str());
  std::remove(b.c_str());
}

TEST_F(ParityCli, IndexOfAResultsFolder) {
  const std::string dir = tmp("index_dir");
  std::remove((dir + "/README.md").c_str());
  ASSERT_EQ(std::system(("mkdir -p " + dir + "/plots").c_str()), 0);
  save(dir + "/h100.json", two_api_run(1.001));
  // The plotter's list of its figures (results/plotting/index.py); --no-plots shows it as it is.
  std::ofstream(dir + "/plots/figures.json")
      << R"({"figures": [{"file": "plots/parity.png", "title": "Parity", "caption": "Ratios.",)"
      << R"( "sources": [{"file": "h100.json", "sha256": "00", "revision": "abc123"}]}]})";
  // A parity report next to the run is linked, not read as a run.
  ASSERT_EQ(cli({"parity", "--from", dir + "/h100.json", "--format", "json", "--output",
                 dir + "/h100_parity.json", "--quiet"})
                .code,
            cuvk::kExitOk);
  const Result r = cli({"report", "--index", dir, "--no-plots"});
  ASSERT_EQ(r.code, cuvk::kExitOk) << r.err;
  std::ifstream f(dir + "/README.md");
  const std::string md((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(md.find("[h100.json](h100.json)"), std::string::npos) << md;
  EXPECT_NE(md.find("## CUDA vs Vulkan parity"), std::string::npos) << md;
  EXPECT_NE(md.find("### Figure 1: Parity\n\n![Parity](plots/parity.png)\n\nRatios. Drawn from "
                    "[h100.json](h100.json) (cuvk abc123).\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("4 SAME"), std::string::npos) << md;
  EXPECT_NE(md.find("- [h100_parity.json](h100_parity.json)"), std::string::npos) << md;
  EXPECT_NE(r.out.find("not a run, left out: h100_parity.json"), std::string::npos) << r.out;
  ASSERT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

// Issue 35: a node file (several GPUs' runs in one file): parity per GPU, and --baseline matched
// per GPU by UUID (else said).
TEST_F(ParityCli, NodeFileParityPerGpuAndBaselineByUuid) {
  auto with_uuid = [](json doc, const std::string& uuid) {
    doc["devices"]["cuda"]["uuid"] = uuid;
    doc["devices"]["vulkan"]["uuid"] = uuid;
    return doc;
  };
  const std::string u0 = "00000000-1111-2222-3333-444444444444";
  const std::string u1 = "11111111-1111-2222-3333-444444444444";
  const json g0 = with_uuid(two_api_run(1.001), u0), g1 = with_uuid(two_api_run(1.25), u1);
  const std::string node = tmp("node.json"), one = tmp("one.json"), other = tmp("other.json");
  save(node, {{"schema", "cuvk.node/1"},
              {"gpus", json::array({{{"index", 0}, {"run", g0}}, {{"index", 2}, {"run", g1}}})}});
  save(one, g1);
  save(other, with_uuid(two_api_run(1.25), "22222222-1111-2222-3333-444444444444"));
  const Result r = cli({"parity", "--from", node});
  EXPECT_EQ(r.code, cuvk::kExitDiffers) << r.err;  // GPU 2: Vulkan slower
  const std::size_t at0 = r.out.find("== " + node + "#gpu0 =="),
                    at2 = r.out.find("== " + node + "#gpu2 ==");
  ASSERT_NE(at0, std::string::npos) << r.out;
  ASSERT_NE(at2, std::string::npos) << r.out;
  EXPECT_NE(r.out.substr(at0, at2 - at0).find("Verdicts: 4 SAME, 0 VULKAN FASTER, 0 VULKAN SLOWER"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Verdicts: 0 SAME, 0 VULKAN FASTER, 4 VULKAN SLOWER", at2),
            std::string::npos)
      << r.out;
  const Result j = cli({"parity", "--from", node, "--format", "json"});
  EXPECT_EQ(j.code, cuvk::kExitUsage);
  EXPECT_NE(j.err.find("is a node file of 2 GPUs"), std::string::npos) << j.err;
  // The baseline's GPU by UUID: GPU 2's run against itself, no note.
  const Result b = cli({"parity", "--from", one, "--baseline", node});
  EXPECT_NE(b.out.find(one + " vs baseline " + node + "#gpu2"), std::string::npos) << b.out;
  EXPECT_EQ(b.err.find("note:"), std::string::npos) << b.err;
  // No GPU of the baseline has this UUID: the first, said so.
  const Result n = cli({"parity", "--from", other, "--baseline", node});
  EXPECT_NE(n.err.find("no GPU of the baseline has UUID 22222222-1111-2222-3333-444444444444: "
                       "compared with " +
                       node + "#gpu0 (its first)"),
            std::string::npos)
      << n.err;
  for (const std::string& f : {node, one, other}) std::remove(f.c_str());
}

TEST(RunDeviceAll, OneNodeFileHereOneGpu) {
  const std::string out = tmp("all.json");
  const Result r = cli(with_quick({"run", "--device", "all", "--tests", "read_x", "--format",
                                   "json", "--output", out, "--quiet"}));
  EXPECT_EQ(r.code, cuvk::kExitOk) << r.err;
  const auto node = load(out);
  EXPECT_EQ(node["schema"], "cuvk.node/1");
  // Every GPU of this machine: lavapipe's one here, both of a 2-GPU machine (tests/gpu.sh).
  ASSERT_GE(node["gpus"].size(), 1u);
  EXPECT_EQ(node["gpus"][0]["run"]["schema"], "cuvk.results/1");
  EXPECT_EQ(node["summary"]["gpus"].size(), node["gpus"].size());
  // The readers take it: parity reads each GPU's run (lavapipe: no CUDA to compare with).
  const Result p = cli({"parity", "--from", out});
  EXPECT_TRUE(p.code == cuvk::kExitOk || p.code == cuvk::kExitDiffers ||
              p.code == cuvk::kExitNotCompared)
      << p.err;
  if (p.code == cuvk::kExitNotCompared) {  // lavapipe: the GPU's run is named by file and index
    EXPECT_NE(p.err.find(out + "#gpu0: cannot compare"), std::string::npos) << p.err;
  }
  std::remove(out.c_str());
  EXPECT_EQ(cli({"run", "--device", "all", "--format", "csv"}).code,
            cuvk::kExitUsage);  // a CSV holds one GPU's rows
  // The node file may not overwrite its own baseline (the GPUs' runs are told no --baseline).
  const std::string base = tmp("node_base.json");
  std::ofstream(base) << "{}";
  const Result same = cli({"run", "--device", "all", "--tests", "read_x", "--baseline", base,
                           "--output", base, "--format", "json"});
  EXPECT_EQ(same.code, cuvk::kExitUsage);
  EXPECT_NE(same.err.find("is the same file as the input --baseline"), std::string::npos)
      << same.err;
  std::remove(base.c_str());
}

TEST(RunDeviceAll, TheTogetherPassKeepsTheOptionsButTheParents) {
  EXPECT_EQ(
      cuvk::together_args(
          {"cuvk", "run", "--device", "all", "--tests", "copy", "--concurrent", "--output=r.json",
           "--format", "md", "--quiet", "--baseline", "b.json", "--n", "1M"},
          "GPU-1", "/tmp/x/gpu0.json"),
      (std::vector<std::string>{"cuvk", "run", "--tests", "copy", "--n", "1M", "--device", "GPU-1",
                                "--format", "json", "--output", "/tmp/x/gpu0.json", "--quiet"}));
  EXPECT_EQ(cuvk::together_args({"cuvk", "run", "--device=0,1", "--concurrent"}, "", "o.json"),
            (std::vector<std::string>{"cuvk", "run", "--format", "json", "--output", "o.json",
                                      "--quiet"}));
}
