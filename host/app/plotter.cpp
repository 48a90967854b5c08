#include "plotter.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "build_info.h"
#include "error.h"
#include "json_check.h"

namespace cuvk {
namespace {

constexpr std::size_t kMaxOutputBytes = 1u << 20;  // of the child's output, the last ones kept

// How long the plotter may run: $CUVK_PLOTTER_TIMEOUT_S when a positive number, else 600 s.
double plotter_timeout_s() {
  if (const char* v = std::getenv("CUVK_PLOTTER_TIMEOUT_S"); v && *v) {
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (*end == '\0' && s > 0.0 && s <= 86400.0) return s;
  }
  return 600.0;
}

// Runs argv (argv[0] searched on PATH) in a process group of its own, stdout and stderr into
// `output` (the last kMaxOutputBytes: a child that writes gigabytes cannot exhaust cuvk's
// memory). Bounded: past `timeout_s` the group is killed and *why says so; a signal that ends cuvk
// kills it too (track_child_group), and one a measuring command only notes (interrupted()) kills
// it and throws Interrupted. Returns the exit status, or -1 when it could not start, did not exit
// normally or was killed (*why then says which).
// Starts argv in a process group of its own, its stdout and stderr into the pipe whose read end
// *out_fd becomes; tracked (track_child_group) until the caller untracks it. -1 when it cannot.
pid_t spawn_in_group(const std::vector<std::string>& argv, int* out_fd) {
  int fds[2];
  if (argv.empty() || ::pipe2(fds, O_CLOEXEC) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // as the child does: whichever runs first
  track_child_group(pid);
  ::close(fds[1]);
  *out_fd = fds[0];
  return pid;
}

int run_program(const std::vector<std::string>& argv, std::string& output, double timeout_s,
                std::string* why) {
  output.clear();
  why->clear();
  int fd = -1;
  const pid_t pid = spawn_in_group(argv, &fd);
  if (pid < 0) return -1;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeout_s));
  std::size_t dropped = 0;
  bool open = true, stop = false;
  int status = 0;
  bool reaped = false;
  char buf[65536];
  while (!stop) {
    if (interrupted()) {
      *why = "interrupted";
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      std::ostringstream t;
      t << "the plotter did not finish within " << timeout_s
        << " s (CUVK_PLOTTER_TIMEOUT_S) and was stopped";
      *why = t.str();
      break;
    }
    if (!open) {  // its output closed: wait for it to exit, still against the deadline
      const pid_t r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid) {
        reaped = true;
        break;
      }
      ::usleep(20000);
      continue;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready <= 0) continue;  // EINTR or 100 ms: look at the clock and the signals again
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      output.append(buf, static_cast<std::size_t>(n));
      if (output.size() > 2 * kMaxOutputBytes) {  // keep the tail: the error is at the end
        dropped += output.size() - kMaxOutputBytes;
        output.erase(0, output.size() - kMaxOutputBytes);
      }
    } else if (n == 0 || errno != EINTR) {
      open = false;
    }
  }
  ::close(fd);
  if (!reaped) {
    if (!why->empty()) ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::kill(-pid, SIGKILL);  // anything it left behind in its group
  untrack_child_group(pid);
  if (dropped > 0)
    output.insert(0, fmt::format("[the plotter's first {} bytes of output left out]\n", dropped));
  if (*why == "interrupted")
    throw Interrupted(fmt::format("interrupted by signal {} while the plotter ran; it was stopped",
                                  interrupt_signal()));
  if (!why->empty()) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void write_text(const std::string& path, const char* text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f.flush()) throw Error("cannot write the plotter to " + path + ": " + std::strerror(errno));
}

}  // namespace

std::string plotter_name() {
  return std::string("cuvk ") + build::kGitRevision + " (results/plot.py)";
}

Plotter::Plotter() {
  const char* tmp = std::getenv("TMPDIR");
  std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/cuvk-plot-XXXXXX";
  if (::mkdtemp(name.data()) == nullptr)
    throw Error("cannot create a temporary folder for the plotter: " +
                std::string(std::strerror(errno)));
  dir_ = name;
  live_ = TemporaryPath(dir_, true);
  ::mkdir((dir_ + "/plotting").c_str(), 0700);
  for (const PlotterFile& f : plotter_files()) write_text(dir_ + "/" + f.path, f.text);
  std::vector<std::string> candidates;
  if (const char* py = std::getenv("CUVK_PYTHON"); py && *py) {
    candidates.emplace_back(py);  // the user's choice, and only it
  } else {
    candidates.emplace_back("python3");
    candidates.emplace_back("/usr/bin/python3");  // Debian's, where another python3 comes first
  }
  std::string tried, out;
  for (const std::string& py : candidates) {
    std::string why;
    const int status = run_program({py, "-B", dir_ + "/plot.py", "probe"}, out, 60.0, &why);
    if (status == 0) {
      python_ = py;
      return;
    }
    tried += (tried.empty() ? "" : ", ") + py +
             (!why.empty() ? " (its probe did not finish in 60 s)"
              : status == 127 ? " (not found)"
                              : " (no matplotlib)");
  }
  skipped_ = "figures need python3 with matplotlib, tried " + tried + " (Debian: " +
             kPlotInstallLine + "; or set CUVK_PYTHON)";
}

Plotter::~Plotter() {  // the folder holds only files this class and its callers wrote
  for (const std::string& d : {dir_ + "/plotting", dir_}) {
    if (DIR* dir = ::opendir(d.c_str())) {
      while (const dirent* e = ::readdir(dir))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
          ::unlink((d + "/" + e->d_name).c_str());
      ::closedir(dir);
    }
    ::rmdir(d.c_str());
  }
}

int Plotter::run(const std::vector<std::string>& args, std::string& output) const {
  std::vector<std::string> argv = {python_, "-B", dir_ + "/plot.py"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string why;
  const int status = run_program(argv, output, plotter_timeout_s(), &why);
  if (!why.empty()) throw Error(why + "; output: " + printable(output.substr(
                                    output.size() > 2000 ? output.size() - 2000 : 0)));
  return status;
}

std::string plotter_missing(const std::string& missing, const std::string& output) {
  const std::string tail = output.substr(output.size() > 2000 ? output.size() - 2000 : 0);
  return "the plotter exited 0 but did not write " + missing +
         "; output: " + (tail.empty() ? std::string("none") : printable(tail));
}

std::string plotter_failure(int status, const std::string& output) {
  std::string last;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  const std::string tail = output.substr(output.size() > 2000 ? output.size() - 2000 : 0);
  return fmt::format("the plotter failed (exit {}): {}; output: {}", status, printable(last),
                     printable(tail));
}

}  // namespace cuvk
