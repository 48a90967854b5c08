// Standard output as cuvk writes it: std::cout goes through a buffer that writes file descriptor 1
// itself and remembers the first failed write, so a full disk, /dev/full or a closed pipe (with
// SIGPIPE ignored) is an I/O error with its reason, never a silently cut file. All of cuvk's
// standard output goes through std::cout (no printf), so the order is kept.
#pragma once

#include <memory>
#include <streambuf>

namespace cuvk {

class StandardOutput {
 public:
  StandardOutput();   // installs the checked buffer into std::cout
  ~StandardOutput();  // flushes and puts std::cout's own buffer back
  StandardOutput(const StandardOutput&) = delete;
  StandardOutput& operator=(const StandardOutput&) = delete;

  // Flushes everything written so far (std::cout and stdio's stdout, for any library that prints)
  // and returns `code`, or, when any write failed, prints one `error: cannot write to standard
  // output: <reason>` line on stderr and returns kExitEnvironment. An interrupted run (128 + N)
  // keeps its code.
  int finish(int code);

 private:
  std::unique_ptr<std::streambuf> buffer_;
  std::streambuf* previous_ = nullptr;
};

// Standard error, watched: every non-zero exit says why in one `error:` line (issue 23, class 8).
// Where a command ends non-zero without having printed such a line, finish() prints one that
// names the exit code's meaning (README "Exit codes").
class ErrorLineWatch {
 public:
  ErrorLineWatch();   // installs a watching buffer in front of std::cerr's
  ~ErrorLineWatch();  // puts std::cerr's own buffer back
  ErrorLineWatch(const ErrorLineWatch&) = delete;
  ErrorLineWatch& operator=(const ErrorLineWatch&) = delete;

  bool saw_error_line() const;
  int finish(int code);  // prints the fallback line where needed; returns `code`

 private:
  std::unique_ptr<std::streambuf> buffer_;
  std::streambuf* previous_ = nullptr;
};

// The fallback line's text for a non-zero exit code (one line, no "error: " prefix).
const char* exit_code_meaning(int code);

}  // namespace cuvk
