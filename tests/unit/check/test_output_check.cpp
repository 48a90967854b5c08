// Issue 31: a pair's outputs compared element by element (host/core/runner/check/output_check.h): mismatches
// anywhere (the tail too), a difference just beyond the declared tolerance, unwritten elements told
// by each lane's own poison, NaNs. No device needed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "output_check.h"

namespace {

using namespace cuvk;

ModelBuffer f32_buffer(std::uint64_t count) {
  ModelBuffer b;
  b.name = "y";
  b.element = ElementType::f32;
  b.element_bytes = 4;
  b.count = count;
  b.output = true;
  return b;
}

std::vector<std::uint8_t> bytes_of(const std::vector<float>& v) {
  std::vector<std::uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::vector<float> values(std::uint64_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = d(gen);
  return v;
}

std::vector<std::uint8_t> poisoned(const ModelBuffer& b, std::uint32_t word) {
  std::vector<std::uint8_t> out(b.bytes());
  for (std::uint64_t i = 0; i < out.size(); ++i) out[i] = poison_byte(word, i);
  return out;
}

Comparison compare(const ModelBuffer& b, const std::vector<std::uint8_t>& got,
                   const std::vector<std::uint8_t>& want) {
  return compare_output(b, {got.data(), std::nullopt, "vulkan descriptor"},
                        {want.data(), std::nullopt, "cuda"});
}

TEST(OutputCheck, MismatchesAtRandomPositionsTheTailIncludedAreAllCounted) {
  const std::uint64_t n = 4099;  // not a power of two: a loop cut at n/2 or by 4 misses some
  const ModelBuffer b = f32_buffer(n);
  const std::vector<float> want = values(n, 1);
  std::mt19937 gen(7);
  std::set<std::uint64_t> bad = {n - 1, n / 2 + 1};  // the last element and one past the middle
  while (bad.size() < 40) bad.insert(std::uniform_int_distribution<std::uint64_t>(0, n - 1)(gen));
  std::vector<float> got = want;
  for (std::uint64_t i : bad) got[i] = std::nextafter(got[i], 2.0f);
  const Comparison c = compare(b, bytes_of(got), bytes_of(want));
  EXPECT_EQ(c.checked, n);
  EXPECT_EQ(c.mismatches, bad.size());
  ASSERT_TRUE(c.first_bad.has_value());
  EXPECT_EQ(*c.first_bad, *bad.begin());
  // Only the tail wrong: still found.
  std::vector<float> tail = want;
  tail[n - 1] += 1.0f;
  const Comparison t = compare(b, bytes_of(tail), bytes_of(want));
  EXPECT_EQ(t.mismatches, 1u);
  ASSERT_TRUE(t.first_bad.has_value());
  EXPECT_EQ(*t.first_bad, n - 1);
  EXPECT_NE(t.message.find("element 4098: vulkan descriptor"), std::string::npos) << t.message;
}

TEST(OutputCheck, AToleranceHoldsUpToItsBoundAndNotOneStepBeyond) {
  ModelBuffer b = f32_buffer(2);
  const std::vector<float> want = {1.0f, -3.0f};
  b.tolerance = {Tolerance::Kind::ulp, 4};
  std::vector<float> within = want, beyond = want;
  for (int k = 0; k < 4; ++k) within[1] = std::nextafter(within[1], -10.0f);
  beyond[1] = std::nextafter(within[1], -10.0f);  // 5 ulp
  EXPECT_EQ(compare(b, bytes_of(within), bytes_of(want)).mismatches, 0u);
  EXPECT_DOUBLE_EQ(compare(b, bytes_of(within), bytes_of(want)).worst, 4.0);
  EXPECT_EQ(compare(b, bytes_of(beyond), bytes_of(want)).mismatches, 1u);
  b.tolerance = {Tolerance::Kind::abs, 0.5};
  EXPECT_EQ(compare(b, bytes_of({1.5f, -3.0f}), bytes_of(want)).mismatches, 0u);
  EXPECT_EQ(compare(b, bytes_of({1.5001f, -3.0f}), bytes_of(want)).mismatches, 1u);
  // An integer buffer's absolute tolerance is a tolerance too (it compared exactly before).
  ModelBuffer ints = b;
  ints.element = ElementType::i32;
  const std::vector<std::int32_t> a = {10, -4}, c = {12, -4};
  std::vector<std::uint8_t> ab(8), cb(8);
  std::memcpy(ab.data(), a.data(), 8);
  std::memcpy(cb.data(), c.data(), 8);
  ints.tolerance = {Tolerance::Kind::abs, 2};
  EXPECT_EQ(compare(ints, ab, cb).mismatches, 0u);
  ints.tolerance = {Tolerance::Kind::abs, 1};
  EXPECT_EQ(compare(ints, ab, cb).mismatches, 1u);
}

TEST(OutputCheck, EveryLaneHasItsOwnPoisonInEveryByteAndEachIsANaN) {
  const std::uint32_t words[] = {lane_poison_word(Api::cuda, Binding::pointer),
                                 lane_poison_word(Api::vulkan, Binding::descriptor),
                                 lane_poison_word(Api::vulkan, Binding::bda)};
  for (int i = 0; i < 3; ++i) {
    float f;
    std::memcpy(&f, &words[i], 4);
    EXPECT_TRUE(std::isnan(f)) << i;
    const std::uint64_t twice = (std::uint64_t{words[i]} << 32) | words[i];
    double d;
    std::memcpy(&d, &twice, 8);
    EXPECT_TRUE(std::isnan(d)) << i;
    for (int j = 0; j < i; ++j)
      for (int byte = 0; byte < 3; ++byte)
        EXPECT_NE(poison_byte(words[i], byte), poison_byte(words[j], byte)) << i << " " << j;
  }
}

TEST(OutputCheck, TwoLanesThatSkipTheSameElementsDifferThereUnlessThePartIsDeclared) {
  const std::uint64_t n = 1001;
  ModelBuffer b = f32_buffer(n);
  b.poisoned = true;
  const std::uint32_t pa = lane_poison_word(Api::cuda, Binding::pointer);
  const std::uint32_t pb = lane_poison_word(Api::vulkan, Binding::descriptor);
  std::vector<std::uint8_t> a = poisoned(b, pa), c = poisoned(b, pb);
  const std::vector<float> v = values(n, 3);
  for (std::uint64_t i = 0; i < n; i += 2) {  // both write the even elements alone, alike
    std::memcpy(a.data() + 4 * i, &v[i], 4);
    std::memcpy(c.data() + 4 * i, &v[i], 4);
  }
  const OutputScan s = scan_output(b, a.data(), pa);
  EXPECT_EQ(s.unwritten, n / 2);
  ASSERT_TRUE(s.first_unwritten.has_value());
  EXPECT_EQ(*s.first_unwritten, 1u);
  EXPECT_EQ(s.nans, 0u);  // the poison is a NaN, but counted as unwritten, not as a NaN
  const Comparison whole =
      compare_output(b, {c.data(), pb, "vulkan descriptor"}, {a.data(), pa, "cuda"});
  EXPECT_EQ(whole.mismatches, n / 2);  // not declared partial: every unwritten element differs
  b.partial = true;
  const Comparison part =
      compare_output(b, {c.data(), pb, "vulkan descriptor"}, {a.data(), pa, "cuda"});
  EXPECT_EQ(part.mismatches, 0u);
  EXPECT_EQ(part.skipped, n / 2);
  EXPECT_EQ(part.checked, n - n / 2);
  // A partial output whose lanes leave different elements: those differ, naming who left it.
  std::memcpy(c.data() + 4 * 5, &v[4], 4);
  const Comparison apart =
      compare_output(b, {c.data(), pb, "vulkan descriptor"}, {a.data(), pa, "cuda"});
  EXPECT_EQ(apart.mismatches, 1u);
  EXPECT_NE(apart.message.find("(unwritten by cuda)"), std::string::npos) << apart.message;
}

TEST(OutputCheck, NaNsAreCountedWhereverTheyAre) {
  const ModelBuffer b = f32_buffer(10);
  std::vector<float> v = values(10, 4);
  v[3] = std::nanf("");
  v[9] = -std::nanf("");
  const OutputScan s = scan_output(b, bytes_of(v).data(), std::nullopt);
  EXPECT_EQ(s.nans, 2u);
  ASSERT_TRUE(s.first_nan.has_value());
  EXPECT_EQ(*s.first_nan, 3u);
  EXPECT_EQ(s.unwritten, 0u);
}

// Issue 49's mutation audit: a NaN compared equal under a ulp tolerance went unnoticed. A NaN is
// equal only to the same bits, however close its bits are to a number's: 0x7F800001 is 1 ulp
// above +inf's bits and 2 above the largest float's, within a tolerance of 4. f64 alike.
TEST(OutputCheck, UnderAUlpToleranceANaNDiffersFromEveryOtherValue) {
  ModelBuffer b = f32_buffer(4);
  b.tolerance = {Tolerance::Kind::ulp, 4};
  // Built from their bits (a signalling NaN kept as it is): +inf, the largest float, 1, a NaN.
  const auto words = [](const std::vector<std::uint32_t>& w) {
    std::vector<std::uint8_t> out(w.size() * 4);
    std::memcpy(out.data(), w.data(), out.size());
    return out;
  };
  const std::uint32_t nan_near_inf = 0x7F800001u;
  const auto want = words({0x7F800000u, 0x7F7FFFFFu, 0x3F800000u, 0x7F800002u});
  const auto got = words({nan_near_inf, nan_near_inf, 0x7FC00000u, nan_near_inf});
  const Comparison c = compare(b, got, want);
  EXPECT_EQ(c.mismatches, 4u);
  ASSERT_TRUE(c.first_bad.has_value());
  EXPECT_EQ(*c.first_bad, 0u);
  // Either side the NaN, the same verdict; the same bits are equal.
  EXPECT_EQ(compare(b, want, got).mismatches, 4u);
  EXPECT_EQ(compare(b, got, got).mismatches, 0u);
  ModelBuffer d = b;
  d.element = ElementType::f64;
  d.element_bytes = 8;
  d.count = 2;
  const std::vector<std::uint64_t> dwant = {0x7FF0000000000000ull, 0x3FF0000000000000ull};
  const std::vector<std::uint64_t> dgot = {0x7FF0000000000001ull, 0x7FF8000000000000ull};
  std::vector<std::uint8_t> dw(16), dg(16);
  std::memcpy(dw.data(), dwant.data(), 16);
  std::memcpy(dg.data(), dgot.data(), 16);
  EXPECT_EQ(compare(d, dg, dw).mismatches, 2u);
  EXPECT_EQ(compare(d, dw, dg).mismatches, 2u);
}

}  // namespace
