// The tick -> millisecond arithmetic of both timing paths (host/contract/timestamps.h), with the
// values real GPUs give and lavapipe (period 1 ns, 64 valid bits, no wrap) never does. Every
// expected value is worked out by hand in the comment beside it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "error.h"
#include "timestamps.h"

using namespace cuvk;
using namespace cuvk::timing;

TEST(Timestamps, ValidMaskKeepsExactlyTheValidBits) {
  EXPECT_EQ(valid_mask(36), 0xFFFFFFFFFull);     // 36 ones: 9 hex digits of F
  EXPECT_EQ(valid_mask(48), 0xFFFFFFFFFFFFull);  // 48 ones: 12 hex digits of F
  EXPECT_EQ(valid_mask(64), ~std::uint64_t{0});  // all, without the undefined 1 << 64
  EXPECT_EQ(valid_mask(1), 1u);
  EXPECT_EQ(valid_mask(0), 0u);
}

TEST(Timestamps, PeriodScalesTicksToMilliseconds) {
  // 1 000 000 ticks of 1 ns = 1 ms; of 0.5 ns = 0.5 ms; of 32 ns = 32 ms.
  EXPECT_DOUBLE_EQ(ticks_to_ms(1000000, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(ticks_to_ms(1000000, 0.5), 0.5);
  EXPECT_DOUBLE_EQ(ticks_to_ms(1000000, 32.0), 32.0);
  // A period that is no power of two: 3 ticks of 83.333 ns (a 12 MHz clock) = 249.999 ns.
  EXPECT_DOUBLE_EQ(ticks_to_ms(3, 83.333), 249.999e-6);
  // 2^40 ticks of 1 ns: 1099511627776 ns = 1099511.627776 ms; no 32-bit truncation.
  EXPECT_DOUBLE_EQ(ticks_to_ms(std::uint64_t{1} << 40, 1.0), 1099511.627776);
}

TEST(Timestamps, BitsAboveTheValidOnesAreIgnored) {
  // 36 valid bits: garbage in bits 36..63 of both values must not reach the interval.
  const std::uint64_t junk = 0xABCD000000000000ull | (std::uint64_t{0x5} << 36);
  EXPECT_EQ(elapsed_ticks(junk | 1000, (junk ^ (std::uint64_t{0x7} << 40)) | 3000, 36), 2000u);
  EXPECT_DOUBLE_EQ(timestamp_interval_ms(junk | 1000, junk | 3000, 36, 0.5), 1000 * 1e-6);
  // 48 valid bits, the same.
  EXPECT_EQ(elapsed_ticks(0xFFFF000000000010ull, 0x0000000000000110ull, 48), 0x100u);
}

TEST(Timestamps, ACounterThatWrapsBetweenStartAndEnd) {
  // 36 bits: start 2^36 - 100, end 50 after the wrap: 100 + 50 = 150 ticks.
  EXPECT_EQ(elapsed_ticks((std::uint64_t{1} << 36) - 100, 50, 36), 150u);
  // ... of 32 ns each: 4800 ns = 0.0048 ms.
  EXPECT_DOUBLE_EQ(timestamp_interval_ms((std::uint64_t{1} << 36) - 100, 50, 36, 32.0), 0.0048);
  // 48 bits: start 2^48 - 1, end 0: one tick.
  EXPECT_EQ(elapsed_ticks((std::uint64_t{1} << 48) - 1, 0, 48), 1u);
  // 64 bits: start 2^64 - 10, end 10: 20 ticks.
  EXPECT_EQ(elapsed_ticks(std::numeric_limits<std::uint64_t>::max() - 9, 10, 64), 20u);
  // The largest interval that counts as a wrap: just under half the range (2^35 - 1 on 36 bits).
  EXPECT_EQ(elapsed_ticks(0, (std::uint64_t{1} << 35) - 1, 36), (std::uint64_t{1} << 35) - 1);
}

TEST(Timestamps, SwappedStartAndEndAreDetected) {
  // End 10 ticks before start is not a wrap of 2^36 - 10 ticks (half the range or more).
  EXPECT_THROW(elapsed_ticks(1010, 1000, 36), Error);
  EXPECT_THROW(elapsed_ticks(1010, 1000, 48), Error);
  EXPECT_THROW(elapsed_ticks(1010, 1000, 64), Error);
  EXPECT_THROW(timestamp_interval_ms(5000, 4000, 64, 1.0), Error);
  // ... and named as such.
  try {
    elapsed_ticks(1010, 1000, 36);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("timestamps out of order: end 1000 is before start 1010"),
              std::string::npos)
        << e.what();
  }
  // Exactly half the range is the first interval refused.
  EXPECT_THROW(elapsed_ticks(0, std::uint64_t{1} << 35, 36), Error);
  // The same pair the right way round is an interval.
  EXPECT_EQ(elapsed_ticks(1000, 1010, 36), 10u);
  // Equal stamps: zero ticks, not an error (the runner judges a zero time).
  EXPECT_EQ(elapsed_ticks(77, 77, 64), 0u);
}

TEST(Timestamps, CudaEventIntervals) {
  EXPECT_DOUBLE_EQ(event_interval_ms(0.25f), 0.25);  // a float, widened exactly
  EXPECT_DOUBLE_EQ(event_interval_ms(0.0f), 0.0);
  // cudaEventElapsedTime(start, stop) is negative when stop was recorded before start.
  EXPECT_THROW(event_interval_ms(-0.125f), Error);
  EXPECT_THROW(event_interval_ms(std::numeric_limits<float>::quiet_NaN()), Error);
  EXPECT_THROW(event_interval_ms(std::numeric_limits<float>::infinity()), Error);
}
