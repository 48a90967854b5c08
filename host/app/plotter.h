// cuvk's one plotting path: results/plot.py and results/plotting/ (matplotlib), embedded in the
// binary at build time (cmake/EmbedPlotter.cmake) and run with a python3 that imports matplotlib.
// Used by `cuvk report --index DIR` (every figure of a results folder) and `cuvk trace --plot`.
// Without such a python3 the figures are skipped, with the reason and the install line.
#pragma once

#include <string>
#include <vector>

#include "interrupt.h"

namespace cuvk {

struct PlotterFile {
  const char* path;  // relative to results/, e.g. "plotting/common.py"
  const char* text;
};
const std::vector<PlotterFile>& plotter_files();  // generated: plotter_files.cpp

inline constexpr const char* kPlotInstallLine = "apt-get install python3-matplotlib";

// A private copy of the embedded plotter in a temporary folder, removed on destruction, and the
// python3 that runs it: $CUVK_PYTHON when set (only it), else `python3` on PATH or /usr/bin/python3,
// the first that imports matplotlib. `usable()` false: `skipped` says why, with the install line.
class Plotter {
 public:
  Plotter();
  ~Plotter();
  Plotter(const Plotter&) = delete;
  Plotter& operator=(const Plotter&) = delete;

  bool usable() const { return !python_.empty(); }
  const std::string& skipped() const { return skipped_; }
  const std::string& folder() const { return dir_; }  // the temporary folder (scratch space too)

  // Runs `python3 plot.py ARGS...`; returns its exit status and sets `output` to its stdout and
  // stderr together (their last MiB). Bounded in time ($CUVK_PLOTTER_TIMEOUT_S, default 600 s:
  // then Error), killed with cuvk on a signal (Interrupted where a measuring command notes it).
  int run(const std::vector<std::string>& args, std::string& output) const;

 private:
  std::string dir_, python_, skipped_;
  TemporaryPath live_;  // dir_, removed by a signal's handler if the process ends first
};

// "the plotter failed (exit N): LAST LINE; output: TAIL": a traceback's last line (the exception)
// first, since a long error line is cut at its end.
std::string plotter_failure(int status, const std::string& output);

// "the plotter exited 0 but did not write MISSING; output: TAIL" (or "none"): a plotter that ends
// well without its figure is a failure too.
std::string plotter_missing(const std::string& missing, const std::string& output);

// The drawing program, for the figures' metadata: "cuvk <git revision> (results/plot.py)".
std::string plotter_name();

}  // namespace cuvk
