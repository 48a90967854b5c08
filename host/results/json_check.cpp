#include "json_check.h"

#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "error.h"

namespace cuvk {
namespace {

using nlohmann::json;

std::string number_or_type(const json& v) {
  return v.is_number() ? v.dump() : type_of(v);
}

// The length of the UTF-8 sequence at s[i] when it is a character that reorders or breaks text
// invisibly: bidi controls (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) and the line
// and paragraph separators (U+2028, U+2029); else 0.
int invisible_format_char(const std::string& s, std::size_t i) {
  const auto at = [&](std::size_t k) {
    return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u;
  };
  if (at(i) == 0xd8 && at(i + 1) == 0x9c) return 2;  // U+061C
  if (at(i) != 0xe2) return 0;
  const unsigned b1 = at(i + 1), b2 = at(i + 2);
  if (b1 == 0x80 && (b2 == 0x8e || b2 == 0x8f || (b2 >= 0xa8 && b2 <= 0xae))) return 3;
  if (b1 == 0x81 && b2 >= 0xa6 && b2 <= 0xa9) return 3;
  return 0;
}

unsigned decode_utf8(const std::string& s, std::size_t i, int len) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]) & 0x3fu; };
  if (len == 2) return ((static_cast<unsigned char>(s[i]) & 0x1fu) << 6) | b(1);
  return ((static_cast<unsigned char>(s[i]) & 0x0fu) << 12) | (b(1) << 6) | b(2);
}

}  // namespace

std::string printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    // C1 controls as UTF-8 (U+0080..U+009F: C2 80..C2 9F) steer terminals as C0 ones do.
    const bool c1 = c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(s[i + 1]) <= 0x9f;
    if (const int len = invisible_format_char(s, i)) {  // bidi controls, line separators
      char buf[12];
      std::snprintf(buf, sizeof buf, "\\u%04x", decode_utf8(s, i, len));
      out += buf;
      i += static_cast<std::size_t>(len) - 1;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f || c1) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c1 ? static_cast<unsigned char>(s[++i]) : c);
      out += c1 ? std::string("\\u00") + (buf + 2) : std::string(buf);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string one_line(const std::string& s, std::size_t max) {
  const std::string out = printable(s);
  return out.size() > max ? out.substr(0, max) + "..." : out;
}

std::string quoted(const std::string& s) {
  return "'" + one_line(s, kMaxQuoted) + "'";
}

std::string quoted_path(const std::string& path) {
  const std::string out = printable(path);
  constexpr std::size_t max = 2 * kMaxQuoted;
  if (out.size() <= max) return "'" + out + "'";
  std::size_t from = out.size() - (max - 3);
  while (from < out.size() && (static_cast<unsigned char>(out[from]) & 0xc0) == 0x80) ++from;
  return "'..." + out.substr(from) + "'";  // from a character's first byte
}

const char* type_of(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

JsonIn::JsonIn(const std::string& file, const json& root) : JsonIn(&file, &root, "") {}

JsonIn::JsonIn(const std::string* file, const json* value, std::string path)
    : file_(file), value_(value), path_(std::move(path)) {}

JsonIn JsonIn::at(const std::string& key) const {
  const json* child = nullptr;
  if (value_ && value_->is_object()) {
    const auto it = value_->find(key);
    if (it != value_->end()) child = &*it;
  }
  return JsonIn(file_, child, path_.empty() ? key : path_ + "." + key);
}

JsonIn JsonIn::element(std::size_t index) const {
  const json* child =
      value_ && value_->is_array() && index < value_->size() ? &(*value_)[index] : nullptr;
  return JsonIn(file_, child, fmt::format("{}[{}]", path_, index));
}

void JsonIn::fail(const std::string& problem) const {
  throw UsageError(*file_ + ": " + (path_.empty() ? "" : path_ + ": ") + problem);
}

JsonIn JsonIn::required() const {
  if (!value_) fail("missing (required)");
  return *this;
}

JsonIn JsonIn::object() const {
  if (!required().value().is_object())
    fail(std::string("expected an object, found ") + type_of(*value_));
  return *this;
}

JsonIn JsonIn::array() const {
  if (!required().value().is_array())
    fail(std::string("expected an array, found ") + type_of(*value_));
  return *this;
}

std::string JsonIn::string() const {
  if (!required().value().is_string())
    fail(std::string("expected a string, found ") + type_of(*value_));
  return value_->get<std::string>();
}

bool JsonIn::boolean() const {
  if (!required().value().is_boolean())
    fail(std::string("expected true or false, found ") + type_of(*value_));
  return value_->get<bool>();
}

std::uint64_t JsonIn::unsigned_int(std::uint64_t max) const {
  const json& v = required().value();
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() > max)
    fail(fmt::format("expected an integer from 0 to {}, found {}", max, number_or_type(v)));
  return v.get<std::uint64_t>();
}

std::uint32_t JsonIn::u32() const {
  return static_cast<std::uint32_t>(unsigned_int(std::numeric_limits<std::uint32_t>::max()));
}

double JsonIn::number(bool positive) const {
  const json& v = required().value();
  const double x = v.is_number() ? v.get<double>() : 0.0;
  if (!v.is_number() || !std::isfinite(x) || x < 0.0 || (positive && x == 0.0))
    fail(std::string("expected a finite number ") + (positive ? "above 0" : ">= 0") + ", found " +
         number_or_type(v));
  return x;
}

std::optional<std::string> JsonIn::if_string() const {
  if (!value_ || !value_->is_string()) return std::nullopt;
  return value_->get<std::string>();
}

std::optional<std::uint64_t> JsonIn::if_unsigned() const {
  if (!value_ || !value_->is_number_unsigned()) return std::nullopt;
  return value_->get<std::uint64_t>();
}

}  // namespace cuvk
