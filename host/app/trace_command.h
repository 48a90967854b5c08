// `cuvk trace`'s work: one point's dispatch traces on both APIs, written and drawn
// (host/cli/cmd_trace.cpp gathers its options).
#pragma once

#include <string>
#include <vector>

#include "run.h"

namespace cuvk {

struct TraceArgs {
  std::string test;
  RunArgs run;  // run's options (RunOptionSet::trace)
  std::string output, plot;
};

// trace's options judged once, before any device is opened, as run judges its own (a usage error,
// exit 2): the run of the one point they choose. Its check makes it; its action runs it.
struct JudgedTrace {
  std::string test;
  JudgedRun run;
  std::string output, plot;
};
JudgedTrace judge_trace(const TraceArgs& a);

int run_trace(const JudgedTrace& t, const std::string& command_line);

}  // namespace cuvk
