#include "explain_printer.h"

#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include <fmt/format.h>

#include "error.h"
#include "json_check.h"  // quoted, one_line

namespace cuvk {
namespace {

std::string share_cell(const explain::Finding& f) {
  if (!f.share) return "-";
  return fmt::format("{}%", static_cast<int>(*f.share * 100.0 + 0.5));
}

std::string case_heading(const explain::RankedCase& c) {
  return c.label + ": Vulkan/CUDA " + explain::number(c.ratio.ratio) + " " +
         interval_text(c.ratio) + " " + c.verdict;
}

std::string text_report(const explain::Document& r, bool markdown) {
  std::ostringstream out;
  out << heading(1, markdown, "cuvk explain") << r.run << "\n\n";
  if (r.cases.empty())
    out << "Every compared point is SAME (tolerance " << tolerance_text(r.tolerance)
        << "): nothing to explain.\n";
  for (const explain::RankedCase& c : r.cases) {
    out << heading(2, markdown, case_heading(c));
    std::vector<std::vector<std::string>> rows = {{"#", "finding", "kind", "share", "measurement"}};
    int place = 0;
    for (const explain::Finding& f : c.findings)
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

nlohmann::json case_json(const explain::RankedCase& c) {
  nlohmann::json findings = nlohmann::json::array();
  for (const explain::Finding& f : c.findings)
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
          {"verdict", c.verdict},
          {"findings", findings},
          {"not_run", c.not_run}};
}

explain::Kind kind_of(const std::string& name) {
  for (explain::Kind k : {explain::Kind::share, explain::Kind::evidence, explain::Kind::remedy,
                          explain::Kind::ruled_out, explain::Kind::residual})
    if (name == explain::kind_name(k)) return k;
  throw UsageError("unknown finding kind " + quoted(name));
}

double number_or_nan(const nlohmann::json& j) {
  return j.is_null() ? std::numeric_limits<double>::quiet_NaN() : j.get<double>();
}

explain::RankedCase read_case(const nlohmann::json& j) {
  explain::RankedCase c;
  c.label = j.at("point").get<std::string>();
  const nlohmann::json& r = j.at("ratio");
  c.ratio = {number_or_nan(r.at("value")), number_or_nan(r.at("low")), number_or_nan(r.at("high"))};
  c.verdict = j.at("verdict").get<std::string>();
  for (const nlohmann::json& f : j.at("findings")) {
    explain::Finding x;
    x.title = f.at("title").get<std::string>();
    x.kind = kind_of(f.at("kind").get<std::string>());
    if (!f.at("share").is_null()) x.share = f.at("share").get<double>();
    x.distance = number_or_nan(f.at("distance"));
    x.measurement = f.at("measurement").get<std::string>();
    c.findings.push_back(std::move(x));
  }
  c.not_run = j.at("not_run").get<std::vector<std::string>>();
  return c;
}

}  // namespace

namespace explain {

Document document_of(const Report& report) {
  Document d{report.run, report.tolerance, report.same, {}};
  for (const Case& c : report.cases)
    d.cases.push_back({c.label, c.ratio, parity_verdict_name(c.verdict), rank(c), c.not_run});
  return d;
}

bool is_explain_json(const std::string& json_text) {
  const nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, false);
  return doc.is_object() && doc.contains("schema") && doc["schema"].is_string() &&
         doc["schema"].get<std::string>().rfind("cuvk.explain/", 0) == 0;
}

Document read_explain(const std::string& json_text, const std::string& name) {
  const nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, false);
  const std::string bad = name + ": not a " + kExplainSchema + " file: ";
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != kExplainSchema)
    throw UsageError(bad + "its schema is not " + kExplainSchema);
  try {
    Document d;
    d.run = doc.at("run").get<std::string>();
    d.tolerance = doc.at("tolerance").get<double>();
    d.same = doc.at("same_points").get<std::size_t>();
    for (const nlohmann::json& c : doc.at("cases")) d.cases.push_back(read_case(c));
    return d;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(bad + one_line(e.what(), 300));
  } catch (const UsageError& e) {
    throw UsageError(bad + e.what());
  }
}

}  // namespace explain

std::string format_explain(const explain::Document& d, Format format) {
  if (format != Format::json) return text_report(d, format == Format::md);
  nlohmann::json cases = nlohmann::json::array();
  for (const explain::RankedCase& c : d.cases) cases.push_back(case_json(c));
  return nlohmann::json{{"schema", kExplainSchema},
                        {"run", d.run},
                        {"tolerance", d.tolerance},
                        {"same_points", d.same},
                        {"cases", cases}}
             .dump(2) +
         "\n";
}

}  // namespace cuvk
