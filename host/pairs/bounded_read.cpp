#include "bounded_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace cuvk::pairs {
namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

}  // namespace

std::string cap_text(std::uint64_t cap) {
  if (cap % (1u << 20) == 0) return fmt::format("{} MiB", cap >> 20);
  return fmt::format("{} bytes", cap);
}

std::string read_bounded(const std::string& path, std::uint64_t cap, std::string* out) {
  // O_NONBLOCK: opening a FIFO without a writer must not wait; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    return err == ENOENT ? "does not exist" : std::string("cannot be read: ") + std::strerror(err);
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return std::string("cannot be read: ") + std::strerror(err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return "is not a regular file (" + kind_of(st.st_mode) + ")";
  }
  const std::string too_large = "is larger than the " + cap_text(cap) + " cap";
  if (static_cast<std::uint64_t>(st.st_size) > cap) {
    ::close(fd);
    return fmt::format("{} ({} bytes)", too_large, st.st_size);
  }
  out->clear();
  char buf[65536];
  for (;;) {  // at most cap + 1 bytes, whatever the size said (a file that grows)
    const std::uint64_t room = cap + 1 - out->size();
    const ssize_t got = ::read(fd, buf, room < sizeof buf ? static_cast<std::size_t>(room) : sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int err = errno;
      ::close(fd);
      return std::string("cannot be read: ") + std::strerror(err);
    }
    if (got == 0) break;
    out->append(buf, static_cast<std::size_t>(got));
    if (out->size() > cap) {
      ::close(fd);
      out->clear();
      return too_large;
    }
  }
  ::close(fd);
  return {};
}

}  // namespace cuvk::pairs
