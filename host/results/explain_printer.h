// `cuvk explain`'s report (explain.h) as a table, Markdown or JSON (schema cuvk.explain/1,
// results/SCHEMA.md "Derived documents"). Formatting only.
#pragma once

#include <string>

#include "explain.h"
#include "printing.h"

namespace cuvk {

inline constexpr const char* kExplainSchema = "cuvk.explain/1";

std::string format_explain(const explain::Report& report, Format format);

}  // namespace cuvk
