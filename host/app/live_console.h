// What a run shows while it runs: rows on stdout as they are measured, and on a terminal one
// self-updating progress line on stderr (done/total, elapsed, an estimate of what is left, the
// point being measured). The progress line appears only when stderr is a terminal and not
// --quiet, so pipes and logs never see a carriage return.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace cuvk {

class LiveConsole {
 public:
  // `progress`: draw the progress line (the caller decides: stderr is a TTY and not --quiet).
  explicit LiveConsole(bool progress);
  ~LiveConsole();
  LiveConsole(const LiveConsole&) = delete;
  LiveConsole& operator=(const LiveConsole&) = delete;

  // Before each point and API: `done` of `total` rows are finished; `what` is being measured.
  void progress(std::size_t done, std::size_t total, const std::string& what);
  // Text for stdout now (a row, a header), written and flushed at once; the progress line is
  // cleared first and drawn again after.
  void print(const std::string& text);
  // Clears the progress line for good (before the summaries).
  void finish();

  // "[12/70] 00:05 elapsed, ~00:24 left: read_x_aos block 256 cuda" (no estimate before the
  // first row is done).
  static std::string progress_text(std::size_t done, std::size_t total, double elapsed_s,
                                   const std::string& what);

 private:
  void draw();
  void clear();

  bool enabled_;
  bool shown_ = false;
  std::string line_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
};

}  // namespace cuvk
