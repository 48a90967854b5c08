#include "pipeline_cache.h"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <sstream>

#include <fmt/format.h>

#ifdef CUVK_HAVE_ZSTD
#include <zstd.h>
#endif

namespace cuvk::inspect {
namespace {

constexpr std::uint8_t kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};
constexpr char kNvucMagic[4] = {'N', 'V', 'u', 'c'};
constexpr std::size_t kMaxDecompressedBytes = std::size_t{256} << 20;  // a kernel is KBs

std::uint32_t le32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
         std::uint32_t{p[3]} << 24;
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%X", v);
  return buf;
}

std::size_t find_zstd_frame(const std::vector<std::uint8_t>& cache, std::size_t from) {
  for (std::size_t i = from; i + sizeof kZstdMagic <= cache.size(); ++i)
    if (std::memcmp(&cache[i], kZstdMagic, sizeof kZstdMagic) == 0) return i;
  return std::string::npos;
}

#ifdef CUVK_HAVE_ZSTD
// Decompresses the one frame at `src`; "" on success, else why not.
std::string decompress_frame(const std::uint8_t* src, std::size_t available,
                             std::vector<std::uint8_t>* out, std::size_t* frame_bytes) {
  const std::size_t compressed = ZSTD_findFrameCompressedSize(src, available);
  if (ZSTD_isError(compressed))
    return std::string("the zstd frame is damaged or truncated (") + ZSTD_getErrorName(compressed) +
           ")";
  *frame_bytes = compressed;
  ZSTD_DStream* stream = ZSTD_createDStream();
  if (stream == nullptr) return "zstd: out of memory";
  ZSTD_inBuffer in{src, compressed, 0};
  std::vector<std::uint8_t> chunk(ZSTD_DStreamOutSize());
  std::string why;
  std::size_t left = 1;
  while (left != 0 && why.empty()) {
    ZSTD_outBuffer o{chunk.data(), chunk.size(), 0};
    left = ZSTD_decompressStream(stream, &o, &in);
    if (ZSTD_isError(left))
      why = std::string("zstd: ") + ZSTD_getErrorName(left);
    else
      out->insert(out->end(), chunk.data(), chunk.data() + o.pos);
    if (out->size() > kMaxDecompressedBytes) why = "zstd: the frame decompresses to over 256 MiB";
    if (why.empty() && left != 0 && in.pos == in.size && o.pos == 0)
      why = "the zstd frame ends early";
  }
  ZSTD_freeDStream(stream);
  return why;
}
#endif

}  // namespace

bool have_zstd() {
#ifdef CUVK_HAVE_ZSTD
  return true;
#else
  return false;
#endif
}

std::string read_cache_header(const std::vector<std::uint8_t>& cache, CacheHeader* h) {
  if (cache.size() < kCacheHeaderBytes)
    return fmt::format("the pipeline cache is {} bytes, shorter than its 32-byte header",
                       cache.size());
  h->header_size = le32(&cache[0]);
  h->header_version = le32(&cache[4]);
  h->vendor_id = le32(&cache[8]);
  h->device_id = le32(&cache[12]);
  std::memcpy(h->uuid.data(), &cache[16], h->uuid.size());
  if (h->header_version != 1)  // VK_PIPELINE_CACHE_HEADER_VERSION_ONE
    return fmt::format("unknown pipeline cache header version {}", h->header_version);
  if (h->header_size < kCacheHeaderBytes || h->header_size > cache.size())
    return fmt::format("bad pipeline cache header size {} (cache {} bytes)", h->header_size,
                       cache.size());
  return "";
}

MachineCode nvidia_machine_code(const std::vector<std::uint8_t>& cache) {
  MachineCode code;
  code.unavailable = read_cache_header(cache, &code.header);
  if (!code.unavailable.empty()) return code;
  if (code.header.vendor_id != kNvidiaVendorId) {
    code.unavailable = "not an NVIDIA driver (pipeline cache vendor " + hex(code.header.vendor_id) +
                       "): only NVIDIA's cache is read";
    return code;
  }
  code.frame_offset = find_zstd_frame(cache, code.header.header_size);
  if (code.frame_offset == std::string::npos) {
    code.frame_offset = 0;
    code.unavailable = fmt::format(
        "no zstd frame in the {}-byte pipeline cache (the driver's format may have changed)",
        cache.size());
    return code;
  }
#ifdef CUVK_HAVE_ZSTD
  std::vector<std::uint8_t> content;
  code.unavailable = decompress_frame(&cache[code.frame_offset], cache.size() - code.frame_offset,
                                      &content, &code.frame_bytes);
  if (!code.unavailable.empty()) return code;
  if (content.size() < kNvucTagBytes + sizeof kNvucMagic ||
      std::memcmp(&content[kNvucTagBytes], kNvucMagic, sizeof kNvucMagic) != 0) {
    code.unavailable = fmt::format(
        "the zstd frame's {} bytes hold no NVuc object after the 8-byte tag", content.size());
    return code;
  }
  code.object.assign(content.begin() + kNvucTagBytes, content.end());
#else
  code.unavailable = "built without libzstd: cannot decompress the driver's code";
#endif
  return code;
}

std::string nvdisasm_arch(const std::string& cc) {
  std::string digits;
  for (const char c : cc)
    if (std::isdigit(static_cast<unsigned char>(c)))
      digits += c;
    else if (c != '.')
      return "SM90";
  return digits.size() >= 2 && digits.size() <= 4 ? "SM" + digits : "SM90";
}

std::string first_sass_function(const std::string& listing) {
  std::istringstream in(listing);
  for (std::string line; std::getline(in, line);) {
    const auto b = line.find_first_not_of(" \t");
    if (b == std::string::npos || line.compare(b, 6, ".text.") != 0) continue;
    const auto e = line.find_last_not_of(" \t\r");
    if (line[e] != ':') continue;
    const std::string name = line.substr(b + 6, e - b - 6);
    const std::string text = sass_function(listing, name);
    if (!text.empty()) return text;
  }
  return listing;
}

Sass vulkan_sass(const std::vector<std::uint8_t>& cache, const std::string& arch) {
  Sass sass;
  const MachineCode code = nvidia_machine_code(cache);
  if (code.object.empty()) {
    sass.unavailable = code.unavailable;
    return sass;
  }
  const std::string nvdisasm = find_cuda_tool("nvdisasm");
  if (nvdisasm.empty()) {
    sass.unavailable =
        "nvdisasm not found (PATH, $CUDA_HOME/bin, $CUDA_PATH/bin, "
        "/usr/local/cuda/bin); it comes with the CUDA toolkit";
    return sass;
  }
  std::string path;
  sass.unavailable = write_temp_file(code.object.data(), code.object.size(), ".nvuc", &path);
  if (!sass.unavailable.empty()) return sass;
  int status = 0;
  const std::string listing = run_tool({nvdisasm, "--binary", arch, path}, &status);
  ::unlink(path.c_str());
  if (status != 0) {
    std::string first = listing.substr(0, listing.find('\n'));
    if (first.size() > 300) first.resize(300);
    sass.unavailable = fmt::format("nvdisasm --binary {} failed with {}{}", arch, status,
                                   first.empty() ? "" : ": " + first);
    return sass;
  }
  sass.text = first_sass_function(listing);
  sass.tool = fmt::format("{} --binary {} ({}-byte NVuc object from the pipeline cache)", nvdisasm,
                          arch, code.object.size());
  return sass;
}

}  // namespace cuvk::inspect
