// The results reader: every bad input is one UsageError line naming the file and the problem.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>

#include "error.h"
#include "results_fixture.h"
#include "run_reader.h"

using namespace cuvk;

namespace {

std::string valid_text() {
  return fixture::document(
             {fixture::row("read_x", "cuda", 1.0, 0.99, 1.01, 0, "00000000000000aa", "aos"),
              fixture::row("read_x", "vulkan", 1.1, 1.0, 1.2, 0, "00000000000000aa", "aos"),
              fixture::unavailable_row("stride", "cuda")})
      .dump(2);
}

// The message of the UsageError that parsing `text` as `name` throws ("" when none).
std::string error_of(const std::string& text, const std::string& name = "bad.json") {
  try {
    parse_results(text, name);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& text, const std::string& problem) {
  const std::string what = error_of(text, "some/dir/run.json");
  EXPECT_EQ(what.rfind("some/dir/run.json: ", 0), 0u) << what;  // the file first
  EXPECT_NE(what.find(problem), std::string::npos) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;  // one line
}

}  // namespace

TEST(ResultsReader, ReadsAValidDocument) {
  const RunFile run = parse_results(valid_text(), "ok.json");
  ASSERT_EQ(run.rows.size(), 3u);
  EXPECT_EQ(run.rows[0].test, "read_x");
  EXPECT_EQ(run.rows[0].layout, "aos");
  EXPECT_EQ(run.rows[1].api, Api::vulkan);
  EXPECT_DOUBLE_EQ(run.rows[1].time_ms.median, 1.1);
  EXPECT_DOUBLE_EQ(run.rows[1].time_ms.ci_low, 1.0);
  ASSERT_TRUE(run.rows[0].output_hash.has_value());
  EXPECT_EQ(run.rows[0].output_hash->value, 0xaau);
  EXPECT_EQ(run.rows[2].status, Status::unavailable);
  EXPECT_EQ(run.gpu_name(), "Test GPU");
  EXPECT_EQ(run.cuda_driver(), "CUDA 12.4");
  EXPECT_EQ(run.vulkan_driver(), "NVIDIA 550.54.15");
  EXPECT_EQ(run.git_revision, "abc123");
}

TEST(ResultsReader, EachBadInputNamesTheFileAndTheProblem) {
  const std::string good = valid_text();
  expect_error("", "empty file");
  expect_error(" \n\t ", "empty file");
  expect_error(good.substr(0, good.size() / 2), "truncated JSON");
  expect_error(good.substr(0, good.size() - 2), "truncated JSON");
  expect_error(std::string("\x7f"
                           "ELF\x02\x01\x01\0\0\0",
                           10),
               "binary data");
  expect_error("\x89PNG\r\n\x1a\n", "binary data");
  expect_error("{\"schema\": tru}", "invalid JSON at line 1");
  expect_error("{\"a\": 1}}", "invalid JSON");
  expect_error("[1, 2, 3]", "not a cuvk results file: the top level is an array");
  expect_error("{\"hello\": 1}", "no \"schema\" field");
  expect_error("{\"schema\": \"other.tool/1\"}", "foreign schema 'other.tool/1'");
  expect_error("{\"schema\": \"cuvk.results/x\"}", "foreign schema");
  expect_error("{\"schema\": \"cuvk.results/2\", \"results\": []}", "written by a newer cuvk");
  expect_error("{\"schema\": \"cuvk.results/1\"}", "provenance: missing (required)");
  expect_error(std::string(100, '[') + std::string(100, ']'), "nested deeper");
  expect_error("{\"x\": 1e999}", "invalid JSON");

  nlohmann::json doc = nlohmann::json::parse(good);
  doc["results"][1]["params"].erase("n");
  expect_error(doc.dump(), "results[1].params.n: missing (required)");
  doc = nlohmann::json::parse(good);
  doc["results"][0]["params"]["offset"] = -1;
  expect_error(doc.dump(), "results[0].params.offset: expected an integer");
  doc = nlohmann::json::parse(good);
  doc["results"][0]["time_ms"]["median"] = 0;
  expect_error(doc.dump(), "results[0].time_ms.median: expected a finite number above 0");
  doc = nlohmann::json::parse(good);
  doc["results"][0]["api"] = "opencl";
  expect_error(doc.dump(), "results[0].api");
  doc = nlohmann::json::parse(good);
  doc["results"][0].erase("ci");
  expect_error(doc.dump(), "results[0].ci: missing (required)");
  doc = nlohmann::json::parse(good);
  doc["results"].push_back(doc["results"][0]);
  expect_error(doc.dump(), "results[3]: repeats results[0]");
  doc = nlohmann::json::parse(good);
  doc["results"] = "none";
  expect_error(doc.dump(), "results: expected an array");
  doc = nlohmann::json::parse(good);
  doc["devices"]["cuda"]["name"] = 5;
  expect_error(doc.dump(), "devices.cuda.name: expected a string");
  // Issue 31's mutation audit: a CI that misses its median went unnoticed by the suite.
  doc = nlohmann::json::parse(good);
  doc["results"][0]["ci"]["low_ms"] = doc["results"][0]["time_ms"]["median"].get<double>() * 1.01;
  doc["results"][0]["ci"]["high_ms"] = doc["results"][0]["time_ms"]["median"].get<double>() * 1.02;
  expect_error(doc.dump(), "results[0].ci: the interval does not contain time_ms.median");
  // What an ok row was compared with (issue 31): a known check, and `verified` agreeing with it.
  doc = nlohmann::json::parse(good);
  doc["results"][0]["check"] = "trusted";
  expect_error(doc.dump(), "results[0].check: expected verified, consistent, unchecked");
  doc = nlohmann::json::parse(good);
  doc["results"][0]["check"] = "unchecked";
  expect_error(doc.dump(), "results[0].verified: true in a row whose check is 'unchecked'");
  doc = nlohmann::json::parse(good);
  doc["results"][0]["check"] = "verified";
  doc["results"][0]["verified"] = false;
  expect_error(doc.dump(), "results[0].verified: false in an ok row whose check is 'verified'");
}

TEST(ResultsReader, FileErrors) {
  try {
    read_results("/nonexistent/dir/run.json");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/dir/run.json: cannot open: No such file or directory");
  }
  EXPECT_THROW(read_results(::testing::TempDir()), UsageError);  // a directory
  const std::string path =
      ::testing::TempDir() + "cuvk_reader_truncated_" + std::to_string(getpid()) + ".json";
  {
    std::ofstream f(path);
    f << valid_text().substr(0, 100);
  }
  try {
    read_all_results({path});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": truncated JSON"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

// A small stand-in for the libFuzzer target: damaged versions of a valid file either parse or throw
// cuvk::Error, never anything else.
TEST(ResultsReader, DamagedInputOnlyThrowsUsageError) {
  const std::string good = valid_text();
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string text = good;
    if (i % 2 == 0) text = text.substr(0, rng() % text.size());
    for (int k = 0; k < 3; ++k) text[rng() % text.size()] = static_cast<char>(rng() % 256);
    try {
      parse_results(text, "fuzz.json");
    } catch (const UsageError&) {
    } catch (const std::exception& e) {
      FAIL() << "unexpected " << typeid(e).name() << ": " << e.what();
    }
  }
}

// Hostile input files (issue 12, class 6): binary data is refused at its first bytes, and no
// file is read past the cap, whatever its size or source.
TEST(ResultsReader, HostileFilesAreRefusedWithoutReadingThemWhole) {
  for (const char* dev : {"/dev/zero", "/dev/urandom"}) {
    try {
      read_results(dev);
      FAIL() << dev;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("binary data, not JSON"), std::string::npos) << e.what();
    }
  }
  const std::string big = ::testing::TempDir() + "cuvk_big_" + std::to_string(getpid()) + ".json";
  {
    std::ofstream f(big);
    f << "{\"schema\": \"cuvk.results/1\", \"pad\": \"";
    const std::string block(1 << 20, 'x');
    for (std::size_t i = 0; i <= (kMaxResultsFileBytes >> 20); ++i) f << block;
    f << "\"}";
  }
  try {
    read_results(big);
    FAIL() << "a file over the cap was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("larger than 64 MiB"), std::string::npos) << e.what();
  }
  std::remove(big.c_str());
}

// A run file's device of an API, looked up by Api (the baseline's GPU check, the reader's row
// check); an API the file does not record has none.
TEST(ResultsReader, ARunFilesDeviceOfAnApi) {
  RunFile f;
  f.cuda = RunDevice{"NVIDIA H100", "u-cuda", "CUDA 12.4", false, {}};
  EXPECT_EQ(f.device(Api::cuda)->name, "NVIDIA H100");
  EXPECT_FALSE(f.device(Api::vulkan).has_value());
  f.vulkan = RunDevice{"lavapipe", "u-vk", "Mesa", true, {}};
  EXPECT_EQ(f.device(Api::vulkan)->uuid, "u-vk");
  EXPECT_FALSE(f.device(Api::host).has_value());
}
