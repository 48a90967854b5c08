// The Vulkan driver's machine code, read out of a pipeline cache (`cuvk inspect`'s Vulkan SASS).
// NVIDIA's driver keeps a compute pipeline's code in the cache's payload: after the Vulkan header
// (VkPipelineCacheHeaderVersionOne) and NVIDIA's own header, a zstd frame whose content is an
// 8-byte tag followed by an "NVuc" object, which `nvdisasm --binary SM<cc>` disassembles.
// Everything here is pure apart from vulkan_sass(), which runs nvdisasm; every failure is a
// one-line reason, never an exception.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "inspect.h"

namespace cuvk::inspect {

inline constexpr std::uint32_t kNvidiaVendorId = 0x10DE;
inline constexpr std::size_t kCacheHeaderBytes = 32;  // VkPipelineCacheHeaderVersionOne
inline constexpr std::size_t kNvucTagBytes = 8;       // before the NVuc object

struct CacheHeader {
  std::uint32_t header_size = 0, header_version = 0, vendor_id = 0, device_id = 0;
  std::array<std::uint8_t, 16> uuid{};
};

// The NVuc object in a pipeline cache's bytes, or why there is none.
struct MachineCode {
  CacheHeader header;
  std::size_t frame_offset = 0;      // of the zstd frame in the cache
  std::size_t frame_bytes = 0;       // compressed
  std::vector<std::uint8_t> object;  // the NVuc object (tag stripped); empty when unavailable
  std::string unavailable;
};

// "" when the header is a well-formed version-one header, else why not; fills `header`.
std::string read_cache_header(const std::vector<std::uint8_t>& cache, CacheHeader* header);
// Header check, the first zstd frame after the header, decompression, the tag stripped.
MachineCode nvidia_machine_code(const std::vector<std::uint8_t>& cache);
bool have_zstd();  // built with libzstd (CUVK_HAVE_ZSTD)

// nvdisasm's architecture name from a compute capability "9.0" -> "SM90"; "SM90" when unparsable.
std::string nvdisasm_arch(const std::string& compute_capability);
// The entry function of an nvdisasm listing: the first .text.<name> function, else the whole text.
std::string first_sass_function(const std::string& listing);

// The SASS of the pipeline in `cache`: machine code extracted, written to a temporary file and
// disassembled with `nvdisasm --binary <arch>`. `unavailable` says why where it cannot be.
Sass vulkan_sass(const std::vector<std::uint8_t>& cache, const std::string& arch);

}  // namespace cuvk::inspect
