// The chain test is left out of the default selection (cli's parse_tests).
// (Split from tests/test_runner.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli.h"

using namespace cuvk;

TEST(RunnerChain, TheDefaultSelectionLeavesTheChainOut) {
  const std::vector<std::string> all = parse_tests({}), named = parse_tests({"chain"});
  EXPECT_EQ(std::find(all.begin(), all.end(), "chain"), all.end());
  EXPECT_EQ(named, std::vector<std::string>{"chain"});
  const std::vector<std::string> every = parse_tests({"all"});
  EXPECT_EQ(std::find(every.begin(), every.end(), "chain"), every.end());
}
