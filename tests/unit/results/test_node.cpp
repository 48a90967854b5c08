// Issue 35, one run over every GPU of a node (host/results/node_summary.h, node_file.h) on
// synthetic runs: parity per GPU, the sibling rule among the node's GPUs of one model, the
// interference check's arithmetic, and the node file read back by every reader.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "error.h"
#include "fleet.h"
#include "node_file.h"
#include "node_summary.h"
#include "results_fixture.h"
#include "run_reader.h"

namespace cuvk {
namespace {

using fixture::json;

std::string uuid(int i) {
  return "0000000" + std::to_string(i) + "-2222-3333-4444-555555555555";
}

// One GPU's run object: read_x and copy on both APIs, CUDA read_x `read_ms`, Vulkan copy
// `vk_copy_ms`, every other median 1.0 ms; intervals +-`half` of the median.
json gpu_doc(int i, double read_ms = 1.0, double vk_copy_ms = 1.0, double half = 0.005,
             const std::string& model = "H100") {
  auto r = [&](const char* test, const char* api, double m) {
    return fixture::row(test, api, m, m * (1 - half), m * (1 + half));
  };
  json doc =
      fixture::document(json::array({r("read_x", "cuda", read_ms), r("read_x", "vulkan", 1.0),
                                     r("copy", "cuda", 1.0), r("copy", "vulkan", vk_copy_ms)}),
                        true, true, model);
  doc["devices"]["cuda"]["uuid"] = uuid(i);
  doc["devices"]["vulkan"]["uuid"] = uuid(i);
  doc["provenance"]["host"] = "node1";
  return doc;
}

RunFile gpu_run(int i, double read_ms = 1.0, double vk_copy_ms = 1.0, double half = 0.005,
                const std::string& model = "H100") {
  return parse_results(gpu_doc(i, read_ms, vk_copy_ms, half, model).dump(),
                       "GPU " + std::to_string(i));
}

TEST(NodeSummary, ParityCountsPerGpu) {
  const NodeSummary s =
      node_summary({gpu_run(0, 1.0, 1.2), gpu_run(1), gpu_run(2, 1.0, 0.8)}, kDefaultTolerance);
  ASSERT_EQ(s.gpus.size(), 3u);
  EXPECT_EQ(s.gpus[0].same, 1u);
  EXPECT_EQ(s.gpus[0].slower, 1u);  // copy: Vulkan 1.2 against CUDA 1.0
  EXPECT_EQ(s.gpus[1].same, 2u);
  EXPECT_EQ(s.gpus[2].faster, 1u);
  EXPECT_EQ(s.gpus[2].uuid, uuid(2));
  const std::string text = format_node_summary(s, {}, false);
  EXPECT_NE(text.find("Node: 3 GPU(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU 2"), std::string::npos) << text;
}

TEST(NodeSummary, HealthAndPlacementPerGpu) {
  json a = gpu_doc(0), b = gpu_doc(1);
  a["node"] = {{"gpu_health",
                {{"ecc_uncorrected_volatile", "0"},
                 {"retired_pages", "2 (single-bit), 0 (double-bit)"},
                 {"pcie", "gen 4 x8 (maximum gen 5 x16: BELOW ITS MAXIMUM)"},
                 {"clock_event_reasons", "sw power cap"}}},
               {"gpu_numa_node", 1},
               {"host_thread", {{"cpu", 17}, {"numa_node", 0}, {"allowed_cpus", 64}}}};
  b["node"] = {{"gpu_health", {{"unavailable", "NVML (libnvidia-ml.so.1) not found"}}},
               {"gpu_numa_node", -1},
               {"host_thread", {{"cpu", 3}, {"numa_node", 0}, {"allowed_cpus", 64}}}};
  const std::vector<RunFile> runs = {parse_results(a.dump(), "GPU 0"),
                                     parse_results(b.dump(), "GPU 1")};
  const std::string text = format_node_summary(node_summary(runs, kDefaultTolerance), runs, false);
  const std::size_t at0 = text.find("\nGPU 0 ", text.find("Health (NVML"));
  ASSERT_NE(at0, std::string::npos) << text;
  const std::string row0 = text.substr(at0 + 1, text.find('\n', at0 + 1) - at0 - 1);
  for (const char* want :
       {"2 (single-bit), 0 (double-bit)", "BELOW ITS MAXIMUM", "sw power cap", "17 / 0", " ok"})
    EXPECT_NE(row0.find(want), std::string::npos) << want << " in " << row0;
  EXPECT_NE(text.find("unknown", at0), std::string::npos) << text;  // GPU 1's NUMA node
  EXPECT_NE(text.find("NVML (libnvidia-ml.so.1) not found", at0), std::string::npos) << text;
}

TEST(NodeSummary, SiblingRuleNamesTheGpuThatIsOffAmongThree) {
  const NodeSummary s =
      node_summary({gpu_run(0), gpu_run(1), gpu_run(2, 1.10), gpu_run(3)}, kDefaultTolerance);
  EXPECT_TRUE(s.gpus[2].board.flagged());
  EXPECT_FALSE(s.gpus[0].board.flagged());
  EXPECT_EQ(s.gpus[2].board.siblings, 3u);
  const std::vector<std::string> lines = s.sibling_lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("4 GPUs of H100: off: GPU 2 (1 slower, 0 faster of 4 points", 0), 0u)
      << lines[0];
  EXPECT_EQ(node_summary({gpu_run(0), gpu_run(1), gpu_run(2)}, kDefaultTolerance).sibling_lines(),
            std::vector<std::string>{"3 GPUs of H100: no board is off"});
}

TEST(NodeSummary, TwoGpusThatDifferCannotSayWhichIsOff) {
  const NodeSummary s = node_summary({gpu_run(0), gpu_run(1, 1.10)}, kDefaultTolerance);
  EXPECT_EQ(
      s.sibling_lines(),
      std::vector<std::string>{"2 GPUs of H100: they differ, and two cannot say which one is off"});
  // A GPU of another model is no sibling.
  const NodeSummary mixed =
      node_summary({gpu_run(0), gpu_run(1, 1.1, 1.0, 0.005, "A100")}, kDefaultTolerance);
  EXPECT_TRUE(mixed.sibling_lines().empty());
  EXPECT_EQ(mixed.gpus[1].board.siblings, 0u);
}

TEST(Interference, RatioTogetherOverAloneWithItsInterval) {
  const RunFile alone = gpu_run(2);                 // every median 1.0 +-0.5%
  const RunFile together = gpu_run(2, 1.12, 1.01);  // CUDA read_x 12% slower, Vulkan copy 1%
  const InterferenceGpu g = interference_check("GPU 2", alone, together, kDefaultTolerance);
  EXPECT_EQ(g.compared, 4u);
  EXPECT_EQ(g.counts.slower, 1u);
  EXPECT_EQ(g.counts.same, 3u);
  ASSERT_TRUE(g.worst.has_value());
  EXPECT_NEAR(g.worst->ratio.ratio, 1.12, 1e-9);
  EXPECT_LT(g.worst->ratio.low, 1.12);
  EXPECT_GT(g.worst->ratio.low, 1.10);  // 1.12 * 0.995 / 1.005 = 1.1089, about
  EXPECT_GT(g.worst->ratio.high, 1.12);
  EXPECT_LT(g.worst->ratio.high, 1.14);
  EXPECT_EQ(g.worst->verdict, Verdict::slower);
  EXPECT_EQ(g.line().rfind("GPU 2: 1 of 4 points slower together, worst 1.120x [1.1", 0), 0u)
      << g.line();
  // Faster together is said too; a point measured once is left out.
  json fewer = gpu_doc(2, 1.0, 0.9);
  fewer["results"].erase(0);
  const InterferenceGpu f = interference_check(
      "GPU 2", alone, parse_results(fewer.dump(), "together"), kDefaultTolerance);
  EXPECT_EQ(f.compared, 3u);
  EXPECT_EQ(f.counts.faster, 1u);
  EXPECT_NE(f.line().find("0 of 3 points slower together, 1 faster"), std::string::npos)
      << f.line();
}

json node_doc(const std::vector<json>& runs) {
  std::vector<NodeEntry> entries;
  for (std::size_t i = 0; i < runs.size(); ++i)
    entries.push_back({static_cast<int>(i), "CUDA device " + std::to_string(i),
                       uuid(static_cast<int>(i)), runs[i], "", std::nullopt});
  return node_file_json({"2026-01-01T00:00:00Z", "node1", "cuvk run --device all", "in turn", 1.0},
                        entries, json::object());
}

TEST(NodeFile, EveryGpuReadsAsARunOfItsOwn) {
  const json doc = node_doc({gpu_doc(0), gpu_doc(1), gpu_doc(2, 1.1)});
  EXPECT_EQ(doc["schema"], "cuvk.node/1");
  const std::vector<RunFile> runs = parse_results_all(doc.dump(), "n.json");
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[2].name, "n.json#gpu2");
  EXPECT_EQ(runs[2].cuda->uuid, uuid(2));
  EXPECT_EQ(runs[2].rows.size(), 4u);
  // A reader of one run refuses several GPUs, naming the count; one GPU reads as its run.
  try {
    parse_results(doc.dump(), "n.json");
    ADD_FAILURE() << "read a node file of 3 GPUs as one run";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("n.json: a node file of 3 GPUs"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(parse_results(node_doc({gpu_doc(0)}).dump(), "one.json").name, "one.json#gpu0");
  // A single-GPU run file still reads as before.
  EXPECT_EQ(parse_results_all(gpu_doc(0).dump(), "r.json").size(), 1u);
}

void expect_refused(const json& doc, const std::string& problem) {
  try {
    parse_results_all(doc.dump(), "n.json");
    ADD_FAILURE() << "accepted; expected " << problem;
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
  }
}

TEST(NodeFile, RefusesWhatItCannotRead) {
  json doc = node_doc({gpu_doc(0), gpu_doc(1)});
  json newer = doc;
  newer["schema"] = "cuvk.node/2";
  expect_refused(newer, "written by a newer cuvk");
  json none = doc;
  none["gpus"] = json::array();
  expect_refused(none, "gpus: no GPU");
  json failed = doc;
  for (json& g : failed["gpus"]) {
    g.erase("run");
    g["error"] = "no device";
  }
  expect_refused(failed, "no GPU has a run (gpu 0: no device; gpu 1: no device)");
  json bad_row = doc;
  bad_row["gpus"][1]["run"]["results"][0].erase("api");
  expect_refused(bad_row, "n.json#gpu1: results[0].api");
  json repeated = doc;
  repeated["gpus"][1]["index"] = 0;
  expect_refused(repeated, "repeats GPU 0");
  // A GPU that failed is left out; the others read.
  json one_failed = doc;
  one_failed["gpus"][0].erase("run");
  one_failed["gpus"][0]["error"] = "out of memory";
  EXPECT_EQ(parse_results_all(one_failed.dump(), "n.json").size(), 1u);
}

// Issue 49, class 8: a node file that would make `report --fleet` count one board twice, or name
// a GPU other than the one its run measured, is refused, naming the entry.
TEST(NodeFile, EachGpuOnceAndTheOneItsRunMeasured) {
  const json doc = node_doc({gpu_doc(0), gpu_doc(1)});
  json twice = doc;  // the same run under two indices
  twice["gpus"][1]["run"] = twice["gpus"][0]["run"];
  twice["gpus"][1]["uuid"] = "";
  expect_refused(twice, "n.json: gpus[1].run: the same run as gpus[0]");
  json same_gpu = doc;  // two runs (different timings) of one GPU
  same_gpu["gpus"][1]["run"] = gpu_doc(0, 1.2);
  same_gpu["gpus"][1]["uuid"] = "";
  expect_refused(same_gpu, "n.json: gpus[1].run: measured the same GPU as gpus[0] (" + uuid(0));
  json run_and_error = doc;  // a run and an error for GPU 0
  run_and_error["gpus"].push_back({{"index", 0}, {"label", "x"}, {"uuid", ""}, {"error", "lost"}});
  expect_refused(run_and_error, "n.json: gpus[2].index: repeats GPU 0");
  json error_first = doc;
  error_first["gpus"].insert(error_first["gpus"].begin(),
                             json{{"index", 1}, {"label", "x"}, {"uuid", ""}, {"error", "lost"}});
  expect_refused(error_first, "n.json: gpus[2].index: repeats GPU 1");
  json mismatch = doc;  // the entry's uuid is not the run's device
  mismatch["gpus"][1]["uuid"] = uuid(7);
  expect_refused(mismatch, "n.json: gpus[1].uuid: '" + uuid(7) + "', but its run measured '" +
                               uuid(1) + "'");
  json unchecked = doc;  // `verified` with 0 elements checked
  unchecked["gpus"][1]["run"]["results"][2]["check"] = "verified";
  unchecked["gpus"][1]["run"]["results"][2]["checked_elements"] = 0;
  expect_refused(unchecked, "n.json#gpu1: results[2].checked_elements: 0 in a row whose check is "
                            "'verified'");
  unchecked["gpus"][1]["run"]["results"][2]["checked_elements"] = 1;
  EXPECT_EQ(parse_results_all(unchecked.dump(), "n.json").size(), 2u);
  // Lavapipe (a CPU device) listed several times, as the node tests do, still reads.
  json cpu = node_doc({gpu_doc(0), gpu_doc(0, 1.0, 1.2)});
  for (json& g : cpu["gpus"]) {
    g["uuid"] = "";
    g["run"]["devices"]["cuda"] = nullptr;
    g["run"]["devices"]["vulkan"]["is_cpu"] = true;
    json vulkan_rows = json::array();
    for (const json& r : g["run"]["results"])
      if (r["api"] == "vulkan") vulkan_rows.push_back(r);
    g["run"]["results"] = vulkan_rows;
  }
  EXPECT_EQ(parse_results_all(cpu.dump(), "n.json").size(), 2u);
}

TEST(NodeFile, TheFleetTakesEachGpuAsABoard) {
  const std::string path = ::testing::TempDir() + "cuvk_node_fleet.json";
  std::ofstream(path) << node_doc({gpu_doc(0), gpu_doc(1), gpu_doc(2, 1.1)}).dump();
  const FleetInputs in = read_fleet_inputs({path});
  ASSERT_EQ(in.runs.size(), 3u);
  EXPECT_TRUE(in.not_runs.empty());
  const FleetView v = fleet_view(in.runs, in.failed, kDefaultTolerance);
  EXPECT_TRUE(v.boards[2].flagged());
  EXPECT_FALSE(v.boards[0].flagged());
  EXPECT_EQ(read_all_results({path, path}).size(), 6u);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace cuvk
