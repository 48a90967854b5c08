// `cuvk report FILE...`: merged comparison tables of saved runs; `cuvk report --index DIR`: the
// folder's README.md (run index, parity tables, plots, merged tables). Every file is read and
// checked before anything is printed or written, so a bad file merges nothing.
#include "report_command.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "options.h"
#include "output_file.h"
#include "error.h"
#include "explain_printer.h"
#include "fleet.h"
#include "index_page.h"
#include "merge_printer.h"
#include "parity.h"
#include "parity_printer.h"
#include "plotter.h"
#include "run_reader.h"
#include "verdicts.h"

namespace cuvk {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Plain files in `dir` (not recursive) whose names end with one of `exts`, sorted.
std::vector<std::string> files_in(const std::string& dir, const std::vector<std::string>& exts) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.empty() || name[0] == '.') continue;
    struct stat st {};
    if (stat((dir + "/" + name).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    for (const std::string& x : exts)
      if (ends_with(name, x)) {
        out.push_back(name);
        break;
      }
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// A `cuvk parity`, `cuvk report`, `cuvk report --fleet`, `cuvk trace` or `cuvk explain` JSON file
// (schema cuvk.parity/N, cuvk.report/N, cuvk.fleet/N, cuvk.trace/N or cuvk.explain/N). Anything
// else, unreadable files included, is left to the results reader.
bool is_derived_report(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path);  // bounded; a bad file is left to the results reader's message
  } catch (const UsageError&) {
    return false;
  }
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string()) return false;
  const std::string schema = doc["schema"].get<std::string>();
  return schema.rfind("cuvk.parity/", 0) == 0 || schema.rfind("cuvk.report/", 0) == 0 ||
         schema.rfind("cuvk.fleet/", 0) == 0 || schema.rfind("cuvk.trace/", 0) == 0 ||
         schema.rfind("cuvk.explain/", 0) == 0;
}

std::vector<Figure> read_figures(const std::string& path);

// Every figure of the folder, drawn by the plotter into DIR/plots (figures.json lists them); ""
// when drawn, else why they were skipped. The runs' parity verdicts are cuvk's, handed over.
std::string draw_figures(const std::string& dir, const IndexInputs& in) {
  const Plotter plotter;
  if (!plotter.usable()) return plotter.skipped();
  nlohmann::json runs = nlohmann::json::array();
  for (const RunFile& r : in.runs)
    runs.push_back(
        {{"file", r.name}, {"parity", parity_json(r, compare_apis(r.rows, in.tolerance))}});
  const nlohmann::json manifest = {
      {"dir", dir}, {"drawn_by", plotter_name()}, {"tolerance", in.tolerance}, {"runs", runs}};
  const std::string path = plotter.folder() + "/manifest.json";
  std::ofstream(path) << manifest.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  const int status = plotter.run({"index", path}, out);
  if (status != 0) throw Error("--index " + dir + ": " + plotter_failure(status, out));
  // Exit 0 is not enough: its list of figures and every figure it says it drew must be there.
  struct stat st {};
  if (::stat((dir + "/plots/figures.json").c_str(), &st) != 0)
    throw Error("--index " + dir + ": " + plotter_missing("plots/figures.json", out));
  std::istringstream lines(out);  // "drew plots/NAME.png" per figure
  for (std::string line; std::getline(lines, line);) {
    const std::string drew = "drew ";
    if (line.rfind(drew, 0) == 0 &&
        ::stat((dir + "/" + line.substr(drew.size())).c_str(), &st) != 0)
      throw Error("--index " + dir + ": " + plotter_missing(line.substr(drew.size()), out));
  }
  for (const Figure& f : read_figures(dir + "/plots/figures.json"))
    if (::stat((dir + "/" + f.file).c_str(), &st) != 0 &&
        ::stat((dir + "/plots/" + f.file).c_str(), &st) != 0)
      throw Error("--index " + dir + ": " +
                  plotter_missing(f.file + " (listed in plots/figures.json)", out));
  lines.clear();
  lines.str(out);
  for (std::string line; std::getline(lines, line);) std::cout << printable(line) << '\n';
  return "";
}

// plots/figures.json, the plotter's list of the figures it drew; none when absent or unreadable.
std::vector<Figure> read_figures(const std::string& path) {
  std::ifstream f(path);
  const nlohmann::json doc = nlohmann::json::parse(f, nullptr, false);
  std::vector<Figure> out;
  if (!doc.is_object() || !doc.contains("figures") || !doc["figures"].is_array()) return out;
  auto text = [](const nlohmann::json& o, const char* key) {
    return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
  };
  for (const nlohmann::json& j : doc["figures"]) {
    if (!j.is_object()) continue;
    Figure fig{text(j, "file"), text(j, "title"), text(j, "caption"), {}};
    if (j.contains("sources") && j["sources"].is_array())
      for (const nlohmann::json& s : j["sources"])
        if (s.is_object())
          fig.sources.push_back({text(s, "file"), text(s, "sha256"), text(s, "revision")});
    if (!fig.file.empty()) out.push_back(std::move(fig));
  }
  return out;
}

// FINDINGS.md, copied into the index: Markdown text of at most 1 MiB (read no further), so that a
// huge or binary file (a 200 MB sparse file became a 209 MB README of NUL bytes) is refused.
constexpr std::uint64_t kMaxFindingsBytes = 1u << 20;

std::string read_findings(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    throw UsageError("--index: " + quoted_path(path) + " is not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > kMaxFindingsBytes)
    throw UsageError(
        fmt::format("--index: {} is larger than the 1 MiB cap ({} bytes): not a findings page",
                    quoted_path(path), st.st_size));
  std::ifstream f(path, std::ios::binary);
  std::string text(kMaxFindingsBytes + 1, '\0');
  f.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (f.bad()) throw Error("cannot read " + quoted_path(path) + ": " + std::strerror(errno));
  text.resize(static_cast<std::size_t>(f.gcount()));
  if (text.size() > kMaxFindingsBytes)
    throw UsageError("--index: " + quoted_path(path) + " is larger than the 1 MiB cap");
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos)
    throw UsageError(fmt::format("--index: {} holds a NUL byte (at byte {}): not Markdown text",
                                 quoted_path(path), nul));
  return text;
}

int write_index(const ReportArgs& a) {
  std::string dir = a.index_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) throw UsageError("--index " + dir + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) throw UsageError("--index " + dir + ": not a directory");
  // cuvk's own derived files (parity verdicts, merged reports) may sit next to the runs: not runs.
  std::vector<std::string> names, derived;
  for (const std::string& n : files_in(dir, {".json"}))
    (is_derived_report(dir + "/" + n) ? derived : names).push_back(n);
  if (names.empty()) throw UsageError("--index " + dir + ": no run files (*.json) in it");
  const std::string output = a.output.empty() ? dir + "/README.md" : a.output;
  const std::string what = a.output.empty() ? "--index" : "--output";
  check_writable(output, what);
  std::vector<NamedFile> inputs;
  for (const std::string& n : names) inputs.push_back({"run file", dir + "/" + n});
  inputs.push_back({"findings page", dir + "/FINDINGS.md"});  // copied into the index
  check_distinct_files({{what, output}}, inputs);

  IndexInputs in;
  in.tolerance = parse_tolerance(a.tolerance);
  std::vector<std::string> paths;
  for (const std::string& n : names) paths.push_back(dir + "/" + n);
  in.runs = read_all_results(paths);  // all checked before anything is written
  for (RunFile& r : in.runs)  // links relative to dir (a node file's GPUs: "name#gpu<index>")
    r.name = r.name.substr(dir.size() + 1);
  for (const std::string& m : files_in(dir, {".md"}))
    if (m == "SCHEMA.md") {
      in.schema_page = true;
    } else if (m == "FINDINGS.md") {  // embedded in the index, not just linked
      in.findings = read_findings(dir + "/" + m);
    } else if (m != "README.md") {
      in.docs.push_back(m);
    }
  in.docs.insert(in.docs.end(), derived.begin(), derived.end());
  for (const std::string& d : derived)  // `cuvk explain` files: their findings in the index too
    if (const std::string text = read_input_file(dir + "/" + d); explain::is_explain_json(text))
      in.explanations.emplace_back(d, explain::read_explain(text, dir + "/" + d));
  in.command = "cuvk report --index " + dir;
  const std::string skipped = a.no_plots ? "" : draw_figures(dir, in);
  in.figures = read_figures(dir + "/plots/figures.json");
  if (!skipped.empty())
    in.figures_note = "These figures were not redrawn by the last `" + in.command + "`: " + skipped;
  write_output_file(output, format_index(in), what);
  std::cout << "wrote " << printable(output) << " (" << in.runs.size() << " runs, "
            << in.figures.size() << " figures)\n";
  for (const std::string& d : derived) std::cout << "not a run, left out: " << printable(d) << '\n';
  if (!skipped.empty()) {
    std::cerr << "error: figures skipped: " << skipped << '\n';
    return kExitEnvironment;
  }
  return kExitOk;
}

// FILES read once each (a FIFO or a pipe can be read only once), every one before anything is
// printed: `cuvk explain` files (cuvk.explain/N), given alone, print as explain prints them
// (several in json: an array of the documents); run files merge as before.
std::string files_report(const ReportArgs& a, Format format) {
  std::vector<std::pair<std::string, std::string>> texts;  // path, contents
  for (const std::string& f : a.files) {
    try {
      texts.emplace_back(f, read_input_file(f));
    } catch (const std::bad_alloc&) {
      throw Error(f + ": out of host memory while reading it (std::bad_alloc)");
    }
  }
  std::size_t explains = 0;
  for (const auto& t : texts) explains += explain::is_explain_json(t.second) ? 1 : 0;
  if (explains == 0) {
    std::vector<RunFile> runs;
    for (const auto& [path, text] : texts)
      for (RunFile& r : parse_results_all(text, path)) runs.push_back(std::move(r));
    return format_merged(runs, format);
  }
  if (format == Format::csv)
    throw UsageError("--format csv: cuvk explain files print as table, md or json");
  std::string out;
  nlohmann::json all = nlohmann::json::array();
  for (const auto& [path, text] : texts) {
    if (!explain::is_explain_json(text))
      throw UsageError("FILE " + quoted_path(path) +
                       " is not a cuvk explain file: give explain files alone, or run files");
    const explain::Document doc = explain::read_explain(text, quoted_path(path));
    if (format == Format::json)
      all.push_back(nlohmann::json::parse(format_explain(doc, format)));
    else
      out += (out.empty() ? "" : "\n") + format_explain(doc, format);
  }
  if (format != Format::json) return out;
  return (all.size() == 1 ? all[0] : all).dump(2) + "\n";
}

}  // namespace

int report_command(const ReportArgs& a) {
  if (!a.index_dir.empty()) {
    if (!a.files.empty()) throw UsageError("give run files or --index DIR, not both");
    if (a.fleet) throw UsageError("give --fleet or --index DIR, not both");
    if (parse_format(a.format) != Format::md)
      throw UsageError("--format " + quoted(a.format) + ": --index writes Markdown (md) only");
    return write_index(a);
  }
  if (a.no_plots)  // it would change nothing: only --index draws figures
    throw UsageError("--no-plots applies to --index DIR only (report FILE... draws no figures)");
  if (a.files.empty()) throw UsageError("report: give one or more run files (or --index DIR)");
  const Format format = parse_format(a.format);
  parse_tolerance(a.tolerance);
  if (!a.output.empty()) check_writable(a.output);
  std::vector<NamedFile> inputs;
  for (const std::string& f : a.files) inputs.push_back({"FILE", f});
  check_distinct_files({{"--output", a.output}}, inputs);
  if (!a.fleet) check_distinct_inputs(inputs, "one run would be merged with itself, as two runs");
  std::string text;
  if (a.fleet) {  // host/fleet.h: folders, *.failed markers, verdicts per model, sibling
                  // outliers
    const FleetInputs in = read_fleet_inputs(a.files);  // all checked before printing
    std::vector<NamedFile> read;                        // a folder's files are inputs too
    for (const RunFile& r : in.runs)  // a node file's GPU reads as "file#gpu<index>"
      read.push_back({"run file", r.name.substr(0, r.name.rfind("#gpu"))});
    for (const FailedTask& f : in.failed) read.push_back({"marker", f.file});
    check_distinct_files({{"--output", a.output}}, read);
    text =
        format_fleet(fleet_view(in.runs, in.failed, parse_tolerance(a.tolerance)), in.runs, format);
    for (const std::string& d : in.not_runs)
      std::cerr << "not a run, left out: " << printable(d) << '\n';
  } else {
    text = files_report(a, format);  // all read and checked before printing
  }
  if (a.output.empty()) {
    std::cout << text << std::flush;
  } else {
    write_output_file(a.output, text);
    std::cout << "wrote " << printable(a.output) << '\n';
  }
  return kExitOk;
}

}  // namespace cuvk
