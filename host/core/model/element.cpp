#include "element.h"

namespace cuvk {

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

}  // namespace cuvk
