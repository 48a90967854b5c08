// `cuvk run`, reusable by other commands (parity runs the same suite).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "commands.h"
#include "report.h"

namespace cuvk {

// The run options exactly as given on the command line; validated by execute_run.
struct RunArgs {
  std::vector<std::string> tests, apis = {"all"}, layouts, variants;
  std::vector<std::string> vk_bindings = {"descriptor"};  // --vk-binding
  std::string n, offsets, strides, format = "table", output, device, l2 = "cold";
  int reps = 100, warmup = 10;
  std::uint32_t block_size = 256;
  std::string block_sizes;
  double target_ci = 0.5, max_time_s = 0.0, settle_ms = 500.0;
  std::uint64_t seed = 1;
  bool validation = false, quiet = false;
};


void add_run_options(CLI::App& sub, RunArgs& args);

// Validates the options, picks the devices, runs the suite and returns everything for the reports.
// Throws UsageError for bad options and Error when no API can run at all.
RunDocument execute_run(const RunArgs& args, const std::string& command_line);

// Prints or writes (atomically) the document in `format`.
void emit(const RunDocument& doc, const std::string& format, const std::string& output, bool quiet);

// kExitFailed when any row failed, else kExitOk.
int run_exit_code(const RunDocument& doc);

}  // namespace cuvk
