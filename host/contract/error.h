// Errors: every failed API call throws cuvk::Error carrying the call, the decoded error and where.
#pragma once

#include <stdexcept>
#include <string>

namespace cuvk {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A problem with what the user asked for (bad option value, unknown test...): exit code 2.
class UsageError : public Error {
 public:
  using Error::Error;
};

// Formats "<call> failed: <decoded> (<file>:<line>)".
std::string call_failure(const char* call, const std::string& decoded, const char* file, int line);

}  // namespace cuvk
