// `cuvk inspect`'s Vulkan SASS: the pipeline-cache parser on synthetic blobs and the SASS summary
// and difference on two small hand-written listings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "pipeline_cache.h"
#include "sass_compare.h"

#ifdef CUVK_HAVE_ZSTD
#include <zstd.h>
#endif

namespace cuvk::inspect {
namespace {

void put32(std::vector<std::uint8_t>& v, std::uint32_t x) {
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
}

std::vector<std::uint8_t> header(std::uint32_t vendor, std::uint32_t size = 32,
                                 std::uint32_t version = 1) {
  std::vector<std::uint8_t> h;
  put32(h, size);
  put32(h, version);
  put32(h, vendor);
  put32(h, 0x2330);  // device id
  for (int i = 0; i < 16; ++i) h.push_back(static_cast<std::uint8_t>(i));
  return h;
}

const std::string kObject = std::string("NVuc") + std::string(200, '\x07') + "machine code";

// The Vulkan header, a vendor header, then a zstd frame of (8-byte tag + `content`).
std::vector<std::uint8_t> fake_cache(std::uint32_t vendor, const std::string& content) {
  std::vector<std::uint8_t> blob = header(vendor);
  for (std::uint8_t b : {0x4E, 0x56, 0x00, 0x01, 0x10, 0x00, 0x00, 0x00}) blob.push_back(b);
#ifdef CUVK_HAVE_ZSTD
  const std::string payload = std::string("TAG8TAG8") + content;
  std::vector<std::uint8_t> frame(ZSTD_compressBound(payload.size()));
  const std::size_t n =
      ZSTD_compress(frame.data(), frame.size(), payload.data(), payload.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  blob.insert(blob.end(), frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(n));
#else
  (void)content;
  for (std::uint8_t b : {0x28, 0xB5, 0x2F, 0xFD, 0, 0}) blob.push_back(b);
#endif
  return blob;
}

TEST(PipelineCache, ExtractsTheNvucObject) {
  const std::vector<std::uint8_t> blob = fake_cache(kNvidiaVendorId, kObject);
  const MachineCode code = nvidia_machine_code(blob);
  EXPECT_EQ(code.header.vendor_id, kNvidiaVendorId);
  EXPECT_EQ(code.header.device_id, 0x2330u);
  EXPECT_EQ(code.frame_offset, 40u);
  if (!have_zstd()) {
    EXPECT_NE(code.unavailable.find("built without libzstd"), std::string::npos);
    GTEST_SKIP() << "built without libzstd";
  }
  ASSERT_EQ(code.unavailable, "");
  EXPECT_EQ(code.frame_bytes, blob.size() - 40);
  EXPECT_EQ(std::string(code.object.begin(), code.object.end()), kObject);
}

TEST(PipelineCache, RefusesOtherVendorsBeforeAnythingElse) {
  const MachineCode code = nvidia_machine_code(fake_cache(0x10005, kObject));  // Mesa (lavapipe)
  EXPECT_TRUE(code.object.empty());
  EXPECT_EQ(code.unavailable,
            "not an NVIDIA driver (pipeline cache vendor 0x10005): only NVIDIA's cache is read");
}

TEST(PipelineCache, BadHeaders) {
  CacheHeader h;
  EXPECT_NE(read_cache_header({1, 2, 3}, &h).find("shorter than its 32-byte header"),
            std::string::npos);
  EXPECT_NE(read_cache_header(header(kNvidiaVendorId, 32, 2), &h).find("header version 2"),
            std::string::npos);
  EXPECT_NE(
      read_cache_header(header(kNvidiaVendorId, 16), &h).find("bad pipeline cache header size 16"),
      std::string::npos);
  EXPECT_NE(read_cache_header(header(kNvidiaVendorId, 4096), &h).find("header size 4096"),
            std::string::npos);
  EXPECT_EQ(read_cache_header(header(kNvidiaVendorId), &h), "");
  EXPECT_NE(nvidia_machine_code({}).unavailable.find("0 bytes"), std::string::npos);
}

TEST(PipelineCache, NoFrame) {
  std::vector<std::uint8_t> blob = header(kNvidiaVendorId);
  blob.resize(blob.size() + 64, 0xAB);
  EXPECT_NE(nvidia_machine_code(blob).unavailable.find("no zstd frame"), std::string::npos);
  // The magic inside the Vulkan header itself does not count.
  blob = header(kNvidiaVendorId);
  std::memcpy(&blob[16], "\x28\xB5\x2F\xFD", 4);
  EXPECT_NE(nvidia_machine_code(blob).unavailable.find("no zstd frame"), std::string::npos);
}

TEST(PipelineCache, TruncatedOrDamagedFrames) {
  if (!have_zstd()) GTEST_SKIP() << "built without libzstd";
  std::vector<std::uint8_t> blob = fake_cache(kNvidiaVendorId, kObject);
  std::vector<std::uint8_t> cut(blob.begin(), blob.end() - 5);
  EXPECT_NE(nvidia_machine_code(cut).unavailable.find("damaged or truncated"), std::string::npos);
  cut.assign(blob.begin(), blob.begin() + 44);  // the magic alone
  EXPECT_NE(nvidia_machine_code(cut).unavailable.find("damaged or truncated"), std::string::npos);
  std::vector<std::uint8_t> damaged = blob;
  for (std::size_t i = 50; i < damaged.size() - 4; ++i) damaged[i] ^= 0x5A;
  const MachineCode code = nvidia_machine_code(damaged);
  EXPECT_TRUE(code.object.empty());
  EXPECT_FALSE(code.unavailable.empty());
}

TEST(PipelineCache, FrameWithoutNvuc) {
  if (!have_zstd()) GTEST_SKIP() << "built without libzstd";
  const MachineCode code = nvidia_machine_code(fake_cache(kNvidiaVendorId, "ELF and more bytes"));
  EXPECT_NE(code.unavailable.find("no NVuc object after the 8-byte tag"), std::string::npos);
  EXPECT_NE(nvidia_machine_code(fake_cache(kNvidiaVendorId, "")).unavailable.find("8-byte tag"),
            std::string::npos);
}

TEST(PipelineCache, VulkanSassSaysWhyInOneLine) {
  const Sass sass = vulkan_sass(fake_cache(0x10005, kObject), "SM90");
  EXPECT_TRUE(sass.text.empty());
  EXPECT_EQ(sass.unavailable.find('\n'), std::string::npos);
  EXPECT_NE(sass.unavailable.find("not an NVIDIA driver"), std::string::npos);
}

// A real cache: `cuvk inspect copy --dump-pipeline-cache` on an H100, driver 580.159.04.
TEST(PipelineCache, RealNvidiaCache) {
  std::ifstream in(CUVK_TEST_FIXTURES "/h100_580.159.04_copy_descriptor_block256.vkcache",
                   std::ios::binary);
  ASSERT_TRUE(in);
  const std::vector<std::uint8_t> blob((std::istreambuf_iterator<char>(in)),
                                       std::istreambuf_iterator<char>());
  ASSERT_GT(blob.size(), 32u);
  const MachineCode code = nvidia_machine_code(blob);
  // The Vulkan spec's header: its size and vendor are the blob's first and third words.
  std::uint32_t words[3];
  std::memcpy(words, blob.data(), sizeof words);
  EXPECT_EQ(code.header.header_size, words[0]);
  EXPECT_EQ(code.header.header_size, 32u);  // VK_PIPELINE_CACHE_HEADER_VERSION_ONE: 32 bytes
  EXPECT_EQ(code.header.vendor_id, words[2]);
  EXPECT_EQ(code.header.vendor_id, kNvidiaVendorId);
  EXPECT_EQ(code.header.device_id, 0x2330u);  // H100 80GB HBM3 (PCI id 10de:2330, pci.ids)
  if (!have_zstd()) GTEST_SKIP() << "built without libzstd";
  ASSERT_EQ(code.unavailable, "");
  EXPECT_EQ(code.frame_offset + code.frame_bytes, blob.size());  // the frame ends the blob
#ifdef CUVK_HAVE_ZSTD
  // Derived independently of the parser: libzstd decompresses the frame that starts at the zstd
  // magic number; the object is what follows the first "NVuc" in it, to the end.
  const std::uint8_t magic[] = {0x28, 0xB5, 0x2F, 0xFD};
  const auto at = std::search(blob.begin(), blob.end(), std::begin(magic), std::end(magic));
  ASSERT_NE(at, blob.end());
  EXPECT_EQ(static_cast<std::size_t>(at - blob.begin()), code.frame_offset);
  const void* frame = &*at;
  const std::size_t frame_bytes = static_cast<std::size_t>(blob.end() - at);
  const unsigned long long size = ZSTD_getFrameContentSize(frame, frame_bytes);
  ASSERT_NE(size, ZSTD_CONTENTSIZE_ERROR);
  ASSERT_NE(size, ZSTD_CONTENTSIZE_UNKNOWN);
  std::string payload(size, '\0');
  ASSERT_EQ(ZSTD_decompress(payload.data(), payload.size(), frame, frame_bytes), size);
  const std::size_t nvuc = payload.find("NVuc");
  ASSERT_NE(nvuc, std::string::npos);
  EXPECT_EQ(std::string(code.object.begin(), code.object.end()), payload.substr(nvuc));
#endif
}

TEST(PipelineCache, NvdisasmArch) {
  EXPECT_EQ(nvdisasm_arch("9.0"), "SM90");
  EXPECT_EQ(nvdisasm_arch("8.6"), "SM86");
  EXPECT_EQ(nvdisasm_arch("10.0"), "SM100");
  EXPECT_EQ(nvdisasm_arch(""), "SM90");
  EXPECT_EQ(nvdisasm_arch("sm_90"), "SM90");
}

// CUDA: const __restrict__ input, 64-bit address with IMAD.WIDE, one bounds check.
const char* kCudaSass = R"(
        .text._Z4copyPKfPfj:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R0, SR_CTAID.X ;
        /*0020*/                   S2R R3, SR_TID.X ;
        /*0030*/                   IMAD R0, R0, c[0x0][0x0], R3 ;
        /*0040*/                   ISETP.GE.U32.AND P0, PT, R0, c[0x0][0x210], PT ;
        /*0050*/               @P0 EXIT ;
        /*0060*/                   LDC.64 R2, c[0x0][0x218] ;
        /*0070*/                   IMAD.WIDE.U32 R2, R0, 0x4, R2 ;
        /*0080*/                   LDG.E.CONSTANT R5, desc[UR4][R2.64] ;
        /*0090*/                   STG.E desc[UR4][R6.64], R5 ;
        /*00a0*/                   EXIT ;
        /*00b0*/                   BRA 0xb0;
        /*00c0*/                   NOP;
)";

// Vulkan (shaped like the NVIDIA driver's descriptor-mode code): plain LDG.E, 32-bit offsets on a
// uniform base, a second check, a load with a predicate operand and a predicated store.
const char* kVulkanSass = R"(
Section REG : size=00000008
	Register count=6
        .text.main:
        /*0000*/                   S2R R0, SR_CTAID.X ;
        /*0010*/                   S2R R3, SR_TID.X ;
        /*0020*/                   IMAD R0, R0, 0x100, R3 ;
        /*0030*/                   ISETP.GE.U32.AND P0, PT, R0, c[0x3][0x0], PT ;
        /*0040*/               @P0 EXIT ;
        /*0050*/                   ISETP.GT.U32.AND P1, PT, R0, 0x10, PT ;
        /*0060*/                   LEA R2, P2, R0, c[0x3][0x8], 0x2 ;
        /*0070*/                   LEA.HI.X R3, R0, c[0x3][0xc], RZ, 0x2, P2 ;
        /*0080*/                   IADD3 R9, R0, 0x1, RZ ;
        /*0090*/                   LDG.E R5, [R2.U32+UR4], !P1 ;
        /*00a0*/              @!P1 STG.E [R10.U32+UR4], R5 ;
        /*00b0*/                   EXIT ;
        /*00c0*/                   BRA 0xc0;
)";

TEST(SassCompare, Summaries) {
  const SassSummary c = summarize_sass(kCudaSass);
  EXPECT_EQ(c.ops.instructions, 12);
  EXPECT_EQ(format_ops(c.ops.global), "LDG.E.CONSTANT x1, STG.E x1");
  EXPECT_EQ(format_ops(c.ops.other), "LDC x1, LDC.64 x1");
  EXPECT_EQ(c.registers, 7);  // R0..R6
  EXPECT_EQ(c.declared_registers, -1);
  EXPECT_EQ(c.compares, 1);
  EXPECT_EQ(c.predicated, 1);
  EXPECT_EQ(c.guarded_exits, 1);
  EXPECT_EQ(c.guarded_memory, 0);
  EXPECT_EQ(c.imad, 2);
  EXPECT_EQ(c.imad_wide, 1);
  EXPECT_EQ(c.lea, 0);
  EXPECT_EQ(format_checks(c),
            "ISETP x1, predicated 1 (guarded EXIT/BRA 1), predicated loads/stores 0");
  EXPECT_EQ(format_addressing(c), "IMAD x2 (.WIDE x1), LEA x0, IADD3 x0, SHF x0");
  EXPECT_EQ(format_ops(c.address_forms), "desc[UR][R.64] x2");
  EXPECT_EQ(format_registers(c), "R0..R6 named");

  const SassSummary v = summarize_sass(kVulkanSass);
  EXPECT_EQ(v.ops.instructions, 13);
  EXPECT_EQ(format_ops(v.ops.global), "LDG.E x1, STG.E x1");
  EXPECT_EQ(v.registers, 11);  // R10 is the highest; RZ and UR4 are not counted
  EXPECT_EQ(v.declared_registers, 6);
  EXPECT_EQ(v.compares, 2);
  EXPECT_EQ(v.predicated, 2);
  EXPECT_EQ(v.guarded_exits, 1);
  EXPECT_EQ(v.guarded_memory, 1);  // the load's !P1 operand; the store is @!P1-predicated
  EXPECT_EQ(format_addressing(v), "IMAD x1 (.WIDE x0), LEA x2, IADD3 x1, SHF x0");
  EXPECT_EQ(format_ops(v.address_forms), "[R.U32+UR] x2");
  EXPECT_EQ(format_registers(v), "6 allocated, R0..R10 named");
}

// The summaries' counts derived a second way, from the listing's text alone with a regular
// expression per property (instruction lines other than NOP; opcodes; the highest register),
// so the numbers above are not merely copied from summarize_sass's own output.
struct IndependentCount {
  int instructions = 0, ldg = 0, stg = 0, isetp = 0, predicated = 0, imad = 0, lea = 0;
  int highest_register = -1;
};

IndependentCount count_listing(const std::string& listing) {
  IndependentCount c;
  const std::regex line(R"(/\*[0-9a-f]{4}\*/\s+(@!?P[0-9]\s+)?([A-Z][A-Z0-9_]*)([^;]*);?)");
  const std::regex reg(R"(\bR([0-9]+)\b)");
  for (auto it = std::sregex_iterator(listing.begin(), listing.end(), line);
       it != std::sregex_iterator(); ++it) {
    const std::string opcode = (*it)[2], whole = it->str();
    if (opcode == "NOP") continue;
    ++c.instructions;
    if ((*it)[1].matched) ++c.predicated;
    c.ldg += opcode == "LDG";
    c.stg += opcode == "STG";
    c.isetp += opcode == "ISETP";
    c.imad += opcode == "IMAD";
    c.lea += opcode == "LEA";
    for (auto r = std::sregex_iterator(whole.begin(), whole.end(), reg);
         r != std::sregex_iterator(); ++r)
      c.highest_register = std::max(c.highest_register, std::stoi((*r)[1]));
  }
  return c;
}

TEST(SassCompare, SummariesAgreeWithAnIndependentCount) {
  for (const char* listing : {kCudaSass, kVulkanSass}) {
    SCOPED_TRACE(listing == kCudaSass ? "CUDA" : "Vulkan");
    const IndependentCount want = count_listing(listing);
    const SassSummary got = summarize_sass(listing);
    ASSERT_GT(want.instructions, 10);  // the regular expression found the listing's lines
    EXPECT_EQ(got.ops.instructions, want.instructions);
    EXPECT_EQ(got.compares, want.isetp);
    EXPECT_EQ(got.predicated, want.predicated);
    EXPECT_EQ(got.imad, want.imad);
    EXPECT_EQ(got.lea, want.lea);
    EXPECT_EQ(got.registers, want.highest_register + 1);
    int ldg = 0, stg = 0;
    for (const auto& [op, n] : got.ops.global) {
      if (op.rfind("LDG", 0) == 0) ldg += n;
      if (op.rfind("STG", 0) == 0) stg += n;
    }
    EXPECT_EQ(ldg, want.ldg);
    EXPECT_EQ(stg, want.stg);
  }
}

TEST(SassCompare, Differences) {
  const auto d = sass_differences(summarize_sass(kCudaSass), summarize_sass(kVulkanSass));
  ASSERT_EQ(d.size(), 7u);
  EXPECT_EQ(d[0], "global memory LDG.E.CONSTANT x1, STG.E x1 vs LDG.E x1, STG.E x1");
  EXPECT_EQ(d[1], "other memory LDC x1, LDC.64 x1 vs none");
  EXPECT_EQ(d[2], "instructions 12 vs 13");
  EXPECT_EQ(d[3], "registers R0..R6 named vs 6 allocated, R0..R10 named");
  EXPECT_EQ(d[4],
            "bounds checks ISETP x1, predicated 1 (guarded EXIT/BRA 1), predicated loads/stores 0 "
            "vs ISETP x2, predicated 2 (guarded EXIT/BRA 1), predicated loads/stores 1");
  EXPECT_EQ(d[5], "address forms desc[UR][R.64] x2 vs [R.U32+UR] x2");
  EXPECT_EQ(d[6],
            "address arithmetic IMAD x2 (.WIDE x1), LEA x0, IADD3 x0, SHF x0 vs IMAD x1 (.WIDE "
            "x0), LEA x2, IADD3 x1, SHF x0");
  EXPECT_TRUE(sass_differences(summarize_sass(kCudaSass), summarize_sass(kCudaSass)).empty());
}

TEST(SassCompare, AddressFormsDropRegisterNumbersAndOffsets) {
  const SassSummary s = summarize_sass(
      "/*0000*/ STG.E.128 desc[UR4][R2.64+0x10], R4 ;\n"
      "/*0010*/ LDG.E.CONSTANT R1, [R0.U32+UR4+0x8], !P0 ;\n"
      "/*0020*/ LDG.E R3, desc[UR6][R12.64] ;\n");
  EXPECT_EQ(format_ops(s.address_forms),
            "desc[UR][R.64+imm] x1, [R.U32+UR+imm] x1, desc[UR][R.64] x1");
  EXPECT_EQ(s.guarded_memory, 1);
  EXPECT_EQ(s.registers, 13);
}

TEST(SassCompare, FirstFunctionOfAListing) {
  const std::string listing =
      std::string("\t.headerflags @\"EF_CUDA_SM90\"\n\t.section .text.main,\"ax\",@progbits\n") +
      kVulkanSass + "\t.section .nv.info,\"\",@\"SHT_CUDA_INFO\"\n";
  const std::string f = first_sass_function(listing);
  EXPECT_EQ(f.find(".headerflags"), std::string::npos);
  EXPECT_EQ(f.find(".nv.info"), std::string::npos);
  EXPECT_EQ(summarize_sass(f).ops.instructions, 13);
  EXPECT_EQ(first_sass_function("no functions"), "no functions");
}

}  // namespace
}  // namespace cuvk::inspect
