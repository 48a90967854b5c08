// Issue 45 point 3: every command judges its options once, as `run` does: its check makes the
// judged object and its action runs that, never the option strings again. Counted around one
// command through the CLI on this machine's devices (lavapipe here): run_judgements() (run.h) is
// how many times the options became a run configuration.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli.h"
#include "run.h"

namespace {

int run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "cuvk");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return cuvk::cli_main(static_cast<int>(argv.size()), argv.data());
}

std::string tmp(const std::string& name) {
  return ::testing::TempDir() + "cuvk_judged_" + std::to_string(getpid()) + "_" + name;
}

// How many times the command judged its options (its exit code into `code`).
std::size_t judgements_of(const std::vector<std::string>& args, int& code) {
  const std::size_t before = cuvk::run_judgements();
  code = run_cli(args);
  return cuvk::run_judgements() - before;
}

const std::vector<std::string> kSmall = {"--n", "1k", "--reps", "2", "--max-time", "0.01"};

std::vector<std::string> with_small(std::vector<std::string> args) {
  args.insert(args.end(), kSmall.begin(), kSmall.end());
  return args;
}

}  // namespace

TEST(JudgedOnce, EveryCommandJudgesItsOptionsOnce) {
  const std::string saved = tmp("run.json");
  const std::vector<std::vector<std::string>> commands = {
      with_small({"run", "--tests", "copy", "--format", "json", "--output", saved, "--quiet"}),
      with_small({"trace", "copy"}),
      with_small({"explain", "--tests", "copy", "--no-experiments"}),
      with_small({"explain", "--tests", "copy"}),
      with_small({"parity", "--tests", "copy"}),
      {"parity", "--from", saved},
      {"inspect", "copy", "--no-listings"},
  };
  for (const std::vector<std::string>& c : commands) {
    int code = 0;
    const std::size_t judged = judgements_of(c, code);
    std::string line;
    for (const std::string& w : c) line += w + " ";
    EXPECT_EQ(judged, 1u) << "cuvk " << line << "(exit " << code << ")";
  }
  std::remove(saved.c_str());
}
