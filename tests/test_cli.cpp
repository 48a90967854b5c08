#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli.h"
#include "error.h"

using cuvk::parse_count;
using cuvk::parse_uint_list;
using cuvk::UsageError;

namespace {
int run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "cuvk");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return cuvk::cli_main(static_cast<int>(argv.size()), argv.data());
}
}  // namespace

TEST(CliParse, ListsAndRanges) {
  EXPECT_EQ(parse_uint_list("0,1,8", "x"), (std::vector<std::uint32_t>{0, 1, 8}));
  EXPECT_EQ(parse_uint_list("0-3", "x"), (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(parse_uint_list("0-32:16,7", "x"), (std::vector<std::uint32_t>{0, 16, 32, 7}));
}

TEST(CliParse, BadListsAreUsageErrors) {
  for (const char* bad : {"", "a", "1,,2", "5-1", "0-8:0", "-3", "1.5", "99999999999"})
    EXPECT_THROW(parse_uint_list(bad, "--offsets"), UsageError) << bad;
}

TEST(CliParse, CountsWithSuffixes) {
  EXPECT_EQ(parse_count("1048576", "--n"), 1u << 20);
  EXPECT_EQ(parse_count("64M", "--n"), 64ull << 20);
  EXPECT_EQ(parse_count("4k", "--n"), 4096u);
  EXPECT_EQ(parse_count("2G", "--n"), 2ull << 30);
  for (const char* bad : {"", "M", "-1", "1.5M", "ten", "1T"})
    EXPECT_THROW(parse_count(bad, "--n"), UsageError) << bad;
}

TEST(CliRun, BadArgumentsExitWithUsageCode) {
  EXPECT_EQ(run_cli({"run", "--tests", "nope"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--api", "opengl"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--reps", "0"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--n", "0"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--n", "-5"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--n", "lots"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--format", "xml"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--l2", "lukewarm"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--strides", "0"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--block-size", "100"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--block-size", "0"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--no-such-option"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({"run", "--output", "/nonexistent-dir/r.json"}), cuvk::kExitUsage);
  EXPECT_EQ(run_cli({}), cuvk::kExitUsage);  // a subcommand is required
}

TEST(CliRun, ListSucceeds) { EXPECT_EQ(run_cli({"list"}), cuvk::kExitOk); }
