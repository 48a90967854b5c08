// Where a file option (--output, --save-run, --index's README) writes: judged before any work
// (check_writable), written after it (write_output_file). The rules:
//   - a directory (or a path ending in '/') is refused: a usage error naming it;
//   - a regular file, or a path that does not exist yet, is written atomically: a uniquely named
//     temporary in the same folder (created with O_EXCL, never an existing file), fsync, rename
//     onto the target; an existing file keeps its permission bits;
//   - anything else that exists (a device such as /dev/null, a FIFO, a terminal) is never replaced:
//     it is opened and written directly; a socket is refused;
//   - a symbolic link is followed, also a dangling one: the file it names is written (or created)
//     and the link itself stays as it is;
//   - a target that is this process's standard output (e.g. /dev/stdout, /proc/self/fd/1, or the
//     file stdout is redirected to) is written through standard output, in order with the rest.
// Nothing else is created, truncated or deleted: the writability probe is itself a uniquely named
// temporary, removed at once.
#pragma once

#include <string>
#include <vector>

namespace cuvk {

// UsageError (naming `what`, e.g. "--output", and the path) when `path` cannot be written under
// the rules above: a directory, a socket, a missing or unwritable folder, a device without write
// permission, too many symbolic links.
void check_writable(const std::string& path, const std::string& what = "--output");

// A file option as given: the option ("--output", "--from", "report's FILE") and the path.
struct NamedFile {
  std::string what, path;
};

// UsageError when an output names the same file as an input or as another output: the same
// regular file (st_dev and st_ino: through symbolic links and hard links too), or, for an output
// not created yet, the same real path. Devices, FIFOs and standard output are never compared (two
// outputs may both be /dev/null). Empty paths are left out. Every command calls it before work.
void check_distinct_files(const std::vector<NamedFile>& outputs,
                          const std::vector<NamedFile>& inputs);

// UsageError when two inputs are the same regular file (as above: through links too), saying
// `why` that is wrong ("a run would be compared with itself").
void check_distinct_inputs(const std::vector<NamedFile>& inputs, const std::string& why);

// Writes `content` to `path` under the rules above. Throws Error (an I/O error, exit 3) on any
// failure, leaving an existing target untouched and no temporary behind.
void write_output_file(const std::string& path, const std::string& content,
                       const std::string& what = "--output");

}  // namespace cuvk
