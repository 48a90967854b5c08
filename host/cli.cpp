#include "cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "build_info.h"
#include "catalogue.h"
#include "cuda_backend.h"
#include "devices.h"
#include "error.h"
#include "report.h"
#include "runner.h"
#include "vulkan_backend.h"

namespace cuvk {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

std::uint64_t parse_u64(const std::string& s, const std::string& what) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(what + ": '" + s + "' is not a non-negative integer");
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
  if (errno == ERANGE) throw UsageError(what + ": '" + s + "' is too large");
  return v;
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string hostname() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? buf : "unknown";
}

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

Format parse_format(const std::string& s) {
  if (s == "table") return Format::table;
  if (s == "md") return Format::md;
  if (s == "csv") return Format::csv;
  if (s == "json") return Format::json;
  throw UsageError("--format '" + s + "': expected table, md, csv or json");
}

std::vector<Api> parse_apis(const std::vector<std::string>& names) {
  std::vector<Api> apis;
  for (const std::string& n : names) {
    if (n == "all") return {Api::cuda, Api::vulkan};
    if (n == "cuda") apis.push_back(Api::cuda);
    else if (n == "vulkan") apis.push_back(Api::vulkan);
    else throw UsageError("--api '" + n + "': expected cuda, vulkan or all");
  }
  if (apis.empty()) throw UsageError("--api: no API given");
  return apis;
}

// The selected tests in catalogue order; "all" selects every test.
std::vector<std::string> parse_tests(const std::vector<std::string>& names) {
  bool all = names.empty();
  for (const std::string& n : names) {
    if (n == "all") all = true;
    else if (!find_test(n)) {
      std::string known;
      for (const TestCase& t : catalogue()) known += (known.empty() ? "" : ", ") + t.name;
      throw UsageError("unknown test '" + n + "' (known: " + known + ")");
    }
  }
  std::vector<std::string> out;
  for (const TestCase& t : catalogue())
    if (all || std::find(names.begin(), names.end(), t.name) != names.end()) out.push_back(t.name);
  return out;
}

// Checks up front that --output can be written, so a long run does not end in an I/O error.
void check_writable(const std::string& path) {
  const std::string probe = path + ".cuvk-probe";
  std::ofstream f(probe);
  if (!f) throw UsageError("cannot write --output '" + path + "': " + std::strerror(errno));
  f.close();
  std::remove(probe.c_str());
}

struct RunArgs {
  std::vector<std::string> tests, apis = {"all"};
  std::string n, offsets, strides, format = "table", output, device, l2 = "cold";
  int reps = 100, warmup = 10;
  std::uint32_t block_size = 256;
  std::uint64_t seed = 1;
  bool validation = false, quiet = false;
};

int do_run(const RunArgs& a, const std::string& cmdline) {
  RunConfig cfg;
  cfg.tests = parse_tests(a.tests);
  cfg.apis = parse_apis(a.apis);
  if (!a.n.empty()) {
    const std::uint64_t n = parse_count(a.n, "--n");
    if (n == 0) throw UsageError("--n must be at least 1");
    if (n > std::numeric_limits<std::uint32_t>::max())
      throw UsageError("--n " + a.n + " overflows 32-bit indices (at most 4294967295)");
    cfg.n = static_cast<std::uint32_t>(n);
  }
  cfg.offsets = a.offsets.empty() ? default_offsets() : parse_uint_list(a.offsets, "--offsets");
  cfg.strides = a.strides.empty() ? default_strides() : parse_uint_list(a.strides, "--strides");
  for (std::uint32_t s : cfg.strides)
    if (s == 0) throw UsageError("--strides: stride 0 is not allowed");
  if (a.reps < 1) throw UsageError("--reps must be at least 1");
  if (a.warmup < 0) throw UsageError("--warmup must not be negative");
  cfg.reps = a.reps;
  cfg.warmup = a.warmup;
  if (a.block_size == 0 || a.block_size % 32 != 0)
    throw UsageError("--block-size " + std::to_string(a.block_size) + " is not a positive multiple of 32");
  cfg.block_size = a.block_size;
  cfg.seed = a.seed;
  if (a.l2 == "cold") cfg.l2 = L2Mode::cold;
  else if (a.l2 == "warm") cfg.l2 = L2Mode::warm;
  else throw UsageError("--l2 '" + a.l2 + "': expected cold or warm");
  const Format format = parse_format(a.format);
  if (!a.output.empty()) check_writable(a.output);

  VulkanOptions vk_opts;
  std::vector<std::string> vk_messages;
  if (a.validation) {
    vk_opts.validation = true;
    vk_opts.on_message = [&vk_messages](const std::string& m) { vk_messages.push_back(m); };
  }
  const DeviceInventory inv = take_inventory(vk_opts);
  RunDocument doc;
  doc.choice = choose_devices(inv, a.device);
  doc.config = cfg;
  doc.command_line = cmdline;
  doc.date_utc = now_utc();
  doc.host = hostname();

  std::unique_ptr<Backend> cuda, vulkan;
  BackendSet set;
  const bool want_cuda = std::find(cfg.apis.begin(), cfg.apis.end(), Api::cuda) != cfg.apis.end();
  const bool want_vk = std::find(cfg.apis.begin(), cfg.apis.end(), Api::vulkan) != cfg.apis.end();
  if (want_cuda && doc.choice.cuda) {
    try {
      cuda = make_cuda_backend(doc.choice.cuda->index);
    } catch (const std::exception& e) {
      doc.choice.cuda_reason = e.what();
    }
  }
  if (want_vk && doc.choice.vulkan) {
    try {
      vulkan = make_vulkan_backend(doc.choice.vulkan->index, vk_opts);
    } catch (const std::exception& e) {
      doc.choice.vulkan_reason = e.what();
    }
  }
  set.cuda = cuda.get();
  set.vulkan = vulkan.get();
  set.cuda_reason = doc.choice.cuda_reason;
  set.vulkan_reason = doc.choice.vulkan_reason;
  if (!cuda && !vulkan)
    throw Error("no API can run: CUDA: " +
                (want_cuda ? set.cuda_reason : std::string("not selected")) + "; Vulkan: " +
                (want_vk ? set.vulkan_reason : std::string("not selected")));

  doc.outcome = run_suite(cfg, set);
  const std::string text = format_run(doc, format);
  if (a.output.empty()) {
    std::cout << text << std::flush;
  } else {
    write_file_atomic(a.output, text);
    if (!a.quiet) std::cout << format_run(doc, Format::table) << "\nwrote " << a.output << '\n';
  }
  for (const std::string& m : vk_messages) std::cerr << "validation: " << m << '\n';
  bool failed = false;
  for (const ResultRow& r : doc.outcome.rows) failed = failed || r.status == Status::failed;
  return failed ? kExitFailed : kExitOk;
}

int do_list() {
  std::cout << "tests (the name is the CUDA kernel's name, the GLSL file stem and the output row key)\n\n";
  for (const TestCase& t : catalogue()) {
    std::string layouts, variants;
    for (const std::string& l : t.layouts) layouts += (layouts.empty() ? "" : ",") + l;
    for (const std::string& v : t.variants) variants += (variants.empty() ? "" : ",") + v;
    const char* sweep = t.sweep == Sweep::offset ? "offset (--offsets)"
                        : t.sweep == Sweep::stride ? "stride (--strides)" : "-";
    std::printf("  %-13s layouts: %-8s variants: %-12s sweep: %s\n      %s\n", t.name.c_str(),
                layouts.empty() ? "-" : layouts.c_str(), variants.c_str(), sweep,
                t.description.c_str());
  }
  auto join = [](const std::vector<std::uint32_t>& v) {
    std::string s;
    for (std::uint32_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
    return s;
  };
  std::printf("\ndefaults: n = %u on a GPU, %u on a CPU device; offsets %s; strides %s; block 256; "
              "100 repetitions after 10 warm-up; L2 cold\n",
              kDefaultGpuN, kDefaultCpuN, join(default_offsets()).c_str(),
              join(default_strides()).c_str());
  return kExitOk;
}

void print_device(const DeviceInfo& d) {
  std::printf("  [%d] %s\n      uuid %s, %s%s\n      driver: %s\n", d.index, d.name.c_str(),
              format_uuid(d.uuid).c_str(), d.is_cpu ? "CPU device, " : "",
              (std::to_string(d.memory_bytes >> 20) + " MiB").c_str(), d.driver.c_str());
  for (const auto& [k, v] : d.properties) std::printf("      %s: %s\n", k.c_str(), v.c_str());
}

int do_devices(const std::string& spec) {
  const DeviceInventory inv = take_inventory(VulkanOptions{});
  std::printf("CUDA devices:\n");
  if (!inv.cuda_error.empty()) std::printf("  none: %s\n", inv.cuda_error.c_str());
  for (const DeviceInfo& d : inv.cuda) print_device(d);
  std::printf("Vulkan devices:\n");
  if (!inv.vulkan_error.empty()) std::printf("  none: %s\n", inv.vulkan_error.c_str());
  for (const DeviceInfo& d : inv.vulkan) print_device(d);
  const DeviceChoice c = choose_devices(inv, spec);
  std::printf("Pair: %s\n", c.note.empty() ? "none: no device can run" : c.note.c_str());
  return (inv.cuda.empty() && inv.vulkan.empty()) ? kExitEnvironment : kExitOk;
}

}  // namespace

std::vector<std::uint32_t> parse_uint_list(const std::string& text, const std::string& what) {
  std::vector<std::uint32_t> out;
  const auto check = [&](std::uint64_t v) {
    if (v > std::numeric_limits<std::uint32_t>::max())
      throw UsageError(what + ": " + std::to_string(v) + " overflows 32-bit indices");
    return static_cast<std::uint32_t>(v);
  };
  for (const std::string& item : split(text, ',')) {
    if (item.empty()) throw UsageError(what + ": empty item in '" + text + "'");
    const std::size_t dash = item.find('-');
    if (dash == std::string::npos) {
      out.push_back(check(parse_u64(item, what)));
      continue;
    }
    const std::size_t colon = item.find(':', dash);
    const std::uint64_t lo = parse_u64(item.substr(0, dash), what);
    const std::uint64_t hi = parse_u64(item.substr(dash + 1, colon == std::string::npos ? std::string::npos : colon - dash - 1), what);
    const std::uint64_t step = colon == std::string::npos ? 1 : parse_u64(item.substr(colon + 1), what);
    if (step == 0) throw UsageError(what + ": step 0 in '" + item + "'");
    if (hi < lo) throw UsageError(what + ": range '" + item + "' runs backwards");
    if ((hi - lo) / step >= 4096) throw UsageError(what + ": range '" + item + "' has too many points");
    for (std::uint64_t v = lo; v <= hi; v += step) out.push_back(check(v));
  }
  if (out.empty()) throw UsageError(what + ": no values in '" + text + "'");
  return out;
}

std::uint64_t parse_count(const std::string& text, const std::string& what) {
  if (text.empty()) throw UsageError(what + ": empty value");
  std::string digits = text;
  unsigned shift = 0;
  switch (text.back()) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    default: break;
  }
  if (shift) digits.pop_back();
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(what + ": '" + text + "' is not a count (digits with an optional k, M or G)");
  const std::uint64_t v = parse_u64(digits, what);
  if (v > (std::numeric_limits<std::uint64_t>::max() >> shift))
    throw UsageError(what + ": '" + text + "' is too large");
  return v << shift;
}

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw Error("cannot write '" + tmp + "': " + std::strerror(errno));
    f << content;
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      throw Error("writing '" + tmp + "' failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw Error("cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(err));
  }
}

int cli_main(int argc, char** argv) {
  CLI::App app{"cuvk: does the same memory-bound kernel run the same on CUDA and on Vulkan?\n"
               "Runs equivalent CUDA kernels and GLSL compute shaders through one timing driver on\n"
               "the same GPU, verifies every result, and reports times, bandwidth and parity."};
  app.set_version_flag("--version", std::string("cuvk ") + build::kVersion + " (" +
                                        build::kGitRevision + ")");
  app.require_subcommand(1);

  RunArgs ra;
  CLI::App* run = app.add_subcommand("run", "run tests on CUDA and Vulkan (everything by default)");
  run->add_option("--tests", ra.tests, "tests to run, comma-separated, or 'all' (see `cuvk list`)")
      ->delimiter(',');
  run->add_option("--api", ra.apis, "APIs: cuda, vulkan or all (default all)")->delimiter(',');
  run->add_option("--n", ra.n,
                  "problem size in elements, with optional k/M/G (2^10/2^20/2^30) suffix; default "
                  "64M on a GPU, 1M on a CPU device");
  run->add_option("--reps", ra.reps, "timed repetitions per point (default 100)");
  run->add_option("--warmup", ra.warmup, "untimed repetitions before timing (default 10)");
  run->add_option("--block-size", ra.block_size,
                  "threads per block = Vulkan workgroup size, a multiple of 32 (default 256)");
  run->add_option("--offsets", ra.offsets,
                  "offsets for read_offset/write_offset: list or ranges, e.g. 0,1,8 or 0-32 or "
                  "0-32:4 (default 0,1,2,4,7,8,16,31,32)");
  run->add_option("--strides", ra.strides, "strides for stride: list or ranges (default 1,2,3,4,8,16,32)");
  run->add_option("--seed", ra.seed, "seed of the random inputs (default 1)");
  run->add_option("--l2", ra.l2,
                  "cold: flush L2 before every timed repetition (default); warm: no flush");
  run->add_option("--format", ra.format, "table, md, csv or json (default table)");
  run->add_option("--output", ra.output,
                  "write the report here (atomically) instead of stdout; the table still goes to stdout");
  run->add_option("--device", ra.device,
                  "CUDA device index or UUID prefix (default: the first CUDA device with a Vulkan twin)");
  run->add_flag("--quiet", ra.quiet, "with --output, print nothing on success");
  run->add_flag("--validation", ra.validation,
                "enable the Khronos validation layer (debugging only: it changes Vulkan timings)");

  app.add_subcommand("list", "list tests, layouts, variants and parameters");
  std::string dev_spec;
  CLI::App* devices = app.add_subcommand("devices", "list CUDA and Vulkan devices and which pair runs");
  devices->add_option("--device", dev_spec, "as for `run`");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << " (see --help)\n";
    return kExitUsage;
  }

  try {
    if (app.got_subcommand("list")) return do_list();
    if (app.got_subcommand("devices")) return do_devices(dev_spec);
    return do_run(ra, command_line(argc, argv));
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << '\n';
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return kExitEnvironment;
  }
}

}  // namespace cuvk
