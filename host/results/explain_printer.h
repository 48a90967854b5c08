// `cuvk explain`'s report (explain.h) as a table, Markdown or JSON (schema cuvk.explain/1,
// results/SCHEMA.md "Derived documents"), and that JSON read back (`cuvk report FILE`, `cuvk
// report --index`). Formatting and reading only: the ranking is explain::rank's, done once.
#pragma once

#include <string>
#include <vector>

#include "explain.h"
#include "printing.h"

namespace cuvk {

inline constexpr const char* kExplainSchema = "cuvk.explain/1";

namespace explain {

// One explained point as printed and saved: its findings already ranked.
struct RankedCase {
  std::string label;
  RatioCi ratio;
  std::string verdict;  // parity's name: "VULKAN SLOWER"
  std::vector<Finding> findings;
  std::vector<std::string> not_run;
};

// What an explain file holds: the run it diagnosed and every explained point.
struct Document {
  std::string run;
  double tolerance = kDefaultTolerance;
  std::size_t same = 0;
  std::vector<RankedCase> cases;
};

Document document_of(const Report& report);

// An explain file's JSON read back; a UsageError naming `name` and what is wrong where it is not
// a cuvk.explain/1 document.
Document read_explain(const std::string& json_text, const std::string& name);

// Whether `json_text` claims the explain schema (cuvk.explain/N).
bool is_explain_json(const std::string& json_text);

}  // namespace explain

std::string format_explain(const explain::Document& doc, Format format);
inline std::string format_explain(const explain::Report& report, Format format) {
  return format_explain(explain::document_of(report), format);
}

}  // namespace cuvk
