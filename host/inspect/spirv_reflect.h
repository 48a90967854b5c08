// cuvk's one SPIR-V reader, for `cuvk inspect`, the layout check and the pair reader's interface
// checks: the types with their std430 decorations (member Offset, ArrayStride), the memory blocks
// a shader reaches (descriptor-bound storage buffers, push constants, buffer-reference blocks),
// every load and store through a pointer into them, and the compute entry points with how their
// workgroup size is set. Read directly from the words by the SPIR-V headers' named opcodes and
// enums (spirv/unified1/spirv.hpp; no reflection library needed). Disassembly goes through
// SPIRV-Tools where cuvk was built with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spirv/unified1/spirv.hpp"

namespace cuvk::spirv {

inline constexpr std::size_t kHeaderWords = 5;  // magic, version, generator, bound, schema

// SPIR-V storage classes cuvk meets.
enum StorageClass : std::uint32_t {
  kUniformConstant = spv::StorageClassUniformConstant,
  kInput = spv::StorageClassInput,
  kUniform = spv::StorageClassUniform,
  kFunction = spv::StorageClassFunction,
  kPushConstant = spv::StorageClassPushConstant,
  kStorageBuffer = spv::StorageClassStorageBuffer,
  kPhysicalStorageBuffer = spv::StorageClassPhysicalStorageBuffer,
};
const char* storage_class_name(std::uint32_t storage_class);

struct Member {
  std::string name;
  std::uint32_t type = 0;
  std::optional<std::uint32_t> offset;  // Offset decoration
  bool non_writable = false, non_readable = false, restrict_ = false;
};

struct Type {
  enum class Kind { unknown, void_, bool_, int_, float_, vector, matrix, array, runtime_array,
                    struct_, pointer, function };
  Kind kind = Kind::unknown;
  std::string name;              // OpName (structs)
  std::uint32_t width = 0;       // bits: int, float
  bool is_signed = false;        // int
  std::uint32_t element = 0;     // vector/array/runtime array: element type; pointer: pointee
  std::uint32_t count = 0;       // vector components, array length
  std::optional<std::uint32_t> array_stride;  // ArrayStride (arrays, runtime arrays, pointers)
  std::uint32_t storage_class = 0;            // pointer
  std::vector<Member> members;                // struct
  bool block = false;                         // Block or BufferBlock decoration
};

// A load or store through a pointer (what the driver turns into memory instructions).
struct Access {
  bool store = false;
  std::uint32_t value_type = 0;     // type loaded or stored
  std::uint32_t storage_class = 0;  // of the pointer
  std::uint32_t alignment = 0;      // Aligned memory operand; 0 when absent
};

// A memory block the shader reaches: a descriptor-bound buffer, the push constants or a
// buffer-reference block (a PhysicalStorageBuffer pointee).
struct Block {
  std::uint32_t storage_class = 0;
  std::uint32_t struct_type = 0;
  std::string variable;  // the variable or pointer member name ("inbuf", "" for push constants)
  std::optional<std::uint32_t> set, binding;
};

// A specialization constant: its SpecId, its name (OpName, else "%<result id>"), and whether it
// is the workgroup size's x.
struct SpecConstant {
  std::uint32_t spec_id = 0;
  std::string name;
  bool sizes_workgroup = false;
};

// The compute entry points and how the workgroup size is set.
struct Execution {
  std::vector<std::string> entries;  // GLCompute entry point names, in order
  bool spec_x = false;               // the workgroup size's x is specialization constant 0
  std::optional<std::uint32_t> size_spec_id;  // the SpecId that sets the workgroup's x, if any
  std::vector<SpecConstant> spec_constants;   // every SpecId decoration, in module order
  std::string spec_clash;  // the SpecId sizing the workgroup also decorates another constant
  std::string fixed;       // "LocalSize 64 1 1" where the size is a literal
};

struct Module {
  std::uint32_t version = 0;  // 0x00010300 = SPIR-V 1.3
  std::map<std::uint32_t, Type> types;
  std::vector<Access> accesses;
  std::vector<Block> blocks;
  Execution execution;
  std::uint32_t instructions = 0;

  const Type* type(std::uint32_t id) const;
  // GLSL-like spelling: float, uint, vec4, CuvkParticle, float[], ptr(PhysicalStorageBuffer, CuvkIn).
  std::string type_name(std::uint32_t id) const;
  // std430 size and alignment as decorated (structs: members' extent rounded to the alignment;
  // runtime arrays: 0; pointers: 8).
  std::uint32_t size_of(std::uint32_t id) const;
  std::uint32_t align_of(std::uint32_t id) const;
};

// Throws cuvk::Error when the words are not a SPIR-V module.
Module reflect(const std::uint32_t* words, std::size_t count);

// "load float StorageBuffer", "store vec4 PhysicalStorageBuffer aligned 16" with counts, in
// first-seen order, over the accesses of the given storage classes.
std::vector<std::pair<std::string, int>> summarize_accesses(const Module& module,
                                                            const std::vector<std::uint32_t>& classes);

// Whether a compute shader reads the grid's y: gl_WorkGroupID.y, gl_NumWorkGroups (any part) or
// gl_GlobalInvocationID.y. One that reads none indexes by x alone, and where the launch is folded
// into y (more blocks than the device's grid x) its threads of y > 0 repeat the indices of y = 0.
// A use the scan cannot follow (a dynamic index, the whole vector passed on) counts as a read.
struct GridYReads {
  bool workgroup_id_y = false, num_workgroups = false, global_id_y = false;
  bool any() const { return workgroup_id_y || num_workgroups || global_id_y; }
};
GridYReads grid_y_reads(const std::uint32_t* words, std::size_t count);

// The module as text (spirv-dis style) where built with SPIRV-Tools; otherwise throws cuvk::Error
// saying so.
std::string disassemble(const std::uint32_t* words, std::size_t count);
bool have_disassembler();

}  // namespace cuvk::spirv
