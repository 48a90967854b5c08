#include "explain_printer.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace cuvk {
namespace {

std::string share_cell(const explain::Finding& f) {
  if (!f.share) return "-";
  return std::to_string(static_cast<int>(*f.share * 100.0 + 0.5)) + "%";
}

std::string case_heading(const explain::Case& c) {
  return c.label + ": Vulkan/CUDA " + explain::number(c.ratio.ratio) + " " +
         interval_text(c.ratio) + " " + parity_verdict_name(c.verdict);
}

std::string text_report(const explain::Report& r, bool markdown) {
  std::ostringstream out;
  out << heading(1, markdown, "cuvk explain") << r.run << "\n\n";
  if (r.cases.empty())
    out << "Every compared point is SAME (tolerance " << tolerance_text(r.tolerance)
        << "): nothing to explain.\n";
  for (const explain::Case& c : r.cases) {
    out << heading(2, markdown, case_heading(c));
    std::vector<std::vector<std::string>> rows = {{"#", "finding", "kind", "share", "measurement"}};
    int place = 0;
    for (const explain::Finding& f : explain::rank(c))
      rows.push_back({std::to_string(++place), f.title, explain::kind_name(f.kind), share_cell(f),
                      f.measurement});
    out << format_text_table(rows, markdown);
    for (const std::string& n : c.not_run)
      out << (markdown ? "- not run: " : "  not run: ") << n << '\n';
    out << '\n';
  }
  if (r.same > 0) out << r.same << " compared point(s) SAME: not explained.\n";
  return out.str();
}

nlohmann::json case_json(const explain::Case& c) {
  nlohmann::json findings = nlohmann::json::array();
  for (const explain::Finding& f : explain::rank(c))
    findings.push_back({{"title", f.title},
                        {"kind", explain::kind_name(f.kind)},
                        {"share", f.share ? nlohmann::json(*f.share) : nlohmann::json()},
                        {"distance", finite_or_null(f.distance)},
                        {"measurement", f.measurement}});
  return {{"point", c.label},
          {"ratio",
           {{"value", finite_or_null(c.ratio.ratio)},
            {"low", finite_or_null(c.ratio.low)},
            {"high", finite_or_null(c.ratio.high)}}},
          {"verdict", parity_verdict_name(c.verdict)},
          {"findings", findings},
          {"not_run", c.not_run}};
}

}  // namespace

std::string format_explain(const explain::Report& r, Format format) {
  if (format != Format::json) return text_report(r, format == Format::md);
  nlohmann::json cases = nlohmann::json::array();
  for (const explain::Case& c : r.cases) cases.push_back(case_json(c));
  return nlohmann::json{{"schema", kExplainSchema},
                        {"run", r.run},
                        {"tolerance", r.tolerance},
                        {"same_points", r.same},
                        {"cases", cases}}
             .dump(2) +
         "\n";
}

}  // namespace cuvk
