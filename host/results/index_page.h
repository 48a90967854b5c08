// A results folder's README.md (`cuvk report --index DIR`): the run index, each run's parity
// table, the plots, the merged tables and links to the folder's other documents.
#pragma once

#include <string>
#include <vector>

#include "explain_printer.h"
#include "run_reader.h"
#include "verdicts.h"

namespace cuvk {

// One figure of the folder, as the plotter listed it in plots/figures.json: its path relative to
// the folder, title, one-sentence caption and the files it was drawn from.
struct FigureSource {
  std::string file, sha256, revision;  // file relative to the folder; the run's cuvk revision
};
struct Figure {
  std::string file, title, caption;
  std::vector<FigureSource> sources;
};

// A results folder's README.md: an index of every run (GPU, drivers, date, cuvk revision, file),
// the findings, the figures with their captions and sources, each run's parity table, the merged
// tables and links to `docs`.
struct IndexInputs {
  std::vector<RunFile> runs;      // names relative to the folder
  std::vector<Figure> figures;    // plots/figures.json
  std::string figures_note;       // why the figures were not (re)drawn, "" when they were
  std::vector<std::string> docs;  // other Markdown files in the folder, relative
  double tolerance = kDefaultTolerance;
  std::string command;       // how the page was generated, for the header
  bool schema_page = false;  // the folder holds SCHEMA.md (linked from the header)
  std::string findings;      // FINDINGS.md's text (hand-written analysis), shown after the runs
  // `cuvk explain` files of the folder (name relative to it, document): their points and first
  // two findings in a section of their own.
  std::vector<std::pair<std::string, explain::Document>> explanations;
};
std::string format_index(const IndexInputs& in);

}  // namespace cuvk
