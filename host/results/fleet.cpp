// `cuvk report --fleet`: verdict counts per GPU model and driver, boards against their siblings,
// failed tasks (fleet.h). Verdicts and ratios come from parity.h and verdicts.h (compare_apis, ratio_ci, judge).
#include "fleet.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "error.h"
#include "merge_printer.h"
#include "node_file.h"
#include "run_reader.h"
#include "util.h"

namespace cuvk {
namespace {

using nlohmann::json;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string basename_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string read_text(const std::string& path) { return read_input_file(path); }

// cuvk's derived documents (cuvk.parity/, cuvk.report/, cuvk.fleet/) may sit among the runs, e.g.
// the fleet.json a previous merge wrote: not runs. Anything else is left to the results reader.
bool is_derived_document(const std::string& path) {
  const json doc = json::parse(read_text(path), nullptr, false);
  if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string()) return false;
  const std::string schema = doc["schema"].get<std::string>();
  return schema.rfind("cuvk.", 0) == 0 && schema.rfind(kSchemaFamily, 0) != 0 &&
         !is_node_document(doc);  // a node file: a run per GPU
}

// *.json and *.failed plain files directly in `dir`, sorted.
std::vector<std::string> fleet_files_in(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) throw UsageError(dir + ": cannot read the folder");
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name, path = dir + "/" + name;
    struct stat st {};
    if (name[0] == '.' || stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (ends_with(name, ".json") || ends_with(name, ".failed")) out.push_back(path);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string row_text(const ResultRow& r) {
  return row_label(r, false, true);  // "copy vec4 block 256 vulkan descriptor" (dims.h)
}

std::string board_uuid(const RunFile& r) {
  if (r.cuda) return r.cuda->uuid;
  return r.vulkan ? r.vulkan->uuid : std::string();
}

using RowIndex = std::map<std::string, const ResultRow*>;  // ok rows of one board, by row_identity

RowIndex ok_rows(const RunFile& run) {
  RowIndex index;
  for (const ResultRow& r : run.rows)
    if (r.status == Status::ok) index.emplace(row_identity(r), &r);
  return index;
}

// What a board is compared with: the median sibling's median and interval; for an even count,
// the midpoint of the two middle siblings with an interval spanning both of theirs, so that when
// the siblings themselves disagree the comparison is UNCERTAIN rather than a verdict.
MedianCi sibling_reference(std::vector<const ResultRow*> rows) {
  std::sort(rows.begin(), rows.end(), [](const ResultRow* a, const ResultRow* b) {
    return a->time_ms.median < b->time_ms.median;
  });
  const std::size_t k = rows.size();
  const MedianCi lo = median_ci(rows[(k - 1) / 2]->time_ms), hi = median_ci(rows[k / 2]->time_ms);
  if (k % 2 == 1) return lo;
  return {(lo.median + hi.median) / 2, std::min(lo.low, hi.low), std::max(lo.high, hi.high)};
}

// Board `b` (index into runs) against the other boards of its model (`family`, indices).
void judge_board(FleetBoard& board, std::size_t b, const std::vector<std::size_t>& family,
                 const std::vector<RowIndex>& index, double tolerance) {
  board.siblings = family.size() - 1;
  double log_sum = 0.0, worst_log = -1.0;
  bool worst_decided = false;
  for (const auto& [key, row] : index[b]) {
    std::vector<const ResultRow*> sib;
    for (std::size_t s : family) {
      if (s == b) continue;
      const auto it = index[s].find(key);
      if (it != index[s].end()) sib.push_back(it->second);
    }
    if (sib.empty()) continue;
    const RatioCi r = ratio_ci(median_ci(row->time_ms), sibling_reference(sib));
    const Verdict v = judge(r, tolerance);
    ++board.compared;
    if (v == Verdict::same) ++board.same;
    if (v == Verdict::faster) ++board.faster;
    if (v == Verdict::slower) ++board.slower;
    if (v == Verdict::uncertain) ++board.uncertain;
    const double dist = std::fabs(std::log(r.ratio));
    log_sum += std::log(r.ratio);
    // The worst point: the furthest among the decided differences, else among all.
    const bool decided = v == Verdict::faster || v == Verdict::slower;
    if ((decided && !worst_decided) || (decided == worst_decided && dist > worst_log)) {
      worst_log = dist;
      worst_decided = decided;
      board.worst = r;
      board.worst_point = row_text(*row);
    }
  }
  if (board.compared > 0) board.typical_ratio = std::exp(log_sum / board.compared);
}

void add_parity(FleetGroup& g, const RunFile& run, double tolerance) {
  const ParityResult p = compare_apis(run.rows, tolerance);
  g.same += p.same;
  g.faster += p.faster;
  g.slower += p.slower;
  g.uncertain += p.uncertain;
  g.failed += p.failed;
  g.not_compared += p.unavailable;
  g.outputs_mismatch += p.outputs_mismatch;
}

std::string verdict_counts(const FleetBoard& b) {
  return fmt::format("{} / {} / {} / {}", b.same, b.slower, b.faster, b.uncertain);
}

std::string ratio_text(const RatioCi& r) {
  return format_number("{:.3f}", r.ratio) + " [" + format_number("{:.3f}", r.low) + ", " +
         format_number("{:.3f}", r.high) + "]";
}

std::string board_flag(const FleetBoard& b) {
  if (b.siblings == 0) return "no sibling";
  if (!b.flagged()) return "-";
  if (b.slower > 0 && b.faster > 0) return "DIFFERS";
  return b.slower > 0 ? "SLOWER" : "FASTER";
}

std::vector<std::vector<std::string>> groups_table(const FleetView& v) {
  std::vector<std::vector<std::string>> t = {
      {"GPU", "CUDA driver", "Vulkan driver", "boards", "SAME", "VULKAN FASTER", "VULKAN SLOWER",
       "UNCERTAIN", "FAILED", "NOT COMPARED", "outputs MISMATCH", "boards flagged"}};
  for (const FleetGroup& g : v.groups)
    t.push_back({g.gpu, dash(g.cuda_driver), dash(g.vulkan_driver), std::to_string(g.boards),
                 std::to_string(g.same), std::to_string(g.faster), std::to_string(g.slower),
                 std::to_string(g.uncertain), std::to_string(g.failed),
                 std::to_string(g.not_compared), std::to_string(g.outputs_mismatch),
                 std::to_string(g.flagged)});
  return t;
}

std::vector<std::vector<std::string>> boards_table(const FleetView& v) {
  std::vector<std::vector<std::string>> t = {{"GPU", "run", "host", "UUID", "CUDA driver",
                                              "Vulkan driver", "siblings", "points",
                                              "SAME / SLOWER / FASTER / UNCERTAIN", "typical ratio",
                                              "furthest point", "its ratio", "flag"}};
  for (const FleetBoard& b : v.boards)
    t.push_back({b.gpu, b.run, dash(b.host), dash(b.uuid), dash(b.cuda_driver),
                 dash(b.vulkan_driver), std::to_string(b.siblings), std::to_string(b.compared),
                 verdict_counts(b), b.compared ? format_number("{:.3f}", b.typical_ratio) : "-",
                 dash(b.worst_point), b.compared ? ratio_text(b.worst) : "-", board_flag(b)});
  return t;
}

std::vector<std::vector<std::string>> failed_table(const FleetView& v) {
  std::vector<std::vector<std::string>> t = {{"task", "host", "UUID", "exit code", "error"}};
  for (const FailedTask& f : v.failed)
    t.push_back(
        {basename_of(f.file), dash(f.host), dash(f.uuid), dash(f.exit_code), dash(f.error)});
  return t;
}

std::string fleet_text(const FleetView& v, const std::vector<RunFile>& runs, bool md) {
  std::ostringstream out;
  const std::string h2 = md ? "## " : "", h3 = md ? "### " : "";
  out << h2 << "Fleet: " << v.boards.size() << " run(s), " << v.failed.size()
      << " failed task(s), tolerance " << format_number("{:g}", v.tolerance * 100.0) << "%\n\n";
  out << h3 << "CUDA vs Vulkan parity verdicts per GPU model and driver\n\n"
      << format_text_table(groups_table(v), md) << "\n";
  out << h3 << "Boards against their siblings (the other boards of the same GPU model)\n\n"
      << "Per point, the board's median over its siblings' median (for an even number of "
         "siblings the midpoint of the middle two, its interval spanning both), with the ratio's "
         "95% interval and the parity rule (SLOWER/FASTER: the interval lies beyond the "
         "tolerance). A board with any SLOWER or FASTER point is flagged; with two boards of a "
         "model each is the other's only sibling, so both are flagged; three or more tell which "
         "one is odd.\n\n"
      << format_text_table(boards_table(v), md) << "\n";
  out << h3 << "Failed tasks\n\n";
  if (v.failed.empty())
    out << "none\n\n";
  else
    out << format_text_table(failed_table(v), md) << "\n";
  if (!runs.empty())
    out << h2 << "Merged tables\n\n" << format_merged(runs, md ? Format::md : Format::table, 3);
  return out.str();
}

json fleet_json(const FleetView& v, const std::vector<RunFile>& runs) {
  json j = {{"schema", kFleetSchema}, {"tolerance", v.tolerance}};
  j["groups"] = json::array();
  for (const FleetGroup& g : v.groups)
    j["groups"].push_back({{"gpu", g.gpu},
                           {"cuda_driver", g.cuda_driver},
                           {"vulkan_driver", g.vulkan_driver},
                           {"boards", g.boards},
                           {"boards_flagged", g.flagged},
                           {"counts",
                            {{"SAME", g.same},
                             {"VULKAN FASTER", g.faster},
                             {"VULKAN SLOWER", g.slower},
                             {"UNCERTAIN", g.uncertain},
                             {"FAILED", g.failed},
                             {"NOT COMPARED", g.not_compared},
                             {"outputs_mismatch", g.outputs_mismatch}}}});
  j["boards"] = json::array();
  for (const FleetBoard& b : v.boards) {
    json w = nullptr;
    if (b.compared)
      w = {{"point", b.worst_point},
           {"ratio", b.worst.ratio},
           {"ci_low", b.worst.low},
           {"ci_high", b.worst.high}};
    j["boards"].push_back({{"run", b.run},
                           {"host", b.host},
                           {"uuid", b.uuid},
                           {"gpu", b.gpu},
                           {"cuda_driver", b.cuda_driver},
                           {"vulkan_driver", b.vulkan_driver},
                           {"siblings", b.siblings},
                           {"points", b.compared},
                           {"counts",
                            {{"SAME", b.same},
                             {"SLOWER", b.slower},
                             {"FASTER", b.faster},
                             {"UNCERTAIN", b.uncertain}}},
                           {"typical_ratio", b.compared ? json(b.typical_ratio) : json(nullptr)},
                           {"furthest", w},
                           {"flag", board_flag(b)}});
  }
  j["failed"] = json::array();
  for (const FailedTask& f : v.failed)
    j["failed"].push_back({{"task", basename_of(f.file)},
                           {"host", f.host},
                           {"uuid", f.uuid},
                           {"exit_code", f.exit_code},
                           {"error", f.error}});
  j["report"] = runs.empty() ? json(nullptr) : json::parse(format_merged(runs, Format::json));
  return j;
}

}  // namespace

FailedTask parse_failed_marker(const std::string& text, const std::string& file) {
  FailedTask t;
  t.file = file;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    while (!value.empty() && (value.back() == '\r' || value.back() == ' ')) value.pop_back();
    const std::string key = line.substr(0, colon);
    if (key == "host") t.host = value;
    if (key == "uuid") t.uuid = value;
    if (key == "exit_code") t.exit_code = value;
    if (key == "error") t.error = value;
  }
  if (t.error.empty()) t.error = "no error recorded";
  return t;
}

FleetInputs read_fleet_inputs(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    struct stat st {};
    if (stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      std::string dir = p;
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      for (const std::string& f : fleet_files_in(dir)) files.push_back(f);
    } else {
      files.push_back(p);
    }
  }
  FleetInputs in;
  std::vector<std::string> run_paths;
  for (const std::string& f : files) {
    if (ends_with(f, ".failed"))
      in.failed.push_back(parse_failed_marker(read_text(f), f));
    else if (ends_with(f, ".json") && is_derived_document(f))
      in.not_runs.push_back(f);
    else
      run_paths.push_back(f);
  }
  if (run_paths.empty() && in.failed.empty())
    throw UsageError("--fleet: no run files (*.json) and no failed-task markers (*.failed)");
  in.runs = read_all_results(run_paths);  // all checked before anything is printed
  // The same run twice (a copy, a link, a file given and its folder) would count as two boards.
  std::map<std::string, std::string> seen;
  for (const RunFile& r : in.runs) {
    const std::string key = (r.cuda ? r.cuda->uuid : "") + "|" + (r.vulkan ? r.vulkan->uuid : "") +
                            "|" + r.date_utc + "|" + r.host + "|" + r.command_line + "|" +
                            (r.name.rfind("#gpu") == std::string::npos  // a node file's GPU
                                 ? ""
                                 : r.name.substr(r.name.rfind("#gpu")));
    const auto [it, fresh] = seen.emplace(key, r.name);
    if (!fresh)
      throw UsageError("--fleet: " + quoted_path(r.name) + " and " + quoted_path(it->second) +
                       " are the same run (same devices, date, host and command line): a board "
                       "counts once; leave one out");
  }
  return in;
}

FleetView fleet_view(const std::vector<RunFile>& runs, const std::vector<FailedTask>& failed,
                     double tolerance) {
  FleetView v;
  v.tolerance = tolerance;
  v.failed = failed;
  std::vector<RowIndex> index;
  std::map<std::string, std::vector<std::size_t>> family;  // GPU model -> runs
  for (std::size_t i = 0; i < runs.size(); ++i) {
    index.push_back(ok_rows(runs[i]));
    family[runs[i].gpu_name()].push_back(i);
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunFile& r = runs[i];
    FleetBoard b;
    b.run = basename_of(r.name);
    b.host = r.host;
    b.uuid = board_uuid(r);
    b.gpu = r.gpu_name();
    b.cuda_driver = r.cuda_driver();
    b.vulkan_driver = r.vulkan_driver();
    judge_board(b, i, family[b.gpu], index, tolerance);
    v.boards.push_back(b);
    auto g = std::find_if(v.groups.begin(), v.groups.end(), [&](const FleetGroup& x) {
      return x.gpu == b.gpu && x.cuda_driver == b.cuda_driver && x.vulkan_driver == b.vulkan_driver;
    });
    if (g == v.groups.end()) {
      FleetGroup added;
      added.gpu = b.gpu;
      added.cuda_driver = b.cuda_driver;
      added.vulkan_driver = b.vulkan_driver;
      g = v.groups.insert(v.groups.end(), added);
    }
    ++g->boards;
    if (b.flagged()) ++g->flagged;
    add_parity(*g, r, tolerance);
  }
  return v;
}

std::string format_fleet(const FleetView& view, const std::vector<RunFile>& runs, Format format) {
  switch (format) {
    case Format::json:
      return fleet_json(view, runs).dump(2) + "\n";
    case Format::csv:
      throw UsageError("--fleet: --format csv is not supported (table, md or json)");
    case Format::table:
    case Format::md:
      break;
  }
  return fleet_text(view, runs, format == Format::md);
}

}  // namespace cuvk
