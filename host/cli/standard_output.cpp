#include "standard_output.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "cli.h"

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
      const ssize_t n = write(fd_, p, left);
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

}  // namespace

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
  if (code == kExitInterrupted || (ours && theirs)) return code;
  std::cerr << "error: cannot write to standard output: " << std::strerror(err) << '\n';
  return kExitEnvironment;
}

}  // namespace cuvk
