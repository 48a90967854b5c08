// The sector model against the seeds' figures.
#include <gtest/gtest.h>

#include "catalogue.h"
#include "sector_model.h"

using cuvk::AccessStream;
using cuvk::Point;
using cuvk::sectors_per_request;

namespace {
AccessStream floats(std::uint64_t offset_elems, std::uint64_t stride_elems = 1,
                    std::uint64_t count = 1 << 20) {
  return AccessStream{offset_elems * 4, stride_elems * 4, 4, count};
}
cuvk::BuiltinPlan plan(const std::string& test, Point p) { return cuvk::find_test(test)->builtin(p); }
}  // namespace

TEST(SectorModel, AlignedWarpNeedsFourSectors) {  // seed 000: offset 0 and 8 (32 B)
  EXPECT_EQ(sectors_per_request(floats(0)), 4u);
  EXPECT_EQ(sectors_per_request(floats(8)), 4u);
  EXPECT_EQ(sectors_per_request(floats(32)), 4u);
}

TEST(SectorModel, MisalignedWarpNeedsFive) {  // seed 000/004: offset 1 -> one extra sector
  for (std::uint64_t off : {1, 2, 4, 7, 31}) EXPECT_EQ(sectors_per_request(floats(off)), 5u) << off;
}

TEST(SectorModel, StrideMultipliesSectors) {  // seed 004: stride 2 -> 2x, stride 3 -> 3x
  EXPECT_EQ(sectors_per_request(floats(0, 2)), 8u);
  EXPECT_EQ(sectors_per_request(floats(0, 3)), 12u);
  EXPECT_EQ(sectors_per_request(floats(0, 4)), 16u);
  EXPECT_EQ(sectors_per_request(floats(0, 8)), 32u);   // every lane its own sector
  EXPECT_EQ(sectors_per_request(floats(0, 32)), 32u);  // and no more
}

TEST(SectorModel, ReadXAosNeedsFourTimesTheSectorsOfSoa) {  // seed 001
  Point p = cuvk::make_point("aos", "scalar", 1 << 20);
  const auto aos = plan("read_x", p).traffic;
  p.layout = "soa";
  const auto soa = plan("read_x", p).traffic;
  EXPECT_EQ(soa.sectors_per_request, 4u);
  EXPECT_EQ(aos.sectors_per_request, 16u);
  EXPECT_DOUBLE_EQ(aos.request_efficiency, 0.25);
  EXPECT_DOUBLE_EQ(soa.request_efficiency, 1.0);
  // Seed 001's bytes model: SoA moves 8 B per element, AoS 20 B (16 read + 4 written).
  EXPECT_EQ(soa.moved_bytes, 8ull << 20);
  EXPECT_EQ(aos.moved_bytes, 20ull << 20);
  EXPECT_EQ(aos.useful_bytes, soa.useful_bytes);
}

// Seed 004: "AoS with 3 fields behaves like stride 3". read_x3's AoS load is the stride test at
// stride 3: 12 sectors per warp request, a third of them useful; SoA needs 4.
TEST(SectorModel, ReadX3AosBehavesLikeStride3) {
  const std::uint32_t n = 1 << 20;
  const auto aos = plan("read_x3", cuvk::make_point("aos", "scalar", n)).traffic;
  const auto soa = plan("read_x3", cuvk::make_point("soa", "scalar", n)).traffic;
  const auto stride3 = plan("stride", cuvk::make_point("", "scalar", 3 * n, {{"stride", 3}})).traffic;
  EXPECT_EQ(aos.sectors_per_request, 12u);
  EXPECT_EQ(aos.sectors_per_request, stride3.sectors_per_request);
  EXPECT_DOUBLE_EQ(aos.request_efficiency, 1.0 / 3.0);
  EXPECT_EQ(soa.sectors_per_request, 4u);
  // DRAM reads every byte of the 12-byte particles (12 B) and writes x (4 B) per particle, like
  // stride 3 over 3n floats; SoA reads the x plane only.
  EXPECT_EQ(aos.moved_bytes, 16ull * n);
  EXPECT_EQ(aos.moved_bytes, stride3.moved_bytes);
  EXPECT_EQ(soa.moved_bytes, 8ull * n);
  EXPECT_EQ(aos.useful_bytes, soa.useful_bytes);
}

TEST(SectorModel, UpdateXyVec2MovesWhatTheScalarFormMoves) {
  const std::uint32_t n = (1 << 20) + 1;  // odd: SoA vec2 pads each plane by one element
  for (const char* layout : {"aos", "soa"}) {
    const auto scalar = plan("update_xy", cuvk::make_point(layout, "scalar", n));
    const auto wide = plan("update_xy", cuvk::make_point(layout, "vec2", n));
    const std::uint64_t pad = std::string(layout) == "soa" ? 1 : 0;
    EXPECT_EQ(wide.in_words, scalar.in_words + 2 * pad) << layout;
    EXPECT_EQ(wide.traffic.useful_bytes, scalar.traffic.useful_bytes + 16 * pad) << layout;
    EXPECT_NEAR(static_cast<double>(wide.traffic.moved_bytes),
                static_cast<double>(scalar.traffic.moved_bytes), 64.0) << layout;
  }
  // The pair as one 8-byte access: every byte a warp asks for is used (scalar AoS: half).
  EXPECT_DOUBLE_EQ(plan("update_xy", cuvk::make_point("aos", "vec2", n)).traffic.request_efficiency, 1.0);
  EXPECT_EQ(plan("update_xy", cuvk::make_point("soa", "vec2", n)).params.n, (n + 1) / 2);
  EXPECT_EQ(plan("update_xy", cuvk::make_point("soa", "vec2", n)).params.aux, n + 1);
}

TEST(SectorModel, UpdateXyAosHalvesRequestEfficiency) {  // seeds 000/003: 50% vs 100%
  Point p = cuvk::make_point("aos", "scalar", 1 << 20);
  const auto aos = plan("update_xy", p).traffic;
  p.layout = "soa";
  const auto soa = plan("update_xy", p).traffic;
  EXPECT_DOUBLE_EQ(aos.request_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(soa.request_efficiency, 1.0);
  EXPECT_EQ(aos.moved_bytes, soa.moved_bytes);  // DRAM still moves each sector once
}

TEST(SectorModel, OffsetTestsReportFiveSectorsWhenMisaligned) {
  Point p{"", "scalar", 1 << 20, {}};
  p.axes.set("offset", 1);
  EXPECT_EQ(plan("read_offset", p).traffic.sectors_per_request, 5u);
  EXPECT_EQ(plan("write_offset", p).traffic.sectors_per_request, 5u);
  p.axes.set("offset", 8);
  EXPECT_EQ(plan("read_offset", p).traffic.sectors_per_request, 4u);
  // A misaligned stream touches one more sector in all: DRAM traffic barely changes.
  p.axes.set("offset", 1);
  EXPECT_EQ(plan("read_offset", p).traffic.moved_bytes, (8ull << 20) + 32);
}

TEST(SectorModel, StrideTestMovesWholeArrayUntilSectorsAreSkipped) {
  const std::uint32_t n = 1 << 20;
  for (std::uint32_t s : {1u, 2u, 4u, 8u}) {
    const auto t = plan("stride", cuvk::make_point("", "scalar", n, {{"stride", s}})).traffic;
    EXPECT_EQ(t.moved_bytes, 4ull * n + 4ull * (n / s)) << s;  // whole input + output
    EXPECT_EQ(t.useful_bytes, 8ull * (n / s)) << s;
  }
  const auto t16 = plan("stride", cuvk::make_point("", "scalar", n, {{"stride", 16}})).traffic;
  EXPECT_EQ(t16.moved_bytes, 32ull * (n / 16) + 4ull * (n / 16));  // every other sector skipped
}

TEST(SectorModel, WideCopyIsFullyEfficient) {
  const auto t = plan("copy", cuvk::make_point("", "vec4", 1 << 20)).traffic;
  EXPECT_EQ(t.sectors_per_request, 16u);  // 512 bytes per warp request
  EXPECT_DOUBLE_EQ(t.request_efficiency, 1.0);
  EXPECT_EQ(t.moved_bytes, t.useful_bytes);
}
