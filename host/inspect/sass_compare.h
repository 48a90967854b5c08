// One SASS function summarized for comparison (`cuvk inspect`: CUDA SASS beside the Vulkan
// driver's): memory instruction forms, bounds checks and predication, address arithmetic,
// instruction and register counts, and what differs between two such summaries.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "inspect.h"

namespace cuvk::inspect {

struct SassSummary {
  MemoryOps ops;           // global / other memory forms and the instruction count (no NOPs)
  int registers = 0;       // highest R<n> named + 1 (R0..Rn-1): what the code touches
  int compares = 0;        // ISETP (integer compares: bounds checks)
  int predicated = 0;      // instructions under a guard predicate (@P0, @!P1; not @PT)
  int guarded_exits = 0;   // predicated EXIT and BRA: the early returns of bounds checks
  int guarded_memory = 0;  // global loads/stores with a predicate operand ("..., !P0": skipped
                           // when false, a load then returns 0): bounds-checked accesses
  int imad = 0, imad_wide = 0, lea = 0, iadd3 = 0, shifts = 0;  // address arithmetic
  // Address operands of global loads/stores with register numbers and offsets taken out:
  // "desc[UR][R.64]" (a 64-bit address per thread), "[R.U32+UR]" (32-bit offset + uniform base).
  std::vector<std::pair<std::string, int>> address_forms;
  int declared_registers = -1;  // "Register count=N" (nvdisasm's REG section of an NVuc object)
};
SassSummary summarize_sass(const std::string& function_text);

// Row texts, the same for both sides.
// "ISETP x1, predicated 1 (guarded EXIT/BRA 1), predicated loads/stores 0"
std::string format_checks(const SassSummary& s);
// "10 allocated, R0..R7 named" (allocated: where the summary has declared_registers)
std::string format_registers(const SassSummary& s);
// "IMAD x2 (.WIDE x1), LEA x1, IADD3 x0, SHF x0"
std::string format_addressing(const SassSummary& s);

// What differs between `a` and `b` ("CUDA" and "Vulkan"), one item each: global memory forms,
// instructions, registers, bounds checks, address forms and arithmetic. Empty when nothing does.
std::vector<std::string> sass_differences(const SassSummary& a, const SassSummary& b);

}  // namespace cuvk::inspect
