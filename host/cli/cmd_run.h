// `cuvk run`'s options (CLI11) into RunArgs; the run's work is host/app's (run.h).
#pragma once

#include <CLI/CLI.hpp>

#include "commands.h"
#include "run.h"

namespace cuvk {

// The run's options onto `sub`: all of them, or (`trace`) those that choose and time a point
// (the test, the report's format and files, baseline, pairs and counters are run's alone), their
// defaults for --layouts, --variants and the sweep axes then being trace's: the first value.
enum class RunOptionSet { run, trace };
void add_run_options(CLI::App& sub, RunArgs& args, RunOptionSet set = RunOptionSet::run);

// run's --quiet and --concurrent (a node run's); check_node_args judges the latter (run.h).
void add_node_options(CLI::App& sub, RunArgs& args);

}  // namespace cuvk
