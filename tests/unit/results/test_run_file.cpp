// The run file's field table: what the writer writes, the reader reads back; every sweep axis is
// a params field; every field is on the schema page; the run summary pairs rows as parity does.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "axes.h"
#include "error.h"
#include "parity.h"
#include "results_fixture.h"
#include "run_file.h"
#include "run_reader.h"
#include "run_summary.h"
#include "util.h"
#include "verdicts.h"

using namespace cuvk;

namespace {

ResultRow ok_row() {
  ResultRow r;
  r.test = "update_xy";
  r.layout = "aos";
  r.variant = "vec2";
  r.kernel = "update_xy_aos_vec2";
  r.api = Api::vulkan;
  r.binding = Binding::bda;
  r.n = 4096;
  r.block_size = 128;
  std::uint32_t v = 3;
  for (const Axis& axis : axes()) r.axes.set(axis.name, v++);
  r.status = Status::ok;
  r.time_ms.median = 1.5;
  r.time_ms.min = 1.25;
  r.time_ms.max = 2.5;
  r.time_ms.ci_low = 1.375;
  r.time_ms.ci_high = 1.625;
  r.time_ms.ci_rel_half_width = 0.0625;
  r.time_ms.rel_spread = 0.03125;
  r.time_ms.samples = 123;
  r.useful_bytes = 1u << 20;
  r.moved_bytes = 1u << 21;
  r.gbps_useful = gbps(r.useful_bytes, r.time_ms.median);  // consistent: the reader checks
  r.gbps_moved = gbps(r.moved_bytes, r.time_ms.median);
  r.sectors_per_request = 5;
  r.verified = true;
  r.check = Check::verified;
  r.checked_against = {"cuda", "expected file"};
  r.checked = 4096;
  r.mismatches = 0;
  r.output_hash = OutputHash{HashKind::xxh3_64, 0x0123456789abcdefull};
  r.stop_reason = "time_budget";
  r.flags = {"ci_not_met", "throttled"};
  return r;
}

ResultRow round_trip(const ResultRow& r) {
  const nlohmann::json j = row_json(r);
  return read_row(JsonIn("t.json", j));
}

// Every key the table writes, as "key" and "group.key".
void collect(const std::vector<RowField>& fields, const std::string& prefix,
             std::vector<std::string>& out) {
  for (const RowField& f : fields) {
    out.push_back(prefix + f.name);
    collect(f.fields, prefix + f.name + ".", out);
  }
}

}  // namespace

TEST(RowFields, WhatTheWriterWritesTheReaderReadsBack) {
  const ResultRow r = ok_row();
  const ResultRow b = round_trip(r);
  EXPECT_EQ(b.test, r.test);
  EXPECT_EQ(b.layout, r.layout);
  EXPECT_EQ(b.variant, r.variant);
  EXPECT_EQ(b.kernel, r.kernel);
  EXPECT_EQ(b.api, r.api);
  EXPECT_EQ(b.binding, r.binding);
  EXPECT_EQ(b.n, r.n);
  EXPECT_EQ(b.axes, r.axes);
  EXPECT_EQ(b.block_size, r.block_size);
  EXPECT_EQ(b.status, r.status);
  EXPECT_EQ(b.time_ms.median, r.time_ms.median);
  EXPECT_EQ(b.time_ms.min, r.time_ms.min);
  EXPECT_EQ(b.time_ms.max, r.time_ms.max);
  EXPECT_EQ(b.time_ms.ci_low, r.time_ms.ci_low);
  EXPECT_EQ(b.time_ms.ci_high, r.time_ms.ci_high);
  EXPECT_EQ(b.time_ms.ci_rel_half_width, r.time_ms.ci_rel_half_width);
  EXPECT_EQ(b.time_ms.rel_spread, r.time_ms.rel_spread);
  EXPECT_EQ(b.time_ms.samples, r.time_ms.samples);
  EXPECT_EQ(b.useful_bytes, r.useful_bytes);
  EXPECT_EQ(b.moved_bytes, r.moved_bytes);
  EXPECT_EQ(b.gbps_useful, r.gbps_useful);
  EXPECT_EQ(b.gbps_moved, r.gbps_moved);
  EXPECT_EQ(b.sectors_per_request, r.sectors_per_request);
  EXPECT_EQ(b.verified, r.verified);
  EXPECT_EQ(b.check, r.check);
  EXPECT_EQ(b.checked_against, r.checked_against);
  EXPECT_EQ(b.checked, r.checked);
  EXPECT_EQ(b.output_hash, r.output_hash);
  EXPECT_EQ(b.stop_reason, r.stop_reason);
  EXPECT_EQ(b.flags, r.flags);
  EXPECT_EQ(row_identity(b), row_identity(r));

  ResultRow failed = ok_row();
  failed.status = Status::failed;
  failed.reason = "3 wrong elements, first at 17";
  failed.mismatches = 3;
  const nlohmann::json j = row_json(failed);
  EXPECT_TRUE(j["time_ms"].is_null());  // no time for a row that did not verify
  EXPECT_EQ(j["samples"], 0);
  EXPECT_FALSE(j.contains("stop_reason"));
  const ResultRow fb = round_trip(failed);
  EXPECT_EQ(fb.reason, failed.reason);
  EXPECT_EQ(fb.mismatches, 3u);
  EXPECT_EQ(fb.time_ms.samples, 0u);
}

// Issue 31: a row that ran but was not verified round-trips as such; a file written before the
// field reads as "not recorded", printed so, never as verified by this cuvk.
TEST(RowFields, TheCheckRoundTripsAndOldFilesReadAsNotRecorded) {
  ResultRow r = ok_row();
  r.verified = false;
  r.check = Check::unchecked;
  r.checked_against.clear();
  r.check_note = "nothing to compare with: no other API ran";
  const ResultRow b = round_trip(r);
  EXPECT_EQ(b.check, Check::unchecked);
  EXPECT_FALSE(b.verified);
  EXPECT_EQ(b.check_note, r.check_note);
  EXPECT_EQ(status_label(b.status, b.check), "ok, unchecked");
  nlohmann::json old = row_json(ok_row());
  old.erase("check");
  old.erase("checked_against");
  old.erase("check_note");
  const ResultRow o = read_row(JsonIn("old.json", old));
  EXPECT_EQ(o.check, Check::not_recorded);
  EXPECT_TRUE(o.verified);
  EXPECT_EQ(status_label(o.status, o.check), "ok, check not recorded");
}

TEST(RowFields, TheOutputHashIsWrittenUnderItsKindsKey) {
  ResultRow r = ok_row();
  nlohmann::json j = row_json(r);
  EXPECT_EQ(j["output_xxh3_64"], "0123456789abcdef");
  EXPECT_FALSE(j.contains("output_fnv1a64"));
  // A file written before XXH3 carries FNV-1a 64: read, and written back under the same key.
  j.erase("output_xxh3_64");
  j["output_fnv1a64"] = "00000000000000aa";
  const ResultRow old = read_row(JsonIn("t.json", j));
  ASSERT_TRUE(old.output_hash.has_value());
  EXPECT_EQ(old.output_hash->kind, HashKind::fnv1a64);
  EXPECT_EQ(old.output_hash->value, 0xaau);
  const nlohmann::json again = row_json(old);
  EXPECT_EQ(again["output_fnv1a64"], "00000000000000aa");
  EXPECT_FALSE(again.contains("output_xxh3_64"));
  // No hash: the current key, null.
  r.output_hash.reset();
  EXPECT_TRUE(row_json(r)["output_xxh3_64"].is_null());
  // A row with two hashes is not something cuvk writes.
  j["output_xxh3_64"] = "0123456789abcdef";
  try {
    read_row(JsonIn("t.json", j));
    ADD_FAILURE() << "two hashes accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("one output hash"), std::string::npos) << e.what();
  }
}

// Every axis is written; a file written before an axis existed reads it as the axis's neutral
// value, so older files keep reading (and matching) when an axis is added.
TEST(RowFields, EverySweepAxisIsWrittenAndReadsNeutralWhenMissing) {
  const ResultRow r = ok_row();
  const nlohmann::json j = row_json(r);
  for (const Axis& axis : axes()) {
    EXPECT_EQ(j["params"][axis.name], r.axes.get(axis.name)) << axis.name;
    nlohmann::json missing = j;
    missing["params"].erase(axis.name);
    const ResultRow b = read_row(JsonIn("t.json", missing));
    EXPECT_EQ(b.axes.get(axis.name), axis.neutral) << axis.name;
    nlohmann::json wrong = j;
    wrong["params"][axis.name] = -1;
    EXPECT_THROW(read_row(JsonIn("t.json", wrong)), UsageError) << axis.name;
  }
}

// queue_family / queue_flags: written only in rows that have a queue family (copy-engine rows of
// Vulkan), read back, and part of the row's identity.
TEST(RowFields, QueueFamilyIsOptionalAndPartOfTheIdentity) {
  ResultRow r = ok_row();
  EXPECT_FALSE(row_json(r).contains("queue_family"));
  EXPECT_FALSE(row_json(r).contains("queue_flags"));
  EXPECT_FALSE(round_trip(r).queue_family.has_value());
  ResultRow q = r;
  q.queue_family = 1;
  q.queue_flags = "transfer|sparse";
  const nlohmann::json j = row_json(q);
  EXPECT_EQ(j["queue_family"], 1);
  EXPECT_EQ(j["queue_flags"], "transfer|sparse");
  const ResultRow b = round_trip(q);
  EXPECT_EQ(b.queue_family, q.queue_family);
  EXPECT_EQ(b.queue_flags, q.queue_flags);
  EXPECT_NE(row_identity(q), row_identity(r));
  EXPECT_EQ(row_identity(b), row_identity(q));
  EXPECT_EQ(variant_label(q), "vec2 q1 (transfer|sparse)");
  EXPECT_EQ(variant_label(r), "vec2");
  nlohmann::json bad = j;
  bad["queue_family"] = "one";
  EXPECT_THROW(read_row(JsonIn("t.json", bad)), UsageError);
}

TEST(RowFields, EveryFieldIsOnTheSchemaPage) {
  std::ifstream f(std::string(CUVK_SOURCE_DIR) + "/results/SCHEMA.md");
  ASSERT_TRUE(f) << "results/SCHEMA.md";
  std::stringstream text;
  text << f.rdbuf();
  const std::string page = text.str();
  std::vector<std::string> keys;
  collect(row_fields(), "", keys);
  for (const std::string& key : keys) {
    const std::string name = key.substr(key.find_last_of('.') + 1);
    EXPECT_NE(page.find("`" + name + "`"), std::string::npos) << key << " is not in SCHEMA.md";
  }
  EXPECT_NE(page.find(schema_name()), std::string::npos);
}

TEST(RunSummary, PairsRowsAsParityDoes) {
  using fixture::row;
  nlohmann::json cuda = row("copy", "cuda", 1.0, 0.995, 1.005);
  nlohmann::json descriptor = row("copy", "vulkan", 1.05, 1.04, 1.06);
  nlohmann::json bda = row("copy", "vulkan", 1.0, 0.995, 1.005);
  descriptor["binding"] = "descriptor";
  bda["binding"] = "bda";
  const nlohmann::json only_vulkan = row("stride", "vulkan", 1.0, 0.99, 1.01);
  const nlohmann::json only_cuda = row("read_x", "cuda", 1.0, 0.99, 1.01);
  const RunFile run = parse_results(
      fixture::document({cuda, descriptor, bda, only_vulkan, only_cuda}).dump(), "t.json");
  const std::vector<ParitySummaryRow> summary = parity_summary(run.rows);
  std::vector<ApiPair> with_cuda;
  for (const ApiPair& p : pair_apis(run.rows))
    if (p.cuda) with_cuda.push_back(p);
  ASSERT_EQ(summary.size(), with_cuda.size());
  ASSERT_EQ(summary.size(), 3u);  // copy x {descriptor, bda}, read_x; stride has no CUDA row
  for (std::size_t i = 0; i < summary.size(); ++i) {
    EXPECT_EQ(summary[i].point.test, with_cuda[i].cuda->test);
    EXPECT_TRUE(summary[i].vulkan_lane == with_cuda[i].vulkan_lane);
  }
  EXPECT_TRUE(summary[0].differs);  // 5% beyond the tolerance
  EXPECT_GT(0.05, kDefaultTolerance);
  EXPECT_FALSE(summary[1].differs);
  EXPECT_FALSE(summary[2].vulkan_ms.has_value());
}

namespace {

nlohmann::json engine_row(const std::string& api, double median, std::optional<unsigned> family,
                          const std::string& flags = "") {
  nlohmann::json r = fixture::row("copy", api, median, median * 0.99, median * 1.01);
  r["variant"] = "engine";
  r["kernel"] = "copy_engine";
  if (family) {
    r["queue_family"] = *family;
    r["queue_flags"] = flags;
  }
  return r;
}

}  // namespace

// At a copy-engine point, the CUDA row (cudaMemcpyAsync) pairs with every Vulkan queue family's
// row: one pair, ratio and verdict per family, in the order of the rows.
TEST(CopyQueues, TheCudaRowPairsWithEveryQueueFamily) {
  nlohmann::json cuda = engine_row("cuda", 0.18, std::nullopt);
  const RunFile run = parse_results(
      fixture::document({cuda, engine_row("vulkan", 0.63, 0, "graphics|compute|transfer"),
                         engine_row("vulkan", 3.0, 1, "transfer"),
                         engine_row("vulkan", 0.63, 2, "compute|transfer")})
          .dump(),
      "t.json");
  const std::vector<ApiPair> pairs = pair_apis(run.rows);
  ASSERT_EQ(pairs.size(), 3u);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    ASSERT_TRUE(pairs[i].cuda && pairs[i].vulkan);
    EXPECT_EQ(pairs[i].vulkan_lane.value("queue_family"), std::to_string(i));
    EXPECT_EQ(pairs[i].vulkan->queue_family, std::optional<std::uint32_t>(i));
  }
  EXPECT_EQ(variant_label(pairs[1].point, pairs[1].vulkan_lane), "engine q1 (transfer)");
  const ParityResult p = compare_apis(run.rows, kDefaultTolerance);
  EXPECT_EQ(p.slower, 3u);
  const std::vector<ParitySummaryRow> summary = parity_summary(run.rows);
  ASSERT_EQ(summary.size(), 3u);
  EXPECT_EQ(summary[1].vulkan_lane.value("queue_family"), "1");
  EXPECT_EQ(summary[1].vulkan_lane.value("queue_flags"), "transfer");
}

// A file from before copy queues: its Vulkan copy-engine row ran on the compute family the device
// names, so it reads as that family's row (and matches a newer run's); every other row has none.
TEST(CopyQueues, AnOldFilesEngineRowReadsAsTheComputeFamilys) {
  nlohmann::json doc = fixture::document(
      {engine_row("cuda", 0.18, std::nullopt), engine_row("vulkan", 0.63, std::nullopt),
       fixture::row("copy", "vulkan", 0.2, 0.19, 0.21)});
  doc["devices"]["vulkan"]["properties"]["compute_queue_family"] = "2";
  const RunFile run = parse_results(doc.dump(), "old.json");
  ASSERT_EQ(run.rows.size(), 3u);
  EXPECT_FALSE(run.rows[0].queue_family.has_value());  // CUDA: no queue families
  EXPECT_EQ(run.rows[1].queue_family, std::optional<std::uint32_t>(2));
  EXPECT_FALSE(run.rows[2].queue_family.has_value());  // not the copy engine
  // Two rows of one family at one point repeat each other; two families do not.
  nlohmann::json dup = fixture::document({engine_row("vulkan", 0.63, 1, "transfer"),
                                          engine_row("vulkan", 0.64, 1, "transfer"),
                                          engine_row("vulkan", 0.65, 0, "compute")});
  EXPECT_THROW(parse_results(dup.dump(), "dup.json"), UsageError);
  dup["results"].erase(1);
  EXPECT_EQ(parse_results(dup.dump(), "ok.json").rows.size(), 2u);
}

// The published H100 runs predate copy queues and the copy_mib axis: they still read, and their
// copy-engine rows carry the compute family (0 there).
TEST(CopyQueues, PublishedRunsStillRead) {
  for (const char* name : {"/results/h100.json", "/results/h100/h100_previous.json"}) {
    SCOPED_TRACE(name);
    const RunFile run = read_results(std::string(CUVK_SOURCE_DIR) + name);
    EXPECT_FALSE(run.rows.empty());
    for (const ResultRow& r : run.rows) {
      EXPECT_EQ(r.axes.get("copy_mib"), find_axis("copy_mib")->neutral);
      if (r.api == Api::vulkan && r.kernel == kCopyEngine)
        EXPECT_EQ(r.queue_family, std::optional<std::uint32_t>(0));
      else
        EXPECT_FALSE(r.queue_family.has_value());
    }
  }
}
