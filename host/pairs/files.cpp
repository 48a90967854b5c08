// A buffer's data files (.npy or raw little-endian bytes), the names of the declaration's enums,
// and the push-constant layout the binding convention implies.
#include <cctype>
#include <cstring>
#include <fstream>

#include "pair_internal.h"

namespace cuvk::pairs {

const char* element_type_name(ElementType type) {
  switch (type) {
    case ElementType::f32:
      return "f32";
    case ElementType::f64:
      return "f64";
    case ElementType::i32:
      return "i32";
    case ElementType::u32:
      return "u32";
    case ElementType::raw16:
      return "raw16";
    case ElementType::bytes:
      return "struct";
  }
  return "?";
}

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
  ScalarLayout l;
  std::uint32_t at = 0;
  for (const ScalarDecl& s : decl.scalars) {
    const std::uint32_t size = scalar_bytes(s.type);  // std430: a scalar aligns to its size
    at = (at + size - 1) / size * size;
    l.offsets.push_back(at);
    at += size;
  }
  l.size = at;
  return l;
}

std::uint32_t bda_address_offset(const PairDeclaration& decl, std::size_t buffer) {
  const std::uint32_t base = (scalar_layout(decl).size + 7) / 8 * 8;
  return base + static_cast<std::uint32_t>(buffer) * 8;
}

std::vector<std::uint8_t> pack_scalars(const PairDeclaration& decl, std::uint64_t n) {
  const ScalarLayout l = scalar_layout(decl);
  std::vector<std::uint8_t> bytes(l.size, 0);
  for (std::size_t i = 0; i < decl.scalars.size(); ++i) {
    const ScalarDecl& s = decl.scalars[i];
    const std::string where =
        decl.file + ": scalar[" + std::to_string(i) + "].value (at n = " + std::to_string(n) + ")";
    const std::int64_t iv = s.number ? 0 : eval_in_n(s.value, n, where);
    const double fv = s.number ? *s.number : static_cast<double>(iv);
    std::uint8_t* at = bytes.data() + l.offsets[i];
    const auto range = [&](bool ok) {
      if (!ok)
        throw DeclarationError(where + ": " + std::to_string(iv) + " does not fit " +
                               scalar_type_name(s.type));
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
      return descr == "|V" + std::to_string(b.element_bytes);
  }
  return false;
}

// The text of 'key' in a .npy header dict between `open` and `close` after the colon ("" when
// absent): 'descr': '<f4' -> <f4 with open = close = quote; 'shape': (16,) -> 16, with ( and ).
std::string header_value(const std::string& header, const std::string& key, char open, char close) {
  std::size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return "";
  at = header.find(':', at);
  if (at == std::string::npos) return "";
  const std::size_t begin = header.find(open, at + 1);
  if (begin == std::string::npos) return "";
  const std::size_t end = header.find(close, begin + 1);
  return header.substr(begin + 1, end == std::string::npos ? std::string::npos : end - begin - 1);
}

// Parses a .npy header (format versions 1 to 3) and checks it against the buffer.
FileLayout npy_header(const PairDeclaration& d, const BufferDecl& b, const std::string& path,
                      std::ifstream& in, std::uint64_t count) {
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    file_error(d, b, path, "not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  if (major < 1 || major > 3)
    file_error(d, b, path, ".npy format version " + std::to_string(major) + " is not 1, 2 or 3");
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
  const std::string descr = header_value(header, "descr", '\'', '\'');
  if (descr.empty()) file_error(d, b, path, ".npy header has no 'descr'");
  bool bytes_as_u1 = false;
  if (!dtype_fits(descr, b, &bytes_as_u1))
    file_error(
        d, b, path,
        "dtype '" + descr + "' does not fit a buffer of type " + element_type_name(b.type) +
            (b.type == ElementType::bytes ? " (" + std::to_string(b.element_bytes) + " bytes)"
                                          : ""));
  const std::string shape = header_value(header, "shape", '(', ')');
  if (header.find("'shape'") == std::string::npos)
    file_error(d, b, path, ".npy header has no 'shape'");
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
      header_value(header, "fortran_order", ' ', ',').find("True") != std::string::npos;
  if (fortran && dims > 1)
    file_error(d, b, path, "fortran_order arrays are not read; save it C-ordered");
  const std::uint64_t want = bytes_as_u1 ? count * b.element_bytes : count;
  if (elements != want)
    file_error(d, b, path,
               "shape (" + shape + ") holds " + std::to_string(elements) +
                   " elements, the buffer " + std::to_string(want) + (bytes_as_u1 ? " bytes" : ""));
  return {static_cast<std::uint64_t>(in.tellg())};
}

FileLayout open_checked(const PairDeclaration& d, const BufferDecl& b, const std::string& path,
                        std::ifstream& in, std::uint64_t count) {
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
               std::to_string(size - l.data_offset) + " bytes of data, the buffer needs " +
                   std::to_string(data_bytes) + " (" + std::to_string(count) + " x " +
                   std::to_string(b.element_bytes) + ")");
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
