// The one reader of run files (results/SCHEMA.md). Every command that reads a saved run
// (`parity --from`, `--baseline`, `report`) goes through it, so every bad input gets the same
// one-line error naming the file and the problem (a UsageError: exit code 2). The rows are read
// through the field table the writer also uses (run_file.h).
#pragma once

#include <string>
#include <vector>

#include "run_file.h"

namespace cuvk {

inline constexpr int kMaxJsonDepth = 64;  // deeper files are refused before parsing (ours use 5)

// Checks `text` against the schema and lifts it. `name` only labels errors. Throws UsageError (one
// line: "<name>: <problem>") on any bad input: empty, binary, invalid or truncated JSON, not an
// object, foreign schema, newer schema version, missing or mistyped required fields, duplicate
// rows. Never throws anything else for bad input: the libFuzzer target calls exactly this.
// A node file (node_file.h) of one GPU reads as that GPU's run; of several, it is refused here
// (parse_results_all takes it).
RunFile parse_results(const std::string& text, const std::string& name);

// Every run of the text: a run file's one, or a node file's, one per GPU that ran (each named
// "<name>#gpu<index>"). The same checks and errors as parse_results.
std::vector<RunFile> parse_results_all(const std::string& text, const std::string& name);

// The checked JSON document of `text` (empty, binary, depth, duplicate keys, an object), and a run
// object of it lifted (schema, provenance, devices, rows): parse_results' two halves.
nlohmann::json parse_results_json(const std::string& text, const std::string& name);
RunFile parse_run_json(nlohmann::json document, const std::string& name);

// Reads and parses one file (missing, unreadable, a directory: UsageError naming the file).
RunFile read_results(const std::string& path);
std::vector<RunFile> read_results_all(const std::string& path);  // parse_results_all's

// A file's text for the readers: a directory, binary data (refused at its first bytes) or more
// than kMaxResultsFileBytes (refused without reading further) is a UsageError naming the file.
inline constexpr std::size_t kMaxResultsFileBytes = std::size_t{64} << 20;  // ours: < 1 MiB
std::string read_input_file(const std::string& path);

// Reads every file (a node file: each of its GPUs' runs) before returning any, so a bad file
// anywhere stops the command before it prints anything: nothing is half-merged.
std::vector<RunFile> read_all_results(const std::vector<std::string>& paths);

}  // namespace cuvk
