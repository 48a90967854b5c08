#include "live_console.h"

#include <cstdio>
#include <iostream>

#include <fmt/format.h>

namespace cuvk {
namespace {

constexpr std::size_t kMaxLineChars = 118;  // fits a 120-column terminal without wrapping

std::string clock_text(double s) {
  const long total = static_cast<long>(s + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02ld:%02ld", total / 60, total % 60);
  return buf;
}

}  // namespace

LiveConsole::LiveConsole(bool progress)
    : enabled_(progress), start_(std::chrono::steady_clock::now()) {}

LiveConsole::~LiveConsole() { finish(); }

std::string LiveConsole::progress_text(std::size_t done, std::size_t total, double elapsed_s,
                                       const std::string& what) {
  std::string s = fmt::format("[{}/{}] {} elapsed", done, total, clock_text(elapsed_s));
  if (done > 0 && total >= done)
    s += ", ~" + clock_text(elapsed_s / static_cast<double>(done) * static_cast<double>(total - done)) +
         " left";
  s += ": " + what;
  if (s.size() > kMaxLineChars) s = s.substr(0, kMaxLineChars - 3) + "...";
  return s;
}

void LiveConsole::progress(std::size_t done, std::size_t total, const std::string& what) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  line_ = progress_text(done, total, elapsed, what);
  draw();
}

void LiveConsole::print(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  clear();
  std::cout << text << std::flush;
  if (!line_.empty()) draw();
}

void LiveConsole::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  clear();
  line_.clear();
}

void LiveConsole::draw() {
  if (!enabled_) return;
  std::cerr << "\r\033[K" << line_ << std::flush;
  shown_ = true;
}

void LiveConsole::clear() {
  if (!shown_) return;
  std::cerr << "\r\033[K" << std::flush;
  shown_ = false;
}

}  // namespace cuvk
