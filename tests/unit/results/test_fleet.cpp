// `cuvk report --fleet` (host/fleet.h) on synthetic runs: parity verdict counts per GPU model and
// driver, boards flagged against their siblings, failed-task markers, folder input and output.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "error.h"
#include "fleet.h"
#include "run_reader.h"
#include "results_fixture.h"

namespace cuvk {
namespace {

using fixture::json;

// One board: read_x and copy on both APIs. CUDA medians `read_ms` and 1.0 ms, Vulkan `vk_copy_ms`
// for copy (1.0 ms read_x); every interval +-`half` of its median.
RunFile board(const std::string& file, const std::string& uuid, double read_ms = 1.0,
              double vk_copy_ms = 1.0, double half = 0.005, const std::string& gpu = "H100",
              const std::string& vk_driver = "NVIDIA 550.54.15") {
  auto r = [&](const char* test, const char* api, double m) {
    return fixture::row(test, api, m, m * (1 - half), m * (1 + half));
  };
  json doc =
      fixture::document(json::array({r("read_x", "cuda", read_ms), r("read_x", "vulkan", 1.0),
                                     r("copy", "cuda", 1.0), r("copy", "vulkan", vk_copy_ms)}),
                        true, true, gpu);
  doc["devices"]["cuda"]["uuid"] = uuid;
  doc["devices"]["vulkan"]["uuid"] = uuid;
  doc["devices"]["vulkan"]["driver"] = vk_driver;
  doc["provenance"]["host"] = "node1";
  return parse_results(doc.dump(), file);
}

std::string uuid(int i) {
  return "0000000" + std::to_string(i) + "-2222-3333-4444-555555555555";
}

TEST(Fleet, CountsParityVerdictsPerGpuModelAndDriver) {
  const std::vector<RunFile> runs = {
      board("runs/a.json", uuid(1), 1.0, 1.2),  // read_x SAME, copy VULKAN SLOWER
      board("runs/b.json", uuid(2), 1.0, 1.2),
      board("runs/c.json", uuid(3), 1.0, 1.0, 0.005, "H100", "NVIDIA 560.1"),  // both SAME
      board("runs/d.json", uuid(4), 1.0, 0.8, 0.005, "A100"),                  // copy VULKAN FASTER
  };
  const FleetView v = fleet_view(runs, {}, kDefaultTolerance);
  ASSERT_EQ(v.groups.size(), 3u);
  EXPECT_EQ(v.groups[0].gpu, "H100");
  EXPECT_EQ(v.groups[0].vulkan_driver, "NVIDIA 550.54.15");
  EXPECT_EQ(v.groups[0].cuda_driver, "CUDA 12.4");
  EXPECT_EQ(v.groups[0].boards, 2u);
  EXPECT_EQ(v.groups[0].same, 2u);
  EXPECT_EQ(v.groups[0].slower, 2u);
  EXPECT_EQ(v.groups[0].faster, 0u);
  EXPECT_EQ(v.groups[1].vulkan_driver, "NVIDIA 560.1");
  EXPECT_EQ(v.groups[1].boards, 1u);
  EXPECT_EQ(v.groups[1].same, 2u);
  EXPECT_EQ(v.groups[2].gpu, "A100");
  EXPECT_EQ(v.groups[2].faster, 1u);
  EXPECT_EQ(v.groups[2].same, 1u);
  // c's Vulkan copy is 1.0 against its siblings' 1.2: a different driver shows as an odd board.
  EXPECT_EQ(v.boards[2].faster, 1u);
  EXPECT_EQ(v.groups[1].flagged, 1u);
  // a's siblings (b 1.2, c 1.0) disagree: the reference spans both, so a is not judged different.
  EXPECT_EQ(v.groups[0].flagged, 0u);
  // The A100 has no sibling: compared with nothing, never flagged.
  EXPECT_EQ(v.boards[3].siblings, 0u);
  EXPECT_EQ(v.boards[3].compared, 0u);
  EXPECT_FALSE(v.boards[3].flagged());
}

TEST(Fleet, FlagsTheBoardThatDiffersFromItsSiblings) {
  std::vector<RunFile> runs;
  for (int i = 0; i < 4; ++i) runs.push_back(board("b" + std::to_string(i) + ".json", uuid(i)));
  runs[2] = board("b2.json", uuid(2), 1.10);  // CUDA read_x 10% slower on this board
  const FleetView v = fleet_view(runs, {}, kDefaultTolerance);
  ASSERT_EQ(v.boards.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(v.boards[i].siblings, 3u);
    EXPECT_EQ(v.boards[i].compared, 4u);
    EXPECT_EQ(v.boards[i].flagged(), i == 2);
  }
  const FleetBoard& slow = v.boards[2];
  EXPECT_EQ(slow.slower, 1u);
  EXPECT_EQ(slow.same, 3u);
  EXPECT_EQ(slow.uuid, uuid(2));
  EXPECT_EQ(slow.host, "node1");
  EXPECT_EQ(slow.worst_point, "read_x aos scalar block 256 cuda pointer");
  EXPECT_NEAR(slow.worst.ratio, 1.10, 1e-9);
  EXPECT_GT(slow.worst.low, 1.03);
  EXPECT_NEAR(slow.typical_ratio, std::pow(1.10, 0.25), 1e-9);
  EXPECT_EQ(v.groups.size(), 1u);
  EXPECT_EQ(v.groups[0].flagged, 1u);
}

TEST(Fleet, TwoBoardsThatDifferAreBothFlaggedInOppositeDirections) {
  const FleetView v =
      fleet_view({board("a.json", uuid(1)), board("b.json", uuid(2), 1.10)}, {}, kDefaultTolerance);
  EXPECT_EQ(v.boards[0].faster, 1u);
  EXPECT_EQ(v.boards[1].slower, 1u);
}

TEST(Fleet, AWideIntervalIsUncertainNotFlagged) {
  // 5% slower but each interval +-5%: the ratio's interval crosses the 3% edge.
  const FleetView v = fleet_view(
      {board("a.json", uuid(1), 1.0, 1.0, 0.05), board("b.json", uuid(2), 1.0, 1.0, 0.05),
       board("c.json", uuid(3), 1.05, 1.0, 0.05)},
      {}, kDefaultTolerance);
  EXPECT_EQ(v.boards[2].uncertain, 4u);
  EXPECT_FALSE(v.boards[2].flagged());
  // The same data with a 20% tolerance: SAME.
  const FleetView wide = fleet_view(
      {board("a.json", uuid(1), 1.0, 1.0, 0.05), board("b.json", uuid(2), 1.0, 1.0, 0.05),
       board("c.json", uuid(3), 1.05, 1.0, 0.05)},
      {}, 0.20);
  EXPECT_EQ(wide.boards[2].same, 4u);
}

TEST(Fleet, FailedRowsAreNotComparedWithSiblings) {
  RunFile broken = board("c.json", uuid(3), 2.0);
  broken.rows[0].status = Status::failed;  // CUDA read_x failed verification
  const FleetView v = fleet_view({board("a.json", uuid(1)), board("b.json", uuid(2)), broken}, {},
                                 kDefaultTolerance);
  EXPECT_EQ(v.boards[2].compared, 3u);
  EXPECT_FALSE(v.boards[2].flagged());
  EXPECT_EQ(v.groups[0].failed, 1u);
}

TEST(Fleet, ParsesAFailedTaskMarker) {
  const FailedTask t = parse_failed_marker(
      "host: node7\nuuid: ffffffff\nexit_code: 2\nerror: --device ffffffff: no device\n"
      "job: 12.0 task 3\nnot a key value line\n",
      "runs/node7-ffffffff.failed");
  EXPECT_EQ(t.file, "runs/node7-ffffffff.failed");
  EXPECT_EQ(t.host, "node7");
  EXPECT_EQ(t.uuid, "ffffffff");
  EXPECT_EQ(t.exit_code, "2");
  EXPECT_EQ(t.error, "--device ffffffff: no device");
  EXPECT_EQ(parse_failed_marker("", "x.failed").error, "no error recorded");
}

TEST(Fleet, PrintsFailedTasksAndMergedTables) {
  const std::vector<RunFile> runs = {board("a.json", uuid(1)), board("b.json", uuid(2), 1.1)};
  const FailedTask failed = parse_failed_marker("host: n2\nuuid: dead\nexit_code: 3\nerror: lost\n",
                                                "runs/n2-dead.failed");
  const FleetView v = fleet_view(runs, {failed}, kDefaultTolerance);
  const std::string md = format_fleet(v, runs, Format::md);
  EXPECT_NE(md.find("## Fleet: 2 run(s), 1 failed task(s), tolerance 3%"), std::string::npos);
  EXPECT_NE(md.find("| n2-dead.failed | n2   | dead | "), std::string::npos) << md;
  EXPECT_NE(md.find("SLOWER"), std::string::npos);
  EXPECT_NE(md.find("## Merged tables"), std::string::npos);
  const json j = json::parse(format_fleet(v, runs, Format::json));
  EXPECT_EQ(j["schema"], kFleetSchema);
  EXPECT_EQ(j["failed"][0]["exit_code"], "3");
  EXPECT_EQ(j["boards"][1]["flag"], "SLOWER");
  EXPECT_EQ(j["groups"][0]["counts"]["SAME"], 3);  // b's read_x: VULKAN FASTER
  EXPECT_EQ(j["report"]["schema"], "cuvk.report/1");
  EXPECT_THROW(format_fleet(v, runs, Format::csv), UsageError);
  // Every task failed: the tables still print, with no merged tables.
  const std::string none =
      format_fleet(fleet_view({}, {failed}, kDefaultTolerance), {}, Format::table);
  EXPECT_NE(none.find("Fleet: 0 run(s), 1 failed task(s)"), std::string::npos);
  EXPECT_TRUE(json::parse(format_fleet(fleet_view({}, {failed}, 0.03), {}, Format::json))["report"]
                  .is_null());
}

TEST(Fleet, ReadsAFolderOfRunsAndMarkers) {
  std::string tmpl = ::testing::TempDir() + "cuvk_fleet_XXXXXX";  // $TMPDIR, else /tmp
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  const std::string dir = tmpl;
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
  };
  json doc = fixture::document(json::array({fixture::row("copy", "cuda", 1, 0.99, 1.01)}));
  write("n1-aaaa.json", doc.dump());
  write("n1-bbbb.failed", "host: n1\nuuid: bbbb\nexit_code: 2\nerror: no device\n");
  write("fleet.json", R"({"schema": "cuvk.fleet/1"})");  // a previous merge's output: not a run
  write("fleet.md", "# not read\n");
  const FleetInputs in = read_fleet_inputs({dir + "/"});
  ASSERT_EQ(in.runs.size(), 1u);
  EXPECT_EQ(in.runs[0].name, dir + "/n1-aaaa.json");
  ASSERT_EQ(in.failed.size(), 1u);
  EXPECT_EQ(in.failed[0].uuid, "bbbb");
  ASSERT_EQ(in.not_runs.size(), 1u);
  // A bad run file stops everything; a folder with nothing fleet-like is a usage error.
  write("n1-cccc.json", "{");
  EXPECT_THROW(read_fleet_inputs({dir}), UsageError);
  for (const char* f : {"n1-aaaa.json", "n1-bbbb.failed", "fleet.json", "fleet.md", "n1-cccc.json"})
    std::remove((dir + "/" + f).c_str());
  EXPECT_THROW(read_fleet_inputs({dir}), UsageError);
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace cuvk
