// A kernel pair's outputs checked element by element (output_check.h).
#include <fmt/format.h>

#include "output_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace cuvk {
namespace {

// f32: sign 1, exponent all ones, mantissa non-zero; f64 (the word twice): the high word's top 12
// bits 0xFFF, so a NaN too. Low three bytes differ pairwise: AD/EF/DE, DE/BE/C0, F1/F2/F3.
constexpr std::uint32_t kCudaPoison = 0xFFF1DEADu;
constexpr std::uint32_t kDescriptorPoison = 0xFFF2BEEFu;
constexpr std::uint32_t kBdaPoison = 0xFFF3C0DEu;

// Distance of two floats in units in the last place (ordered integer difference); NaNs equal
// only to the same bits.
template <typename Float, typename Int>
double ulp_distance(const std::uint8_t* a, const std::uint8_t* b) {
  Int x, y;
  std::memcpy(&x, a, sizeof x);
  std::memcpy(&y, b, sizeof y);
  if (x == y) return 0.0;
  Float fx, fy;
  std::memcpy(&fx, a, sizeof fx);
  std::memcpy(&fy, b, sizeof fy);
  if (std::isnan(fx) || std::isnan(fy)) return std::numeric_limits<double>::infinity();
  const auto ordered = [](Int v) -> long double {
    return v < 0 ? -static_cast<long double>(v & std::numeric_limits<Int>::max())
                 : static_cast<long double>(v);
  };
  return static_cast<double>(std::fabs(ordered(x) - ordered(y)));
}

double as_double(const ModelBuffer& b, const std::uint8_t* p) {
  if (b.element == ElementType::f64) {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  if (b.element == ElementType::f32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (b.element == ElementType::i32) {
    std::int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// How far element x is from element y under the buffer's tolerance (0: equal bits).
double difference(const ModelBuffer& b, const std::uint8_t* x, const std::uint8_t* y) {
  if (std::memcmp(x, y, b.element_bytes) == 0) return 0.0;
  const bool f32 = b.element == ElementType::f32, f64 = b.element == ElementType::f64;
  const bool numeric = f32 || f64 || b.element == ElementType::i32 || b.element == ElementType::u32;
  if (b.tolerance.kind == Tolerance::Kind::ulp && (f32 || f64))
    return f32 ? ulp_distance<float, std::int32_t>(x, y) : ulp_distance<double, std::int64_t>(x, y);
  if (b.tolerance.kind == Tolerance::Kind::abs && numeric) {
    const double d = std::fabs(as_double(b, x) - as_double(b, y));
    return std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
  }
  return std::numeric_limits<double>::infinity();  // exact: any difference fails
}

bool is_nan(const ModelBuffer& b, const std::uint8_t* p) {
  if (b.element != ElementType::f32 && b.element != ElementType::f64) return false;
  return std::isnan(as_double(b, p));
}

}  // namespace

std::uint32_t lane_poison_word(Api api, Binding binding) {
  if (api == Api::cuda) return kCudaPoison;
  return binding == Binding::bda ? kBdaPoison : kDescriptorPoison;
}

bool is_unwritten(const ModelBuffer& b, const std::uint8_t* data, std::uint64_t i,
                  std::uint32_t poison) {
  const std::uint64_t at = i * b.element_bytes;
  for (std::uint32_t k = 0; k < b.element_bytes; ++k)
    if (data[at + k] != poison_byte(poison, at + k)) return false;
  return true;
}

OutputScan scan_output(const ModelBuffer& b, const std::uint8_t* data,
                       std::optional<std::uint32_t> poison) {
  OutputScan s;
  for (std::uint64_t i = 0; i < b.count; ++i) {
    if (poison && is_unwritten(b, data, i, *poison)) {
      if (s.unwritten++ == 0) s.first_unwritten = i;
    } else if (is_nan(b, data + i * b.element_bytes)) {
      if (s.nans++ == 0) s.first_nan = i;
    }
  }
  return s;
}

Comparison compare_output(const ModelBuffer& b, const OutputSide& got_side,
                          const OutputSide& want_side) {
  const std::uint8_t* got = got_side.data;
  const std::uint8_t* want = want_side.data;
  const std::optional<std::uint32_t>& got_poison = got_side.poison;
  const std::optional<std::uint32_t>& want_poison = want_side.poison;
  const std::string& got_name = got_side.name;
  const std::string& want_name = want_side.name;
  Comparison c;
  const double bound = b.tolerance.kind == Tolerance::Kind::exact ? 0.0 : b.tolerance.value;
  const bool partial = b.partial && got_poison;
  for (std::uint64_t i = 0; i < b.count; ++i) {
    const std::uint8_t* x = got + i * b.element_bytes;
    const std::uint8_t* y = want + i * b.element_bytes;
    std::string why;  // set where the element differs in being written at all
    if (partial) {
      const bool x_unwritten = is_unwritten(b, got, i, *got_poison);
      if (!want_poison) {  // an expected file: compared where this lane wrote
        if (x_unwritten) {
          ++c.skipped;
          continue;
        }
      } else {
        const bool y_unwritten = is_unwritten(b, want, i, *want_poison);
        if (x_unwritten && y_unwritten) {
          ++c.skipped;
          continue;
        }
        if (x_unwritten != y_unwritten)
          why = " (unwritten by " + (x_unwritten ? got_name : want_name) + ")";
      }
    }
    ++c.checked;
    const double d = why.empty() ? difference(b, x, y) : std::numeric_limits<double>::infinity();
    if (d <= bound) {
      c.worst = std::max(c.worst, d);
      continue;
    }
    if (c.mismatches++ == 0) {
      c.first_bad = i;
      c.message = fmt::format("buffer '{}' element {}: {} {}, {} {}{}", b.name, i, got_name,
                              element_text(b, x), want_name, element_text(b, y), why);
    }
  }
  return c;
}

std::string element_text(const ModelBuffer& b, const std::uint8_t* p) {
  std::ostringstream o;
  o.precision(9);
  std::uint64_t bits = 0;
  std::memcpy(&bits, p, std::min<std::uint32_t>(b.element_bytes, 8));
  switch (b.element) {
    case ElementType::f32: {
      float f;
      std::memcpy(&f, p, 4);
      o << f << " (0x" << std::hex << bits << ")";
      break;
    }
    case ElementType::f64: {
      double d;
      std::memcpy(&d, p, 8);
      o.precision(17);
      o << d << " (0x" << std::hex << bits << ")";
      break;
    }
    case ElementType::i32: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      o << v;
      break;
    }
    case ElementType::u32:
      o << static_cast<std::uint32_t>(bits);
      break;
    default:
      o << "0x";
      for (std::uint32_t k = b.element_bytes; k-- > 0;) {
        static const char* hex = "0123456789abcdef";
        o << hex[p[k] >> 4] << hex[p[k] & 15];
      }
  }
  return o.str();
}

}  // namespace cuvk
