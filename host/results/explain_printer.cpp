#include "explain_printer.h"

#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include <fmt/format.h>

#include "error.h"
#include "json_check.h"  // JsonIn, quoted, printable
#include "run_reader.h"  // parse_results_json
#include "verdicts.h"

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
  out << heading(1, markdown, "cuvk explain") << printable(r.run) << "\n\n";
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
      out << (markdown ? "- not run: " : "  not run: ") << printable(n) << '\n';
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

// Issue 49, item 9: an explain file read by `report` is checked as a run file is (json_check.h):
// every value through a JsonIn, so a problem is one line naming the field's path, and a value the
// printer could not show truthfully (a negative count, a share beyond 100%, an unknown verdict) is
// refused rather than printed.
explain::Kind kind_of(const JsonIn& in) {
  const std::string name = in.string();
  for (explain::Kind k : {explain::Kind::share, explain::Kind::evidence, explain::Kind::remedy,
                          explain::Kind::ruled_out, explain::Kind::residual})
    if (name == explain::kind_name(k)) return k;
  in.fail("unknown finding kind " + quoted(name));
}

double number_or_nan(const JsonIn& in) {  // a ratio, its bounds, a distance: >= 0, or null
  return in.required().value().is_null() ? std::numeric_limits<double>::quiet_NaN() : in.number();
}

std::string verdict_of(const JsonIn& in) {
  const std::string v = in.string();
  for (Verdict k : {Verdict::same, Verdict::faster, Verdict::slower, Verdict::uncertain})
    if (v == parity_verdict_name(k)) return v;
  in.fail("unknown verdict " + quoted(v) +
          " (expected SAME, VULKAN FASTER, VULKAN SLOWER or UNCERTAIN)");
}

explain::Finding read_finding(const JsonIn& f) {
  f.object();
  explain::Finding x;
  x.title = f.at("title").string();
  x.kind = kind_of(f.at("kind"));
  if (const JsonIn share = f.at("share"); !share.required().value().is_null()) {
    x.share = share.number();
    if (*x.share > 1.0)
      share.fail(fmt::format("expected a fraction from 0 to 1, found {}", share.value().dump()));
  }
  x.distance = number_or_nan(f.at("distance"));
  x.measurement = f.at("measurement").string();
  return x;
}

explain::RankedCase read_case(const JsonIn& j) {
  j.object();
  explain::RankedCase c;
  c.label = j.at("point").string();
  const JsonIn r = j.at("ratio").object();
  c.ratio = {number_or_nan(r.at("value")), number_or_nan(r.at("low")),
             number_or_nan(r.at("high"))};
  c.verdict = verdict_of(j.at("verdict"));
  const JsonIn findings = j.at("findings").array();
  for (std::size_t i = 0; i < findings.value().size(); ++i)
    c.findings.push_back(read_finding(findings.element(i)));
  const JsonIn not_run = j.at("not_run").array();
  for (std::size_t i = 0; i < not_run.value().size(); ++i)
    c.not_run.push_back(not_run.element(i).string());
  return c;
}

// "cuvk.explain/<N>": N newer than this cuvk's is named as such, anything else is foreign.
void check_explain_schema(const JsonIn& doc) {
  const std::string family = "cuvk.explain/";
  const std::optional<std::string> schema = doc.at("schema").if_string();
  if (!schema) doc.fail(std::string("not a cuvk explain file (no \"schema\" field; expected \"") +
                        kExplainSchema + "\")");
  if (*schema == kExplainSchema) return;
  const std::string digits =
      schema->compare(0, family.size(), family) == 0 ? schema->substr(family.size()) : "";
  if (!digits.empty() && digits.size() <= 6 && digits[0] != '0' &&
      digits.find_first_not_of("0123456789") == std::string::npos)
    doc.fail("written by a newer cuvk (schema " + quoted(*schema) + "; this cuvk reads up to \"" +
             kExplainSchema + "\"): upgrade cuvk to read it");
  doc.fail("foreign schema " + quoted(*schema) + " (expected \"" + kExplainSchema + "\")");
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
  const nlohmann::json root = parse_results_json(json_text, name);  // bounded, duplicate keys
  const JsonIn doc(name, root);
  check_explain_schema(doc);
  Document d;
  d.run = doc.at("run").string();
  d.tolerance = doc.at("tolerance").number(true);
  if (d.tolerance >= 1.0)
    doc.at("tolerance").fail(
        fmt::format("expected a fraction above 0 and below 1, found {}", root["tolerance"].dump()));
  d.same = doc.at("same_points").u32();
  const JsonIn cases = doc.at("cases").array();
  for (std::size_t i = 0; i < cases.value().size(); ++i)
    d.cases.push_back(read_case(cases.element(i)));
  return d;
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
