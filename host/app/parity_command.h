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

// Exit codes: 0 all SAME and outputs identical; 1 any difference, UNCERTAIN, failed verification
// or output mismatch; 2 could not compare (an API unavailable) or a usage error; 3 environment.
int parity_command(const ParityArgs& p, const std::string& cmdline);

}  // namespace cuvk
