// A buffer's data files (.npy or raw little-endian bytes), the names of the declaration's enums,
// and the push-constant layout the binding convention implies.
#include <sys/stat.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backend.h"
#include "numbers.h"
#include "pair_internal.h"

namespace cuvk::pairs {

const char* init_kind_name(InitKind kind) {
  switch (kind) {
    case InitKind::random:
      return "random";
    case InitKind::zero:
      return "zero";
    case InitKind::constant:
      return "constant";
    case InitKind::index:
      return "index";
    case InitKind::file:
      return "file";
  }
  return "?";
}

const char* scalar_type_name(ScalarType type) {
  switch (type) {
    case ScalarType::i32:
      return "i32";
    case ScalarType::u32:
      return "u32";
    case ScalarType::f32:
      return "f32";
    case ScalarType::i64:
      return "i64";
    case ScalarType::u64:
      return "u64";
    case ScalarType::f64:
      return "f64";
  }
  return "?";
}

std::uint32_t scalar_bytes(ScalarType type) {
  return type == ScalarType::i64 || type == ScalarType::u64 || type == ScalarType::f64 ? 8 : 4;
}

bool supports_bda(const PairDeclaration& decl) {
  return !decl.glsl.bda_source.empty() || !decl.glsl.bda_spirv.empty() ||
         !decl.glsl.bda_defines.empty();
}

ScalarLayout scalar_layout(const PairDeclaration& decl) {
  std::vector<std::uint32_t>
      sizes;  // std430: a scalar aligns to its size, as the contract lays out
  for (const ScalarDecl& s : decl.scalars) sizes.push_back(scalar_bytes(s.type));
  ScalarLayout l;
  l.offsets = scalar_offsets(sizes, &l.size);
  return l;
}

std::uint32_t bda_address_offset(const PairDeclaration& decl, std::size_t buffer) {
  const std::uint32_t base = round_up(scalar_layout(decl).size, 8u);
  return base + static_cast<std::uint32_t>(buffer) * 8;
}

std::vector<std::uint8_t> pack_scalars(const PairDeclaration& decl, std::uint64_t n) {
  const ScalarLayout l = scalar_layout(decl);
  std::vector<std::uint8_t> bytes(l.size, 0);
  for (std::size_t i = 0; i < decl.scalars.size(); ++i) {
    const ScalarDecl& s = decl.scalars[i];
    const std::string where = fmt::format("{}: scalar[{}].value (at n = {})", decl.file, i, n);
    const std::int64_t iv = s.number ? 0 : eval_in_n(s.value, n, where);
    const double fv = s.number ? *s.number : static_cast<double>(iv);
    std::uint8_t* at = bytes.data() + l.offsets[i];
    const auto range = [&](bool ok) {
      if (!ok)
        throw DeclarationError(
            fmt::format("{}: {} does not fit {}", where, iv, scalar_type_name(s.type)));
    };
    switch (s.type) {
      case ScalarType::f32: {
        const float v = static_cast<float>(fv);
        std::memcpy(at, &v, 4);
        break;
      }
      case ScalarType::f64:
        std::memcpy(at, &fv, 8);
        break;
      case ScalarType::i32: {
        range(iv >= INT32_MIN && iv <= INT32_MAX);
        const auto v = static_cast<std::int32_t>(iv);
        std::memcpy(at, &v, 4);
        break;
      }
      case ScalarType::u32: {
        range(iv >= 0 && iv <= static_cast<std::int64_t>(UINT32_MAX));
        const auto v = static_cast<std::uint32_t>(iv);
        std::memcpy(at, &v, 4);
        break;
      }
      case ScalarType::i64:
        std::memcpy(at, &iv, 8);
        break;
      case ScalarType::u64:
        range(iv >= 0);
        std::memcpy(at, &iv, 8);
        break;
    }
  }
  return bytes;
}

namespace {

// Where a file's element data starts and how many bytes it must hold.
struct FileLayout {
  std::uint64_t data_offset = 0;
};

[[noreturn]] void file_error(const PairDeclaration& d, const BufferDecl& b, const std::string& path,
                             const std::string& why) {
  throw DeclarationError(d.file + ": buffer '" + b.name + "': " + path + ": " + why);
}

// The dtypes a buffer of this element type accepts in a .npy file.
bool dtype_fits(const std::string& descr, const BufferDecl& b, bool* bytes_as_u1) {
  *bytes_as_u1 = false;
  switch (b.type) {
    case ElementType::f32:
      return descr == "<f4";
    case ElementType::f64:
      return descr == "<f8";
    case ElementType::i32:
      return descr == "<i4";
    case ElementType::u32:
      return descr == "<u4";
    case ElementType::raw16:
      return descr == "<u2" || descr == "<i2" || descr == "<f2";
    case ElementType::bytes:
      if (descr == "|u1" || descr == "|i1") {
        *bytes_as_u1 = true;
        return true;
      }
      return descr == fmt::format("|V{}", b.element_bytes);
  }
  return false;
}

// A .npy header: the Python dict literal numpy writes, {'descr': '<f4', 'fortran_order': False,
// 'shape': (16,), }, parsed as such (keys and string values quoted, tuples of integers), so that a
// key's name inside another value's string is not taken for the key. Exactly numpy's three keys;
// the values as text: descr's string, fortran_order's True/False, shape's tuple inside ( ).
struct NpyDict {
  std::map<std::string, std::string> values;
  std::string error;  // "" when the header parsed
};

NpyDict parse_npy_dict(const std::string& h) {
  NpyDict out;
  std::size_t i = 0;
  const auto ws = [&] {
    while (i < h.size() && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n')) ++i;
  };
  const auto fail = [&](const std::string& why) {
    out.values.clear();
    out.error = why;
    return out;
  };
  const auto quoted_text = [&](std::string* text) {  // 'text' or "text", no escapes
    if (i >= h.size() || (h[i] != '\'' && h[i] != '"')) return false;
    const char q = h[i];
    const std::size_t close = h.find(q, i + 1);
    if (close == std::string::npos || h.find('\\', i + 1) < close) return false;
    *text = h.substr(i + 1, close - i - 1);
    i = close + 1;
    return true;
  };
  ws();
  if (i >= h.size() || h[i] != '{') return fail("does not start with '{'");
  ++i;
  for (;;) {
    ws();
    if (i < h.size() && h[i] == '}') break;
    std::string key, value;
    if (!quoted_text(&key)) return fail("has a key that is not a quoted string");
    ws();
    if (i >= h.size() || h[i] != ':') return fail("has no ':' after '" + key + "'");
    ++i;
    ws();
    if (i < h.size() && (h[i] == '\'' || h[i] == '"')) {
      if (!quoted_text(&value)) return fail("has an unterminated string for '" + key + "'");
    } else if (i < h.size() && h[i] == '(') {
      const std::size_t close = h.find(')', i);
      if (close == std::string::npos) return fail("has an unterminated tuple for '" + key + "'");
      value = h.substr(i + 1, close - i - 1);
      if (value.find_first_not_of("0123456789, ") != std::string::npos)
        return fail("has a tuple of other than integers for '" + key + "'");
      i = close + 1;
    } else if (h.compare(i, 4, "True") == 0 || h.compare(i, 5, "False") == 0) {
      value = h[i] == 'T' ? "True" : "False";
      i += value.size();
    } else {
      return fail("has a value for '" + key + "' that is not a string, tuple or True/False");
    }
    if (!out.values.emplace(key, value).second) return fail("has the key '" + key + "' twice");
    ws();
    if (i < h.size() && h[i] == ',') {
      ++i;
      continue;
    }
    ws();
    if (i < h.size() && h[i] == '}') break;
    return fail("has no ',' or '}' after the value of '" + key + "'");
  }
  ++i;
  ws();
  if (i != h.size()) return fail("has text after its closing '}'");
  for (const char* key : {"descr", "fortran_order", "shape"})
    if (out.values.count(key) == 0) return fail(std::string("has no '") + key + "'");
  if (out.values.size() != 3)
    return fail("has keys other than 'descr', 'fortran_order' and 'shape'");
  return out;
}

// Parses a .npy header (format versions 1 to 3) and checks it against the buffer.
FileLayout npy_header(const PairDeclaration& d, const BufferDecl& b, const std::string& path,
                      std::ifstream& in, std::uint64_t count) {
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    file_error(d, b, path, "not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  if (major < 1 || major > 3)
    file_error(d, b, path, fmt::format(".npy format version {} is not 1, 2 or 3", major));
  unsigned char len_bytes[4] = {0, 0, 0, 0};
  const int len_size = major == 1 ? 2 : 4;
  if (!in.read(reinterpret_cast<char*>(len_bytes), len_size))
    file_error(d, b, path, ".npy header is cut short");
  std::uint64_t header_len = len_bytes[0] | (len_bytes[1] << 8) |
                             (static_cast<std::uint64_t>(len_bytes[2]) << 16) |
                             (static_cast<std::uint64_t>(len_bytes[3]) << 24);
  if (header_len > (1u << 16)) file_error(d, b, path, ".npy header longer than 64 KiB");
  std::string header(header_len, '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(header_len)))
    file_error(d, b, path, ".npy header is cut short");
  const NpyDict dict = parse_npy_dict(header);
  if (!dict.error.empty()) file_error(d, b, path, ".npy header " + dict.error);
  const std::string descr = dict.values.at("descr");
  if (descr.empty()) file_error(d, b, path, ".npy header has no 'descr'");
  bool bytes_as_u1 = false;
  if (!dtype_fits(descr, b, &bytes_as_u1))
    file_error(
        d, b, path,
        "dtype '" + descr + "' does not fit a buffer of type " + element_type_name(b.type) +
            (b.type == ElementType::bytes ? fmt::format(" ({} bytes)", b.element_bytes) : ""));
  const std::string shape = dict.values.at("shape");
  std::uint64_t elements = 1, dims = 0, value = 0;
  bool in_number = false;
  for (const char c : shape + ",") {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, c - '0', &value))
        file_error(d, b, path, "shape (" + shape + ") is too large");
      in_number = true;
    } else if (in_number) {
      if (__builtin_mul_overflow(elements, value, &elements))
        file_error(d, b, path, "shape (" + shape + ") is too large");
      ++dims;
      value = 0;
      in_number = false;
    }
  }
  const bool fortran =
      dict.values.at("fortran_order") == "True";
  if (fortran && dims > 1)
    file_error(d, b, path, "fortran_order arrays are not read; save it C-ordered");
  const std::uint64_t want = bytes_as_u1 ? count * b.element_bytes : count;
  if (elements != want)
    file_error(d, b, path,
               fmt::format("shape ({}) holds {} elements, the buffer {}{}", shape, elements, want,
                           bytes_as_u1 ? " bytes" : ""));
  return {static_cast<std::uint64_t>(in.tellg())};
}

FileLayout open_checked(const PairDeclaration& d, const BufferDecl& b, const std::string& path,
                        std::ifstream& in, std::uint64_t count) {
  struct stat st{};  // a FIFO would block the open, /dev/zero never end: regular files only
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    file_error(d, b, path, "not a regular file");
  in.open(path, std::ios::binary);
  if (!in) file_error(d, b, path, "cannot read");
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  if (count > UINT64_MAX / b.element_bytes) file_error(d, b, path, "the buffer is too large");
  const std::uint64_t data_bytes = count * b.element_bytes;
  const bool npy = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
  FileLayout l;
  if (npy) l = npy_header(d, b, path, in, count);
  if (size - l.data_offset != data_bytes)
    file_error(d, b, path,
               fmt::format("{} bytes of data, the buffer needs {} ({} x {})", size - l.data_offset,
                           data_bytes, count, b.element_bytes));
  return l;
}

}  // namespace

void check_buffer_file(const PairDeclaration& d, const BufferDecl& b, const std::string& path,
                       std::uint64_t count) {
  std::ifstream in;
  open_checked(d, b, path, in, count);
}

std::vector<std::uint8_t> load_buffer_file(const PairDeclaration& decl, const BufferDecl& buffer,
                                           const std::string& path, std::uint64_t count) {
  std::ifstream in;
  const FileLayout l = open_checked(decl, buffer, path, in, count);
  std::vector<std::uint8_t> bytes(count * buffer.element_bytes);
  in.seekg(static_cast<std::streamoff>(l.data_offset));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
    file_error(decl, buffer, path, "read failed");
  return bytes;
}

}  // namespace cuvk::pairs
