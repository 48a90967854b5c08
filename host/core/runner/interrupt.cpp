#include "interrupt.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <initializer_list>

namespace cuvk {
namespace {

constexpr int kSlots = 32;
constexpr std::size_t kMaxTempPath = 4096;
enum SlotState : int { kFree = 0, kFilling = 1, kFile = 2, kFolder = 3 };

struct Slot {
  std::atomic<int> state{kFree};
  char path[kMaxTempPath];
};
Slot g_slots[kSlots];

std::atomic<int> g_children[4];  // process groups to kill on a signal that ends cuvk (0: free)

std::atomic<int> g_signal{0};
std::atomic<bool> g_polling{false};
std::atomic<bool> g_hup_ignored{false};  // by the caller (nohup): it stays ignored

// Only async-signal-safe calls from here to the handlers' end.

// Empties the folder open as `fd` (getdents64 and unlinkat: no allocation), its subfolders to
// `depth` levels, and closes it.
void empty_folder(int fd, int depth) {
  alignas(8) char buf[4096];
  for (;;) {
    const long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      const auto* e = reinterpret_cast<const dirent64*>(buf + at);
      at += e->d_reclen;
      const char* name = e->d_name;
      if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
      if (unlinkat(fd, name, 0) == 0 || errno != EISDIR || depth == 0) continue;
      const int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0) empty_folder(sub, depth - 1);
      unlinkat(fd, name, AT_REMOVEDIR);
    }
  }
  close(fd);
}

void kill_children() {
  for (std::atomic<int>& c : g_children)
    if (const int pid = c.load(); pid > 0) kill(-pid, SIGKILL);
}

void remove_temporaries() {
  const int saved = errno;
  kill_children();  // first: a child may be writing into a temporary folder
  for (int pass : {kFile, kFolder})
    for (Slot& s : g_slots)
      if (s.state.load() == pass) {
        if (pass == kFile) {
          unlink(s.path);
        } else {
          const int fd = open(s.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (fd >= 0) empty_folder(fd, 3);
          rmdir(s.path);
        }
        s.state.store(kFree);
      }
  errno = saved;
}

}  // namespace

void track_child_group(int pid) {
  for (std::atomic<int>& c : g_children) {
    int none = 0;
    if (c.compare_exchange_strong(none, pid)) return;
  }
}

void untrack_child_group(int pid) {
  for (std::atomic<int>& c : g_children) {
    int mine = pid;
    if (c.compare_exchange_strong(mine, 0)) return;
  }
}

namespace {

void append(char* line, std::size_t& at, std::size_t size, const char* text) {
  while (*text != '\0' && at + 1 < size) line[at++] = *text++;
}

void append_number(char* line, std::size_t& at, std::size_t size, int v) {
  char digits[12];
  int n = 0;
  do digits[n++] = static_cast<char>('0' + v % 10);
  while ((v /= 10) > 0 && n < 11);
  while (n > 0 && at + 1 < size) line[at++] = digits[--n];
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

extern "C" void on_interrupt(int sig) {
  int none = 0;
  if (g_polling.load() && g_signal.compare_exchange_strong(none, sig))
    return;  // a measuring command stops at its next boundary; an output gives way
  remove_temporaries();
  char line[160];
  std::size_t at = 0;
  append(line, at, sizeof line, "error: interrupted by signal ");
  append_number(line, at, sizeof line, sig);
  append(line, at, sizeof line, " (");
  append(line, at, sizeof line, signal_name(sig));
  append(line, at, sizeof line, "): exit ");
  append_number(line, at, sizeof line, interrupted_exit_code(sig));
  append(line, at, sizeof line, "; no output file written\n");
  const ssize_t ignored = write(STDERR_FILENO, line, at);
  (void)ignored;
  _exit(interrupted_exit_code(sig));
}

// Every other catchable signal that ends a process: its default action, after the temporaries.
extern "C" void on_fatal(int sig, siginfo_t* info, void*) {
  remove_temporaries();
  signal(sig, SIG_DFL);
  const bool fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
  if (!fault || info == nullptr || info->si_code <= 0) raise(sig);  // sent: delivered on return
  // A fault: the instruction runs again on return and meets the default action.
}

void set_interrupt_action(int sig) {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  // Blocking calls restart as before (drivers expect it); the outputs cuvk may block on wait in
  // poll() steps instead, which a signal ends whatever SA_RESTART says (output_file.cpp).
  sa.sa_flags = SA_RESTART;
  sigaction(sig, &sa, nullptr);
}

void set_interrupt_actions() {
  set_interrupt_action(SIGINT);
  set_interrupt_action(SIGTERM);
  if (!g_hup_ignored.load()) set_interrupt_action(SIGHUP);
}

}  // namespace

void install_signal_handlers() {
  struct sigaction hup {};
  sigaction(SIGHUP, nullptr, &hup);
  g_hup_ignored.store(hup.sa_handler == SIG_IGN);
  set_interrupt_actions();
  // Only where the action is the default: one the caller ignores stays ignored (SIGPIPE, see
  // cli.h), a sanitizer's handler stays in place.
  for (int sig : {SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF, SIGXCPU, SIGPOLL, SIGPIPE,
                  SIGSYS, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) != 0 ||
        old.sa_handler != SIG_DFL)
      continue;
    struct sigaction sa {};
    sa.sa_sigaction = on_fatal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(sig, &sa, nullptr);
  }
  signal(SIGXFSZ, SIG_IGN);  // beyond ulimit -f: write() fails with EFBIG, an I/O error
}

void install_interrupt_handlers() {
  g_signal.store(0);
  g_polling.store(true);
  set_interrupt_actions();
}

bool interrupted() { return g_signal.load() != 0; }
int interrupt_signal() { return g_signal.load(); }
void raise_interrupt_for_testing(int signal_number) { g_signal.store(signal_number); }

TemporaryPath::TemporaryPath(const std::string& path, bool folder) {
  if (path.empty() || path.size() >= kMaxTempPath) return;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(folder ? kFolder : kFile);
    slot_ = i;
    return;
  }
}

TemporaryPath& TemporaryPath::operator=(TemporaryPath&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

void TemporaryPath::release() {
  if (slot_ >= 0) g_slots[slot_].state.store(kFree);
  slot_ = -1;
}

}  // namespace cuvk
