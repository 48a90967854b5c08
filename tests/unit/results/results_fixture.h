// Synthetic result documents ("cuvk.results/1") for the reader, comparison and report tests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace cuvk::fixture {

using nlohmann::json;

// One ok row with the given median and 95% interval (ms). A test with layouts (the reader
// checks each row's names against the catalogue) takes "aos" unless `layout` says otherwise.
inline json row(const std::string& test, const std::string& api, double median, double low,
                double high, unsigned offset = 0, const std::string& hash = "00000000000000aa",
                std::string layout = "") {
  if (layout.empty() && (test == "read_x" || test == "read_x3" || test == "update_xy"))
    layout = "aos";
  return {
      {"test", test},
      {"layout", layout.empty() ? json(nullptr) : json(layout)},
      {"api", api},
      {"variant", "scalar"},
      {"kernel", test},
      {"params",
       {{"n", 4096}, {"offset", offset}, {"stride", 1}, {"block_size", 256}, {"threads", 4096}}},
      {"status", "ok"},
      {"useful_bytes", 32768},
      {"moved_bytes", 32768},
      {"sectors_per_request", 4},
      {"verified", true},
      {"output_xxh3_64", hash},
      {"time_ms", {{"median", median}, {"min", low}, {"max", high}}},
      {"ci",
       {{"level", 0.95},
        {"low_ms", low},
        {"high_ms", high},
        {"rel_half_width", (high - low) / 2 / median}}},
      {"rel_spread", 0.01},
      {"samples", 100},
      {"gbps_useful", 32768 / (median * 1e6)},
      {"gbps_moved", 32768 / (median * 1e6)},
      {"flags", json::array()}};
}

inline json unavailable_row(const std::string& test, const std::string& api, unsigned offset = 0) {
  json r = row(test, api, 1, 1, 1, offset);
  r["status"] = "unavailable";
  r["reason"] = "no CUDA driver found";
  r["time_ms"] = nullptr;
  r["ci"] = nullptr;
  r["output_xxh3_64"] = nullptr;
  r["verified"] = false;
  return r;
}

inline json device(const std::string& api, const std::string& name = "Test GPU",
                   const std::string& uuid = "11111111-2222-3333-4444-555555555555") {
  return {{"api", api},
          {"index", 0},
          {"name", name},
          {"uuid", uuid},
          {"is_cpu", false},
          {"driver", api == "cuda" ? "CUDA driver 12.4, runtime 12.4" : "NVIDIA 550.54.15"},
          {"properties", api == "cuda" ? json{{"cuda_driver_version", "12.4"}} : json::object()}};
}

inline json document(const json& rows, bool with_cuda = true, bool with_vulkan = true,
                     const std::string& gpu = "Test GPU") {
  return {{"schema", "cuvk.results/1"},
          {"provenance",
           {{"tool", "cuvk"},
            {"version", "0.1.0"},
            {"git_revision", "abc123"},
            {"date_utc", "2026-01-01T00:00:00Z"}}},
          {"devices",
           {{"cuda", with_cuda ? device("cuda", gpu) : json(nullptr)},
            {"vulkan", with_vulkan ? device("vulkan", gpu) : json(nullptr)},
            {"cuda_unavailable_reason", with_cuda ? json(nullptr) : json("no CUDA driver found")},
            {"vulkan_unavailable_reason", nullptr}}},
          {"settings", {{"n", 4096}}},
          {"results", rows}};
}

}  // namespace cuvk::fixture
