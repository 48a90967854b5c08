// `cuvk run --device all --concurrent`: the together pass, every GPU measured at once by one child
// process each (this binary again, with the same options, `--device <uuid> --format json --output
// <temporary file>`), so that no state of a run (the interrupt handler, the live console, NVML,
// the Vulkan hung-device registry, the inventory) is shared between threads (docs/MEASURING.md).
#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "options.h"
#include "output_file.h"
#include "run.h"
#include "error.h"
#include "interrupt.h"
#include "run_reader.h"

namespace cuvk {
namespace {

// What the child is told by the parent rather than by the command line.
const std::set<std::string> kDropWithValue = {"--device", "--output", "--format", "--baseline",
                                              "--columns"};
const std::set<std::string> kDropFlags = {"--quiet", "--concurrent"};

constexpr const char* kTogether = "cuvk_together_";  // + the parent's pid + "_XXXXXX"

// Removes the folders `base`/cuvk_together_<pid>_* that an earlier --concurrent left behind when it
// was killed (SIGKILL: no handler ran), those whose process is gone, with the files in them.
void remove_stale_folders(const std::string& base) {
  DIR* dir = ::opendir(base.c_str());
  if (dir == nullptr) return;
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (name.rfind(kTogether, 0) != 0) continue;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + std::strlen(kTogether), &end, 10);
    if (pid <= 0 || *end != '_' || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue;
    const std::string folder = base + "/" + name;
    if (DIR* inner = ::opendir(folder.c_str())) {
      while (const dirent* f = ::readdir(inner))
        if (std::strcmp(f->d_name, ".") != 0 && std::strcmp(f->d_name, "..") != 0)
          std::remove((folder + "/" + f->d_name).c_str());
      ::closedir(inner);
    }
    ::rmdir(folder.c_str());
  }
  ::closedir(dir);
}

// A temporary folder for the children's files and logs, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    const char* env = std::getenv("TMPDIR");
    const std::string base = env && *env ? env : "/tmp";
    remove_stale_folders(base);
    std::string t = fmt::format("{}/{}{}_XXXXXX", base, kTogether, ::getpid());
    if (!mkdtemp(t.data()))
      throw Error("--concurrent: cannot create a temporary folder " + t + ": " +
                  std::strerror(errno));
    path_ = t;
  }
  ~TempDir() {
    for (const std::string& f : files_) std::remove(f.c_str());
    ::rmdir(path_.c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) {
    files_.push_back(path_ + "/" + name);
    return files_.back();
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

// Starts this binary with `args` (argv[0] first), stdout and stderr into `log`.
pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("--concurrent: cannot create " + log + ": " + std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t pid = fork();
  if (pid == 0) {  // the child: only async-signal-safe calls until exec
    // It dies with the parent (SIGKILL included); the forking thread, the command's own, lives as
    // long as the run. A parent gone before prctl: the child ends at once.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  const int fork_errno = errno;
  ::close(fd);
  if (pid < 0) throw Error("--concurrent: fork: " + std::string(std::strerror(fork_errno)));
  return pid;
}

// Waits for every child; a signal that reached this process is passed on to them once.
std::vector<int> wait_all(const std::vector<pid_t>& pids) {
  std::vector<int> codes(pids.size(), -1);
  std::size_t left = pids.size();
  bool passed_on = false;
  while (left > 0) {
    for (std::size_t k = 0; k < pids.size(); ++k) {
      int status = 0;
      if (codes[k] != -1 || waitpid(pids[k], &status, WNOHANG) != pids[k]) continue;
      codes[k] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      --left;
    }
    if (interrupted() && !passed_on) {
      for (std::size_t k = 0; k < pids.size(); ++k)
        if (codes[k] == -1) kill(pids[k], interrupt_signal());
      passed_on = true;
    }
    if (left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return codes;
}

// The last `error:` line of a child's log (or its last line), for the parent's message.
std::string last_error(const std::string& log) {
  std::ifstream in(log);
  std::string line, last, error;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
    if (line.rfind("error: ", 0) == 0) error = line.substr(7);
  }
  return error.empty() ? last : error;
}

}  // namespace

std::vector<std::string> together_args(const std::vector<std::string>& args,
                                       const std::string& device, const std::string& output) {
  std::vector<std::string> out;
  if (!args.empty()) out.push_back(args[0]);
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& w = args[i];
    const std::string name = w.substr(0, w.find('='));
    if (kDropFlags.count(name) > 0) continue;
    if (kDropWithValue.count(name) > 0) {
      if (name == w) ++i;  // "--device 0,1": its value is the next word
      continue;
    }
    out.push_back(w);
  }
  if (!device.empty()) out.insert(out.end(), {"--device", device});
  out.insert(out.end(), {"--format", "json", "--output", output, "--quiet"});
  return out;
}

std::vector<TogetherRun> run_together(const std::vector<std::string>& devices,
                                      const std::vector<std::string>& names) {
  TempDir dir;
  std::vector<std::string> outputs, logs;
  std::vector<pid_t> pids;
  std::vector<TogetherRun> runs(devices.size());
  try {
    for (std::size_t k = 0; k < devices.size(); ++k) {
      outputs.push_back(dir.file(fmt::format("gpu{}.json", k)));
      logs.push_back(dir.file(fmt::format("gpu{}.log", k)));
      pids.push_back(spawn(together_args(process_args(), devices[k], outputs[k]), logs[k]));
    }
  } catch (...) {  // the children started so far are stopped and awaited
    for (pid_t p : pids) kill(p, SIGTERM);
    wait_all(pids);
    throw;
  }
  const std::vector<int> codes = wait_all(pids);
  for (std::size_t k = 0; k < devices.size(); ++k) {
    runs[k].exit_code = codes[k];
    if (codes[k] == kExitOk || codes[k] == kExitFailed) {
      try {
        runs[k].run = read_results(outputs[k]);
        runs[k].run->name = names[k];
        continue;
      } catch (const UsageError& e) {
        runs[k].error = e.what();
      }
    }
    if (runs[k].error.empty())
      runs[k].error = fmt::format("exit {}: {}", codes[k], last_error(logs[k]));
  }
  return runs;
}

}  // namespace cuvk
