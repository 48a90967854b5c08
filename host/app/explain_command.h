// `cuvk explain`'s work: the first run, the experiments of every point not SAME, the evidence,
// the report (host/cli/cmd_explain.cpp gathers its options; docs/EXPLAIN.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "run.h"

namespace cuvk {

struct ExplainArgs {
  RunArgs run;
  bool no_experiments = false;
  double experiment_time_s = 0.3;  // --max-time of each experiment's points
};

// explain's options judged once, before anything opens (run's, then --format: no csv); throws
// UsageError. Its check makes it; its action runs it, each experiment a changed_run of `run`.
struct JudgedExplain {
  JudgedRun run;
  bool no_experiments = false;
  double experiment_time_s = 0.3;
};
JudgedExplain judge_explain(const ExplainArgs& e);

int explain_command(const JudgedExplain& e, const std::string& cmdline);

struct ParityLine;  // parity.h

// The experiment run of one point, changed from e.run's configuration (changed_run: no option is
// read again): the point itself, its grid-stride variant where the test has one, at every block
// size of the sweep, on the point's Vulkan binding; short, no counters, nothing streamed.
// `alone`: the point alone, its variant at its block size (the trace and chain experiments), with
// their own `change`.
JudgedRun experiment_run(const JudgedExplain& e, const ParityLine& line, bool alone,
                         const std::function<void(RunConfig&)>& change = {});

}  // namespace cuvk
