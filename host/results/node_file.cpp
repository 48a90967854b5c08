// The node file: several GPUs' runs in one document (node_file.h, results/SCHEMA.md).
#include "node_file.h"

#include <set>

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

namespace {

// The GPU a run measured, by UUID: the CUDA device's, else the Vulkan device's; "" for a CPU
// device (lavapipe is one device that tests list several times: CUVK_TEST_SAME_GPU_AGAIN).
std::string gpu_uuid(const RunFile& r) {
  for (const std::optional<RunDevice>* d : {&r.cuda, &r.vulkan})
    if (*d && !(*d)->is_cpu) return (*d)->uuid;
  return "";
}

// Issue 49, class 8: a node file lists each GPU once and says which GPU each run measured truly;
// else `report --fleet` counts one board as two siblings. Refused: an entry's `uuid` that neither
// of its run's devices has, a GPU (by UUID) measured by two entries, the same run object twice.
void check_entry(const JsonIn& g, const RunFile& run, const std::vector<RunFile>& runs,
                 const std::vector<std::size_t>& entries, const JsonIn& gpus) {
  const std::optional<std::string> uuid = g.at("uuid").if_string();
  if (uuid && !uuid->empty() && !(run.cuda && run.cuda->uuid == *uuid) &&
      !(run.vulkan && run.vulkan->uuid == *uuid))
    g.at("uuid").fail(quoted(*uuid) + ", but its run measured " +
                      (gpu_uuid(run).empty() ? std::string("another device")
                                             : quoted(gpu_uuid(run))) +
                      " (devices.cuda.uuid, devices.vulkan.uuid)");
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const std::string seen = gpus.element(entries[k]).path();
    if (run.doc == runs[k].doc)
      g.at("run").fail("the same run as " + seen + ": a node file lists each GPU's run once");
    if (!gpu_uuid(run).empty() && gpu_uuid(run) == gpu_uuid(runs[k]))
      g.at("run").fail("measured the same GPU as " + seen + " (" + gpu_uuid(run) +
                       "): a node file lists each GPU once");
  }
}

}  // namespace

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
  std::vector<std::size_t> entries;  // the gpus[] entry of each of `runs`
  std::set<std::uint64_t> indices;   // runs and errors alike: one entry per GPU
  std::string errors;
  for (std::size_t i = 0; i < gpus.value().size(); ++i) {
    const JsonIn g = gpus.element(i).object();
    const std::uint64_t index = g.at("index").required().unsigned_int(1u << 20);
    if (!indices.insert(index).second)
      g.at("index").fail(fmt::format("repeats GPU {} (an entry per GPU: a run or an error)", index));
    if (g.at("run").present()) {
      g.at("run").object();
      RunFile run = parse_run_json(g.at("run").value(), node_run_name(name, index));
      check_entry(g, run, runs, entries, gpus);
      runs.push_back(std::move(run));
      entries.push_back(i);
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
