// The node file: several GPUs' runs in one document (node_file.h, results/SCHEMA.md).
#include "node_file.h"

#include <fmt/format.h>

#include "error.h"
#include "json_check.h"
#include "run_reader.h"
#include "run_writer.h"

namespace cuvk {

using nlohmann::json;

bool is_node_document(const json& doc) {
  if (!doc.is_object()) return false;
  const auto it = doc.find("schema");
  return it != doc.end() && it->is_string() &&
         it->get<std::string>().rfind(kNodeSchemaFamily, 0) == 0;
}

std::string node_run_name(const std::string& file, std::uint64_t index) {
  return fmt::format("{}#gpu{}", file, index);
}

std::vector<RunFile> parse_node_runs(const json& doc, const std::string& name) {
  const JsonIn in(name, doc);
  const std::string schema = in.at("schema").string();
  const std::string family = kNodeSchemaFamily;
  const std::string expected = fmt::format("{}{}", family, kNodeSchemaVersion);
  const std::string digits = schema.substr(family.size());
  if (digits.empty() || digits.size() > 6 ||
      digits.find_first_not_of("0123456789") != std::string::npos || digits[0] == '0')
    in.fail("foreign schema " + quoted(schema) + " (expected \"" + expected + "\")");
  if (std::stoi(digits) > kNodeSchemaVersion)
    in.fail("written by a newer cuvk (schema \"" + schema + "\"; this cuvk reads up to \"" +
            expected + "\"): upgrade cuvk to read it");
  const JsonIn gpus = in.at("gpus").required().array();
  if (gpus.value().empty()) gpus.fail("no GPU (an empty list)");
  std::vector<RunFile> runs;
  std::string errors;
  for (std::size_t i = 0; i < gpus.value().size(); ++i) {
    const JsonIn g = gpus.element(i).object();
    const std::uint64_t index = g.at("index").required().unsigned_int(1u << 20);
    for (const RunFile& r : runs)
      if (r.name == node_run_name(name, index))
        g.at("index").fail(fmt::format("repeats GPU {}", index));
    if (g.at("run").present()) {
      g.at("run").object();
      runs.push_back(parse_run_json(g.at("run").value(), node_run_name(name, index)));
    } else if (g.at("error").present()) {
      errors +=
          fmt::format("{}gpu {}: {}", errors.empty() ? "" : "; ", index, g.at("error").string());
    } else {
      g.fail("neither \"run\" nor \"error\"");
    }
  }
  if (runs.empty()) gpus.fail("no GPU has a run (" + printable(errors) + ")");
  return runs;
}

json node_file_json(const NodeHead& head, const std::vector<NodeEntry>& gpus, const json& summary) {
  json j = {{"schema", fmt::format("{}{}", kNodeSchemaFamily, kNodeSchemaVersion)}};
  j["provenance"] = {
      {"date_utc", head.date_utc}, {"host", head.host},     {"command_line", head.command_line},
      {"mode", head.mode},         {"wall_s", head.wall_s}, {"build", build_json()}};
  j["gpus"] = json::array();
  for (const NodeEntry& e : gpus) {
    json g = {{"index", e.index}, {"label", e.label}, {"uuid", e.uuid}};
    if (e.run)
      g["run"] = *e.run;
    else
      g["error"] = e.error;
    if (e.together) g["together"] = *e.together;
    j["gpus"].push_back(std::move(g));
  }
  j["summary"] = summary;
  return j;
}

}  // namespace cuvk
