// The element types of a buffer and how two results compare, one of each for every layer: the
// pair declaration (host/pairs) reads them and the runner's output check (output_check.h) uses
// them. The built-in tests' check is bit-exact (host_data.h verify): Tolerance's default.
#pragma once

namespace cuvk {

enum class ElementType { f32, f64, i32, u32, raw16, bytes };  // bytes: a struct of N bytes
const char* element_type_name(ElementType type);  // "f32", "f64", "i32", "u32", "raw16", "struct"

struct Tolerance {
  enum class Kind { exact, ulp, abs };
  Kind kind = Kind::exact;  // exact: bit for bit (the default)
  double value = 0.0;       // ulp: max units in the last place (f32/f64); abs: max |a - b|
};

}  // namespace cuvk
