#include "standard_output.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "cli.h"
#include "interrupt.h"

namespace cuvk {
namespace {

constexpr std::size_t kBufferBytes = 1 << 16;

// A buffer that writes to a file descriptor and keeps the errno of its first failure; after a
// failure it drops what it is given (the stream then reports the failure too).
class FdBuffer final : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd) { reset(); }
  int error() const { return error_; }

  bool drain() {
    const char* p = pbase();
    auto left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      // A reader that stalls (a full pipe) is waited for in steps a signal to stop ends, a
      // pipe's worth at a time, so no write blocks for good (interrupt.h).
      pollfd ready{fd_, POLLOUT, 0};
      while (!interrupted() && poll(&ready, 1, 100) == 0) {
      }
      if (interrupted()) {
        error_ = EINTR;
        break;
      }
      const ssize_t n = write(fd_, p, std::min<std::size_t>(left, PIPE_BUF));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        break;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    reset();
    return error_ == 0;
  }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }

  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::streamsize done = 0;
    while (done < n) {
      if (pptr() == epptr() && !drain()) break;
      const std::streamsize k = std::min<std::streamsize>(epptr() - pptr(), n - done);
      std::memcpy(pptr(), s + done, static_cast<std::size_t>(k));
      pbump(static_cast<int>(k));
      done += k;
    }
    return done;
  }

  int sync() override { return drain() ? 0 : -1; }

 private:
  void reset() { setp(data_.data(), data_.data() + data_.size()); }

  int fd_;
  int error_ = 0;
  std::array<char, kBufferBytes> data_{};
};

// Forwards to std::cerr's own buffer and notes whether any line began with "error:".
class WatchBuffer final : public std::streambuf {
 public:
  explicit WatchBuffer(std::streambuf* to) : to_(to) {}
  bool saw() const { return saw_; }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    note(&ch, 1);
    return to_->sputc(ch);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    note(s, static_cast<std::size_t>(n));
    return to_->sputn(s, n);
  }
  int sync() override { return to_->pubsync(); }

 private:
  void note(const char* s, std::size_t n) {
    static constexpr char kTag[] = "error:";
    for (std::size_t i = 0; i < n; ++i) {
      if (s[i] == '\n') {
        at_ = 0;
        continue;
      }
      if (at_ < 0) continue;  // past the tag or not matching: until the next line
      if (s[i] != kTag[at_]) {
        at_ = -1;
        continue;
      }
      if (++at_ == static_cast<int>(sizeof kTag - 1)) {
        saw_ = true;
        at_ = -1;
      }
    }
  }
  std::streambuf* to_;
  int at_ = 0;  // characters of "error:" matched at the start of this line; -1: none will be
  bool saw_ = false;
};

}  // namespace

const char* exit_code_meaning(int code) {
  switch (code) {
    case kExitFailed:
      return "exit 1: a verification failed, or a comparison found a difference or a slower row "
             "(see the output above)";
    case kExitUsage:
      return "exit 2: nothing could be compared, or the input was not usable (see the output above)";
    case kExitEnvironment:
      return "exit 3: nothing could run (no usable device or API), or an I/O error (see the output "
             "above)";
    default:
      return is_interrupted_exit_code(code) ? "interrupted by a signal (exit 128 + its number)"
                                            : "exited with a non-zero code";
  }
}

ErrorLineWatch::ErrorLineWatch()
    : buffer_(std::make_unique<WatchBuffer>(std::cerr.rdbuf())), previous_(std::cerr.rdbuf()) {
  std::cerr.rdbuf(buffer_.get());
}

ErrorLineWatch::~ErrorLineWatch() {
  std::cerr.flush();
  std::cerr.rdbuf(previous_);
}

bool ErrorLineWatch::saw_error_line() const {
  return static_cast<const WatchBuffer&>(*buffer_).saw();
}

int ErrorLineWatch::finish(int code) {
  if (code != kExitOk && !saw_error_line()) std::cerr << "error: " << exit_code_meaning(code) << '\n';
  std::cerr.flush();
  return code;
}

StandardOutput::StandardOutput() : buffer_(std::make_unique<FdBuffer>(STDOUT_FILENO)) {
  std::fflush(stdout);  // whatever stdio holds goes first
  std::cout.flush();
  std::cout.clear();
  previous_ = std::cout.rdbuf(buffer_.get());
}

StandardOutput::~StandardOutput() {
  std::cout.flush();
  std::cout.rdbuf(previous_);
  std::cout.clear();
}

int StandardOutput::finish(int code) {
  auto& buffer = static_cast<FdBuffer&>(*buffer_);
  const bool ours = std::cout.flush().good() && buffer.drain();
  errno = 0;
  const bool theirs = std::fflush(stdout) == 0 && !std::ferror(stdout);
  const int err = buffer.error() != 0 ? buffer.error() : errno != 0 ? errno : EIO;
  if (is_interrupted_exit_code(code) || (ours && theirs)) return code;
  if (interrupted()) {  // a signal to stop while the output waited for its reader
    std::cerr << "error: interrupted by signal " << interrupt_signal()
              << " while writing to standard output\n";
    return interrupted_exit_code(interrupt_signal());
  }
  std::cerr << "error: cannot write to standard output: " << std::strerror(err) << '\n';
  return kExitEnvironment;
}

}  // namespace cuvk
