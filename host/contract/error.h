// Errors: every failed API call throws cuvk::Error carrying the call, the decoded error and where.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace cuvk {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // A one-line message with a tool's log beneath it (a compiler's): the CLI prints the message as
  // its one `error:` line and the log's lines indented below it. The message itself may hold any
  // byte (a file name with a newline stays on its line, escaped).
  Error(const std::string& what, std::string log)
      : std::runtime_error(what), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

// A problem with what the user asked for (bad option value, unknown test...): exit code 2.
class UsageError : public Error {
 public:
  using Error::Error;
};

// Formats "<call> failed: <decoded> (<file>:<line>)".
std::string call_failure(const char* call, const std::string& decoded, const char* file, int line);

}  // namespace cuvk
