// `cuvk parity`'s work: the run or the saved run (--from) read, its verdicts and their output
// (host/cli/cmd_parity.cpp gathers its options).
#pragma once

#include <string>
#include <vector>

#include "run.h"

namespace cuvk {

struct ParityArgs {
  RunArgs run;
  std::string from, save_run;
  std::vector<std::string> given;  // the options given, by name (--from allows a few)
};

// parity's options judged once, before anything opens or is read (run's, then --columns against
// the parity table's); throws UsageError. Its check makes it; its action runs it.
struct JudgedParity {
  JudgedRun run;
  std::string from, save_run;
  std::vector<std::string> given;
};
JudgedParity judge_parity(const ParityArgs& p);

// Exit codes: 0 all SAME and outputs identical; 1 any difference, UNCERTAIN, failed verification
// or output mismatch; 2 could not compare (an API unavailable) or a usage error; 3 environment.
int parity_command(const JudgedParity& p, const std::string& cmdline);

}  // namespace cuvk
