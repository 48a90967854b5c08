#include "output_file.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "error.h"
#include "interrupt.h"
#include "json_check.h"  // quoted

namespace cuvk {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxLinkHops = 40;            // symbolic links followed at most (Linux's own limit)
constexpr std::size_t kTempStemChars = 64;  // of the target's name, in its temporary's name
constexpr int kTempAttempts = 100;          // unique names tried before giving up
constexpr mode_t kPermissionBits = 07777;

enum class Kind {
  create,           // nothing there yet: a temporary, then rename
  replace,          // a regular file: a temporary, then rename
  direct,           // a device, a FIFO, a terminal: opened and written, never replaced
  standard_output,  // this process's standard output: written through it
};

struct Target {
  Kind kind = Kind::create;
  std::string path;  // create, replace: the file itself, links resolved; direct: as given
  mode_t mode = 0;   // replace: the existing file's permission bits
};

std::string cannot(const std::string& what, const std::string& given, const std::string& why) {
  return "cannot write " + what + " '" + given + "': " + why;
}

// The folder that holds `p` ("." for a bare name). Repeated slashes count as one ("a//b": "a").
fs::path folder_of(const fs::path& p) {
  const fs::path folder = p.parent_path();
  return folder.empty() ? fs::path(".") : folder;
}

bool is_standard_output(const struct stat& st) {
  struct stat out {};
  return fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == st.st_dev && out.st_ino == st.st_ino;
}

// Creates a new, empty file next to `target` under a name no file had (O_EXCL), with mode 0666
// less the umask, like any file this process creates. Returns its descriptor, or -1 with errno.
int create_temporary(const std::string& target, std::string& tmp, TemporaryPath& live) {
  static std::mt19937_64 rng(
      std::random_device{}() ^ (static_cast<std::uint64_t>(getpid()) << 32) ^
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  const std::string name = fs::path(target).filename().string();
  const std::string stem =
      (folder_of(target) / ("." + name.substr(0, kTempStemChars) + ".cuvk-")).string();
  for (int i = 0; i < kTempAttempts; ++i) {
    std::string suffix(8, '0');
    for (char& c : suffix) c = kDigits[rng() % (sizeof kDigits - 1)];
    tmp = stem + suffix;
    live = TemporaryPath();  // between open and registration a signal could leave it: block
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    const int err = errno;
    if (fd >= 0) live = TemporaryPath(tmp);  // a signal's handler removes it (interrupt.h)
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    errno = err;
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// What an existing, non-link `path` (reached from `given`) is as an output target.
Target classify(const std::string& given, const std::string& path, const struct stat& st,
                const std::string& what) {
  if (S_ISDIR(st.st_mode))
    throw UsageError(what + " '" + given + "' is a directory; give a file name");
  if (is_standard_output(st)) return {Kind::standard_output, path, 0};
  if (S_ISSOCK(st.st_mode)) throw UsageError(cannot(what, given, "it is a socket"));
  if (S_ISREG(st.st_mode)) return {Kind::replace, path, st.st_mode & kPermissionBits};
  return {Kind::direct, path, 0};
}

// Follows symbolic links (dangling ones by hand, so the file a link names gets created) and says
// how `given` is to be written. Throws UsageError.
Target resolve(const std::string& given, const std::string& what) {
  if (given.empty()) throw UsageError(what + ": empty file name");
  if (given.back() == '/')
    throw UsageError(what + " '" + given + "' names a directory; give a file name");
  std::string p = given;
  for (int hop = 0; hop <= kMaxLinkHops; ++hop) {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT) return {Kind::create, p, 0};
      throw UsageError(cannot(what, given, std::strerror(errno)));
    }
    if (!S_ISLNK(st.st_mode)) return classify(given, p, st, what);
    if (stat(p.c_str(), &st) == 0) {  // the link leads to something that exists
      if (!S_ISREG(st.st_mode) || is_standard_output(st)) return classify(given, p, st, what);
      char* real = realpath(p.c_str(), nullptr);
      if (real == nullptr) return {Kind::direct, p, 0};  // e.g. /proc/self/fd/N of a deleted file
      const std::string resolved = real;
      std::free(real);
      return {Kind::replace, resolved, st.st_mode & kPermissionBits};
    }
    if (errno != ENOENT) throw UsageError(cannot(what, given, std::strerror(errno)));
    std::string target(PATH_MAX, '\0');  // dangling: one hop by hand
    const ssize_t len = readlink(p.c_str(), target.data(), target.size());
    if (len < 0) throw UsageError(cannot(what, given, std::strerror(errno)));
    target.resize(static_cast<std::size_t>(len));
    p = (folder_of(p) / target).string();  // an absolute target replaces the folder
  }
  throw UsageError(cannot(what, given, "too many levels of symbolic links"));
}

[[noreturn]] void give_way(const std::string& given) {
  throw Interrupted(fmt::format("interrupted by signal {} while writing {}: not written",
                                interrupt_signal(), quoted_path(given)));
}

// Waits until `fd` takes more (POLLOUT) in steps a signal to stop ends: false, errno EINTR, then.
bool wait_writable(int fd) {
  for (;;) {
    if (interrupted()) {
      errno = EINTR;
      return false;
    }
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, 100) != 0) return true;  // ready, or an error the write then reports
  }
}

// Writes everything; a descriptor that would block (O_NONBLOCK: a FIFO, a device) is waited for
// in steps a signal to stop ends (EINTR).
bool write_all(int fd, const std::string& content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
      if (!wait_writable(fd)) return false;
      continue;
    }
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Opened and written directly, without blocking: a FIFO without a reader (ENXIO) is waited for,
// and a full one drained, in steps a signal to stop ends (Interrupted). Before a measuring command
// installs its handlers, a signal ends the process at once (interrupt.h).
void write_direct(const Target& t, const std::string& content, const std::string& given) {
  struct stat st {};
  const bool fifo = stat(t.path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
  int fd = -1;
  for (;;) {
    fd = open(t.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd >= 0 || !((fifo && errno == ENXIO) || errno == EINTR)) break;
    if (interrupted()) give_way(given);
    poll(nullptr, 0, 100);  // no reader yet: wait for one
  }
  if (fd < 0) throw Error("cannot write '" + given + "': " + std::strerror(errno));
  int err = write_all(fd, content) ? 0 : errno;
  if (close(fd) != 0 && err == 0) err = errno;
  if (err == EINTR && interrupted()) give_way(given);
  if (err != 0) throw Error("cannot write '" + given + "': " + std::strerror(err));
}

// A uniquely named temporary in the target's folder, fsync, rename: a reader sees the old file or
// the whole new one, never a part. On failure the temporary is removed and the target untouched.
void write_replacing(const Target& t, const std::string& content, const std::string& given) {
  std::string tmp;
  TemporaryPath live;  // removed by a signal's handler if the process ends before the rename
  const int fd = create_temporary(t.path, tmp, live);
  if (fd < 0)
    throw Error("cannot write '" + given + "': cannot create a temporary file in '" +
                folder_of(t.path).string() + "': " + std::strerror(errno));
  int err = 0;
  if (t.kind == Kind::replace && fchmod(fd, t.mode) != 0) err = errno;
  if (err == 0 && !write_all(fd, content)) err = errno;
  if (err == 0 && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(tmp.c_str(), t.path.c_str()) != 0) err = errno;
  if (err != 0) unlink(tmp.c_str());
  live.release();  // renamed or removed
  if (err == EINTR && interrupted()) give_way(given);
  // EFBIG: beyond the file-size limit (ulimit -f; SIGXFSZ is ignored, interrupt.h): exit 3.
  if (err != 0) throw Error("cannot write '" + given + "': " + std::strerror(err));
  const int folder = open(folder_of(t.path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder >= 0) {  // best effort: the rename itself reaches the disk
    fsync(folder);
    close(folder);
  }
}

// What makes two names one file: "i<dev>:<ino>" of an existing regular file, "p<real path>" of
// an output not created yet (its folder resolved); "" for what is never compared.
std::string file_identity(const std::string& path, bool output, const std::string& what) {
  if (path.empty()) return {};
  struct stat st {};
  if (stat(path.c_str(), &st) == 0)
    return S_ISREG(st.st_mode) ? fmt::format("i{}:{}", st.st_dev, st.st_ino) : std::string();
  if (!output) return {};  // a missing input: its reader names it
  const Target t = resolve(path, what);
  if (t.kind != Kind::create) return {};
  char* real = realpath(folder_of(t.path).c_str(), nullptr);
  if (real == nullptr) return "p" + t.path;
  const fs::path folder = real;
  std::free(real);
  return "p" + (folder / fs::path(t.path).filename()).string();
}

}  // namespace

void check_distinct_files(const std::vector<NamedFile>& outputs,
                          const std::vector<NamedFile>& inputs) {
  std::vector<std::pair<std::string, const NamedFile*>> seen;
  for (const NamedFile& in : inputs)
    if (std::string id = file_identity(in.path, false, in.what); !id.empty())
      seen.emplace_back(std::move(id), &in);
  const std::size_t input_count = seen.size();
  for (const NamedFile& out : outputs) {
    const std::string id = file_identity(out.path, true, out.what);
    if (id.empty()) continue;
    for (std::size_t k = 0; k < seen.size(); ++k)
      if (seen[k].first == id)
        throw UsageError(out.what + " " + quoted_path(out.path) + " is the same file as " +
                         (k < input_count ? "the input " : "") +
                         (seen[k].second->what == "FILE" ? "file" : seen[k].second->what) + " " +
                         quoted_path(seen[k].second->path) + ": " +
                         (k < input_count ? "it would be overwritten" : "one would overwrite the other") +
                         "; give another file name");
    seen.emplace_back(id, &out);
  }
}

void check_distinct_inputs(const std::vector<NamedFile>& inputs, const std::string& why) {
  std::vector<std::pair<std::string, const NamedFile*>> seen;
  for (const NamedFile& in : inputs) {
    const std::string id = file_identity(in.path, false, in.what);
    if (id.empty()) continue;
    for (const auto& [other_id, other] : seen)
      if (other_id == id)
        throw UsageError(in.what + " " + quoted_path(in.path) + " is the same file as " +
                         other->what + " " + quoted_path(other->path) + ": " + why);
    seen.emplace_back(id, &in);
  }
}

void check_writable(const std::string& path, const std::string& what) {
  const Target t = resolve(path, what);
  switch (t.kind) {
    case Kind::standard_output:
      return;
    case Kind::direct:
      if (access(t.path.c_str(), W_OK) != 0)
        throw UsageError(cannot(what, path, std::strerror(errno)));
      return;
    case Kind::replace:
      if (access(t.path.c_str(), W_OK) != 0)
        throw UsageError(cannot(what, path, std::strerror(errno)));
      break;
    case Kind::create:
      break;
  }
  // The rename needs a new file in the target's folder: probe with a unique temporary.
  std::string tmp;
  TemporaryPath live;
  const int fd = create_temporary(t.path, tmp, live);
  if (fd < 0)
    throw UsageError(cannot(what, path, folder_of(t.path).string() + ": " + std::strerror(errno)));
  close(fd);
  unlink(tmp.c_str());
}

void write_output_file(const std::string& path, const std::string& content,
                       const std::string& what) {
  Target t;
  try {
    t = resolve(path, what);  // again: the file system may have changed while the work ran
  } catch (const UsageError& e) {
    throw Error(e.what());  // after the work, an I/O error
  }
  switch (t.kind) {
    case Kind::standard_output:
      std::cout << content << std::flush;  // a failure is the CLI's standard-output error
      return;
    case Kind::direct:
      write_direct(t, content, path);
      return;
    case Kind::create:
    case Kind::replace:
      write_replacing(t, content, path);
      return;
  }
}

}  // namespace cuvk
