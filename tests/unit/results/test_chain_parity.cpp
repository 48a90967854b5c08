// Parity pairs the chain's corresponding submission modes (results' pair_apis).
// (Split from tests/test_runner.cpp.)
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "parity.h"

using namespace cuvk;

// Parity pairs the modes that correspond (docs/MEASURING.md, "Chains"): graph with recorded,
// stream with rerecorded, wait-each with wait-each; pdl and submit-each have no counterpart.
TEST(RunnerChain, ParityPairsCorrespondingModes) {
  std::vector<ResultRow> rows;
  const auto add = [&rows](Api api, Submission s) {
    ResultRow r;
    r.test = "chain";
    r.variant = "scalar";
    r.n = 4096;
    r.block_size = 256;
    r.api = api;
    r.binding = native_binding(api);
    r.submission = s;
    r.status = Status::ok;
    r.time_ms.median = 1.0;
    rows.push_back(r);
  };
  for (Submission s :
       {Submission::stream, Submission::graph, Submission::pdl, Submission::wait_each})
    add(Api::cuda, s);
  for (Submission s : {Submission::recorded, Submission::rerecorded, Submission::submit_each,
                       Submission::wait_each})
    add(Api::vulkan, s);
  std::map<std::string, std::string> pairs;  // CUDA mode -> Vulkan mode ("-": none)
  for (const ApiPair& p : pair_apis(rows)) {
    const std::string c = p.cuda ? submission_name(*p.cuda->submission) : "-";
    const std::string v = p.vulkan ? submission_name(*p.vulkan->submission) : "-";
    EXPECT_TRUE(pairs.emplace(c == "-" ? "- " + v : c, v).second) << c << " " << v;
  }
  EXPECT_EQ(pairs["graph"], "recorded");
  EXPECT_EQ(pairs["stream"], "rerecorded");
  EXPECT_EQ(pairs["wait-each"], "wait-each");
  EXPECT_EQ(pairs["pdl"], "-");
  EXPECT_EQ(pairs["- submit-each"], "submit-each");
  EXPECT_EQ(pairs.size(), 5u);
}
