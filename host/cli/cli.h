// Command line: `cuvk run | list | devices` (CLI11). Returns the process exit code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backend.h"
#include "options.h"      // ExitCode, the shared option parsers, process_args
#include "output_file.h"  // check_writable, write_output_file
#include "printing.h"

namespace cuvk {

// Runs one command. Its standard output is checked (standard_output.h): a failed write is an I/O
// error, exit 3. SIGPIPE keeps its default action, so `cuvk ... | head` ends quietly when head
// closes the pipe, as other tools do; where the caller ignores SIGPIPE, the closed pipe is that
// I/O error (EPIPE, exit 3).
int cli_main(int argc, char** argv);

// What cuvk prints for an error whose message is `what`: one `error: ` line (the message's first
// line, escaped and cut at kMaxErrorLine, then `suffix`), then each further line of the message
// (a compiler's log) as a line of its own, indented by two spaces, escaped and cut alike: never
// with a literal "\n". At most kMaxErrorDetailLines of them, then how many more there were.
std::string error_text(const std::string& what, const std::string& suffix = "",
                       const std::string& log = "");

// The command line parsed and judged, nothing run or opened: args[0] is the program name. The
// chosen command's options are checked as the command would check them first (Command::check).
// Throws CLI::ParseError (also for --help and --version) or UsageError. The fuzzer's entry point.
void parse_command_line(const std::vector<std::string>& args);

}  // namespace cuvk
