// The run file (results/SCHEMA.md): the schema's name, a saved run as the reader lifts it
// (RunFile), and the one table of a result row's fields that the writer (run_writer.cpp) and the
// reader (run_reader.cpp) both walk, so a field cannot drift between them. Adding a field to
// ResultRow and to the file is one entry in row_fields() (run_file.cpp) and a line in SCHEMA.md.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "dims.h"  // row_identity
#include "json_check.h"
#include "row.h"

namespace cuvk {

// ---- the schema's name, spelled once ----

inline constexpr const char* kSchemaFamily = "cuvk.results/";  // + the version
inline constexpr int kSchemaVersion = 1;  // the version this cuvk writes and the newest it reads
std::string schema_name(int version = kSchemaVersion);  // "cuvk.results/1"

// ---- a saved run, checked and lifted into the host's own row type ----

// A device as a run file records it.
struct RunDevice {
  std::string name, uuid, driver;
  bool is_cpu = false;
  std::vector<std::pair<std::string, std::string>> properties;  // string-valued ones only
  std::string property(const std::string& key) const;           // "" when absent
};

struct RunFile {
  std::string name;  // the file as the user named it (or a label such as "this run")
  int schema_version = kSchemaVersion;
  std::string date_utc, git_revision, version, host, command_line;
  std::optional<RunDevice> cuda, vulkan;
  std::string cuda_reason, vulkan_reason;  // why an API had no device ("" when it had one)
  std::vector<ResultRow> rows;
  nlohmann::json doc;  // the whole document, for fields not lifted here (settings, measurement...)

  // The device of `api` (empty for an API run files do not record: no device).
  const std::optional<RunDevice>& device(Api api) const;
  std::string gpu_name() const;       // the CUDA device's name, else the Vulkan device's
  std::string cuda_driver() const;    // "CUDA 12.4" style, "" without a CUDA device
  std::string vulkan_driver() const;  // driver name and info, "" without a Vulkan device
};

// ---- a result row's fields: one table for the writer and the reader ----

enum class Need {
  required,     // the reader refuses a row without it (or with a value of the wrong kind)
  optional,     // read when present (`read` is called either way and decides what absent means)
  informative,  // written for people and scripts; cuvk does not read it back
};
enum class Rows { all, ok, not_ok };           // which rows carry the field (by their status)
enum class OtherRows { omitted, null, zero };  // what the writer puts in the other rows

struct RowField {
  using Write = std::function<nlohmann::json(const ResultRow&)>;
  using Read = std::function<void(const JsonIn&, ResultRow&)>;
  RowField(std::string name_, Need need_, Write write_, Read read_ = nullptr,
           Rows rows_ = Rows::all, OtherRows other_rows_ = OtherRows::omitted)
      : name(std::move(name_)),
        need(need_),
        write(std::move(write_)),
        read(std::move(read_)),
        rows(rows_),
        other_rows(other_rows_) {}

  std::string name;  // the JSON key inside the row (or inside its group)
  Need need;
  Write write;  // a leaf's value
  Read read;    // a leaf's checked read (none for an informative field)
  Rows rows;
  OtherRows other_rows;
  std::vector<RowField> fields;  // a group: an object of these fields instead of write/read
  std::function<void(const JsonIn&, const ResultRow&)> check;  // a group's check once read
};

// In reading order, which is also the order of the reader's errors; the writer's output is sorted
// by key. Sweep axes are params fields, one per axes() entry.
const std::vector<RowField>& row_fields();

nlohmann::json row_json(const ResultRow& row);  // the writer's side
ResultRow read_row(const JsonIn& in);           // the reader's side: throws UsageError

// How far a stored GB/s may be from bytes / median time (relative): the rounding of a value
// printed with a few digits; cuvk itself writes both from the same numbers.
inline constexpr double kGbpsTolerance = 0.005;

// The one consistency check of a row read (read_row calls it after the field table): n and block
// size at least 1; for ok rows min <= median <= max, at least one sample, and each GB/s equal to
// its bytes / median time within kGbpsTolerance. Throws UsageError naming the row and the field.
void check_row(const JsonIn& in, const ResultRow& r);

// A point dimension's value as JSON has it (dims.h DimKind): a string, null for an empty
// text_or_null one, a number.
nlohmann::json point_json_value(const PointDim& dim, const ResultRow& row);

// Values as the file spells them: a clock sample object, a 64-bit hash as 16 hex digits.
nlohmann::json clock_json(const ClockSample& c);
std::string hash_text(std::uint64_t hash);

}  // namespace cuvk
