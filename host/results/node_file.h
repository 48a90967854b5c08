// The node file (results/SCHEMA.md, "Node files"): one `cuvk run --device all` (or a list) over a
// node's GPUs, in one document: `schema` "cuvk.node/1", `provenance`, `gpus` (per GPU its index,
// label, UUID and either `run`, a whole cuvk.results/1 run object, or `error`), `summary` (parity
// per GPU, the sibling rule, the interference check; informative). The readers take each GPU's run
// as a run of its own (run_reader.h: parse_results_all), named "<file>#gpu<index>".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_file.h"

namespace cuvk {

inline constexpr const char* kNodeSchemaFamily = "cuvk.node/";
inline constexpr int kNodeSchemaVersion = 1;

// Whether a parsed document says it is a node file (its schema is "cuvk.node/<anything>").
bool is_node_document(const nlohmann::json& doc);

// Each GPU's run of a node file, checked as a run file is (schema, devices, rows); a GPU whose
// entry holds `error` is left out. Throws UsageError naming the file and the field: foreign or
// newer schema, `gpus` missing, empty or malformed, a run that does not read, no GPU with a run.
std::vector<RunFile> parse_node_runs(const nlohmann::json& doc, const std::string& name);

// The name a node file's GPU reads under: "r.json#gpu2".
std::string node_run_name(const std::string& file, std::uint64_t index);

// One GPU of a node run, for the writer.
struct NodeEntry {
  int index = 0;
  std::string label, uuid;
  std::optional<nlohmann::json> run;       // the GPU's run object (run_json), or
  std::string error;                       // why it has none
  std::optional<nlohmann::json> together;  // --concurrent: its run measured beside the others
};

struct NodeHead {
  std::string date_utc, host, command_line, mode;  // mode: "in turn" or "concurrent"
  double wall_s = 0.0;
};

nlohmann::json node_file_json(const NodeHead& head, const std::vector<NodeEntry>& gpus,
                              const nlohmann::json& summary);

}  // namespace cuvk
