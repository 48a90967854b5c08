// The main job end to end through the CLI: `cuvk run --format json --output FILE`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catalogue.h"
#include "cli.h"
#include "cuda_backend.h"

namespace {
int run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "cuvk");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return cuvk::cli_main(static_cast<int>(argv.size()), argv.data());
}
// ctest runs tests in parallel processes: names are per process.
std::string tmp(const std::string& name) {
  return ::testing::TempDir() + "cuvk_e2e_" + std::to_string(getpid()) + "_" + name;
}

// Whether this machine has a CUDA device: then every CUDA row must run, not be unavailable.
bool have_cuda() {
  try {
    return !cuvk::cuda_devices().empty();
  } catch (const std::exception&) {
    return false;
  }
}
}  // namespace

TEST(EndToEnd, JsonRunHasEveryRowForBothApis) {
  const std::string path = tmp("run.json");
  const bool cuda = have_cuda();
  ASSERT_EQ(run_cli({"run", "--n", "65536", "--reps", "5", "--max-time", "0.05", "--format", "json",
                     "--output", path, "--quiet"}),
            cuvk::kExitOk);
  std::ifstream f(path);
  const nlohmann::json doc = nlohmann::json::parse(f);
  EXPECT_EQ(doc["schema"], "cuvk.results/1");
  for (const char* key : {"provenance", "devices", "results", "settings"})
    EXPECT_TRUE(doc.contains(key)) << key;
  EXPECT_FALSE(doc["provenance"]["git_revision"].get<std::string>().empty());
  std::size_t cuda_rows = 0, vulkan_rows = 0;
  for (const auto& r : doc["results"]) {
    for (const char* key : {"test", "layout", "api", "variant", "params", "status", "time_ms",
                            "rel_spread", "samples", "useful_bytes", "moved_bytes", "gbps_useful",
                            "gbps_moved", "sectors_per_request", "verified"})
      EXPECT_TRUE(r.contains(key)) << key;
    const std::string status = r["status"];
    if (r["api"] == "vulkan") {
      ++vulkan_rows;
      EXPECT_EQ(status, "ok") << r.dump();
      EXPECT_TRUE(r["verified"].get<bool>());
      EXPECT_GE(r["samples"].get<int>(), 5);
      EXPECT_TRUE(r.contains("ci"));
    } else {
      ++cuda_rows;
      // Unavailable only where there is no CUDA device; where there is one, every row runs.
      if (cuda)
        EXPECT_EQ(status, "ok") << r.dump();
      else
        EXPECT_EQ(status, "unavailable") << r.dump();
      if (status == "unavailable") {
        EXPECT_FALSE(r["reason"].get<std::string>().empty());
      } else {
        EXPECT_TRUE(r["verified"].get<bool>());
      }
    }
  }
  // One row per catalogue point and API (the default sweeps), derived from the catalogue.
  std::size_t points = 0;
  for (const cuvk::TestCase& t : cuvk::catalogue())  // the chain runs only where named
    if (!t.named_only) points += cuvk::points_of(t, 65536, {}, {}, {}).size();
  EXPECT_EQ(vulkan_rows, points);
  EXPECT_EQ(cuda_rows, points);
  std::remove(path.c_str());
}

TEST(EndToEnd, EveryFormatPrints) {
  for (const char* format : {"table", "md", "csv"}) {
    const std::string path = tmp(std::string("out.") + format);
    EXPECT_EQ(run_cli({"run", "--tests", "read_x", "--n", "4096", "--reps", "2", "--format", format,
                       "--output", path, "--quiet"}),
              cuvk::kExitOk)
        << format;
    std::ifstream f(path);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("read_x"), std::string::npos) << format;
    std::remove(path.c_str());
  }
}

// What cuvk writes, cuvk reads (issue 12, class 5): values given twice are merged at parse time,
// so the file has no duplicate rows and `report` reads it back.
TEST(EndToEndDuplicates, ARunWithRepeatedValuesIsReadBack) {
  const std::string path = tmp("dup.json");
  ASSERT_EQ(run_cli({"run", "--api", "vulkan", "--tests", "read_offset", "--offsets", "1,1",
                     "--block-sizes", "64,64", "--n", "4096", "--reps", "2", "--max-time", "0.01",
                     "--format", "json", "--output", path, "--quiet"}),
            cuvk::kExitOk);
  EXPECT_EQ(run_cli({"report", path, "--format", "csv", "--output", path + ".csv"}), cuvk::kExitOk);
  std::remove(path.c_str());
  std::remove((path + ".csv").c_str());
}


// Issue 33: `cuvk run --tests chain` through the CLI: one row per submission mode of each API,
// every Vulkan mode verified with its host wall time per step, written to and read back from JSON
// (`report`), and the summary's chain table printing every mode.
TEST(EndToEndChain, EveryModeIsARowVerifiedAndReadBack) {
  const std::string path = tmp("chain.json");
  ASSERT_EQ(run_cli({"run", "--tests", "chain", "--n", "5000", "--reps", "3", "--max-time", "0.01",
                     "--format", "json", "--output", path, "--quiet"}),
            cuvk::kExitOk);
  std::ifstream f(path);
  const nlohmann::json doc = nlohmann::json::parse(f);
  std::vector<std::string> vulkan_modes, cuda_modes;
  for (const auto& r : doc["results"]) {
    ASSERT_EQ(r["test"], "chain");
    ASSERT_TRUE(r.contains("submission")) << r.dump();
    if (r["api"] == "cuda") {
      cuda_modes.push_back(r["submission"]);
      continue;
    }
    vulkan_modes.push_back(r["submission"]);
    EXPECT_EQ(r["status"], "ok") << r.dump();
    EXPECT_EQ(r["check"], "verified");
    EXPECT_GT(r["host_us_per_step"].get<double>(), 0.0);
  }
  EXPECT_EQ(vulkan_modes,
            (std::vector<std::string>{"recorded", "rerecorded", "submit-each", "wait-each"}));
  EXPECT_EQ(cuda_modes, (std::vector<std::string>{"stream", "graph", "pdl", "wait-each"}));
  EXPECT_EQ(run_cli({"report", path, "--format", "csv", "--output", path + ".csv"}), cuvk::kExitOk);
  std::remove(path.c_str());
  std::remove((path + ".csv").c_str());
}
