// `cuvk p2p`: copies between the GPUs of a node (issue 35), staged through one host buffer on both
// APIs with parity, and CUDA's peer copies as the node's capability. docs/MEASURING.md,
// "GPU to GPU". Exit codes: 0 every row verified; 1 a row failed verification; 2 bad usage;
// 3 environment (no device could open).
#include "p2p_command.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "backends.h"
#include "options.h"
#include "output_file.h"
#include "run.h"  // kAllDevices
#include "devices.h"
#include "error.h"
#include "gpu_health.h"
#include "json_check.h"  // printable, one_line
#include "node_p2p.h"
#include "p2p_output.h"
#include "plotter.h"
#include "runner.h"  // kMaxReps, kMaxWarmup
#include "verdicts.h"

namespace cuvk {
namespace {

constexpr std::uint64_t kMaxP2pBytes = std::uint64_t{16} << 30;

std::vector<std::uint64_t> parse_p2p_sizes(const std::string& text) {
  std::vector<std::uint64_t> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    const std::uint64_t v = parse_count(item, "--sizes");
    if (v == 0 || v % 4 != 0 || v > kMaxP2pBytes)
      throw UsageError("--sizes: '" + item + "' must be a positive multiple of 4 bytes, at most 16G");
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// The indices --device names, in order (the same one twice: a loopback); `all`: every GPU.
std::vector<int> parse_p2p_devices(const std::string& spec, const DeviceInventory& inv) {
  std::vector<int> out;
  if (spec == kAllDevices) {
    const std::size_t n = !inv.cuda.empty() ? inv.cuda.size() : inv.vulkan.size();
    for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<int>(i));
    return out;
  }
  for (const std::uint32_t v : parse_uint_list(spec, "--device", 65)) out.push_back(static_cast<int>(v));
  // parse_uint_list drops repeats; a loopback names the same GPU twice.
  if (out.size() == 1 && spec.find(',') != std::string::npos) out.push_back(out.front());
  return out;
}

// --plot's format, from its name: the plotter writes PNG, SVG or PDF.
std::string plot_extension(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  if (ext == ".png" || ext == ".svg" || ext == ".pdf") return ext;
  throw UsageError("--plot " + printable(path) + ": name a .png, .svg or .pdf file");
}

// --plot: the report's JSON drawn by the plotter (results/plotting/p2p_figures.py); "" when
// drawn, else why it was skipped (no python3 with matplotlib).
std::string draw_p2p(const std::string& path, const std::string& json) {
  const Plotter plotter;
  if (!plotter.usable()) return plotter.skipped();
  const std::string source = plotter.folder() + "/p2p.json";
  const std::string figure = plotter.folder() + "/figure" + plot_extension(path);
  std::ofstream(source, std::ios::binary) << json;
  std::string out;
  const int status =
      plotter.run({"p2p", source, figure, "--name", "cuvk p2p", "--drawn-by", plotter_name()}, out);
  std::ifstream f(figure, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (status != 0) throw Error("--plot: " + plotter_failure(status, out));
  if (bytes.empty()) throw Error("--plot: " + plotter_missing("the figure", out));
  write_output_file(path, bytes, "--plot");
  return "";
}

}  // namespace

void check_p2p_args(const P2pArgs& a) {
  parse_p2p_sizes(a.sizes);
  if (a.format != "table" && a.format != "md" && a.format != "json")
    throw UsageError("--format '" + a.format + "': expected table, md or json");
  if (a.reps < 1 || a.reps > kMaxReps)
    throw UsageError(fmt::format("--reps {}: expected 1 to {}", a.reps, kMaxReps));
  if (a.warmup < 0 || a.warmup > kMaxWarmup)
    throw UsageError(fmt::format("--warmup {}: expected 0 to {}", a.warmup, kMaxWarmup));
  parse_tolerance(a.tolerance);
  if (!a.plot.empty()) plot_extension(a.plot);
  if (a.device != kAllDevices) parse_uint_list(a.device, "--device", 65);
}

namespace {

// The backends of each listed GPU, one per API and distinct GPU (a loopback shares them).
struct Opened {
  std::map<std::pair<Api, int>, std::unique_ptr<Backend>> backends;
  std::vector<P2pDevice> devices;
  P2pProbe probe;
};

void open_device(Opened& o, const DeviceInventory& inv, int index, const BackendOptions& opts) {
  P2pDevice d;
  d.label = std::to_string(index);
  const DeviceChoice c = choose_devices(inv, d.label);
  for (const Api api : kApis) {
    const std::optional<DeviceInfo>& info = c.device(api);
    if (!info) {
      d.why[api] = c.reason(api).empty() ? "no device" : c.reason(api);
      continue;
    }
    auto& slot = o.backends[{api, info->index}];
    try {
      if (!slot) slot = make_backend(api, info->index, opts);
      d.backend[api] = slot.get();
    } catch (const std::exception& e) {
      d.why[api] = e.what();
    }
  }
  o.devices.push_back(d);
}

void probe(Opened& o) {
  std::vector<std::string> seen;
  for (const P2pDevice& d : o.devices) {
    if (std::find(seen.begin(), seen.end(), d.label) != seen.end()) continue;  // a loopback
    seen.push_back(d.label);
    for (const Api api : kApis) {
      const std::string key = "GPU " + d.label + " " + api_name(api);
      if (!d.backend[api]) {
        o.probe.devices.emplace_back(key, "unavailable: " + d.why[api]);
        continue;
      }
      const DeviceInfo& info = d.backend[api]->info();
      std::string v = fmt::format("{} (index {})", info.name, info.index);
      for (const auto& [k, val] : info.properties)
        if (k == "device_group" || k == "external_memory_host") v += "; " + k + ": " + val;
      o.probe.devices.emplace_back(key, v);
    }
  }
  for (std::size_t i = 0; i < o.devices.size(); ++i)
    for (std::size_t j = 0; j < o.devices.size(); ++j) {
      if (i == j) continue;
      if (j < i && o.devices[i].label == o.devices[j].label) continue;  // a loopback: once
      Backend* a = o.devices[i].backend[Api::cuda];
      Backend* b = o.devices[j].backend[Api::cuda];
      const std::string key = "GPU " + o.devices[i].label + " -> GPU " + o.devices[j].label;
      if (a == nullptr || b == nullptr || a->find<PeerCopies>() == nullptr) {
        o.probe.pairs.emplace_back(key, "CUDA peer access: not probed (no CUDA device)");
        continue;
      }
      const std::string why = b->find<PeerCopies>()->peer_unavailable(*a);
      o.probe.pairs.emplace_back(key, "CUDA peer access (" + o.devices[j].label + " reads " +
                                          o.devices[i].label + "): " +
                                          (why.empty() ? "yes" : "no, " + why));
      if (a != b) o.probe.pairs.emplace_back(key, "NVML: " + read_gpu_link(a->info().uuid, b->info().uuid));
    }
}

}  // namespace

int p2p_command(const P2pArgs& a) {
  check_p2p_args(a);
  if (!a.output.empty()) check_writable(a.output);
  if (!a.plot.empty()) check_writable(a.plot, "--plot");
  BackendOptions opts;
  std::size_t messages = 0;  // any fails the command (issue 49, item 6), as in run
  if (a.validation) {
    opts.validation = true;
    opts.on_message = [&messages](const std::string& m) {
      ++messages;
      std::cerr << "validation: " << printable(m) << '\n';
    };
  }
  const DeviceInventory inv = take_inventory(opts);
  const std::vector<int> list = parse_p2p_devices(a.device, inv);
  if (list.size() < 2)
    throw UsageError(
        fmt::format("GPU to GPU needs two GPUs: --device {}{} (name one twice, --device 0,0, for a "
                    "loopback through host memory)",
                    a.device == kAllDevices ? "all finds " : "lists ", list.size()));
  Opened o;
  for (const int index : list) open_device(o, inv, index, opts);
  probe(o);
  P2pConfig config;
  config.sizes = parse_p2p_sizes(a.sizes);
  config.reps = a.reps;
  config.warmup = a.warmup;
  P2pReport report;
  report.probe = o.probe;
  report.rows = measure_p2p(o.devices, config);
  report.tolerance = parse_tolerance(a.tolerance);
  report.warmup = a.warmup;
  report.reps = a.reps;
  report.chunk_bytes = config.chunk_bytes;
  for (const P2pDevice& d : o.devices) report.labels.push_back(d.label);
  const std::string text = format_p2p(report, a.format == "md" ? Format::md
                                              : a.format == "json" ? Format::json
                                                                   : Format::table);
  if (a.output.empty()) {
    std::cout << text << std::flush;
  } else {
    write_output_file(a.output, text);
    std::cout << "wrote " << printable(a.output) << '\n';
  }
  if (!a.plot.empty()) {
    const std::string skipped = draw_p2p(a.plot, format_p2p(report, Format::json));
    if (!skipped.empty()) {
      std::cerr << "error: --plot skipped: " << one_line(skipped, kMaxErrorLine) << '\n';
      return kExitEnvironment;
    }
    std::cout << "wrote " << printable(a.plot) << '\n';
  }
  if (messages > 0) {
    std::cerr << "error: the Vulkan validation layer sent " << messages
              << (messages == 1 ? " message" : " messages")
              << " (above); under --validation any message fails the run\n";
    return kExitFailed;
  }
  for (const P2pRow& r : report.rows)
    if (r.state == "failed") return kExitFailed;
  return kExitOk;
}

}  // namespace cuvk
