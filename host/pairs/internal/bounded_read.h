// Reading a pair's files (its declaration, its CUDA and GLSL sources and includes) with a size
// cap: a regular file only (a FIFO would block, /dev/zero never ends), at most cap + 1 bytes read.
#pragma once

#include <cstdint>
#include <string>

namespace cuvk::pairs {

// Reads `path` into *out. Returns "" on success, else why not, to follow the path in a message:
// "does not exist", "is not a regular file (a FIFO)", "is larger than the 16 MiB cap (N bytes)",
// "cannot be read: <strerror>".
std::string read_bounded(const std::string& path, std::uint64_t cap, std::string* out);

// "16 MiB", "1 MiB", "4096 bytes": a cap as read_bounded's messages say it.
std::string cap_text(std::uint64_t cap);

}  // namespace cuvk::pairs
