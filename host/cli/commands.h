// Subcommands: each adds itself to the CLI11 app and returns what runs when it is chosen.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace cuvk {

struct Command {
  CLI::App* sub;
  std::function<int()> action;  // returns the exit code; may throw UsageError / Error
  // Judges the parsed options once, before anything opens (validate_config, the format, the
  // tolerance), into the command's judged object, which `action` runs without judging them again
  // (judge_run, judge_trace, judge_parity, judge_explain, judge_inspect); throws UsageError.
  // Empty where the action judges nothing up front.
  std::function<void()> check = {};
};

Command add_run_command(CLI::App& app, const std::string& command_line);
Command add_list_command(CLI::App& app);
Command add_devices_command(CLI::App& app);
Command add_inspect_command(CLI::App& app);  // host/cli/cmd_inspect.cpp
Command add_parity_command(CLI::App& app, const std::string& command_line);
Command add_explain_command(CLI::App& app, const std::string& command_line);  // cmd_explain.cpp
Command add_report_command(CLI::App& app);
Command add_trace_command(CLI::App& app, const std::string& command_line);  // cmd_trace.cpp
Command add_p2p_command(CLI::App& app);  // cmd_p2p.cpp: GPU to GPU copies
Command add_help_command(CLI::App& app);  // cmd_help.cpp: every --help, or the Markdown reference

}  // namespace cuvk
