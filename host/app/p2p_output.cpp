#include "p2p_output.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "build_info.h"
#include "json_check.h"  // printable
#include "verdicts.h"

namespace cuvk {
namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string size_text(std::uint64_t b) {
  if (b >= (1ULL << 30) && b % (1ULL << 30) == 0) return fmt::format("{} GiB", b >> 30);
  if (b >= (1ULL << 20) && b % (1ULL << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b >= (1ULL << 10) && b % (1ULL << 10) == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

std::string pair_text(const P2pReport& r, const P2pRow& row) {
  const std::string& a = r.labels[row.src];
  const std::string& b = r.labels[row.dst];
  const bool loop = a == b;
  return a + (row.both ? " <-> " : " -> ") + b + (loop ? " (loopback)" : "");
}

// One parity line per staged (pair, size, direction) where both APIs ran and verified.
struct ParityItem {
  const P2pRow* cuda = nullptr;
  const P2pRow* vulkan = nullptr;
  RatioCi ratio;
  Verdict verdict = Verdict::uncertain;
};

std::vector<ParityItem> parity_items(const P2pReport& r) {
  std::vector<ParityItem> out;
  for (const P2pRow& c : r.rows) {
    if (c.api != Api::cuda || c.method != P2pMethod::staged || c.state != "ok") continue;
    for (const P2pRow& v : r.rows) {
      if (v.api != Api::vulkan || v.method != P2pMethod::staged || v.state != "ok" ||
          v.src != c.src || v.dst != c.dst || v.bytes != c.bytes || v.both != c.both)
        continue;
      ParityItem item{&c, &v, ratio_ci(median_ci(v.ms), median_ci(c.ms)), Verdict::uncertain};
      item.verdict = judge(item.ratio, r.tolerance);
      out.push_back(item);
    }
  }
  return out;
}

std::vector<std::vector<std::string>> row_table(const P2pReport& r) {
  std::vector<std::vector<std::string>> t = {{"pair", "api", "method", "bytes", "chunks",
                                              "median ms", "spread", "n", "GB/s per direction",
                                              "state", "note"}};
  for (const P2pRow& row : r.rows) {
    const bool timed = row.state != "unavailable";
    t.push_back({pair_text(r, row), api_name(row.api), p2p_method_name(row.method),
                 row.bytes ? size_text(row.bytes) : "-",
                 row.method == P2pMethod::staged && timed ? std::to_string(row.chunks) : "-",
                 timed ? fixed(row.ms.median, 4) : "-",
                 timed ? fixed(100.0 * row.ms.rel_spread, 1) + "%" : "-",
                 timed ? std::to_string(row.ms.samples) : "-",
                 row.state == "ok" ? fixed(row.gbps(), 2) : "-", row.state, dash(row.note)});
  }
  return t;
}

// The GPU-to-GPU matrix: per pair and size, GB/s of each API and method (one direction each).
std::vector<std::vector<std::string>> matrix_table(const P2pReport& r) {
  std::vector<std::vector<std::string>> t = {
      {"pair", "bytes", "cuda staged", "vulkan staged", "cuda peer-copy", "cuda peer-read"}};
  for (const P2pRow& row : r.rows) {
    if (row.api != Api::cuda || row.method != P2pMethod::staged) continue;
    std::vector<std::string> line = {pair_text(r, row), size_text(row.bytes)};
    const std::pair<Api, P2pMethod> cols[] = {{Api::cuda, P2pMethod::staged},
                                              {Api::vulkan, P2pMethod::staged},
                                              {Api::cuda, P2pMethod::peer_copy},
                                              {Api::cuda, P2pMethod::peer_read}};
    for (const auto& [api, method] : cols) {
      std::string cell = "-";
      for (const P2pRow& o : r.rows)
        if (o.api == api && o.method == method && o.src == row.src && o.dst == row.dst &&
            o.bytes == row.bytes && o.both == row.both)
          cell = o.state == "ok" ? fixed(o.gbps(), 2) : o.state;
      line.push_back(cell);
    }
    t.push_back(line);
  }
  return t;
}

std::vector<std::vector<std::string>> parity_table(const P2pReport& r) {
  std::vector<std::vector<std::string>> t = {
      {"pair", "bytes", "cuda ms", "vulkan ms", "vulkan/cuda", "95% CI", "verdict"}};
  for (const ParityItem& p : parity_items(r))
    t.push_back({pair_text(r, *p.cuda), size_text(p.cuda->bytes), fixed(p.cuda->ms.median, 4),
                 fixed(p.vulkan->ms.median, 4), fixed(p.ratio.ratio, 3), interval_text(p.ratio),
                 parity_verdict_name(p.verdict)});
  return t;
}

std::string format_text(const P2pReport& r, bool md) {
  std::string s = heading(1, md, "GPU to GPU");
  s += fmt::format(
      "Host wall time around each whole transfer (GPU timestamps cannot span two devices), {} "
      "warm-up then {} timed repetitions, median; staged copies in chunks of up to {} through two "
      "host chunks (double-buffered); every row verified word by word.\n\n",
      r.warmup, r.reps, size_text(r.chunk_bytes));
  std::vector<std::vector<std::string>> probe = {{"probe", "what the node reports"}};
  for (const auto& [k, v] : r.probe.devices) probe.push_back({k, v});
  for (const auto& [k, v] : r.probe.pairs) probe.push_back({k, v});
  s += heading(2, md, "Probes") + format_text_table(probe, md) + "\n";
  s += heading(2, md, "Rows") + format_text_table(row_table(r), md) + "\n";
  s += heading(2, md, "Matrix (GB/s per direction)") + format_text_table(matrix_table(r), md) + "\n";
  const auto parity = parity_table(r);
  s += heading(2, md, "Parity of the staged copies (tolerance " + tolerance_text(r.tolerance) + ")");
  s += parity.size() > 1 ? format_text_table(parity, md)
                         : std::string("no pair where both APIs' staged copies ran\n");
  return s;
}

std::string format_json(const P2pReport& r) {
  nlohmann::json j;
  j["schema"] = "cuvk.p2p/1";
  j["provenance"] = {{"cuvk_version", build::kVersion}, {"git_revision", build::kGitRevision}};
  j["timing"] = "host wall clock around the whole transfer";
  j["warmup"] = r.warmup;
  j["reps"] = r.reps;
  j["chunk_bytes"] = r.chunk_bytes;
  j["tolerance"] = r.tolerance;
  for (const auto& [k, v] : r.probe.devices) j["probe"]["devices"][printable(k)] = printable(v);
  for (const auto& [k, v] : r.probe.pairs) j["probe"]["pairs"][printable(k)] = printable(v);
  j["rows"] = nlohmann::json::array();
  for (const P2pRow& row : r.rows) {
    j["rows"].push_back({{"src", r.labels[row.src]}, {"dst", r.labels[row.dst]},
                         {"api", api_name(row.api)}, {"method", p2p_method_name(row.method)},
                         {"both_directions", row.both}, {"bytes", row.bytes},
                         {"chunks", row.chunks}, {"median_ms", row.ms.median},
                         {"q1_ms", row.ms.q1}, {"q3_ms", row.ms.q3}, {"samples", row.ms.samples},
                         {"gbps_per_direction", row.gbps()}, {"state", row.state},
                         {"note", printable(row.note)}});
  }
  j["parity"] = nlohmann::json::array();
  for (const ParityItem& p : parity_items(r))
    j["parity"].push_back({{"src", r.labels[p.cuda->src]}, {"dst", r.labels[p.cuda->dst]},
                           {"both_directions", p.cuda->both}, {"bytes", p.cuda->bytes},
                           {"ratio", p.ratio.ratio}, {"low", p.ratio.low}, {"high", p.ratio.high},
                           {"verdict", parity_verdict_name(p.verdict)}});
  return j.dump(2) + "\n";
}

}  // namespace

std::string format_p2p(const P2pReport& report, Format format) {
  if (format == Format::json) return format_json(report);
  return format_text(report, format == Format::md);
}

}  // namespace cuvk
