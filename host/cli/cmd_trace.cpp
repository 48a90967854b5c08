// `cuvk trace TEST`: dispatch traces on both APIs. Per API: a warm-up, the kernel timed as every
// run times it, then its traced twin (the same kernel plus timestamp writes,
// host/contract/params.h) once into a fresh trace buffer and a poisoned output, the output checked
// against the CPU reference and every record checked, then the traced twin timed too: the tracing
// cost. The records are summarised (host/core/trace_summary.h) and printed, and optionally written
// as JSON ("cuvk.trace/1") and drawn by the plotter (--plot: PNG, SVG or PDF; host/cli/plotter.h).
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "backends.h"
#include "catalogue.h"
#include "cli.h"
#include "commands.h"
#include "devices.h"
#include "error.h"
#include "host_data.h"
#include "json_check.h"  // printable
#include "l2_flush.h"
#include "plotter.h"
#include "runner.h"
#include "trace_file.h"

namespace cuvk {
namespace {

struct TraceArgs {
  std::string test, layout, variant = "scalar", api = "both", binding = "descriptor", device;
  std::string n, output, plot, l2 = "cold";
  std::uint32_t block = 256;
  std::optional<int> reps, warmup;  // unset: the run's defaults for the device (GPU or CPU)
  std::uint64_t seed = 1;
  bool validation = false;
};

// What both APIs run: the plan of the point and its inputs and expected output.
struct TraceJob {
  Plan plan;
  std::vector<float> input, expected;
};

Point trace_point(const TraceArgs& a, const TestCase& t, std::uint32_t n) {
  std::string layout = a.layout;
  if (layout.empty() && !t.layouts.empty()) layout = t.layouts.front();
  auto known = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  if (!t.layouts.empty() && !known(t.layouts, layout))
    throw UsageError("--layout: " + t.name + " has no layout '" + layout + "'");
  if (t.layouts.empty() && !layout.empty())
    throw UsageError("--layout: " + t.name + " has no layout axis");
  if (!known(t.variants, a.variant))
    throw UsageError("--variant: " + t.name + " has no variant '" + a.variant + "'");
  return make_point(layout, a.variant, n);
}

// The variants of `t` that run a kernel (every one but the copy engine), comma-separated.
std::string traceable_variants(const TestCase& t) {
  std::string out;
  for (const std::string& v : t.variants) {
    const Point p = make_point(t.layouts.empty() ? "" : t.layouts.front(), v, 1);
    if (t.plan(p).kernel != kCopyEngine) out += (out.empty() ? "" : ", ") + v;
  }
  return out.empty() ? "none" : out;
}

std::vector<std::uint32_t> download_words(Backend& b, const DeviceBuffer& buf) {
  std::vector<std::uint32_t> words(buf.bytes() / sizeof(std::uint32_t));
  b.download(buf, words.data(), words.size() * sizeof(std::uint32_t));
  return words;
}

// The traced run that is kept: fresh trace, poisoned output, one repetition (after the L2 flush
// where there is one); then its checks.
void record_and_check(Backend& b, const Launch& traced, const Launch* flush, const TraceJob& job,
                      TraceLane& lane) {
  b.fill(*traced.out, kPoisonWord);
  b.fill(*traced.trace, 0);
  lane.recorded_ms = b.run(traced, RunOptions{1, flush}).front();
  std::vector<float> out(job.expected.size());
  b.download(*traced.out, out.data(), out.size() * sizeof(float));
  ResultRow check;
  verify(out, job.expected, check);
  lane.verified = check.verified;
  lane.checked = check.checked;
  lane.mismatches = check.mismatches;
  lane.first_bad_index = check.first_bad_index;
  const Geometry& g = traced.geometry;
  const std::size_t blocks = std::size_t{g.grid_x} * g.grid_y;
  // SM ids are not bounded by the SM count: %smid (and gl_SMIDNV) need not be contiguous.
  TraceRecords records = parse_trace(download_words(b, *traced.trace), blocks,
                                     lane.support.ticks_per_ns, lane.support.sm_ids, 0);
  lane.trace_error = records.error;
  lane.blocks = std::move(records.blocks);
  if (lane.trace_error.empty()) lane.summary = summarize_trace(lane.blocks);
}

void trace_lane(Backend& b, const TraceJob& job, const TraceDocument& doc, TraceLane& lane) {
  lane.device = b.info();
  if (const Traces* traces = b.find<Traces>()) {
    lane.support = traces->trace_support();
  } else {
    lane.support.unavailable = lane.support.sm_ids_unavailable = b.lacks<Traces>();
  }
  if (!lane.support.unavailable.empty()) {
    lane.unavailable = lane.support.unavailable;
    return;
  }
  if (const std::string why = b.binding_unsupported(lane.binding); !why.empty()) {
    lane.unavailable = why;
    return;
  }
  const DeviceInfo& d = b.info();
  lane.geometry =
      launch_geometry(plan_launch_threads(job.plan), doc.block_size, d.max_grid_x, d.max_grid_y);
  const std::size_t blocks = std::size_t{lane.geometry.grid_x} * lane.geometry.grid_y;
  const auto in = b.allocate(job.plan.in_words * sizeof(float));
  const auto out = b.allocate(job.plan.out_words * sizeof(float));
  const auto trace = b.allocate(blocks * CUVK_TRACE_WORDS * sizeof(std::uint32_t));
  b.upload(*in, job.input.data(), job.input.size() * sizeof(float));
  Launch launch{job.plan.kernel, lane.geometry, job.plan.params, in.get(),
                out.get(),       lane.binding,  nullptr};
  Launch traced = launch;
  traced.trace = trace.get();
  // --l2 cold: the run's L2 flush before every timed repetition, outside the timed interval.
  std::unique_ptr<DeviceBuffer> scratch, sink;
  Launch flush;
  if (doc.flush_bytes != 0) {
    scratch = b.allocate(doc.flush_bytes);
    sink = b.allocate(kFlushVecBytes);
    b.fill(*scratch, 0);
    flush = flush_launch(scratch.get(), sink.get(), doc.block_size, d.max_grid_x, d.max_grid_y);
  }
  const Launch* before = doc.flush_bytes != 0 ? &flush : nullptr;
  if (doc.warmup > 0) {
    b.run(launch, RunOptions{doc.warmup, nullptr});
    b.run(traced, RunOptions{doc.warmup, nullptr});
  }
  lane.untraced_ms = summarize(b.run(launch, RunOptions{doc.reps, before}));
  record_and_check(b, traced, before, job, lane);
  lane.traced_ms = summarize(b.run(traced, RunOptions{doc.reps, before}));
}

std::vector<Api> trace_apis(const std::string& api) {
  if (api == "cuda") return {Api::cuda};
  if (api == "vulkan") return {Api::vulkan};
  if (api == "both") return {Api::cuda, Api::vulkan};
  throw UsageError("--api '" + api + "': expected cuda, vulkan or both");
}

Binding trace_binding(const std::string& binding) {
  if (binding == "descriptor") return Binding::descriptor;
  if (binding == "bda") return Binding::bda;
  throw UsageError("--binding '" + binding + "': expected descriptor or bda");
}

// Opens each wanted API's backend on the chosen device and traces; a lane per API.
void trace_apis_on(const TraceArgs& a, const BackendOptions& opts, const DeviceChoice& choice,
                   const TraceJob& job, TraceDocument& doc) {
  for (Api api : trace_apis(a.api)) {
    TraceLane lane;
    lane.api = api;
    lane.binding = api == Api::cuda ? Binding::pointer : trace_binding(a.binding);
    const std::optional<DeviceInfo>& d = choice.device(api);
    if (!d) {
      lane.unavailable = choice.reason(api);
      doc.lanes.push_back(std::move(lane));
      continue;
    }
    try {
      const std::unique_ptr<Backend> b = make_backend(api, d->index, opts);
      trace_lane(*b, job, doc, lane);
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      lane.unavailable = e.what();
    }
    doc.lanes.push_back(std::move(lane));
  }
}

// --plot's format, from its name: the plotter writes PNG, SVG or PDF.
std::string plot_extension(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  if (ext == ".png" || ext == ".svg" || ext == ".pdf") return ext;
  throw UsageError("--plot " + printable(path) + ": name a .png, .svg or .pdf file");
}

// --plot: the trace's JSON drawn by the plotter; "" when drawn, else why it was skipped.
std::string draw_trace(const TraceArgs& a, const std::string& json) {
  const Plotter plotter;
  if (!plotter.usable()) return plotter.skipped();
  const std::string source = plotter.folder() + "/trace.json";
  const std::string figure = plotter.folder() + "/figure" + plot_extension(a.plot);
  std::ofstream(source, std::ios::binary) << json;
  const std::string name = a.output.empty() ? "cuvk trace without --output" : a.output;
  std::string out;
  const int status =
      plotter.run({"trace", source, figure, "--name", name, "--drawn-by", plotter_name()}, out);
  std::ifstream f(figure, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (status != 0 || bytes.empty())
    throw Error("--plot: the plotter failed (exit " + std::to_string(status) +
                "): " + printable(out.substr(out.size() > 2000 ? out.size() - 2000 : 0)));
  write_output_file(a.plot, bytes, "--plot");
  return "";
}

// Every option judged before any device is opened (a usage error, exit 2).
void check_trace_args(const TraceArgs& a, const TestCase* test) {
  if (test == nullptr) throw UsageError("unknown test '" + a.test + "' (see `cuvk list`)");
  trace_binding(a.binding);
  trace_apis(a.api);
  if (a.block == 0 || a.block > 1024) throw UsageError("--block-size must be between 1 and 1024");
  if (a.l2 != "cold" && a.l2 != "warm")
    throw UsageError("--l2 '" + a.l2 + "': expected cold or warm");
  if (a.reps && (*a.reps < 1 || *a.reps > kMaxReps))
    throw UsageError("--reps " + std::to_string(*a.reps) + ": must be between 1 and " +
                     std::to_string(kMaxReps));
  if (a.warmup && (*a.warmup < 0 || *a.warmup > kMaxWarmup))
    throw UsageError("--warmup " + std::to_string(*a.warmup) + ": must be between 0 and " +
                     std::to_string(kMaxWarmup));
  // A bad --layout or --variant before any device is opened; the copy engine runs no kernel.
  if (test->plan(trace_point(a, *test, 1)).kernel == kCopyEngine)
    throw UsageError("--variant " + quoted(a.variant) + ": " + test->name +
                     " " + a.variant + " is the API's own buffer copy, which runs no kernel to "
                     "trace; trace variants of " + test->name + ": " + traceable_variants(*test));
  if (!a.output.empty()) check_writable(a.output);
  if (!a.plot.empty()) {
    plot_extension(a.plot);
    check_writable(a.plot, "--plot");
  }
  check_distinct_files({{"--output", a.output}, {"--plot", a.plot}}, {});
}

int run_trace(const TraceArgs& a, const std::string& command_line) {
  const auto started = std::chrono::steady_clock::now();
  const TestCase* test = find_test(a.test);
  check_trace_args(a, test);

  BackendOptions opts;
  opts.trace = true;
  std::vector<std::string> messages;
  if (a.validation) {
    opts.validation = true;
    opts.on_message = [&messages](const std::string& m) { messages.push_back(m); };
  }
  const DeviceChoice choice = choose_devices(take_inventory(opts), a.device);
  const bool cpu = !choice.cuda && choice.vulkan && choice.vulkan->is_cpu;
  std::uint64_t n = cpu ? kDefaultCpuN : kDefaultGpuN;
  if (!a.n.empty()) n = parse_count(a.n, "--n");
  if (n == 0 || n > 0xFFFFFFFFull) throw UsageError("--n must be between 1 and 2^32-1");

  TraceDocument doc;
  doc.test = test->name;
  doc.block_size = a.block;
  doc.n = static_cast<std::uint32_t>(n);
  doc.reps = a.reps.value_or(cpu ? kDefaultCpuReps : kDefaultGpuReps);
  doc.warmup = a.warmup.value_or(cpu ? kDefaultCpuWarmup : kDefaultGpuWarmup);
  doc.command_line = command_line;
  doc.date_utc = now_utc();
  doc.host = hostname();
  doc.device_note = choice.note;
  if (a.l2 == "cold") {  // one GPU: an L2 size either API reports applies to both
    const bool gpu =
        (choice.cuda && !choice.cuda->is_cpu) || (choice.vulkan && !choice.vulkan->is_cpu);
    std::uint64_t l2 = choice.cuda ? choice.cuda->l2_bytes : 0;
    if (choice.vulkan) l2 = std::max(l2, choice.vulkan->l2_bytes);
    doc.flush_bytes = flush_scratch_bytes(gpu, cpu || (choice.vulkan && choice.vulkan->is_cpu), l2);
  }
  const Point point = trace_point(a, *test, doc.n);
  doc.layout = point.layout;
  doc.variant = point.variant;
  TraceJob job;
  job.plan = test->plan(point);
  doc.kernel = job.plan.kernel;
  // Sizes against the devices and the host before any allocation: a usage error, exit 2.
  check_plan(test->name, doc.n, job.plan, max_buffer_of(choice, trace_apis(a.api)));
  job.input = random_input(job.plan.in_words, a.seed);
  job.expected.assign(job.plan.out_words, poison_float());
  job.plan.reference(job.input, job.expected);

  trace_apis_on(a, opts, choice, job, doc);
  doc.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << trace_text(doc);
  for (const std::string& m : messages) std::cerr << "validation: " << printable(m) << '\n';
  const std::string json = trace_json(doc).dump() + "\n";
  if (!a.output.empty()) write_output_file(a.output, json);
  std::string plot_skipped;
  if (!a.plot.empty()) plot_skipped = draw_trace(a, json);
  if (!plot_skipped.empty()) std::cerr << "error: --plot skipped: " << plot_skipped << '\n';

  bool any = false, failed = !messages.empty();
  std::string why, wrong;
  for (const TraceLane& l : doc.lanes) {
    any = any || l.unavailable.empty();
    why += (why.empty() ? "" : "; ") + std::string(api_name(l.api)) + ": " + l.unavailable;
    if (l.unavailable.empty() && !lane_ok(l)) {
      failed = true;
      wrong += (wrong.empty() ? "" : ", ") + std::string(api_name(l.api));
    }
  }
  if (failed) {
    std::cerr << "error: trace " << test->name << ": "
              << (wrong.empty() ? std::to_string(messages.size()) + " validation messages"
                                : "wrong output or trace records on " + wrong)
              << " (see the output above)\n";
    return kExitFailed;
  }
  if (!any)
    std::cerr << "error: " << one_line("no API could trace " + test->name + ": " + why, kMaxErrorLine)
              << host_memory_limit_note() << '\n';  // as run's and devices' lines say it

  return any && plot_skipped.empty() ? kExitOk : kExitEnvironment;
}

}  // namespace

Command add_trace_command(CLI::App& app, const std::string& command_line) {
  auto args = std::make_shared<TraceArgs>();
  CLI::App* sub = app.add_subcommand(
      "trace", "dispatch traces: per block, its SM and start/end times, on both APIs");
  sub->add_option("test", args->test, "a test of `cuvk list`")->required();
  sub->add_option("--layout", args->layout, "the test's layout (default: its first)");
  sub->add_option("--variant", args->variant, "the test's variant (default: scalar)");
  sub->add_option("--api", args->api, "cuda, vulkan or both (default)");
  sub->add_option("--binding", args->binding, "Vulkan binding: descriptor (default) or bda");
  sub->add_option("--n", args->n, "problem size (default: as `run`; suffixes k, M, G)");
  sub->add_option("--block-size", args->block, "threads per block (default 256)");
  sub->add_option("--reps", args->reps, "timed repetitions of each form (default: as `run`)");
  sub->add_option("--warmup", args->warmup, "warm-up repetitions (default: as `run`)");
  sub->add_option("--seed", args->seed, "input seed (default 1)");
  sub->add_option("--l2", args->l2,
                  "cold (default: the run's L2 flush before every timed "
                  "repetition) or warm");
  sub->add_option("--device", args->device, "as for `run`");
  sub->add_option("--output", args->output, "write the trace as JSON (schema cuvk.trace/1)");
  sub->add_option("--plot", args->plot,
                  "draw the trace (.png, .svg or .pdf) with matplotlib: blocks on their SMs over "
                  "time, then blocks resident per SM; skipped (exit 3) without python3-matplotlib");
  sub->add_flag("--validation", args->validation,
                "Khronos validation layer on; any message fails the command");
  return {sub, [args, command_line] { return run_trace(*args, command_line); }};
}

}  // namespace cuvk
