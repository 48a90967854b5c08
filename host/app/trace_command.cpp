// `cuvk trace TEST`: dispatch traces, through the runner. The options are run's (add_run_options:
// same names, same meanings, judged by run's own check, validate_config) and choose one point as
// run plans it (layout, variant, the sweep axes, block size; where one is not given, its first
// value); each API and binding is a lane. The runner (RunConfig::trace, host/core/runner/runner_trace.cpp)
// makes the inputs, flushes L2 and times the kernel as every run does, then times its traced twin
// (the same kernel plus timestamp writes, host/contract/params.h) the same way and records it once
// into a fresh trace buffer and a poisoned output, verified and every record checked. Here: the
// options parsed, the document (host/results/trace_file.h) printed, written as JSON
// ("cuvk.trace/1") and drawn by the plotter (--plot: PNG, SVG or PDF; host/app/plotter.h).
#include "trace_command.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "axes.h"
#include "catalogue.h"
#include "options.h"
#include "output_file.h"
#include "run.h"
#include "error.h"
#include "host_data.h"  // host_memory_limit_note
#include "interrupt.h"
#include "json_check.h"  // printable, one_line
#include "plotter.h"
#include "trace_file.h"

namespace cuvk {
namespace {

// --plot's format, from its name: the plotter writes PNG, SVG or PDF.
std::string plot_extension(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  if (ext == ".png" || ext == ".svg" || ext == ".pdf") return ext;
  throw UsageError("--plot " + printable(path) + ": name a .png, .svg or .pdf file");
}

// --plot: the trace's JSON drawn by the plotter; "" when drawn, else why it was skipped.
std::string draw_trace(const JudgedTrace& a, const std::string& json) {
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
  if (status != 0) throw Error("--plot: " + plotter_failure(status, out));
  if (bytes.empty()) throw Error("--plot: " + plotter_missing("the figure", out));
  write_output_file(a.plot, bytes, "--plot");
  return "";
}

bool runs_kernel(const TestCase& t, const std::string& layout, const std::string& variant) {
  return t.plan(make_point(layout, variant, 1)).kernel != kCopyEngine;
}

// The variants of `t` that run a kernel (every one but the copy engine), comma-separated.
std::string traceable_variants(const TestCase& t) {
  std::string out;
  for (const std::string& v : t.variants)
    if (runs_kernel(t, t.layouts.empty() ? "" : t.layouts.front(), v))
      out += (out.empty() ? "" : ", ") + v;
  return out.empty() ? "none" : out;
}

// The run's options for the trace of `t`: where --layouts, --variants or an axis `t` sweeps is not
// given, its first value (the first variant that runs a kernel), so that they choose one point.
RunArgs trace_run_args(const TraceArgs& a, const TestCase& t) {
  RunArgs r = a.run;
  r.tests = {t.name};
  r.trace = true;
  if (r.layouts.empty() && !t.layouts.empty()) r.layouts = {t.layouts.front()};
  if (r.variants.empty()) {
    r.variants = {t.variants.front()};
    for (const std::string& v : t.variants)
      if (runs_kernel(t, r.layouts.empty() ? "" : r.layouts.front(), v)) {
        r.variants = {v};
        break;
      }
  }
  for (const std::string& name : t.sweeps) {
    const Axis* axis = find_axis(name);
    std::string& given = r.axis_values[name];
    if (given.empty() && axis != nullptr && !axis->defaults.empty())
      given = std::to_string(axis->defaults.front());
  }
  return r;
}

// The one point the judged options choose, as run plans it; a usage error for none, several or
// the copy engine (no kernel to trace).
void check_one_point(const RunConfig& cfg, const TestCase& t) {
  if (cfg.sizes.size() > 1) throw UsageError("--n: cuvk trace traces one size; give one");
  const std::vector<Point> points = points_of(t, 1, cfg.axis_values, cfg.layouts, cfg.variants);
  const std::size_t count = points.size() * cfg.block_sizes.size();
  if (count == 0)
    throw UsageError("the options select no point of " + t.name + " (see `cuvk list`)");
  if (count > 1) {
    std::string which;
    for (std::size_t i = 0; i < points.size() && i < 4; ++i) {
      const std::string label = point_label(points[i].axes, t.sweeps);
      which += (i ? "; " : "") + points[i].layout + (points[i].layout.empty() ? "" : " ") +
               points[i].variant + (label.empty() ? "" : " " + label);
    }
    const std::size_t blocks = cfg.block_sizes.size();
    throw UsageError(
        fmt::format("cuvk trace traces one point; the options select {} of {} ({}{}){}: give one "
                    "value of --layouts, --variants, --block-sizes and each sweep axis",
                    count, t.name, which, points.size() > 4 ? "; ..." : "",
                    blocks > 1 ? fmt::format(" at {} block sizes", blocks) : ""));
  }
  if (!runs_kernel(t, points[0].layout, points[0].variant))
    throw UsageError("--variants " + quoted(points[0].variant) + ": " + t.name + " " +
                     points[0].variant +
                     " is the API's own buffer copy, which runs no kernel to trace; trace "
                     "variants of " +
                     t.name + ": " + traceable_variants(t));
}

}  // namespace

JudgedTrace judge_trace(const TraceArgs& a) {
  const TestCase* test = find_test(a.test);
  if (test == nullptr) throw UsageError("unknown test '" + a.test + "' (see `cuvk list`)");
  JudgedTrace t{a.test, judge_run(trace_run_args(a, *test)), a.output, a.plot};
  const RunArgs& r = t.run.args;
  if (is_device_list(r.device))
    throw UsageError("--device " + r.device +
                     ": cuvk trace traces on one device; name it (see `cuvk devices`)");
  check_one_point(*t.run.cfg, *test);
  if (!a.plot.empty()) plot_extension(a.plot);
  return t;
}

namespace {

// The trace's exit code, with its `error:` line where it is not 0.
int trace_exit(const TraceDocument& doc, std::size_t messages, const std::string& plot_skipped) {
  bool any = false, failed = messages != 0;
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
    std::cerr << "error: trace " << doc.test << ": "
              << (wrong.empty() ? fmt::format("{} validation messages", messages)
                                : "wrong output or trace records on " + wrong)
              << " (see the output above)\n";
    return kExitFailed;
  }
  if (!any)
    std::cerr << "error: " << one_line("no API could trace " + doc.test + ": " + why, kMaxErrorLine)
              << host_memory_limit_note(why) << '\n';  // as run's and devices' lines say it
  return any && plot_skipped.empty() ? kExitOk : kExitEnvironment;
}

}  // namespace

int run_trace(const JudgedTrace& a, const std::string& command_line) {
  const RunArgs& r = a.run.args;
  if (!a.output.empty()) check_writable(a.output);
  if (!a.plot.empty()) check_writable(a.plot, "--plot");
  check_distinct_files({{"--output", a.output}, {"--plot", a.plot}}, {});
  InventoryOnce devices;
  if (r.device.empty() && !r.validation)  // as run: the usual pair opened beside the enumeration
    devices.open_early(a.run.cfg->apis, vulkan_options(*a.run.cfg, r.timeout_s));
  RunDocument run;
  try {
    run = execute_run(a.run, command_line, devices);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {  // no API could open: as run says it, for the trace
    std::string why = e.what();
    const std::string run_says = "no API can run: ";
    if (why.rfind(run_says, 0) == 0) why = why.substr(run_says.size());
    std::cerr << "error: " << one_line("no API could trace " + a.test + ": " + why, kMaxErrorLine)
              << host_memory_limit_note(why) << '\n';
    return kExitEnvironment;
  }
  if (run.outcome.interrupted || interrupted()) {  // no trace written
    std::cerr << "error: interrupted by signal " << interrupt_signal() << "; no trace written\n";
    return interrupted_exit_code(interrupt_signal());
  }
  const TraceDocument doc = trace_document(run);
  std::cout << trace_text(doc);
  for (const std::string& m : run.validation_messages)
    std::cerr << "validation: " << printable(m) << '\n';
  const std::string json = trace_json(doc).dump() + "\n";
  if (!a.output.empty()) write_output_file(a.output, json);
  std::string plot_skipped;
  if (!a.plot.empty()) plot_skipped = draw_trace(a, json);
  if (!plot_skipped.empty()) std::cerr << "error: --plot skipped: " << plot_skipped << '\n';
  return trace_exit(doc, run.validation_messages.size(), plot_skipped);
}

}  // namespace cuvk
