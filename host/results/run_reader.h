// The one reader of result files ("cuvk.results/1", results/SCHEMA.md). Every command that reads a
// saved run (`parity --from`, `--baseline`, `report`) goes through it, so every bad input gets the
// same one-line error naming the file and the problem (a UsageError: exit code 2).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner.h"

namespace cuvk {

inline constexpr const char* kSchemaPrefix = "cuvk.results/";
inline constexpr int kSchemaVersion = 1;  // the version this cuvk writes and the newest it reads
inline constexpr int kMaxJsonDepth = 64;  // deeper files are refused before parsing (ours use 5)

// A device as a run file records it.
struct RunDevice {
  std::string name, uuid, driver;
  bool is_cpu = false;
  std::vector<std::pair<std::string, std::string>> properties;  // string-valued ones only
  std::string property(const std::string& key) const;           // "" when absent
};

// One saved run, checked and lifted into the host's own row type.
struct RunFile {
  std::string name;  // the file as the user named it (or a label such as "this run")
  int schema_version = kSchemaVersion;
  std::string date_utc, git_revision, version, host, command_line;
  std::optional<RunDevice> cuda, vulkan;
  std::string cuda_reason, vulkan_reason;  // why an API had no device ("" when it had one)
  std::vector<ResultRow> rows;
  nlohmann::json doc;  // the whole document, for fields not lifted here (settings, measurement...)

  std::string gpu_name() const;       // the CUDA device's name, else the Vulkan device's
  std::string cuda_driver() const;    // "CUDA 12.4" style, "" without a CUDA device
  std::string vulkan_driver() const;  // driver name and info, "" without a Vulkan device
};

// Checks `text` against the schema and lifts it. `name` only labels errors. Throws UsageError (one
// line: "<name>: <problem>") on any bad input: empty, binary, invalid or truncated JSON, not an
// object, foreign schema, newer schema version, missing or mistyped required fields, duplicate
// rows. Never throws anything else for bad input: the libFuzzer target calls exactly this.
RunFile parse_results(const std::string& text, const std::string& name);

// Reads and parses one file (missing, unreadable, a directory: UsageError naming the file).
RunFile read_results(const std::string& path);

// Reads every file before returning any, so a bad file anywhere stops the command before it
// prints anything: nothing is half-merged.
std::vector<RunFile> read_all_results(const std::vector<std::string>& paths);

// Parameter point as text: "offset=4", "stride=8", "" (catalogue sweep when the test is known,
// else whatever differs from the defaults, so rows of tests this cuvk does not know still read).
std::string point_text(const ResultRow& row);

}  // namespace cuvk
