// libFuzzer target for pair declarations (issue 20): the input is a declaration's text, read by
// parse_pair as `cuvk run --pair` reads a file, in a scratch folder holding the source and data
// files a declaration may name (k.cu, k.comp, x.npy, x.raw). A declaration that reads is then
// laid out and its scalars packed at n = 1 and at its own n. Any input must be read or refused
// with a cuvk::Error; anything else escaping, a crash, a hang or a sanitizer report fails.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "error.h"
#include "pair.h"

namespace {

namespace fs = std::filesystem;

// The scratch folder, made once per process and removed at exit.
const std::string& scratch_dir() {
  static const std::string dir = [] {
    char name[] = "/tmp/cuvk_fuzz_pair_XXXXXX";
    if (!mkdtemp(name)) std::abort();
    static std::string kept = name;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(kept, ec);
    });
    const auto put = [](const std::string& file, const std::string& bytes) {
      std::ofstream(kept + "/" + file, std::ios::binary) << bytes;
    };
    put("k.cu", "extern \"C\" __global__ void k(float* a, unsigned n) {}\n");
    put("k.comp", "#version 450\nvoid main() {}\n");
    std::string npy = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                      "{'descr': '<f4', 'fortran_order': False, 'shape': (16,), }";
    npy.resize(10 + 0x76 - 1, ' ');
    put("x.npy", npy + "\n" + std::string(64, '\1'));
    put("x.raw", std::string(64, '\2'));
    return kept;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const cuvk::pairs::PairDeclaration d = cuvk::pairs::parse_pair(text, scratch_dir() + "/p.toml");
    (void)cuvk::pairs::scalar_layout(d);
    (void)cuvk::pairs::pack_scalars(d, 1);
    (void)cuvk::pairs::pack_scalars(d, d.n);
    for (std::size_t i = 0; i < d.buffers.size(); ++i) (void)cuvk::pairs::bda_address_offset(d, i);
  } catch (const cuvk::Error&) {
    // refused with a message: fine
  }
  return 0;
}
