#include "run_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "catalogue.h"
#include "error.h"

namespace cuvk {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxQuoted = 60;  // longest piece of file content quoted in an error

// Text from the file (or from the JSON library quoting it) made fit for a one-line error:
// control characters replaced, cut at `max` characters.
std::string one_line(const std::string& s, std::size_t max) {
  std::string out;
  for (char c : s.substr(0, max))
    out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  return s.size() > max ? out + "..." : out;
}

std::string quoted(const std::string& s) {
  return "'" + one_line(s, kMaxQuoted) + "'";
}

const char* type_of(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

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

// Reads fields with a JSON path in every error ("results[3].params.n: ...").
class Checker {
 public:
  explicit Checker(std::string name) : name_(std::move(name)) {}

  [[noreturn]] void fail(const std::string& problem) const {
    throw UsageError(name_ + ": " + problem);
  }
  [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
    fail(path + ": " + problem);
  }

  const json& field(const json& obj, const char* key, const std::string& path) const {
    const auto it = obj.find(key);
    if (it == obj.end()) fail(join(path, key), "missing (required)");
    return *it;
  }
  const json& object(const json& obj, const char* key, const std::string& path) const {
    const json& v = field(obj, key, path);
    if (!v.is_object())
      fail(join(path, key), std::string("expected an object, found ") + type_of(v));
    return v;
  }
  std::string string(const json& obj, const char* key, const std::string& path) const {
    const json& v = field(obj, key, path);
    if (!v.is_string())
      fail(join(path, key), std::string("expected a string, found ") + type_of(v));
    return v.get<std::string>();
  }
  std::string optional_string(const json& obj, const char* key) const {
    const auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
  }
  bool boolean(const json& obj, const char* key, const std::string& path) const {
    const json& v = field(obj, key, path);
    if (!v.is_boolean())
      fail(join(path, key), std::string("expected true or false, found ") + type_of(v));
    return v.get<bool>();
  }
  std::uint64_t unsigned_int(const json& obj, const char* key, const std::string& path,
                             std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const {
    const json& v = field(obj, key, path);
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > max)
      fail(join(path, key), "expected an integer from 0 to " + std::to_string(max) + ", found " +
                                (v.is_number() ? v.dump() : type_of(v)));
    return v.get<std::uint64_t>();
  }
  // A finite number >= 0, or > 0 when `positive` (a time that a ratio divides by).
  double number(const json& obj, const char* key, const std::string& path,
                bool positive = false) const {
    const json& v = field(obj, key, path);
    const double x = v.is_number() ? v.get<double>() : 0.0;
    if (!v.is_number() || !std::isfinite(x) || x < 0.0 || (positive && x == 0.0))
      fail(join(path, key), std::string("expected a finite number ") +
                                (positive ? "above 0" : ">= 0") + ", found " +
                                (v.is_number() ? v.dump() : type_of(v)));
    return x;
  }

  static std::string join(const std::string& path, const char* key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  std::string name_;
};

std::optional<RunDevice> read_device(const Checker& ck, const json& devices, const char* api) {
  const std::string path = std::string("devices.") + api;
  const json& d = ck.field(devices, api, "devices");
  if (d.is_null()) return std::nullopt;
  if (!d.is_object()) ck.fail(path, std::string("expected an object or null, found ") + type_of(d));
  RunDevice dev;
  dev.name = ck.string(d, "name", path);
  dev.uuid = ck.string(d, "uuid", path);
  dev.driver = ck.string(d, "driver", path);
  const auto cpu = d.find("is_cpu");
  dev.is_cpu = cpu != d.end() && cpu->is_boolean() && cpu->get<bool>();
  const auto props = d.find("properties");
  if (props != d.end() && props->is_object())
    for (const auto& [k, v] : props->items())
      if (v.is_string()) dev.properties.emplace_back(k, v.get<std::string>());
  return dev;
}

std::uint64_t parse_hash(const Checker& ck, const json& v, const std::string& path) {
  if (!v.is_string())
    ck.fail(path, std::string("expected 16 hex digits or null, found ") + type_of(v));
  const std::string s = v.get<std::string>();
  if (s.size() != 16 || s.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    ck.fail(path, "expected 16 hex digits, found " + quoted(s));
  return std::stoull(s, nullptr, 16);
}

ResultRow read_row(const Checker& ck, const json& r, const std::string& path) {
  if (!r.is_object()) ck.fail(path, std::string("expected an object, found ") + type_of(r));
  ResultRow row;
  row.test = ck.string(r, "test", path);
  const json& layout = ck.field(r, "layout", path);
  if (!layout.is_null() && !layout.is_string())
    ck.fail(path + ".layout", std::string("expected a string or null, found ") + type_of(layout));
  row.layout = layout.is_string() ? layout.get<std::string>() : "";
  row.variant = ck.string(r, "variant", path);
  row.kernel = ck.optional_string(r, "kernel");
  const std::string api = ck.string(r, "api", path);
  if (api == "cuda")
    row.api = Api::cuda;
  else if (api == "vulkan")
    row.api = Api::vulkan;
  else
    ck.fail(path + ".api", "expected \"cuda\" or \"vulkan\", found " + quoted(api));
  // How the kernel reached its buffers; optional: files from before binding modes have the
  // API's native one.
  row.binding = native_binding(row.api);
  if (r.contains("binding")) {
    const std::string b = ck.string(r, "binding", path);
    if (b == "pointer")
      row.binding = Binding::pointer;
    else if (b == "descriptor")
      row.binding = Binding::descriptor;
    else if (b == "bda")
      row.binding = Binding::bda;
    else
      ck.fail(path + ".binding", "expected pointer, descriptor or bda, found " + quoted(b));
  }

  const std::string pp = path + ".params";
  const json& params = ck.object(r, "params", path);
  constexpr std::uint64_t u32 = std::numeric_limits<std::uint32_t>::max();
  row.n = static_cast<std::uint32_t>(ck.unsigned_int(params, "n", pp, u32));
  for (const Axis& axis : axes())  // every sweep axis is a params field
    row.axes.set(axis.name, static_cast<std::uint32_t>(ck.unsigned_int(params, axis.name.c_str(), pp, u32)));
  row.block_size = static_cast<std::uint32_t>(ck.unsigned_int(params, "block_size", pp, u32));

  const std::string status = ck.string(r, "status", path);
  if (status == "ok")
    row.status = Status::ok;
  else if (status == "failed")
    row.status = Status::failed;
  else if (status == "unavailable")
    row.status = Status::unavailable;
  else
    ck.fail(path + ".status", "expected ok, failed or unavailable, found " + quoted(status));
  if (row.status != Status::ok) row.reason = ck.string(r, "reason", path);

  row.useful_bytes = ck.unsigned_int(r, "useful_bytes", path);
  row.moved_bytes = ck.unsigned_int(r, "moved_bytes", path);
  row.sectors_per_request =
      static_cast<std::uint32_t>(ck.unsigned_int(r, "sectors_per_request", path, u32));
  row.verified = ck.boolean(r, "verified", path);
  const auto hash = r.find("output_fnv1a64");
  if (hash != r.end() && !hash->is_null())
    row.output_hash = parse_hash(ck, *hash, path + ".output_fnv1a64");
  const auto mismatches = r.find("mismatches");
  if (mismatches != r.end() && mismatches->is_number_unsigned())
    row.mismatches = mismatches->get<std::uint64_t>();
  const auto flags = r.find("flags");
  if (flags != r.end() && flags->is_array())
    for (const json& f : *flags)
      if (f.is_string()) row.flags.push_back(f.get<std::string>());

  if (row.status == Status::ok) {
    const std::string tp = path + ".time_ms", cp = path + ".ci";
    const json& t = ck.object(r, "time_ms", path);
    row.time_ms.median = ck.number(t, "median", tp, true);
    row.time_ms.min = ck.number(t, "min", tp);
    row.time_ms.max = ck.number(t, "max", tp);
    const json& ci = ck.object(r, "ci", path);
    row.time_ms.ci_low = ck.number(ci, "low_ms", cp);
    row.time_ms.ci_high = ck.number(ci, "high_ms", cp);
    row.time_ms.ci_rel_half_width = ck.number(ci, "rel_half_width", cp);
    if (!(row.time_ms.ci_low <= row.time_ms.median && row.time_ms.median <= row.time_ms.ci_high))
      ck.fail(cp, "the interval does not contain time_ms.median");
    row.time_ms.samples = ck.unsigned_int(r, "samples", path);
    row.time_ms.rel_spread = ck.number(r, "rel_spread", path);
    row.gbps_useful = ck.number(r, "gbps_useful", path);
    row.gbps_moved = ck.number(r, "gbps_moved", path);
    row.stop_reason = ck.optional_string(r, "stop_reason");
  }
  return row;
}

std::string row_identity(const ResultRow& r) {
  return r.test + "|" + r.layout + "|" + r.variant + "|" + api_name(r.api) + "|" +
         binding_name(r.binding) + "|" + std::to_string(r.n) + "|" + std::to_string(r.axes.get("offset")) +
         "|" + std::to_string(r.axes.get("stride")) + "|" + std::to_string(r.block_size);
}

void check_schema(const Checker& ck, const json& doc) {
  const auto it = doc.find("schema");
  if (it == doc.end() || !it->is_string())
    ck.fail("not a cuvk results file (no \"schema\" field; expected \"cuvk.results/1\")");
  const std::string schema = it->get<std::string>();
  const std::string prefix = kSchemaPrefix;
  const std::string digits =
      schema.compare(0, prefix.size(), prefix) == 0 ? schema.substr(prefix.size()) : "";
  if (digits.empty() || digits.size() > 6 ||
      digits.find_first_not_of("0123456789") != std::string::npos || digits[0] == '0')
    ck.fail("foreign schema " + quoted(schema) + " (expected \"cuvk.results/" +
            std::to_string(kSchemaVersion) + "\")");
  const int version = std::stoi(digits);
  if (version > kSchemaVersion)
    ck.fail("written by a newer cuvk (schema \"" + schema +
            "\"; this cuvk reads up to \"cuvk.results/" + std::to_string(kSchemaVersion) +
            "\"): upgrade cuvk to read it");
}

}  // namespace

std::string RunDevice::property(const std::string& key) const {
  for (const auto& [k, v] : properties)
    if (k == key) return v;
  return {};
}

std::string RunFile::gpu_name() const {
  if (cuda) return cuda->name;
  if (vulkan) return vulkan->name;
  return "unknown device";
}

std::string RunFile::cuda_driver() const {
  if (!cuda) return {};
  const std::string v = cuda->property("cuda_driver_version");
  return v.empty() ? cuda->driver : "CUDA " + v;
}

std::string RunFile::vulkan_driver() const {
  return vulkan ? vulkan->driver : std::string();
}

RunFile parse_results(const std::string& text, const std::string& name) {
  const Checker ck(name);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    ck.fail(text.empty() ? "empty file (0 bytes), not a cuvk results file"
                         : "empty file (only whitespace)");
  if (const auto at = first_binary_byte(text)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "binary data, not JSON (byte 0x%02x at offset %zu)",
                  static_cast<unsigned>(static_cast<unsigned char>(text[*at])), *at);
    ck.fail(buf);
  }
  if (max_depth(text) > static_cast<std::size_t>(kMaxJsonDepth))
    ck.fail("JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
            " levels, not a cuvk results file");

  RunFile run;
  run.name = name;
  try {
    run.doc = json::parse(text);
  } catch (const json::parse_error& e) {
    if (e.byte > text.size())  // the parser ran into the end of the input
      ck.fail("truncated JSON: the file ends (at byte " + std::to_string(text.size()) +
              ") before the document is complete");
    const auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    ck.fail("invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(column) +
            ": " + parse_problem(e.what()));
  } catch (const json::exception& e) {  // e.g. a number out of range
    ck.fail("invalid JSON: " + parse_problem(e.what()));
  }
  const json& doc = run.doc;
  if (!doc.is_object())
    ck.fail(std::string("not a cuvk results file: the top level is ") + type_of(doc) +
            ", not an object");
  check_schema(ck, doc);
  run.schema_version =
      std::stoi(doc["schema"].get<std::string>().substr(std::strlen(kSchemaPrefix)));

  try {
    const json& prov = ck.object(doc, "provenance", "");
    run.date_utc = ck.string(prov, "date_utc", "provenance");
    run.git_revision = ck.string(prov, "git_revision", "provenance");
    run.version = ck.optional_string(prov, "version");
    run.host = ck.optional_string(prov, "host");
    run.command_line = ck.optional_string(prov, "command_line");

    const json& devices = ck.object(doc, "devices", "");
    run.cuda = read_device(ck, devices, "cuda");
    run.vulkan = read_device(ck, devices, "vulkan");
    run.cuda_reason = ck.optional_string(devices, "cuda_unavailable_reason");
    run.vulkan_reason = ck.optional_string(devices, "vulkan_unavailable_reason");

    const json& results = ck.field(doc, "results", "");
    if (!results.is_array())
      ck.fail("results", std::string("expected an array, found ") + type_of(results));
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const std::string path = "results[" + std::to_string(i) + "]";
      run.rows.push_back(read_row(ck, results[i], path));
      const auto [it, fresh] = seen.emplace(row_identity(run.rows.back()), i);
      if (!fresh)
        ck.fail(path, "repeats results[" + std::to_string(it->second) +
                          "] (same test, layout, variant, api, binding and params)");
    }
  } catch (const json::exception& e) {  // defensive: every access above is checked first
    ck.fail(std::string("unexpected JSON structure: ") + parse_problem(e.what()));
  }
  return run;
}

RunFile read_results(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    throw UsageError(path + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw UsageError(path + ": is a directory, not a results file");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UsageError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream buf;
  buf << f.rdbuf();
  if (f.bad()) throw UsageError(path + ": read error");
  return parse_results(buf.str(), path);
}

std::vector<RunFile> read_all_results(const std::vector<std::string>& paths) {
  std::vector<RunFile> runs;
  runs.reserve(paths.size());
  for (const std::string& p : paths) runs.push_back(read_results(p));
  return runs;
}

std::string point_text(const ResultRow& row) {
  return point_label(row);
}

}  // namespace cuvk
