// Reports only format: console table, Markdown, CSV and JSON are printers over the same rows.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "devices.h"
#include "runner.h"

namespace cuvk {

enum class Format { table, md, csv, json };

inline constexpr const char* kSchema = "cuvk.results/1";

// Everything one `cuvk run` produced, with what is needed for provenance.
struct RunDocument {
  RunConfig config;
  RunOutcome outcome;
  DeviceChoice choice;
  std::string command_line;
  std::string date_utc;  // ISO 8601
  std::string host;
  double wall_s = 0.0;  // the whole command, start-up included
  std::vector<std::string> validation_messages;  // only with --validation
};

nlohmann::json device_json(const DeviceInfo& d);
nlohmann::json to_json(const RunDocument& doc);
std::string format_run(const RunDocument& doc, Format format);

// Shared by the other printers (parity, baseline, report): rows[0] is the header; columns whose
// cells start with a digit are right-aligned. And one CSV field, quoted where needed.
std::string format_text_table(const std::vector<std::vector<std::string>>& rows, bool markdown);
std::string csv_field(const std::string& s);

}  // namespace cuvk
