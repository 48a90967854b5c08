// `cuvk explain`'s work: the first run, the experiments of every point not SAME, the evidence,
// the report (host/cli/cmd_explain.cpp gathers its options; docs/EXPLAIN.md).
#pragma once

#include <string>
#include <vector>

#include "run.h"

namespace cuvk {

struct ExplainArgs {
  RunArgs run;
  bool no_experiments = false;
  double experiment_time_s = 0.3;  // --max-time of each experiment's points
};

int explain_command(const ExplainArgs& e, const std::string& cmdline);

}  // namespace cuvk
