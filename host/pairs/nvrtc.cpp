// The CUDA side of a pair compiled at run time with NVRTC, opened with dlopen so that cuvk builds
// and runs without the CUDA toolkit (then every CUDA compile says why not).
#include <cxxabi.h>
#include <dlfcn.h>
#include <signal.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bounded_read.h"
#include "pair.h"

namespace cuvk::pairs {
namespace {

namespace fs = std::filesystem;

// The NVRTC entry points cuvk uses, declared by their documented C ABI (nvrtc.h).
using nvrtcResult = int;
using nvrtcProgram = void*;
constexpr nvrtcResult kNvrtcSuccess = 0;

struct Nvrtc {
  void* lib = nullptr;
  std::string unavailable;  // "" when loaded
  std::string path;         // the library loaded
  int major = 0, minor = 0;
  const char* (*error_string)(nvrtcResult) = nullptr;
  nvrtcResult (*version)(int*, int*) = nullptr;
  nvrtcResult (*create)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                        const char* const*) = nullptr;
  nvrtcResult (*destroy)(nvrtcProgram*) = nullptr;
  nvrtcResult (*add_name)(nvrtcProgram, const char*) = nullptr;
  nvrtcResult (*compile)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*log_size)(nvrtcProgram, std::size_t*) = nullptr;
  nvrtcResult (*log)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*ptx_size)(nvrtcProgram, std::size_t*) = nullptr;
  nvrtcResult (*ptx)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*cubin_size)(nvrtcProgram, std::size_t*) = nullptr;
  nvrtcResult (*cubin)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*lowered)(nvrtcProgram, const char*, const char**) = nullptr;
  nvrtcResult (*num_archs)(int*) = nullptr;
  nvrtcResult (*archs)(int*) = nullptr;

  template <typename F>
  bool sym(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    return f != nullptr;
  }
};

std::vector<std::string> candidates() {
  if (const char* only = std::getenv("CUVK_NVRTC"); only && *only) return {only};
  std::vector<std::string> c = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(var); root && *root)
      for (const char* lib : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
        c.push_back(std::string(root) + "/lib64/" + lib);
  for (const char* lib : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
    c.push_back(std::string("/usr/local/cuda/lib64/") + lib);
  return c;
}

void load(Nvrtc& n) {
  std::string tried;
  for (const std::string& c : candidates()) {
    n.lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (n.lib) break;
    tried += (tried.empty() ? "" : ", ") + c;
  }
  if (!n.lib) {
    n.unavailable = "NVRTC unavailable: no libnvrtc found (tried " + tried +
                    "; install the CUDA toolkit or set CUDA_HOME)";
    return;
  }
  const bool ok =
      n.sym(n.error_string, "nvrtcGetErrorString") && n.sym(n.version, "nvrtcVersion") &&
      n.sym(n.create, "nvrtcCreateProgram") && n.sym(n.destroy, "nvrtcDestroyProgram") &&
      n.sym(n.add_name, "nvrtcAddNameExpression") && n.sym(n.compile, "nvrtcCompileProgram") &&
      n.sym(n.log_size, "nvrtcGetProgramLogSize") && n.sym(n.log, "nvrtcGetProgramLog") &&
      n.sym(n.ptx_size, "nvrtcGetPTXSize") && n.sym(n.ptx, "nvrtcGetPTX") &&
      n.sym(n.cubin_size, "nvrtcGetCUBINSize") && n.sym(n.cubin, "nvrtcGetCUBIN") &&
      n.sym(n.lowered, "nvrtcGetLoweredName") && n.sym(n.num_archs, "nvrtcGetNumSupportedArchs") &&
      n.sym(n.archs, "nvrtcGetSupportedArchs");
  Dl_info info{};
  if (n.version && dladdr(reinterpret_cast<void*>(n.version), &info) && info.dli_fname)
    n.path = info.dli_fname;
  if (!ok) {
    n.unavailable =
        "NVRTC unavailable: " + n.path + " lacks an entry point cuvk needs (CUDA 11.1+)";
    return;
  }
  if (n.version(&n.major, &n.minor) != kNvrtcSuccess)
    n.unavailable = "NVRTC unavailable: nvrtcVersion failed";
}

Nvrtc& nvrtc() {
  static Nvrtc n;
  static std::once_flag once;
  std::call_once(once, [] { load(n); });
  return n;
}

// NVRTC's compile puts handlers of its own on SIGINT, SIGTERM and SIGHUP while it runs (they call
// exit(4): no message, not 128 + N) and restores the caller's after. While one compiles, this
// keeps the caller's (cuvk's: interrupt.h) in place: a thread puts them back every 200 us from the
// moment NVRTC replaces them, and once more at the end; a signal then gets cuvk's message and exit
// code. (NVRTC's sigaction cannot be interposed: it is loaded with dlopen, after libc.)
class KeepSignalActions {
 public:
  KeepSignalActions() {
    for (std::size_t k = 0; k < kSignals.size(); ++k) sigaction(kSignals[k], nullptr, &kept_[k]);
    guard_ = std::thread([this] {
      while (!done_.load()) {
        restore();
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  }
  ~KeepSignalActions() {
    done_.store(true);
    guard_.join();
    restore();
  }
  KeepSignalActions(const KeepSignalActions&) = delete;
  KeepSignalActions& operator=(const KeepSignalActions&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  void restore() {
    for (std::size_t k = 0; k < kSignals.size(); ++k) {
      struct sigaction now {};
      if (sigaction(kSignals[k], nullptr, &now) == 0 && now.sa_handler != kept_[k].sa_handler)
        sigaction(kSignals[k], &kept_[k], nullptr);
    }
  }
  std::array<struct sigaction, 3> kept_{};
  std::atomic<bool> done_{false};
  std::thread guard_;
};

// Destroys the program on every path.
class Program {
 public:
  Program(Nvrtc& n, nvrtcProgram p) : n_(n), p_(p) {}
  ~Program() { n_.destroy(&p_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  nvrtcProgram get() const { return p_; }

 private:
  Nvrtc& n_;
  nvrtcProgram p_;
};

constexpr std::uint64_t kMaxCudaSourceBytes = 16u << 20;  // as a GLSL source

std::string read_text(const PairDeclaration& decl, const std::string& path) {
  std::string text;  // a regular file of at most 16 MiB, read no further
  if (const std::string why = read_bounded(path, kMaxCudaSourceBytes, &text); !why.empty())
    throw DeclarationError(decl.file + ": cuda.source: '" + path + "' " + why);
  return text;
}

void check(Nvrtc& n, nvrtcResult r, const char* call, const PairDeclaration& decl) {
  if (r != kNvrtcSuccess) throw Error(decl.file + ": " + call + " failed: " + n.error_string(r));
}

std::string program_log(Nvrtc& n, nvrtcProgram p) {
  std::size_t size = 0;
  if (n.log_size(p, &size) != kNvrtcSuccess || size <= 1) return {};
  std::string log(size, '\0');
  if (n.log(p, log.data()) != kNvrtcSuccess) return {};
  log.resize(log.find_last_not_of(std::string("\n\0", 2)) + 1);
  return log;
}

// NVRTC's log without ptxas -v's lines (those go to ptxas_log: they are not warnings).
void split_log(const std::string& log, CompiledCuda* out) {
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    std::string& to = line.rfind("ptxas", 0) == 0 ? out->ptxas_log : out->log;
    to += (to.empty() ? "" : "\n") + line;
  }
}

// The architectures this NVRTC compiles for, as "sm_75, sm_80, ...", and whether `arch` is one.
bool supports_arch(Nvrtc& n, int arch, std::string* list) {
  int count = 0;
  if (n.num_archs(&count) != kNvrtcSuccess || count <= 0) return true;  // cannot say: let it try
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (n.archs(archs.data()) != kNvrtcSuccess) return true;
  bool found = false;
  for (int a : archs) {
    *list += fmt::format("{}{}", list->empty() ? "sm_" : ", sm_", a);
    found = found || a == arch;
  }
  return found;
}

// The source compiled without the entry's name expression: its PTX, or "" when it does not
// compile by itself either (then its own errors are the log to show).
std::string ptx_without_entry(Nvrtc& n, const std::string& source, const PairDeclaration& decl,
                              const std::vector<const char*>& argv) {
  nvrtcProgram raw = nullptr;
  if (n.create(&raw, source.c_str(), decl.cuda.source.c_str(), 0, nullptr, nullptr) !=
      kNvrtcSuccess)
    return {};
  Program prog(n, raw);
  if (n.compile(prog.get(), static_cast<int>(argv.size()), argv.data()) != kNvrtcSuccess) return {};
  std::size_t size = 0;
  if (n.ptx_size(prog.get(), &size) != kNvrtcSuccess) return {};
  std::string ptx(size, '\0');
  if (n.ptx(prog.get(), ptx.data()) != kNvrtcSuccess) return {};
  return ptx;
}

// A compile that failed only in NVRTC's name map (`__nv_name_map(2): error: identifier "gahter"
// is undefined`): the entry names no function of the source. Says so, with the kernels it has;
// "" when the source has errors of its own.
std::string missing_entry(Nvrtc& n, const std::string& source, const PairDeclaration& decl,
                          const std::vector<const char*>& argv, const std::string& log) {
  if (log.find("__nv_name_map") == std::string::npos) return {};
  const std::string ptx = ptx_without_entry(n, source, decl, argv);
  if (ptx.empty()) return {};
  const std::vector<std::string> kernels = ptx_kernel_names(ptx);
  return fmt::format("{}: cuda.entry '{}' is not a __global__ function of {} ({})", decl.file,
                     decl.cuda.entry, fs::path(decl.cuda.source).filename().string(),
                     kernels.empty() ? std::string("it has none")
                                     : fmt::format("it has: {}", fmt::join(kernels, ", ")));
}

}  // namespace

std::vector<std::string> ptx_kernel_names(const std::string& ptx) {
  std::vector<std::string> names;
  std::istringstream in(ptx);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t at = line.find(".entry ");
    if (at == std::string::npos || line.find("//") < at) continue;
    std::size_t from = line.find_first_not_of(' ', at + 7);
    if (from == std::string::npos) continue;
    std::size_t to = from;
    while (to < line.size() && (std::isalnum(static_cast<unsigned char>(line[to])) ||
                                line[to] == '_' || line[to] == '$'))
      ++to;
    std::string name = line.substr(from, to - from);
    int status = -1;
    const std::unique_ptr<char, void (*)(void*)> plain(
        abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    if (status == 0 && plain) {  // "void k<int>(float*, unsigned int)" -> "k<int>"
      std::string d = plain.get();
      d = d.substr(0, d.find('('));
      int depth = 0;
      std::size_t start = 0;
      for (std::size_t i = 0; i < d.size(); ++i) {
        depth += d[i] == '<' ? 1 : d[i] == '>' ? -1 : 0;
        if (d[i] == ' ' && depth == 0) start = i + 1;
      }
      name = d.substr(start);
    }
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  return names;
}

std::vector<std::string> nvrtc_options(int sm_arch, const std::string& source,
                                       const std::string& toolkit_include,
                                       const std::vector<std::string>& extra) {
  // A source without a folder ("k.cu", a declaration in the current folder) has "" for a parent:
  // a bare "-I" would take the next option as its folder and swallow the toolkit's include.
  const std::string folder = fs::path(source).parent_path().string();
  std::vector<std::string> opts = {fmt::format("--gpu-architecture=sm_{}", sm_arch), "--std=c++17",
                                   "--ptxas-options=-v",
                                   "-I" + (folder.empty() ? std::string(".") : folder)};
  if (!toolkit_include.empty()) opts.push_back("-I" + toolkit_include);
  opts.insert(opts.end(), extra.begin(), extra.end());
  return opts;
}

std::string nvrtc_unavailable() {
  return nvrtc().unavailable;
}

CompiledCuda compile_cuda(const PairDeclaration& decl, int sm_arch) {
  Nvrtc& n = nvrtc();
  if (!n.unavailable.empty()) throw Error(decl.file + ": " + n.unavailable);
  CompiledCuda out;
  out.arch = sm_arch;
  out.entry = decl.cuda.entry;
  out.compiler = fmt::format("NVRTC {}.{}", n.major, n.minor);
  std::string archs;
  if (!supports_arch(n, sm_arch, &archs))
    throw Error(fmt::format("{}: {} cannot compile for sm_{} (it supports {})", decl.file,
                            out.compiler, sm_arch, archs));
  const std::string source = read_text(decl, decl.cuda.source);
  nvrtcProgram raw = nullptr;
  check(n, n.create(&raw, source.c_str(), decl.cuda.source.c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram", decl);
  Program prog(n, raw);
  const std::string name_expr = "&" + decl.cuda.entry;
  check(n, n.add_name(prog.get(), name_expr.c_str()), "nvrtcAddNameExpression", decl);
  // The toolkit's headers (cuda_fp16.h, ...) beside the library: <root>/lib64/libnvrtc.so.
  const fs::path include = fs::path(n.path).parent_path().parent_path() / "include";
  std::error_code ec;
  const bool has_include = !n.path.empty() && fs::is_directory(include, ec);
  out.options = nvrtc_options(sm_arch, decl.cuda.source, has_include ? include.string() : "",
                              decl.cuda.options);
  std::vector<const char*> argv;
  for (const auto& o : out.options) argv.push_back(o.c_str());
  const auto t0 = std::chrono::steady_clock::now();
  const nvrtcResult r = [&] {
    const KeepSignalActions keep;
    return n.compile(prog.get(), static_cast<int>(argv.size()), argv.data());
  }();
  split_log(program_log(n, prog.get()), &out);
  if (r != kNvrtcSuccess) {
    if (std::string m = missing_entry(n, source, decl, argv, out.log); !m.empty())
      throw DeclarationError(m);
    throw DeclarationError(
        fmt::format("{}: CUDA compile failed: {} ({}, sm_{}, {}){}", decl.file, decl.cuda.source,
                    out.compiler, sm_arch, n.error_string(r), out.log.empty() ? "" : ":"),
        out.log);
  }
  std::size_t size = 0;
  check(n, n.ptx_size(prog.get(), &size), "nvrtcGetPTXSize", decl);
  out.ptx.assign(size, '\0');
  check(n, n.ptx(prog.get(), out.ptx.data()), "nvrtcGetPTX", decl);
  while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  check(n, n.cubin_size(prog.get(), &size), "nvrtcGetCUBINSize", decl);
  out.cubin.resize(size);
  check(n, n.cubin(prog.get(), reinterpret_cast<char*>(out.cubin.data())), "nvrtcGetCUBIN", decl);
  const char* lowered = nullptr;
  check(n, n.lowered(prog.get(), name_expr.c_str(), &lowered), "nvrtcGetLoweredName", decl);
  out.lowered_name = lowered ? lowered : decl.cuda.entry;
  out.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace cuvk::pairs
