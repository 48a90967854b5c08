// Signals, one rule for every command (docs/REFERENCE.md, "Exit codes"): SIGINT, SIGTERM and
// SIGHUP end cuvk with exit 128 + the signal's number (130, 143, 129: what a shell reports for a
// process the signal ended) and one `error:` line; no temporary file outlives the process on any
// signal that can be caught.
//   - install_signal_handlers(), once at start-up (main): a signal ends the command at once,
//     after removing the temporaries. SIGHUP stays ignored where the caller ignores it (nohup).
//   - A command that measures calls install_interrupt_handlers(): from then on the first such
//     signal only asks it to stop at the next measurement boundary (GPU resources are then freed
//     by their owners, completed rows are printed, no result file is written), and an output it
//     blocks on (a FIFO without a reader, a stalled pipe) gives way (Interrupted); a second signal
//     ends it at once.
//   - SIGXFSZ is ignored: exceeding the file-size limit (ulimit -f) is a failed write (EFBIG), an
//     I/O error (exit 3), not a death by signal.
//   - The other catchable signals that end a process (SIGQUIT, SIGALRM, SIGUSR1, SIGPIPE, SIGSEGV,
//     SIGABRT, ...) keep their action (default, ignored or a sanitizer's) after the temporaries
//     are removed.
#pragma once

#include <string>

#include "error.h"

namespace cuvk {

void install_signal_handlers();     // once, at start-up: every command
void install_interrupt_handlers();  // a measuring command: the first signal only asks to stop
bool interrupted();                 // a signal arrived since install_interrupt_handlers()
int interrupt_signal();             // which one (0 if none)
void raise_interrupt_for_testing(int signal_number);

// The exit code of a command a signal ended: 128 + its number.
constexpr int interrupted_exit_code(int signal_number) { return 128 + signal_number; }
constexpr bool is_interrupted_exit_code(int code) { return code > 128 && code <= 128 + 64; }

// A blocking open or write gave way to a signal (exit interrupted_exit_code(interrupt_signal())).
class Interrupted : public Error {
 public:
  using Error::Error;
};

// A child process (its own process group: fork, then setpgid) that a signal ending cuvk must not
// leave running: the handlers kill its group (SIGKILL) before cuvk ends. At most 4 at once; the
// owner untracks it once reaped.
void track_child_group(int pid);
void untrack_child_group(int pid);

// A file or folder this process created and removes itself, removed by the signal handlers too
// if the process ends first (a folder with what it holds, three levels deep). At most 32 at once.
class TemporaryPath {
 public:
  TemporaryPath() = default;
  explicit TemporaryPath(const std::string& path, bool folder = false);
  ~TemporaryPath() { release(); }
  TemporaryPath(TemporaryPath&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  TemporaryPath& operator=(TemporaryPath&& other) noexcept;
  TemporaryPath(const TemporaryPath&) = delete;
  TemporaryPath& operator=(const TemporaryPath&) = delete;
  void release();  // removed (or renamed) by its owner: the handlers leave it alone

 private:
  int slot_ = -1;
};

}  // namespace cuvk
