// libFuzzer target for the command line: the input, split at newlines, is the argument list after
// "cuvk"; it is parsed (CLI11, every subcommand) and the chosen command's options judged as the
// command would (validate_config, format, tolerance), with nothing run or opened. Any input must
// parse or be refused with CLI11's ParseError or a cuvk::UsageError (exit 2 in cuvk); anything
// else escaping, a crash or a sanitizer report fails.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli.h"
#include "error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kMaxArgs = 64;
  std::vector<std::string> args = {"cuvk"};
  std::string arg;
  for (std::size_t i = 0; i < size && args.size() < kMaxArgs; ++i) {
    if (data[i] == '\n') {
      args.push_back(arg);
      arg.clear();
    } else {
      arg += static_cast<char>(data[i]);
    }
  }
  if (!arg.empty() && args.size() < kMaxArgs) args.push_back(arg);
  try {
    cuvk::parse_command_line(args);
  } catch (const CLI::Error&) {  // a parse error, or --help / --version asked for
  } catch (const cuvk::UsageError&) {
  }
  return 0;
}
