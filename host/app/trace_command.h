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

// Every option judged before any device is opened, as run judges its own (a usage error, exit 2);
// returns the run's options for the trace.
RunArgs checked_run_args(const TraceArgs& a);

int run_trace(const TraceArgs& a, const std::string& command_line);

}  // namespace cuvk
