// Issue 35, GPU to GPU (`cuvk p2p`, host/core/node/node_p2p.h): the staged copy through host memory
// on lavapipe as a loopback (the one device named twice), validation layer on; verification
// catches a chunk corrupted on its way through host memory. CUDA's rows need two GPUs: skipped
// here, with the reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends.h"
#include "devices.h"
#include "error.h"
#include "node_p2p.h"
#include "validated_vulkan.h"

using namespace cuvk;

namespace {

class P2pLoopback : public suite::ValidatedVulkan {
 protected:
  std::vector<P2pDevice> loopback() {
    P2pDevice d;
    d.label = "0";
    d.backend[Api::vulkan] = backend_.get();
    d.why[Api::cuda] = "no CUDA in this test";
    return {d, d};
  }
  static P2pConfig small(ChunkHook hook = {}) {
    P2pConfig c;
    c.sizes = {64 << 10, (5 << 20) + 4};  // one chunk; three (2 MiB chunks), the last 1 MiB + 4
    c.warmup = 1;
    c.reps = 2;
    c.chunk_bytes = std::size_t{2} << 20;
    c.hook = std::move(hook);
    return c;
  }
  static const P2pRow* find(const std::vector<P2pRow>& rows, std::uint64_t bytes, bool both) {
    for (const P2pRow& r : rows)
      if (r.api == Api::vulkan && r.method == P2pMethod::staged && r.bytes == bytes &&
          r.both == both)
        return &r;
    return nullptr;
  }
};

}  // namespace

TEST_F(P2pLoopback, VulkanStagedCopiesRunAndVerify) {
  ASSERT_NE(backend_->find<HostTransfers>(), nullptr) << backend_->lacks<HostTransfers>();
  const std::vector<P2pRow> rows = measure_p2p(loopback(), small());
  for (const bool both : {false, true}) {
    const P2pRow* small_row = find(rows, 64 << 10, both);
    const P2pRow* large_row = find(rows, (5 << 20) + 4, both);
    ASSERT_NE(small_row, nullptr);
    ASSERT_NE(large_row, nullptr);
    EXPECT_EQ(small_row->state, "ok") << small_row->note;
    EXPECT_EQ(large_row->state, "ok") << large_row->note;
    EXPECT_EQ(small_row->chunks, 1u);
    EXPECT_EQ(large_row->chunks, 3u);
    EXPECT_EQ(large_row->ms.samples, 2u);
    EXPECT_GT(large_row->gbps(), 0.0);
  }
  for (const P2pRow& r : rows) {
    if (r.api == Api::cuda) {
      EXPECT_EQ(r.state, "unavailable");
      EXPECT_NE(r.note.find("no CUDA in this test"), std::string::npos) << r.note;
    }
    if (r.api == Api::vulkan && r.method != P2pMethod::staged) {
      EXPECT_NE(r.note.find("loopback"), std::string::npos) << r.note;
    }
  }
}

TEST_F(P2pLoopback, ACorruptedChunkFailsTheRow) {
  // Chunk 1 of the three-chunk copy loses one word in host memory, in every repetition.
  const auto corrupt = [](std::size_t chunk, void* host, std::size_t bytes) {
    if (chunk == 1 && bytes >= 64) static_cast<std::uint32_t*>(host)[9] ^= 0x5A5A5A5AU;
  };
  const std::vector<P2pRow> rows = measure_p2p(loopback(), small(corrupt));
  const P2pRow* one_chunk = find(rows, 64 << 10, false);
  const P2pRow* three = find(rows, (5 << 20) + 4, false);
  const P2pRow* both = find(rows, (5 << 20) + 4, true);
  ASSERT_TRUE(one_chunk && three && both);
  EXPECT_EQ(one_chunk->state, "ok") << one_chunk->note;  // no chunk 1: untouched
  EXPECT_EQ(three->state, "failed");
  EXPECT_EQ(three->note, "1 of " + std::to_string(((5 << 20) + 4) / 4) + " words differ");
  EXPECT_EQ(both->state, "failed");  // each direction's chunk 1
  EXPECT_EQ(both->note, "2 of " + std::to_string(((5 << 20) + 4) / 2) + " words differ");
}

TEST_F(P2pLoopback, HostTransfersRefuseUnregisteredMemory) {
  auto* t = backend_->find<HostTransfers>();
  ASSERT_NE(t, nullptr);
  auto buffer = backend_->allocate(4096);
  std::vector<std::uint32_t> host(1024);
  EXPECT_THROW(t->to_host_async(*buffer, 0, host.data(), 4096), Error);
}

// CUDA: every ordered pair of the first two GPUs, each row verified or unavailable with a reason.
TEST(P2pCuda, RowsOfTwoGpusVerifyOrSayWhy) {
  const DeviceInventory inv = take_inventory(BackendOptions{});
  if (!inv.cuda_error.empty()) GTEST_SKIP() << "no CUDA: " << inv.cuda_error;
  const std::vector<DeviceInfo>& gpus = inv.cuda;
  if (gpus.size() < 2) GTEST_SKIP() << "GPU to GPU needs two CUDA GPUs; found " << gpus.size();
  std::vector<std::unique_ptr<Backend>> open;
  std::vector<P2pDevice> devices(2);
  for (int i = 0; i < 2; ++i) {
    open.push_back(make_backend(Api::cuda, i, BackendOptions{}));
    devices[i].label = std::to_string(i);
    devices[i].backend[Api::cuda] = open.back().get();
    devices[i].why[Api::vulkan] = "not in this test";
  }
  P2pConfig c;
  c.sizes = {64 << 10, 20 << 20};
  c.reps = 3;
  for (const P2pRow& r : measure_p2p(devices, c)) {
    if (r.api != Api::cuda) continue;
    EXPECT_NE(r.state, "failed") << p2p_method_name(r.method) << ": " << r.note;
    if (r.method == P2pMethod::staged) {
      EXPECT_EQ(r.state, "ok") << r.note;
    }
  }
}
