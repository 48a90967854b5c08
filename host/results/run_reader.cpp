#include "run_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "dims.h"
#include "error.h"
#include "lanes.h"
#include "node_file.h"

namespace cuvk {
namespace {

using nlohmann::json;

// JSON forbids raw control characters anywhere but as whitespace (tab, newline, carriage return),
// so any other is a sign of a binary file rather than a damaged text one.
std::optional<std::size_t> first_binary_byte(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return i;
  }
  return std::nullopt;
}

// Nesting depth outside strings; a cheap guard so hostile input cannot exhaust the stack of code
// that walks the parsed tree recursively.
std::size_t max_depth(const std::string& text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

std::pair<std::size_t, std::size_t> line_column(const std::string& text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// nlohmann's message after its "[json.exception...] parse error at line L, column C: " prefix.
std::string parse_problem(const std::string& what) {
  std::string s = what;
  const std::size_t tag = s.find("] ");
  if (s.rfind("[json.exception.", 0) == 0 && tag != std::string::npos) s = s.substr(tag + 2);
  if (s.rfind("parse error at line", 0) == 0) {
    const std::size_t colon = s.find(": ");
    if (colon != std::string::npos) s = s.substr(colon + 2);
  }
  return one_line(s, 2 * kMaxQuoted);
}

// The text-level checks before any parsing: empty, binary, nested too deep.
void check_text(const JsonIn& file, const std::string& text) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    file.fail(text.empty() ? "empty file (0 bytes), not a cuvk results file"
                           : "empty file (only whitespace)");
  if (const auto at = first_binary_byte(text)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "binary data, not JSON (byte 0x%02x at offset %zu)",
                  static_cast<unsigned>(static_cast<unsigned char>(text[*at])), *at);
    file.fail(buf);
  }
  if (max_depth(text) > static_cast<std::size_t>(kMaxJsonDepth))
    file.fail(
        fmt::format("JSON nested deeper than {} levels, not a cuvk results file", kMaxJsonDepth));
}

// A key that appears twice in one object: JSON leaves its meaning open (nlohmann keeps the last),
// so a file with one is refused, naming the key by its path ("results[2].params.n").
struct DuplicateKey {
  std::string path;
};

json parse_json(const JsonIn& file, const std::string& text) {
  struct Open {  // an object or array being read
    std::string path;
    bool array = false;
    std::size_t elements = 0;     // an array's elements so far
    std::set<std::string> keys;   // an object's keys so far
  };
  std::vector<Open> open;
  std::string key;  // the last key read: the name of the value that follows it
  const auto child = [&]() -> std::string {  // the path of the value starting now
    if (open.empty()) return "";
    Open& parent = open.back();
    if (parent.array) return fmt::format("{}[{}]", parent.path, parent.elements++);
    return parent.path.empty() ? key : parent.path + "." + key;
  };
  const json::parser_callback_t check_keys = [&](int /*depth*/, json::parse_event_t event,
                                                 json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start: {
        std::string path = child();
        open.push_back({std::move(path), event == json::parse_event_t::array_start, 0, {}});
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        open.pop_back();
        break;
      case json::parse_event_t::key:
        key = parsed.get<std::string>();
        if (!open.back().keys.insert(key).second) throw DuplicateKey{child()};
        break;
      case json::parse_event_t::value:
        if (!open.empty() && open.back().array) ++open.back().elements;
        break;
    }
    return true;
  };
  try {
    return json::parse(text, check_keys);
  } catch (const DuplicateKey& d) {
    file.fail(printable(d.path) + ": the key appears twice in one object (JSON leaves which "
              "value counts open): keep one");
  } catch (const json::parse_error& e) {
    if (e.byte > text.size())  // the parser ran into the end of the input
      file.fail(
          fmt::format("truncated JSON: the file ends (at byte {}) before the document is complete",
                      text.size()));
    const auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    file.fail(fmt::format("invalid JSON at line {}, column {}: {}", line, column,
                          parse_problem(e.what())));
  } catch (const json::exception& e) {  // e.g. a number out of range
    file.fail("invalid JSON: " + parse_problem(e.what()));
  }
}

// "cuvk.results/<N>" with N at most this cuvk's version; returns N.
int check_schema(const JsonIn& doc) {
  const std::optional<std::string> schema = doc.at("schema").if_string();
  if (!schema)
    doc.fail("not a cuvk results file (no \"schema\" field; expected \"" + schema_name() + "\")");
  const std::string family = kSchemaFamily;
  const std::string digits =
      schema->compare(0, family.size(), family) == 0 ? schema->substr(family.size()) : "";
  if (digits.empty() || digits.size() > 6 ||
      digits.find_first_not_of("0123456789") != std::string::npos || digits[0] == '0')
    doc.fail("foreign schema " + quoted(*schema) + " (expected \"" + schema_name() + "\")");
  const int version = std::stoi(digits);
  if (version > kSchemaVersion)
    doc.fail("written by a newer cuvk (schema \"" + *schema + "\"; this cuvk reads up to \"" +
             schema_name() + "\"): upgrade cuvk to read it");
  return version;
}

bool matches(const std::string& s, const char* pattern) {  // '9': a digit, 'x': hex, else itself
  if (s.size() != std::strlen(pattern)) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (pattern[i] == '9' ? !std::isdigit(c) : pattern[i] == 'x' ? !std::isxdigit(c) : c != pattern[i])
      return false;
  }
  return true;
}

bool is_uuid(const std::string& s) { return matches(s, "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"); }
bool is_utc_date(const std::string& s) { return matches(s, "9999-99-99T99:99:99Z"); }

// The copy queue families devices.vulkan lists, by index, with their flags
// ("0 graphics|compute|transfer x1 ts64; 2 transfer x2 ts64"; "none"); nullopt where the file
// does not list them (files from before copy queues) or lists them in a form this cuvk does not
// write.
using Families = std::map<std::uint32_t, std::string>;
std::optional<Families> listed_families(const RunFile& run) {
  if (!run.vulkan) return std::nullopt;
  const std::string text = run.vulkan->property("copy_queue_families");
  if (text.empty()) return std::nullopt;
  Families out;
  if (text == "none") return out;
  std::istringstream items(text);
  for (std::string item; std::getline(items, item, ';');) {
    std::istringstream words(item);
    std::string index, flags;
    if (!(words >> index >> flags) || index.size() > 9 ||
        index.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    out.emplace(static_cast<std::uint32_t>(std::stoul(index)), flags);
  }
  return out;
}

// A row against the file's devices: a row that ran on an API needs that API's device, and a copy
// queue row a family the device lists, with that family's flags.
void check_row_devices(const JsonIn& row, const ResultRow& r, const RunFile& run,
                       const std::optional<Families>& families) {
  const bool ran = r.status != Status::unavailable;
  const std::optional<RunDevice>& device = run.device(r.api);
  if (ran && !device)
    row.at("api").fail(std::string("\"") + api_name(r.api) + "\" in a row that ran (status \"" +
                       status_name(r.status) + "\"), but devices." + api_name(r.api) +
                       " is null (no device)");
  if (!r.queue_family) {
    if (!r.queue_flags.empty())
      row.at("queue_flags").fail(quoted(r.queue_flags) + " without a queue_family");
    return;
  }
  if (!families) return;
  const auto f = families->find(*r.queue_family);
  if (f == families->end()) {
    std::vector<std::uint32_t> indices;
    for (const auto& [index, flags] : *families) indices.push_back(index);
    const std::string list = fmt::format("{}", fmt::join(indices, ", "));
    row.at("queue_family")
        .fail(fmt::format("{} is not a copy queue family of devices.vulkan ({})", *r.queue_family,
                          list.empty() ? std::string("it lists none") : "it lists " + list));
  }
  if (r.queue_flags != f->second)
    row.at("queue_flags")
        .fail(fmt::format("{} contradicts devices.vulkan: queue family {} is {}",
                          quoted(r.queue_flags), f->first, quoted(f->second)));
}

std::optional<RunDevice> read_device(const JsonIn& d) {
  if (d.required().value().is_null()) return std::nullopt;
  if (!d.value().is_object())
    d.fail(std::string("expected an object or null, found ") + type_of(d.value()));
  RunDevice dev;
  dev.name = d.at("name").string();
  dev.uuid = d.at("uuid").string();
  if (!is_uuid(dev.uuid))
    d.at("uuid").fail("expected a UUID (8-4-4-4-12 hex digits), found " + cuvk::quoted(dev.uuid));
  dev.driver = d.at("driver").string();
  const JsonIn cpu = d.at("is_cpu");
  dev.is_cpu = cpu.present() && cpu.value().is_boolean() && cpu.value().get<bool>();
  const JsonIn props = d.at("properties");
  if (props.present() && props.value().is_object())
    for (const auto& [k, v] : props.value().items())
      if (v.is_string()) dev.properties.emplace_back(k, v.get<std::string>());
  return dev;
}

void read_provenance_and_devices(const JsonIn& doc, RunFile& run) {
  const JsonIn prov = doc.at("provenance").object();
  run.date_utc = prov.at("date_utc").string();
  if (!is_utc_date(run.date_utc))
    prov.at("date_utc").fail("expected a UTC date as YYYY-MM-DDTHH:MM:SSZ, found " +
                             cuvk::quoted(run.date_utc));
  run.git_revision = prov.at("git_revision").string();
  run.version = prov.at("version").if_string().value_or("");
  run.host = prov.at("host").if_string().value_or("");
  run.command_line = prov.at("command_line").if_string().value_or("");
  const JsonIn devices = doc.at("devices").object();
  run.cuda = read_device(devices.at("cuda"));
  run.vulkan = read_device(devices.at("vulkan"));
  run.cuda_reason = devices.at("cuda_unavailable_reason").if_string().value_or("");
  run.vulkan_reason = devices.at("vulkan_unavailable_reason").if_string().value_or("");
}

// The queue family a Vulkan copy-engine row of a file from before copy queues ran on: every
// launch then ran on the device's compute family (devices.vulkan.properties), so the row matches
// that family's row of a newer run. Unset where the file does not say.
std::optional<std::uint32_t> old_copy_family(const RunFile& run) {
  if (!run.vulkan) return std::nullopt;
  const std::string family = run.vulkan->property("compute_queue_family");
  if (family.empty() || family.size() > 9 ||
      family.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return static_cast<std::uint32_t>(std::stoul(family));
}

// A run with several sizes (--n list) has rows that differ in n alone: every row's label then
// names its n, as the run's own output did (ResultRow::n_in_label).
void label_sizes(std::vector<ResultRow>& rows) {
  std::map<std::string, std::uint32_t> n_of;
  bool sized = false;
  for (const ResultRow& r : rows) {
    ResultRow any_n = r;
    any_n.n = 0;
    const auto [it, fresh] = n_of.emplace(row_identity(any_n), r.n);
    sized = sized || (!fresh && it->second != r.n);
  }
  if (sized)
    for (ResultRow& r : rows) r.n_in_label = true;
}

void read_rows(const JsonIn& doc, RunFile& run) {
  const JsonIn results = doc.at("results").array();
  std::map<std::string, std::size_t> seen;
  const std::optional<std::uint32_t> copy_family = old_copy_family(run);
  // "test, layout, variant, api, binding, queue family and params": the identity dimensions of
  // the row itself (dims.h, lanes.h), then its params object
  std::string names;
  for (const DimColumn& c : dim_columns(kPointFile, kLaneJson))
    if (c.point ? c.point->identity && c.point->group.empty() : lane_dims()[c.lane].identity)
      names += (c.point ? c.point->name : lane_dims()[c.lane].header) + ", ";
  const std::optional<Families> families = listed_families(run);
  for (std::size_t i = 0; i < results.value().size(); ++i) {
    const JsonIn row = results.element(i);
    run.rows.push_back(read_row(row));
    ResultRow& r = run.rows.back();
    check_row_devices(row, r, run, families);
    if (r.api == Api::vulkan && r.kernel == kCopyEngine && !r.queue_family)
      r.queue_family = copy_family;
    const auto [it, fresh] = seen.emplace(row_identity(run.rows.back()), i);
    if (!fresh)
      row.fail(fmt::format("repeats results[{}] (same {} and params)", it->second,
                           names.substr(0, names.size() - 2)));
  }
  label_sizes(run.rows);
}

}  // namespace

json parse_results_json(const std::string& text, const std::string& name) {
  const json no_document;
  const JsonIn file(name, no_document);
  check_text(file, text);
  json doc = parse_json(file, text);
  if (!doc.is_object())
    JsonIn(name, doc).fail(std::string("not a cuvk results file: the top level is ") +
                           type_of(doc) + ", not an object");
  return doc;
}

RunFile parse_run_json(json document, const std::string& name) {
  RunFile run;
  run.name = name;
  run.doc = std::move(document);
  const JsonIn doc(name, run.doc);
  if (!run.doc.is_object())
    doc.fail(std::string("not a cuvk run: ") + type_of(run.doc) + ", not an object");
  run.schema_version = check_schema(doc);
  try {
    read_provenance_and_devices(doc, run);
    read_rows(doc, run);
  } catch (const json::exception& e) {  // defensive: every access above is checked first
    doc.fail(std::string("unexpected JSON structure: ") + parse_problem(e.what()));
  }
  return run;
}

RunFile parse_results(const std::string& text, const std::string& name) {
  json doc = parse_results_json(text, name);
  if (!is_node_document(doc)) return parse_run_json(std::move(doc), name);
  std::vector<RunFile> runs = parse_node_runs(doc, name);  // node_file.cpp
  if (runs.size() != 1)
    JsonIn(name, doc).fail(
        fmt::format("a node file of {} GPUs where one run is read (cuvk parity --from, cuvk report "
                    "and --baseline take it whole; see results/SCHEMA.md)",
                    runs.size()));
  return std::move(runs.front());
}

std::vector<RunFile> parse_results_all(const std::string& text, const std::string& name) {
  json doc = parse_results_json(text, name);
  if (is_node_document(doc)) return parse_node_runs(doc, name);
  std::vector<RunFile> one;
  one.push_back(parse_run_json(std::move(doc), name));
  return one;
}

std::string read_input_file(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    throw UsageError(path + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw UsageError(path + ": is a directory, not a results file");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UsageError(path + ": cannot open: " + std::strerror(errno));
  // Read in chunks: binary data is refused at its first bytes (/dev/zero, /dev/urandom), and no
  // file is read past the cap, so a hostile input costs neither time nor memory.
  constexpr std::size_t kChunk = 64 * 1024;
  std::string text;
  std::vector<char> chunk(kChunk);
  while (f) {
    f.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const std::size_t got = static_cast<std::size_t>(f.gcount());
    for (std::size_t i = 0; i < got; ++i) {
      const auto c = static_cast<unsigned char>(chunk[i]);
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
        char msg[96];
        std::snprintf(msg, sizeof msg, "binary data, not JSON (byte 0x%02x at offset %zu)", c,
                      text.size() + i);
        throw UsageError(path + ": " + msg);
      }
    }
    if (text.size() + got > kMaxResultsFileBytes)
      throw UsageError(fmt::format("{}: larger than {} MiB, not a cuvk results file", path,
                                   kMaxResultsFileBytes >> 20));
    text.append(chunk.data(), got);
  }
  if (f.bad()) throw UsageError(path + ": read error");
  return text;
}

RunFile read_results(const std::string& path) {
  try {
    return parse_results(read_input_file(path), path);
  } catch (const std::bad_alloc&) {  // an environment fault (exit 3), with the file named
    throw Error(path + ": out of host memory while reading it (std::bad_alloc)");
  }
}

std::vector<RunFile> read_results_all(const std::string& path) {
  try {
    return parse_results_all(read_input_file(path), path);
  } catch (const std::bad_alloc&) {
    throw Error(path + ": out of host memory while reading it (std::bad_alloc)");
  }
}

std::vector<RunFile> read_all_results(const std::vector<std::string>& paths) {
  std::vector<RunFile> runs;
  runs.reserve(paths.size());
  for (const std::string& p : paths)
    for (RunFile& r : read_results_all(p)) runs.push_back(std::move(r));
  return runs;
}

}  // namespace cuvk
