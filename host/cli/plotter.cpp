#include "plotter.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "build_info.h"
#include "error.h"
#include "json_check.h"

namespace cuvk {
namespace {

// Runs argv (argv[0] searched on PATH), stdout and stderr into `output`; the exit status, or -1
// when it could not start or did not exit normally.
int run_program(const std::vector<std::string>& argv, std::string& output) {
  output.clear();
  int fds[2];
  if (argv.empty() || ::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0)
      output.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR)
      break;
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
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
    const int status = run_program({py, "-B", dir_ + "/plot.py", "probe"}, out);
    if (status == 0) {
      python_ = py;
      return;
    }
    tried += (tried.empty() ? "" : ", ") + py + (status == 127 ? " (not found)" : " (no matplotlib)");
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
  return run_program(argv, output);
}

std::string plotter_failure(int status, const std::string& output) {
  std::string last;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  const std::string tail = output.substr(output.size() > 2000 ? output.size() - 2000 : 0);
  return "the plotter failed (exit " + std::to_string(status) + "): " + printable(last) +
         "; output: " + printable(tail);
}

}  // namespace cuvk
