// The writer of run files (results/SCHEMA.md): everything one `cuvk run` produced, as the JSON
// document `--format json` prints and `--output` saves. Rows are written through the field table
// the reader also uses (run_file.h).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "devices.h"
#include "gpu_health.h"
#include "runner.h"

namespace cuvk {

// Everything one `cuvk run` produced, with what is needed for provenance.
struct RunDocument {
  RunConfig config;
  RunOutcome outcome;
  DeviceChoice choice;
  std::string command_line;
  std::string date_utc;  // ISO 8601
  std::string host;
  double wall_s = 0.0;                           // the whole command, start-up included
  double first_row_s = 0.0;                      // from launch until the first row was measured
  bool streamed = false;  // the console showed the rows as they came (only the tail is left)
  std::vector<std::string> validation_messages;  // only with --validation
  NodeView node;  // the measured GPU's health and the host thread's placement, after the rows
  std::vector<std::string>
      columns;  // --columns: the rows table's columns (table, md); all if empty
};

// The share of wall_s that the phases (outcome.phase_s) account for; 0 without a wall time.
double phase_cover(const RunDocument& doc);

nlohmann::json device_json(const DeviceInfo& d);
// How this cuvk was built (provenance.build of run and trace files).
nlohmann::json build_json();
nlohmann::json run_json(const RunDocument& doc);

}  // namespace cuvk
