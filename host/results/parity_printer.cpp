#include "parity_printer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "util.h"

namespace cuvk {
namespace {

using nlohmann::json;


std::string bound(double v) {
  return std::isfinite(v) ? fmt("%.3f", v) : "inf";
}
std::string interval(const RatioCi& r) {
  return "[" + bound(r.low) + ", " + bound(r.high) + "]";
}
std::string dash(const std::string& s) {
  return s.empty() ? "-" : s;
}
json null_if_empty(const std::string& s) {
  return s.empty() ? json(nullptr) : json(s);
}
json finite_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string ms_cell(const std::optional<ResultRow>& r) {
  if (!r) return "-";
  if (r->status == Status::ok) return fmt("%.4f", r->time_ms.median);
  return r->status == Status::failed ? "FAILED" : "-";
}

std::string heading(int level, bool markdown, const std::string& text) {
  if (!markdown) return text + "\n";
  return std::string(static_cast<std::size_t>(level), '#') + " " + text + "\n\n";
}

std::string tolerance_text(double tol) {
  return fmt("%.3g", 100.0 * tol) + "%";
}

json side_json(const std::optional<ResultRow>& r) {
  if (!r) return nullptr;
  json j = {{"status", status_name(r->status)},
            {"verified", r->verified},
            {"output_fnv1a64", r->output_hash ? json(hex64(*r->output_hash)) : json(nullptr)}};
  if (r->status == Status::ok) {
    j["median_ms"] = r->time_ms.median;
    j["ci_low_ms"] = r->time_ms.ci_low;
    j["ci_high_ms"] = r->time_ms.ci_high;
  } else {
    j["reason"] = r->reason;
  }
  return j;
}

json point_json(const ResultRow& r) {
  return {{"test", r.test},
          {"layout", null_if_empty(r.layout)},
          {"variant", r.variant},
          {"point", point_text(r)},
          {"n", r.n},
          {"offset", r.axes.get("offset")},
          {"stride", r.axes.get("stride")},
          {"block_size", r.block_size}};
}

const char* state_name(PairState s) {
  switch (s) {
    case PairState::compared:
      return "compared";
    case PairState::failed:
      return "failed";
    case PairState::unavailable:
      return "not_compared";
  }
  return "?";
}

std::string csv_ms(const std::optional<ResultRow>& r, double Summary::*field) {
  return r && r->status == Status::ok ? fmt("%.6g", r->time_ms.*field) : "";
}

std::string csv_line(const char* comparison, const ResultRow& p, const std::string& api,
                     Binding binding, const std::optional<ResultRow>& num,
                     const std::optional<ResultRow>& den, bool compared, const RatioCi& ratio,
                     const std::string& verdict, const std::string& outputs,
                     const std::string& reason) {
  std::ostringstream out;
  out << comparison << ',' << csv_field(p.test) << ',' << csv_field(p.layout) << ','
      << csv_field(p.variant) << ',' << api << ',' << binding_name(binding) << ',' << p.n << ','
      << p.axes.get("offset") << ',' << p.axes.get("stride") << ',' << p.block_size << ',' << csv_ms(num, &Summary::median)
      << ',' << csv_ms(num, &Summary::ci_low) << ',' << csv_ms(num, &Summary::ci_high) << ','
      << csv_ms(den, &Summary::median) << ',' << csv_ms(den, &Summary::ci_low) << ','
      << csv_ms(den, &Summary::ci_high) << ',';
  if (compared)
    out << fmt("%.6g", ratio.ratio) << ','
        << (std::isfinite(ratio.low) ? fmt("%.6g", ratio.low) : "") << ','
        << (std::isfinite(ratio.high) ? fmt("%.6g", ratio.high) : "");
  else
    out << ",,";
  out << ',' << csv_field(verdict) << ',' << outputs << ',' << csv_field(reason) << '\n';
  return out.str();
}

std::string parity_verdict_cell(const ParityLine& l) {
  if (l.state == PairState::failed) return "FAILED";
  if (l.state == PairState::unavailable) return "NOT COMPARED";
  return parity_verdict_name(l.verdict);
}

std::string baseline_verdict_cell(const BaselineLine& l) {
  return l.compared ? baseline_verdict_name(l.verdict) : "NOT COMPARED";
}

std::string row_label(const ResultRow& r) {
  return r.test + (r.layout.empty() ? "" : " " + r.layout) + " " + r.variant +
         (point_text(r).empty() ? "" : " " + point_text(r)) + " block " +
         std::to_string(r.block_size) + " n " + std::to_string(r.n) + " " + api_name(r.api) +
         (r.binding == native_binding(r.api) ? "" : std::string(" ") + binding_name(r.binding));
}

}  // namespace

std::string describe_run(const RunFile& run) {
  std::string s = run.name + ": " + run.gpu_name();
  if (run.cuda) s += ", " + run.cuda_driver();
  if (run.vulkan) s += ", Vulkan " + run.vulkan_driver();
  s += "; " + run.date_utc + ", cuvk " + run.git_revision;
  return s;
}

json run_identity_json(const RunFile& run) {
  return {{"file", run.name},
          {"gpu", run.gpu_name()},
          {"cuda_uuid", run.cuda ? json(run.cuda->uuid) : json(nullptr)},
          {"vulkan_uuid", run.vulkan ? json(run.vulkan->uuid) : json(nullptr)},
          {"cuda_driver", null_if_empty(run.cuda_driver())},
          {"vulkan_driver", null_if_empty(run.vulkan_driver())},
          {"date_utc", run.date_utc},
          {"git_revision", run.git_revision}};
}

json parity_json(const RunFile& run, const ParityResult& p) {
  json rows = json::array();
  for (const ParityLine& l : p.lines) {
    json j = point_json(l.point);
    j["cuda"] = side_json(l.cuda);
    j["vulkan"] = side_json(l.vulkan);
    j["vulkan_binding"] = binding_name(l.vulkan_binding);
    j["state"] = state_name(l.state);
    const bool compared = l.state == PairState::compared;
    j["vulkan_over_cuda"] = compared ? json(l.ratio.ratio) : json(nullptr);
    j["ratio_ci_low"] = compared ? finite_or_null(l.ratio.low) : json(nullptr);
    j["ratio_ci_high"] = compared ? finite_or_null(l.ratio.high) : json(nullptr);
    j["verdict"] = parity_verdict_cell(l);
    j["outputs"] = output_check_name(l.outputs);
    j["reason"] = null_if_empty(l.reason);
    rows.push_back(j);
  }
  return {{"comparison", "vulkan/cuda"},
          {"run", run_identity_json(run)},
          {"tolerance", p.tolerance},
          {"interval", "95%: the two medians' intervals combined in log space, in quadrature"},
          {"rows", rows},
          {"counts",
           {{"same", p.same},
            {"vulkan_faster", p.faster},
            {"vulkan_slower", p.slower},
            {"uncertain", p.uncertain},
            {"failed", p.failed},
            {"not_compared", p.unavailable},
            {"outputs_identical", p.outputs_identical},
            {"outputs_mismatch", p.outputs_mismatch}}},
          {"not_compared_reason", null_if_empty(p.not_compared_reason)},
          {"exit_code", p.exit_code}};
}

json baseline_json(const BaselineResult& b) {
  json rows = json::array();
  for (const BaselineLine& l : b.lines) {
    json j = point_json(l.now);
    j["api"] = api_name(l.now.api);
    j["binding"] = binding_name(l.now.binding);
    j["now"] = side_json(l.now);
    j["baseline"] = side_json(l.base);
    j["now_over_baseline"] = l.compared ? json(l.ratio.ratio) : json(nullptr);
    j["ratio_ci_low"] = l.compared ? finite_or_null(l.ratio.low) : json(nullptr);
    j["ratio_ci_high"] = l.compared ? finite_or_null(l.ratio.high) : json(nullptr);
    j["verdict"] = baseline_verdict_cell(l);
    j["reason"] = null_if_empty(l.reason);
    rows.push_back(j);
  }
  json only = json::array();
  for (const ResultRow& r : b.only_in_baseline) {
    json j = point_json(r);
    j["api"] = api_name(r.api);
    j["binding"] = binding_name(r.binding);
    only.push_back(j);
  }
  return {{"comparison", "new/baseline"},
          {"baseline", b.baseline_name},
          {"tolerance", b.tolerance},
          {"notes", b.notes},
          {"rows", rows},
          {"only_in_baseline", only},
          {"counts",
           {{"same", b.same},
            {"faster", b.faster},
            {"slower", b.slower},
            {"uncertain", b.uncertain},
            {"not_compared", b.not_compared},
            {"unavailable_in_both", b.unavailable_both},
            {"only_in_baseline", b.only_in_baseline.size()}}},
          {"exit_code", b.exit_code}};
}

std::string parity_text(const RunFile& run, const ParityResult& p, bool md, int level) {
  std::ostringstream out;
  const char* bullet = md ? "- " : "  ";
  if (level > 0) out << heading(level, md, "CUDA vs Vulkan parity");
  out << bullet << "run " << describe_run(run) << '\n';
  out << bullet
      << "Vulkan/CUDA ratio of median GPU times with its 95% confidence interval; SAME = the "
      << "interval lies inside 1 +- " << tolerance_text(p.tolerance)
      << ", VULKAN FASTER/SLOWER = entirely outside, UNCERTAIN = it crosses a tolerance edge\n";
  out << bullet
      << "outputs: the two APIs' output buffers, bit for bit (FNV-1a 64 hashes; each API is "
      << "also checked element by element against the CPU reference)\n\n";
  bool modes = false;  // a column for the Vulkan binding mode only when a run has another one
  for (const ParityLine& l : p.lines)
    modes = modes || l.vulkan_binding != native_binding(Api::vulkan);
  std::vector<std::vector<std::string>> t = {{"test", "layout", "variant", "point", "block",
                                              "CUDA ms", "Vulkan ms", "Vulkan/CUDA", "95% CI",
                                              "verdict", "outputs"}};
  if (modes) t[0].insert(t[0].begin() + 5, "Vulkan binding");
  std::vector<std::string> notes;
  for (const ParityLine& l : p.lines) {
    const bool c = l.state == PairState::compared;
    t.push_back({l.point.test, dash(l.point.layout), l.point.variant, dash(point_text(l.point)),
                 std::to_string(l.point.block_size), ms_cell(l.cuda), ms_cell(l.vulkan),
                 c ? fmt("%.3f", l.ratio.ratio) : "-", c ? interval(l.ratio) : "-",
                 parity_verdict_cell(l),
                 l.outputs == OutputCheck::unknown ? "-" : output_check_name(l.outputs)});
    if (modes) t.back().insert(t.back().begin() + 5, binding_name(l.vulkan_binding));
    if (!l.reason.empty() && std::find(notes.begin(), notes.end(), l.reason) == notes.end())
      notes.push_back(l.reason);
  }
  out << format_text_table(t, md);
  for (const std::string& n : notes) out << (md ? "\n- " : "\n") << n;
  if (!notes.empty()) out << '\n';
  out << '\n'
      << (md ? "**Verdicts:** " : "Verdicts: ") << p.same << " SAME, " << p.faster
      << " VULKAN FASTER, " << p.slower << " VULKAN SLOWER, " << p.uncertain << " UNCERTAIN";
  if (p.failed) out << ", " << p.failed << " FAILED";
  if (p.unavailable) out << ", " << p.unavailable << " NOT COMPARED";
  out << "; outputs identical on " << p.outputs_identical << " of "
      << (p.outputs_identical + p.outputs_mismatch) << " hashed points";
  if (p.outputs_mismatch) out << " (" << p.outputs_mismatch << " MISMATCH)";
  out << ".\n";
  return out.str();
}

std::string baseline_text(const BaselineResult& b, bool md, int level) {
  std::ostringstream out;
  const char* bullet = md ? "- " : "  ";
  const std::string now = b.now_name == "this run" ? "This run" : b.now_name;
  out << heading(level, md, now + " vs baseline " + b.baseline_name);
  out << bullet
      << "now/baseline ratio of median GPU times with its 95% confidence interval; SAME = "
      << "inside 1 +- " << tolerance_text(b.tolerance)
      << "; SLOWER (entirely above) fails the run\n";
  for (const std::string& n : b.notes) out << bullet << "note: " << n << '\n';
  out << '\n';
  bool modes = false;
  for (const BaselineLine& l : b.lines) modes = modes || l.now.binding != native_binding(l.now.api);
  std::vector<std::vector<std::string>> t = {{"test", "layout", "variant", "point", "block", "api",
                                              "baseline ms", "now ms", "now/baseline", "95% CI",
                                              "verdict"}};
  if (modes) t[0].insert(t[0].begin() + 6, "binding");
  std::vector<std::string> notes;
  for (const BaselineLine& l : b.lines) {
    t.push_back({l.now.test, dash(l.now.layout), l.now.variant, dash(point_text(l.now)),
                 std::to_string(l.now.block_size), api_name(l.now.api), ms_cell(l.base),
                 ms_cell(l.now), l.compared ? fmt("%.3f", l.ratio.ratio) : "-",
                 l.compared ? interval(l.ratio) : "-", baseline_verdict_cell(l)});
    if (modes) t.back().insert(t.back().begin() + 6, binding_name(l.now.binding));
    if (!l.compared) notes.push_back(row_label(l.now) + ": " + l.reason);
  }
  if (t.size() > 1) out << format_text_table(t, md);
  if (!notes.empty()) out << '\n' << (md ? "Not compared:\n" : "not compared:\n");
  for (const std::string& n : notes) out << (md ? "- " : "  ") << n << '\n';
  if (!b.only_in_baseline.empty())
    out << '\n'
        << (md ? "Only in the baseline (not measured now):\n"
               : "only in the baseline (not measured now):\n");
  for (const ResultRow& r : b.only_in_baseline)
    out << (md ? "- " : "  ") << row_label(r)
        << (r.status == Status::ok ? "" : std::string(" (") + status_name(r.status) + " there)")
        << '\n';
  out << '\n'
      << (md ? "**Verdicts:** " : "Verdicts: ") << b.same << " SAME, " << b.faster << " FASTER, "
      << b.slower << " SLOWER, " << b.uncertain << " UNCERTAIN; " << b.not_compared
      << " not compared, " << b.only_in_baseline.size() << " only in the baseline";
  if (b.unavailable_both) out << ", " << b.unavailable_both << " unavailable in both runs";
  out << ".\n";
  return out.str();
}

std::string comparison_csv_header() {
  return "comparison,test,layout,variant,api,binding,n,offset,stride,block_size,numerator_ms,"
         "numerator_ci_low_ms,numerator_ci_high_ms,denominator_ms,denominator_ci_low_ms,"
         "denominator_ci_high_ms,ratio,ratio_ci_low,ratio_ci_high,verdict,outputs,reason\n";
}

std::string parity_csv_rows(const ParityResult& p) {
  std::string s;
  for (const ParityLine& l : p.lines)
    s += csv_line("vulkan/cuda", l.point, "", l.vulkan_binding, l.vulkan, l.cuda,
                  l.state == PairState::compared, l.ratio, parity_verdict_cell(l),
                  output_check_name(l.outputs), l.reason);
  return s;
}

std::string baseline_csv_rows(const BaselineResult& b) {
  std::string s;
  for (const BaselineLine& l : b.lines)
    s += csv_line("new/baseline", l.now, api_name(l.now.api), l.now.binding, l.now, l.base,
                  l.compared, l.ratio, baseline_verdict_cell(l), "", l.reason);
  for (const ResultRow& r : b.only_in_baseline)
    s += csv_line("new/baseline", r, api_name(r.api), r.binding, std::nullopt, r, false, {},
                  "NOT COMPARED", "", "only in the baseline");
  return s;
}

std::string format_parity(const RunFile& run, const ParityResult& p, const BaselineResult* b,
                          Format f) {
  switch (f) {
    case Format::json: {
      json j = {{"schema", kParitySchema}, {"parity", parity_json(run, p)}};
      if (b) j["baseline"] = baseline_json(*b);
      return j.dump(2) + "\n";
    }
    case Format::csv:
      return comparison_csv_header() + parity_csv_rows(p) + (b ? baseline_csv_rows(*b) : "");
    case Format::table:
    case Format::md: {
      const bool md = f == Format::md;
      std::string s = parity_text(run, p, md);
      if (b) s += "\n" + baseline_text(*b, md);
      return s;
    }
  }
  return {};
}

std::string format_baseline(const BaselineResult& b, Format f) {
  switch (f) {
    case Format::json:
      return json({{"schema", kParitySchema}, {"baseline", baseline_json(b)}}).dump(2) + "\n";
    case Format::csv:
      return comparison_csv_header() + baseline_csv_rows(b);
    case Format::table:
    case Format::md:
      return baseline_text(b, f == Format::md);
  }
  return {};
}

}  // namespace cuvk
