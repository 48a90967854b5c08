// A scratch folder for pair declarations and their sources (issue 20 tests).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "pair.h"

namespace cuvk::pairs::testing_support {

namespace fs = std::filesystem;

// The minimal declaration the tests start from; each case edits one thing.
inline const char* kMinimal = R"(name = "k"
useful_bytes = "8 * n"
[cuda]
source = "k.cu"
entry = "k"
[glsl]
source = "k.comp"
[launch]
threads = "n"
[[buffer]]
name = "a"
type = "f32"
count = "n"
output = true
[[scalar]]
name = "n"
type = "u32"
value = "n"
)";

inline const char* kCuda =
    "extern \"C\" __global__ void k(float* a, unsigned n) {\n"
    "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) a[i] += 1.0f;\n}\n";
inline const char* kGlsl =
    "#version 450\nlayout(local_size_x_id = 0) in;\n"
    "layout(std430, set = 0, binding = 0) buffer A { float a[]; };\n"
    "layout(push_constant) uniform S { uint n; };\n"
    "void main() { uint i = gl_GlobalInvocationID.x; if (i < n) a[i] += 1.0; }\n";

class PairFiles {
 public:
  PairFiles() {
    static int counter = 0;
    dir_ = fs::temp_directory_path() /
           ("cuvk-pairs-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(dir_);
    write("k.cu", kCuda);
    write("k.comp", kGlsl);
  }
  ~PairFiles() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  PairFiles(const PairFiles&) = delete;
  PairFiles& operator=(const PairFiles&) = delete;
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  PairDeclaration parse(const std::string& text) const { return parse_pair(text, path("p.toml")); }

 private:
  fs::path dir_;
};

// kMinimal with `from` replaced by `to` (the first occurrence; `from` must be there).
inline std::string edit(const std::string& from, const std::string& to) {
  std::string s = kMinimal;
  const std::size_t at = s.find(from);
  if (at == std::string::npos) return "edit: '" + from + "' not in the template";
  return s.replace(at, from.size(), to);
}

// Two steps of the fixture's kernel, the second at a fixed block; a reads and writes (init +
// output), so a state rule is declared.
inline const char* kSteps = R"TOML(name = "k"
useful_bytes = "8 * n"
repeat = 3
state = "restore"
sizes = ["4k", 65536]
[cuda]
source = "k.cu"
options = ["-DX=1"]
[launch]
block_sizes = [128, 256]
[[step]]
name = "first"
cuda = { entry = "k" }
glsl = { source = "k.comp" }
launch = { threads = "n" }
[[step]]
name = "second"
[step.cuda]
entry = "k"
options = []
[step.glsl]
source = "k.comp"
defines = ["Y=2"]
[step.launch]
grid = ["ceil_div(n, block)"]
block = 64
shared_bytes = "4 * block"
[[buffer]]
name = "a"
type = "f32"
count = "n"
init = "zero"
output = true
[[scalar]]
name = "n"
type = "u32"
value = "n"
)TOML";

inline std::string edit_steps(const std::string& from, const std::string& to) {
  std::string s = kSteps;
  const std::size_t at = s.find(from);
  if (at == std::string::npos) return "edit: '" + from + "' not in the template";
  return s.replace(at, from.size(), to);
}

}  // namespace cuvk::pairs::testing_support
