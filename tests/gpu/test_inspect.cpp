// `cuvk inspect`'s analysis (host/inspect.h) on fixed inputs, the embedded CUDA artifacts where
// cuvk was built with nvcc, and the --vk-binding parser.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "backend.h"
#include "catalogue.h"
#include "cli.h"
#include "cuda_artifacts.h"
#include "error.h"
#include "inspect.h"
#include "kernel_inspection.h"
#include "spirv_modules.h"
#include "spirv_reflect.h"

using namespace cuvk;

namespace {

// CUDA 13's ptxas -v (no cmem line) and an older one's.
const char* const kPtxasLog = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z10read_x_soa10CuvkParamsPKfPf' for 'sm_90'
ptxas info    : Function properties for _Z10read_x_soa10CuvkParamsPKfPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers
ptxas info    : Compile time = 7.770 ms
ptxas info    : Compiling entry function '_Z4copy10CuvkParamsPKfPf' for 'sm_80'
ptxas info    : Function properties for _Z4copy10CuvkParamsPKfPf
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 24 registers, 376 bytes cmem[0]
)";

const char* const kPtx = R"(.version 9.0
.target sm_90
.address_size 64

.visible .entry _Z4copy10CuvkParamsPKfPf(
	.param .align 4 .b8 _Z4copy10CuvkParamsPKfPf_param_0[16],
	.param .u64 _Z4copy10CuvkParamsPKfPf_param_1,
	.param .u64 _Z4copy10CuvkParamsPKfPf_param_2
)
{
	.reg .pred 	%p<2>;
	.loc	1 5 0
	ld.param.u64 	%rd1, [_Z4copy10CuvkParamsPKfPf_param_1];
	ld.param.u32 	%r2, [_Z4copy10CuvkParamsPKfPf_param_0];
	setp.ge.u32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	ld.global.nc.f32 	%f1, [%rd5];
	st.global.f32 	[%rd8], %f1;
$L__BB0_2:
	ret;

}
.visible .entry _Z9copy_vec410CuvkParamsPKfPf(
	.param .u64 _Z9copy_vec410CuvkParamsPKfPf_param_1
)
{
	ld.global.nc.v4.f32 	{%f1, %f2, %f3, %f4}, [%rd5];
	st.global.v4.f32 	[%rd8], {%f1, %f2, %f3, %f4};
	ret;

}
)";

// cuobjdump -sass of a cubin with two functions (the shape of CUDA 12/13 output).
const char* const kCuobjdump = R"sass(
	code for sm_90
		Function : _Z9copy_vec410CuvkParamsPKfPf
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                       /* 0x00000a00ff017b82 */
                                                                                /* 0x000fe40000000800 */
        /*0080*/                   LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;    /* 0x0000000402047981 */
        /*0090*/                   STG.E.128 desc[UR4][R6.64], R4 ;             /* 0x0000000406007986 */
        /*00a0*/                   EXIT ;                                       /* 0x000000000000794d */
        /*00b0*/                   BRA 0xb0;                                    /* 0xfffffffc00fc7947 */
        /*00c0*/                   NOP;                                         /* 0x0000000000007918 */
		..........


		Function : _Z4copy10CuvkParamsPKfPf
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                       /* 0x00000a00ff017b82 */
        /*0010*/                   S2R R0, SR_CTAID.Y ;                         /* 0x0000000000007919 */
        /*0020*/                   ULDC UR4, c[0x0][0x210] ;                    /* 0x0000840000047ab9 */
        /*0030*/                @P0 EXIT ;                                      /* 0x000000000000094d */
        /*0040*/                   ULDC.64 UR4, c[0x0][0x208] ;                 /* 0x0000820000047ab9 */
        /*0050*/                   LDG.E.CONSTANT R3, desc[UR4][R2.64] ;        /* 0x0000000402037981 */
        /*0060*/                   STG.E desc[UR4][R4.64], R3 ;                 /* 0x0000000304007986 */
        /*0070*/                   EXIT ;                                       /* 0x000000000000794d */
		..........
)sass";

}  // namespace

TEST(Inspect, PtxasUsagePerEntry) {
  const auto usage = inspect::parse_ptxas_log(kPtxasLog);
  ASSERT_EQ(usage.size(), 2u);
  const inspect::PtxasUsage& soa = usage.at("_Z10read_x_soa10CuvkParamsPKfPf");
  EXPECT_EQ(soa.registers, 10);
  EXPECT_EQ(soa.stack_bytes, 0);
  EXPECT_EQ(soa.cmem0_bytes, -1);
  const inspect::PtxasUsage& copy = usage.at("_Z4copy10CuvkParamsPKfPf");
  EXPECT_EQ(copy.registers, 24);
  EXPECT_EQ(copy.stack_bytes, 8);
  EXPECT_EQ(copy.spill_store_bytes, 4);
  EXPECT_EQ(copy.spill_load_bytes, 12);
  EXPECT_EQ(copy.cmem0_bytes, 376);
}

// NVRTC 13.0's program log with --ptxas-options=-v, as `cuvk inspect --pair` gets it: the entry
// by its lowered name (mangled, or an extern "C" function's own name), the stack line continued
// under a "ptxas ." prefix, registers with "used N barriers".
const char* const kNvrtcLogMangled = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z5saxpyPKfPffj' for 'sm_90'
ptxas info    : Function properties for _Z5saxpyPKfPffj
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers
ptxas info    : Compile time = 33.811 ms)";
const char* const kNvrtcLogExternC = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'saxpy' for 'sm_90'
ptxas info    : Function properties for saxpy
ptxas         .     8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers
ptxas info    : Compile time = 2.025 ms)";
// The driver's JIT log form of the same figures: "info" lines, the function's name quoted.
const char* const kJitLog = R"(info    : 0 bytes gmem
info    : Function properties for 'saxpy':
info    : Used 14 registers, 0 stack, 0 bytes smem, 376 bytes cmem[0], 0 bytes lmem)";

TEST(Inspect, PtxasUsageOfAnNvrtcProgram) {
  const inspect::PtxasLookup mangled =
      inspect::find_ptxas_usage(kNvrtcLogMangled, "_Z5saxpyPKfPffj");
  ASSERT_TRUE(mangled.usage) << mangled.why;
  EXPECT_EQ(mangled.usage->registers, 10);
  const inspect::PtxasLookup plain = inspect::find_ptxas_usage(kNvrtcLogExternC, "saxpy");
  ASSERT_TRUE(plain.usage) << plain.why;
  EXPECT_EQ(plain.usage->registers, 12);
  EXPECT_EQ(plain.usage->stack_bytes, 8);
  // The log's only function, whatever name the caller knows it by (the lowered name of an
  // extern "C" entry, a mangled name the log spells otherwise).
  const inspect::PtxasLookup only = inspect::find_ptxas_usage(kNvrtcLogExternC, "_Z5saxpyPKfPffj");
  ASSERT_TRUE(only.usage) << only.why;
  EXPECT_EQ(only.usage->registers, 12);
  const inspect::PtxasLookup jit = inspect::find_ptxas_usage(kJitLog, "saxpy");
  ASSERT_TRUE(jit.usage) << jit.why;
  EXPECT_EQ(jit.usage->registers, 14);
  EXPECT_EQ(jit.usage->cmem0_bytes, 376);
}

TEST(Inspect, PtxasUsageMissingSaysWhatTheLogHeld) {
  // Two functions, neither the one asked for: no guess, the log's first lines.
  const inspect::PtxasLookup two = inspect::find_ptxas_usage(kPtxasLog, "_Z5saxpyPKfPffj");
  EXPECT_FALSE(two.usage);
  EXPECT_NE(two.why.find("2 functions, none _Z5saxpyPKfPffj"), std::string::npos) << two.why;
  EXPECT_NE(two.why.find("it begins: ptxas info    : 0 bytes gmem | ptxas info    : Compiling"),
            std::string::npos)
      << two.why;
  const inspect::PtxasLookup no_figures =
      inspect::find_ptxas_usage("ptxas info    : 0 bytes gmem\n", "saxpy");
  EXPECT_FALSE(no_figures.usage);
  EXPECT_EQ(no_figures.why,
            "not in the ptxas log (no register counts; it begins: ptxas info    : 0 bytes gmem)");
  EXPECT_EQ(inspect::find_ptxas_usage("", "saxpy").why,
            "not in the ptxas log (no register counts; the log is empty)");
}

// Issue 36 item 10: the H200's NVRTC gave an empty log for examples/reduce, and the registers row
// said "not in the ptxas log (the log is empty)" though the CUDA runtime had the count.
TEST(Inspect, CudaRegistersFromPtxasElseTheRuntime) {
  inspect::CudaSide c;
  c.have_code = true;
  c.arch = "sm_90";
  c.ptxas_source = "ptxas -v via NVRTC";
  const inspect::PtxasLookup empty = inspect::find_ptxas_usage("", "reduce");
  c.ptxas = empty.usage;
  c.ptxas_unavailable = empty.why;
  EXPECT_FALSE(inspect::cuda_registers(c).count);  // no GPU: no runtime either, ptxas's reason
  EXPECT_EQ(inspect::cuda_registers(c).text, empty.why);
  KernelResources runtime;
  runtime.registers = 16;
  runtime.binary_version = 90;
  c.runtime = runtime;
  const inspect::CudaRegisters from_runtime = inspect::cuda_registers(c);
  ASSERT_TRUE(from_runtime.count) << from_runtime.text;
  EXPECT_EQ(*from_runtime.count, 16);
  EXPECT_EQ(from_runtime.text,
            "16 (cudaFuncGetAttributes, sm_90 SASS; ptxas -v: not in the ptxas log (no register "
            "counts; the log is empty))");
  c.ptxas = inspect::find_ptxas_usage(kNvrtcLogExternC, "saxpy").usage;  // ptxas's first
  const inspect::CudaRegisters from_ptxas = inspect::cuda_registers(c);
  ASSERT_TRUE(from_ptxas.count) << from_ptxas.text;
  EXPECT_EQ(*from_ptxas.count, 12);
  EXPECT_EQ(from_ptxas.text, "12 (ptxas -v via NVRTC sm_90)");
  inspect::CudaSide none;  // no PTX at all: why, from the runtime when it has the count
  none.unavailable = "NVRTC unavailable: no libnvrtc found";
  EXPECT_EQ(inspect::cuda_registers(none).text, "unavailable: NVRTC unavailable: no libnvrtc found");
  none.runtime = runtime;
  EXPECT_EQ(inspect::cuda_registers(none).count, 16);
}

TEST(Inspect, PtxEntryAndItsMemoryOps) {
  EXPECT_EQ(inspect::mangled_entry(kPtx, "copy"), "_Z4copy10CuvkParamsPKfPf");
  EXPECT_EQ(inspect::mangled_entry(kPtx, "copy_vec4"), "_Z9copy_vec410CuvkParamsPKfPf");
  EXPECT_EQ(inspect::mangled_entry(kPtx, "copy_vec"), "");
  const std::string copy = inspect::ptx_entry(kPtx, "_Z4copy10CuvkParamsPKfPf");
  EXPECT_EQ(copy.find("copy_vec4"), std::string::npos) << copy;
  EXPECT_EQ(copy.find(".loc"), std::string::npos) << copy;
  const inspect::MemoryOps ops = inspect::ptx_memory_ops(copy);
  EXPECT_EQ(inspect::format_ops(ops.global), "ld.global.nc.f32 x1, st.global.f32 x1");
  EXPECT_EQ(inspect::format_ops(ops.other), "ld.param.u64 x1, ld.param.u32 x1");
  EXPECT_EQ(ops.instructions, 7);  // 2 ld.param, setp, bra, ld, st, ret
  const inspect::MemoryOps vec4 = inspect::ptx_memory_ops(inspect::ptx_entry(kPtx, "_Z9copy_vec410CuvkParamsPKfPf"));
  EXPECT_EQ(inspect::format_ops(vec4.global), "ld.global.nc.v4.f32 x1, st.global.v4.f32 x1");
}

TEST(Inspect, SassFunctionAndItsMemoryOps) {
  const std::string copy = inspect::sass_function(kCuobjdump, "_Z4copy10CuvkParamsPKfPf");
  EXPECT_EQ(copy.find("128"), std::string::npos) << copy;
  const inspect::MemoryOps ops = inspect::sass_memory_ops(copy);
  EXPECT_EQ(inspect::format_ops(ops.global), "LDG.E.CONSTANT x1, STG.E x1");
  EXPECT_EQ(inspect::format_ops(ops.other), "LDC x1, ULDC x1, ULDC.64 x1");
  EXPECT_EQ(ops.instructions, 8);
  EXPECT_EQ(ops.bytes, 8 * 16);
  const inspect::MemoryOps vec4 =
      inspect::sass_memory_ops(inspect::sass_function(kCuobjdump, "_Z9copy_vec410CuvkParamsPKfPf"));
  EXPECT_EQ(inspect::format_ops(vec4.global), "LDG.E.128.CONSTANT x1, STG.E.128 x1");
  EXPECT_EQ(vec4.instructions, 5);  // the NOP is not counted ...
  EXPECT_EQ(vec4.bytes, 6 * 16);    // ... but its bytes are
  EXPECT_EQ(inspect::sass_function(kCuobjdump, "_Z5ghost"), "");
}

TEST(Inspect, NvdisasmListingsAreCutPerFunctionToo) {
  const std::string listing =
      "\t.section\t.text._Z1av,\"ax\",@progbits\n"
      ".text._Z1av:\n"
      "        /*0000*/                   LDG.E R2, desc[UR4][R2.64] ;\n"
      "\t.section\t.text._Z1bv,\"ax\",@progbits\n"
      ".text._Z1bv:\n"
      "        /*0000*/                   STG.E.64 desc[UR4][R2.64], R4 ;\n";
  EXPECT_EQ(inspect::format_ops(inspect::sass_memory_ops(inspect::sass_function(listing, "_Z1bv")).global),
            "STG.E.64 x1");
  EXPECT_EQ(inspect::format_ops(inspect::sass_memory_ops(inspect::sass_function(listing, "_Z1av")).global),
            "LDG.E x1");
}

// The occupancy model against numbers of CUDA's occupancy calculator for sm_90.
TEST(Inspect, OccupancyModelFollowsTheCalculator) {
  const inspect::SmLimits h = inspect::hopper_limits();
  EXPECT_EQ(inspect::model_blocks_per_sm(10, 256, h), 8);    // thread-limited: 2048 / 256
  EXPECT_EQ(inspect::model_blocks_per_sm(10, 64, h), 32);    // block-limited
  EXPECT_EQ(inspect::model_blocks_per_sm(64, 256, h), 4);    // 2048 regs/warp: 32 warps per SM
  EXPECT_EQ(inspect::model_blocks_per_sm(40, 1024, h), 1);   // 1280 regs/warp: 48 warps, 32 per block
  EXPECT_EQ(inspect::model_blocks_per_sm(255, 1024, h), 0);  // 8192 regs/warp x 32 > 65536
  EXPECT_DOUBLE_EQ(inspect::occupancy_percent(8, 256, h), 100.0);
  EXPECT_DOUBLE_EQ(inspect::occupancy_percent(1, 1024, h), 50.0);
}

TEST(Inspect, RegisterStatisticByName) {
  EXPECT_EQ(inspect::register_statistic({{"Binary Size", "1024"}, {"Register Count", "18"}}), 18);
  EXPECT_EQ(inspect::register_statistic({{"SGPRs", "16"}, {"VGPRs", "24"}}), 24);
  EXPECT_EQ(inspect::register_statistic({{"Spilled registers", "0"}}), std::nullopt);
  EXPECT_EQ(inspect::register_statistic({}), std::nullopt);
  // NVIDIA 580's names (seen on an H100).
  EXPECT_EQ(inspect::binary_size_statistic({{"Register Count", "16"}, {"Binary Size", "512"}}), 512);
  EXPECT_EQ(inspect::binary_size_statistic({{"Stack Size", "0"}}), std::nullopt);
}

TEST(Inspect, MissingToolsAreSaidNotFatal) {
  const char* old_path = std::getenv("PATH");
  const std::string path = old_path ? old_path : "";
  ::setenv("PATH", "/nonexistent", 1);
  ::unsetenv("CUDA_HOME");
  ::unsetenv("CUDA_PATH");
  const bool installed =
      !inspect::find_cuda_tool("cuobjdump").empty() || !inspect::find_cuda_tool("nvdisasm").empty();
  const unsigned char cubin[] = {0x7f, 'E', 'L', 'F'};
  const inspect::Sass sass = inspect::disassemble_cubin(cubin, sizeof cubin, "_Z4copy");
  ::setenv("PATH", path.c_str(), 1);
  if (installed) GTEST_SKIP() << "a CUDA toolkit with cuobjdump is installed in /usr/local/cuda/bin";
  EXPECT_TRUE(sass.text.empty());
  EXPECT_NE(sass.unavailable.find("cuobjdump"), std::string::npos);
}

TEST(Inspect, RunToolCapturesOutputAndStatus) {
  int status = -1;
  EXPECT_EQ(inspect::run_tool({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, &status), "out\nerr\n");
  EXPECT_EQ(status, 3);
  inspect::run_tool({"/nonexistent/tool"}, &status);
  EXPECT_EQ(status, 127);
}

// The build embeds each kernel's sm_90 PTX, cubin and ptxas usage (when built with nvcc).
TEST(Inspect, EmbeddedCudaArtifactsCoverEveryKernel) {
  if (cuda_artifacts().empty()) GTEST_SKIP() << "built without nvcc";
  for (const std::string& kernel : catalogue_kernels()) {
    if (kernel == kCopyEngine) continue;  // the driver's copy command, no kernel
    SCOPED_TRACE(kernel);
    bool found = false;
    for (const CudaArtifact& a : cuda_artifacts()) {
      const std::string ptx(reinterpret_cast<const char*>(a.ptx), a.ptx_bytes);
      const std::string mangled = inspect::mangled_entry(ptx, kernel);
      if (mangled.empty()) continue;
      found = true;
      EXPECT_GT(a.cubin_bytes, 4u);
      EXPECT_EQ(a.cubin[1], 'E');  // an ELF
      const auto usage = inspect::parse_ptxas_log(std::string(reinterpret_cast<const char*>(a.ptxas_log), a.ptxas_log_bytes));
      ASSERT_TRUE(usage.count(mangled));
      EXPECT_GT(usage.at(mangled).registers, 0);
      EXPECT_FALSE(inspect::ptx_memory_ops(inspect::ptx_entry(ptx, mangled)).global.empty());
    }
    EXPECT_TRUE(found);
  }
}

TEST(Inspect, SpirvDisassemblyWhereBuiltWithSpirvTools) {
  if (!spirv::have_disassembler()) GTEST_SKIP() << "built without SPIRV-Tools";
  const SpirvModule& m = spirv_modules().front();
  const std::string text = spirv::disassemble(m.code, m.words);
  EXPECT_NE(text.find("OpEntryPoint GLCompute"), std::string::npos);
}

TEST(Inspect, VkBindingOption) {
  EXPECT_EQ(parse_vk_bindings({"descriptor"}), std::vector<Binding>{Binding::descriptor});
  EXPECT_EQ(parse_vk_bindings({"bda", "descriptor", "bda"}),
            (std::vector<Binding>{Binding::bda, Binding::descriptor}));
  EXPECT_EQ(parse_vk_bindings({"all"}), (std::vector<Binding>{Binding::descriptor, Binding::bda}));
  EXPECT_THROW(parse_vk_bindings({"pointer"}), UsageError);
  EXPECT_THROW(parse_vk_bindings({}), UsageError);
}
