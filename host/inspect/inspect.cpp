#include "inspect.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "interrupt.h"  // TemporaryPath
#include "util.h"

namespace cuvk::inspect {
namespace {

constexpr int kSassInstructionBytes = 16;  // Volta and later: fixed 128-bit instructions

void count(std::vector<std::pair<std::string, int>>& ops, const std::string& key) {
  auto it = std::find_if(ops.begin(), ops.end(), [&key](const auto& e) { return e.first == key; });
  if (it == ops.end())
    ops.emplace_back(key, 1);
  else
    ++it->second;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool executable(const std::string& path) {
  return ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::map<std::string, PtxasUsage> parse_ptxas_log(const std::string& log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex props(R"(Function properties for '?([^'\s]+))");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex cmem(R"((\d+) bytes cmem\[0\])");
  std::map<std::string, PtxasUsage> out;
  std::string current;
  std::istringstream in(log);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, entry) || std::regex_search(line, m, props)) {
      current = m[1];
      out[current];
      continue;
    }
    if (std::regex_search(line, m, frame)) {
      PtxasUsage& u = out[current];
      u.stack_bytes = std::stoi(m[1]);
      u.spill_store_bytes = std::stoi(m[2]);
      u.spill_load_bytes = std::stoi(m[3]);
    }
    if (std::regex_search(line, m, used)) out[current].registers = std::stoi(m[1]);
    if (std::regex_search(line, m, cmem)) out[current].cmem0_bytes = std::stoi(m[1]);
  }
  return out;
}

PtxasLookup find_ptxas_usage(const std::string& log, const std::string& name) {
  std::map<std::string, PtxasUsage> usage = parse_ptxas_log(log);
  for (auto it = usage.begin(); it != usage.end();)  // a name with no figure is no function
    it = it->second.registers < 0 ? usage.erase(it) : std::next(it);
  PtxasLookup found;
  if (const auto u = usage.find(name); u != usage.end())
    found.usage = u->second;
  else if (usage.size() == 1)
    found.usage = usage.begin()->second;
  if (found.usage) return found;
  std::istringstream in(log);
  std::string first;
  int lines = 0;
  for (std::string line; lines < 3 && std::getline(in, line);)
    if (!trim(line).empty()) first += (lines++ ? " | " : "") + trim(line);
  found.why = "not in the ptxas log (" +
              (usage.empty() ? std::string("no register counts")
                             : fmt::format("{} functions, none {}", usage.size(), name)) +
              (first.empty() ? "; the log is empty)" : "; it begins: " + first + ")");
  return found;
}

std::string mangled_entry(const std::string& ptx, const std::string& kernel) {
  const std::string prefix = fmt::format("_Z{}{}", kernel.size(), kernel);
  std::istringstream in(ptx);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find(".entry ");
    if (at == std::string::npos) continue;
    std::string name = trim(line.substr(at + 7));
    name = name.substr(0, name.find_first_of("( \t"));
    // The length prefix makes this exact: _Z4copy... is copy, never copy_vec4 (_Z9copy_vec4...).
    if (starts_with(name, prefix)) return name;
    if (name == kernel) return name;  // extern "C"
  }
  return "";
}

std::string ptx_entry(const std::string& ptx, const std::string& mangled) {
  std::istringstream in(ptx);
  std::ostringstream out;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    const std::string t = trim(line);
    if (!inside) {
      const auto at = line.find(".entry " + mangled);
      if (at == std::string::npos) continue;
      const char after =
          line.size() > at + 7 + mangled.size() ? line[at + 7 + mangled.size()] : '(';
      if (after != '(' && after != ' ' && after != '\t') continue;
      inside = true;
    }
    if (starts_with(t, ".loc") || starts_with(t, ".file") || starts_with(t, "//")) continue;
    out << line << '\n';
    if (line == "}") break;  // the entry's body closes at column 0
  }
  return out.str();
}

MemoryOps ptx_memory_ops(const std::string& entry_text) {
  MemoryOps ops;
  std::istringstream in(entry_text);
  bool body = false;
  for (std::string line; std::getline(in, line);) {
    std::string t = trim(line);
    if (t == "{") {
      body = true;
      continue;
    }
    if (!body || t.empty() || t[0] == '.' || t.back() == ':' || t == "}") continue;
    if (t[0] == '@') {  // a predicate: the instruction follows it
      const auto space = t.find_first_of(" \t");
      t = space == std::string::npos ? "" : trim(t.substr(space));
    }
    const std::string op = t.substr(0, t.find_first_of(" \t;"));
    if (op.empty()) continue;
    ++ops.instructions;
    if (!starts_with(op, "ld.") && !starts_with(op, "st.") && !starts_with(op, "atom.") &&
        !starts_with(op, "red."))
      continue;
    if (op.find(".global") != std::string::npos)
      count(ops.global, op);
    else
      count(ops.other, op);
  }
  return ops;
}

MemoryOps sass_memory_ops(const std::string& function_text) {
  static const std::regex instruction(
      R"(/\*[0-9a-f]{4,}\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*))");
  MemoryOps ops;
  std::istringstream in(function_text);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (!std::regex_search(line, m, instruction)) continue;
    const std::string op = m[2];
    ops.bytes += kSassInstructionBytes;
    if (op == "NOP") continue;
    ++ops.instructions;
    const std::string base = op.substr(0, op.find('.'));
    if (base == "LDG" || base == "STG" || base == "LD" || base == "ST" || base == "ATOMG" ||
        base == "ATOM" || base == "RED" || base == "REDG")
      count(ops.global, op);
    else if (base == "LDC" || base == "ULDC" || base == "LDS" || base == "STS" || base == "LDL" ||
             base == "STL")
      count(ops.other, op);
  }
  return ops;
}

std::string format_ops(const std::vector<std::pair<std::string, int>>& ops) {
  std::vector<std::string> each;
  for (const auto& [op, n] : ops) each.push_back(fmt::format("{} x{}", op, n));
  return each.empty() ? "none" : fmt::format("{}", fmt::join(each, ", "));
}

std::string sass_function(const std::string& listing, const std::string& mangled) {
  std::istringstream in(listing);
  std::ostringstream out;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    const std::string t = trim(line);
    // cuobjdump: "Function : <name>"; nvdisasm: ".text.<name>:" (and its .section line)
    const bool cuobjdump_head = starts_with(t, "Function : ");
    const bool nvdisasm_head = starts_with(t, ".text.") && t.back() == ':';
    const bool nvdisasm_section = starts_with(t, ".section");
    if (inside && (cuobjdump_head || nvdisasm_head || nvdisasm_section)) break;
    if (!inside) {
      if ((cuobjdump_head && t.substr(11) == mangled) ||
          (nvdisasm_head && t == ".text." + mangled + ":"))
        inside = true;
      else
        continue;
    }
    out << line << '\n';
  }
  return out.str();
}

std::string find_cuda_tool(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream in(path);
    for (std::string dir; std::getline(in, dir, ':');)
      if (!dir.empty()) dirs.push_back(dir);
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* home = std::getenv(var)) dirs.push_back(std::string(home) + "/bin");
  dirs.emplace_back("/usr/local/cuda/bin");
  for (const std::string& dir : dirs)
    if (executable(dir + "/" + name)) return dir + "/" + name;
  return "";
}

std::string run_tool(const std::vector<std::string>& argv, int* status) {
  *status = -1;
  int pipe_fds[2];
  if (argv.empty() || ::pipe(pipe_fds) != 0) return "";
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return "";
  }
  if (pid == 0) {  // the child: stdout and stderr into the pipe, then exec
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], buf, sizeof buf);
    if (n > 0)
      out.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR)
      break;
  }
  ::close(pipe_fds[0]);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  *status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  return out;
}

std::string write_temp_file(const unsigned char* bytes, std::size_t n, const std::string& suffix,
                            std::string* path) {
  // In $TMPDIR where it names a folder (as every temporary of cuvk's), else /tmp.
  struct stat st {};
  const char* dir = std::getenv("TMPDIR");
  const bool usable = dir && *dir && ::stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
  std::string name = std::string(usable ? dir : "/tmp") + "/cuvk-inspect-XXXXXX" + suffix;
  const int fd = ::mkstemps(name.data(), static_cast<int>(suffix.size()));
  if (fd < 0) return std::string("cannot create a temporary file: ") + std::strerror(errno);
  std::size_t done = 0;
  while (done < n) {
    const ssize_t w = ::write(fd, bytes + done, n - done);
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
  ::close(fd);
  if (done != n) {
    ::unlink(name.c_str());
    return "cannot write " + name;
  }
  *path = name;
  return "";
}

Sass disassemble_cubin(const unsigned char* cubin, std::size_t bytes, const std::string& mangled) {
  Sass sass;
  const std::string cuobjdump = find_cuda_tool("cuobjdump"), nvdisasm = find_cuda_tool("nvdisasm");
  if (cuobjdump.empty() && nvdisasm.empty()) {
    sass.unavailable =
        "neither cuobjdump nor nvdisasm is installed (looked on PATH, in $CUDA_HOME/bin, "
        "$CUDA_PATH/bin and /usr/local/cuda/bin); they come with the CUDA toolkit";
    return sass;
  }
  std::string path;
  sass.unavailable = write_temp_file(cubin, bytes, ".cubin", &path);
  if (!sass.unavailable.empty()) return sass;
  TemporaryPath removed_on_a_signal(path);  // a signal while a tool runs leaves no .cubin behind
  for (const std::string& tool : {cuobjdump, nvdisasm}) {
    if (tool.empty()) continue;
    int status = 0;
    const std::string listing = tool == cuobjdump ? run_tool({tool, "-sass", path}, &status)
                                                  : run_tool({tool, "-c", path}, &status);
    const std::string text = status == 0 ? sass_function(listing, mangled) : "";
    if (!text.empty()) {
      sass.text = text;
      sass.tool = tool;
      break;
    }
    sass.unavailable += fmt::format("{}{} exited with {}: {}", sass.unavailable.empty() ? "" : "; ",
                                    tool, status, trim(listing.substr(0, 300)));
  }
  ::unlink(path.c_str());
  removed_on_a_signal.release();
  if (!sass.text.empty()) sass.unavailable.clear();
  return sass;
}

SmLimits hopper_limits() {
  return SmLimits{};
}

int model_blocks_per_sm(int registers, std::uint32_t block_size, const SmLimits& l) {
  if (block_size == 0 || l.warp_size <= 0) return 0;
  const int warps = static_cast<int>(
      ceil_div<std::uint32_t>(block_size, static_cast<std::uint32_t>(l.warp_size)));
  const int by_threads = l.max_threads_per_sm / (warps * l.warp_size);
  int by_registers = l.max_blocks_per_sm;
  if (registers > 0) {
    const int regs_per_warp =
        static_cast<int>(ceil_div<std::uint32_t>(static_cast<std::uint32_t>(registers * l.warp_size),
                                                 static_cast<std::uint32_t>(l.reg_alloc_unit)) *
                         static_cast<std::uint32_t>(l.reg_alloc_unit));
    if (regs_per_warp * warps > l.regs_per_block) return 0;
    const int warps_per_partition = (l.regs_per_sm / l.sub_partitions) / regs_per_warp;
    by_registers = warps_per_partition * l.sub_partitions / warps;
  }
  return std::max(0, std::min({by_threads, by_registers, l.max_blocks_per_sm}));
}

double occupancy_percent(int blocks_per_sm, std::uint32_t block_size, const SmLimits& l) {
  const int max_warps = l.max_threads_per_sm / l.warp_size;
  const int warps = static_cast<int>(
      ceil_div<std::uint32_t>(block_size, static_cast<std::uint32_t>(l.warp_size)));
  return max_warps > 0 ? 100.0 * blocks_per_sm * warps / max_warps : 0.0;
}

std::optional<int> register_statistic(
    const std::vector<std::pair<std::string, std::string>>& stats) {
  for (const auto& [name, value] : stats) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if ((lower.find("register") == std::string::npos && lower != "vgprs") ||
        lower.find("spill") != std::string::npos)
      continue;
    char* end = nullptr;
    const long v = std::strtol(value.c_str(), &end, 10);
    if (end != value.c_str() && v >= 0) return static_cast<int>(v);
  }
  return std::nullopt;
}

std::optional<long> binary_size_statistic(
    const std::vector<std::pair<std::string, std::string>>& stats) {
  for (const auto& [name, value] : stats) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower.find("binary size") == std::string::npos &&
        lower.find("code size") == std::string::npos)
      continue;
    char* end = nullptr;
    const long v = std::strtol(value.c_str(), &end, 10);
    if (end != value.c_str() && v >= 0) return v;
  }
  return std::nullopt;
}

}  // namespace cuvk::inspect
