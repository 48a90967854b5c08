#include "node_p2p.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "error.h"

namespace cuvk {
namespace {

// One direction's buffers: the source holding random non-zero words, the destination poisoned.
struct Lane {
  Backend* from = nullptr;
  Backend* to = nullptr;
  std::unique_ptr<DeviceBuffer> src, dst;
  std::vector<std::uint32_t> data;
};

Lane make_lane(Backend& from, Backend& to, std::uint64_t bytes, std::uint64_t seed) {
  Lane l;
  l.from = &from;
  l.to = &to;
  l.data = random_nonzero_words(bytes / 4, seed);
  l.src = from.allocate(bytes);
  from.upload(*l.src, l.data.data(), bytes);
  l.dst = to.allocate(bytes);
  to.fill(*l.dst, 0);
  return l;
}

std::size_t differing(const Lane& l) {
  std::vector<std::uint32_t> got(l.data.size());
  l.to->download(*l.dst, got.data(), got.size() * 4);
  return differing_words(l.data, got);
}

// Times `transfer` (each repetition after poisoning every destination), then verifies the last.
void measure(P2pRow& row, std::vector<Lane>& lanes, const std::function<void()>& transfer,
             const P2pConfig& c) {
  const auto poison = [&lanes] {
    for (Lane& l : lanes) l.to->fill(*l.dst, 0);
  };
  row.ms = time_transfer(transfer, poison, c.warmup, c.reps);
  std::size_t bad = 0, words = 0;
  for (const Lane& l : lanes) {
    bad += differing(l);
    words += l.data.size();
  }
  if (bad == 0) return;
  row.state = "failed";
  row.note = fmt::format("{} of {} words differ", bad, words);
}

P2pRow unavailable(P2pRow row, std::string why) {
  row.state = "unavailable";
  row.note = std::move(why);
  return row;
}

std::string property(const Backend& b, const std::string& key) {
  for (const auto& [k, v] : b.info().properties)
    if (k == key) return v;
  return "not reported";
}

P2pRow staged_row(P2pRow row, const P2pDevice& a, const P2pDevice& b, const P2pConfig& c) {
  const Api api = row.api;
  Backend* A = a.backend[api];
  Backend* B = b.backend[api];
  if (A == nullptr || B == nullptr)
    return unavailable(row,
                       std::string(api_display_name(api)) + ": " + (A ? b.why[api] : a.why[api]));
  auto* ta = A->find<HostTransfers>();
  auto* tb = B->find<HostTransfers>();
  if (ta == nullptr || tb == nullptr)
    return unavailable(row, ta ? B->lacks<HostTransfers>() : A->lacks<HostTransfers>());
  StagingArea forward(c.chunk_bytes, {A, B});
  std::optional<StagingArea> backward;
  if (row.both) backward.emplace(c.chunk_bytes, std::vector<Backend*>{B, A});
  if (!forward.unregistered().empty()) return unavailable(row, forward.unregistered());
  std::vector<Lane> lanes;
  lanes.push_back(make_lane(*A, *B, row.bytes, row.bytes * 31 + row.src * 7 + row.dst));
  if (row.both)
    lanes.push_back(make_lane(*B, *A, row.bytes, row.bytes * 31 + row.dst * 7 + row.src));
  const auto transfer = [&] {
    StagedCopy f({*ta, *lanes[0].src}, {*tb, *lanes[0].dst}, row.bytes, forward, c.hook);
    row.chunks = f.chunks();
    if (!row.both) return run_staged({&f});
    StagedCopy r({*tb, *lanes[1].src}, {*ta, *lanes[1].dst}, row.bytes, *backward, c.hook);
    run_staged({&f, &r});
  };
  measure(row, lanes, transfer, c);
  return row;
}

// CUDA: the destination pulls the source's memory over the link (copy engine or a kernel).
P2pRow peer_row(P2pRow row, const P2pDevice& a, const P2pDevice& b, const P2pConfig& c) {
  Backend* A = a.backend[Api::cuda];
  Backend* B = b.backend[Api::cuda];
  if (A == nullptr || B == nullptr)
    return unavailable(row, "CUDA: " + (A ? b.why : a.why)[Api::cuda]);
  auto* pa = A->find<PeerCopies>();
  auto* pb = B->find<PeerCopies>();
  if (pa == nullptr || pb == nullptr) return unavailable(row, A->lacks<PeerCopies>());
  std::string why = pb->peer_unavailable(*A);
  if (why.empty() && row.both) why = pa->peer_unavailable(*B);
  if (!why.empty()) return unavailable(row, "CUDA: " + why);
  pb->enable_peer(*A);
  if (row.both) pa->enable_peer(*B);
  std::vector<Lane> lanes;
  lanes.push_back(make_lane(*A, *B, row.bytes, row.bytes * 37 + row.src * 7 + row.dst));
  if (row.both)
    lanes.push_back(make_lane(*B, *A, row.bytes, row.bytes * 37 + row.dst * 7 + row.src));
  const bool read = row.method == P2pMethod::peer_read;
  const auto issue = [&](PeerCopies& p, const Backend& peer, const Lane& l) {
    return read ? p.read_from_peer_async(peer, *l.src, *l.dst, row.bytes)
                : p.copy_from_peer_async(peer, *l.src, *l.dst, row.bytes);
  };
  const auto transfer = [&] {
    const std::uint64_t t1 = issue(*pb, *A, lanes[0]);
    const std::uint64_t t2 = row.both ? issue(*pa, *B, lanes[1]) : 0;
    pb->wait_peer(t1);
    if (row.both) pa->wait_peer(t2);
  };
  measure(row, lanes, transfer, c);
  return row;
}

// Vulkan has no peer copy here: cuvk uses no device groups; the row says what the driver reports.
P2pRow vulkan_peer_row(P2pRow row, const P2pDevice& a, const P2pDevice& b) {
  const Backend* A = a.backend[Api::vulkan];
  const Backend* B = b.backend[Api::vulkan];
  if (A == nullptr || B == nullptr)
    return unavailable(row, "Vulkan: " + (A ? b.why : a.why)[Api::vulkan]);
  if (A == B) return unavailable(row, "Vulkan: a loopback (the same GPU twice); staged copy only");
  const std::string ga = property(*A, "device_group"), gb = property(*B, "device_group");
  // "group 0 of 4, 1 GPU in it (...)": the same group only where that head names it for both
  // and it holds more than one GPU.
  const std::string head_a = ga.substr(0, ga.find(',')), head_b = gb.substr(0, gb.find(','));
  const bool shared = head_a == head_b && head_a.rfind("group ", 0) == 0 &&
                      ga.find(", 1 GPU in it") == std::string::npos;
  const std::string groups =
      " (device groups: GPU " + a.label + " " + ga + "; GPU " + b.label + " " + gb + ")";
  if (shared)
    return unavailable(row, "Vulkan: GPUs " + a.label + " and " + b.label + " share a device " +
                                "group" + groups + ", but cuvk does not copy through device " +
                                "groups; staged copy only");
  return unavailable(row, "Vulkan: no device group spans GPUs " + a.label + " and " + b.label +
                              groups + "; staged copy only");
}

P2pRow run_row(P2pRow row, const P2pDevice& a, const P2pDevice& b, const P2pConfig& c) {
  try {
    if (row.method == P2pMethod::staged) return staged_row(row, a, b, c);
    if (row.api == Api::vulkan) return vulkan_peer_row(row, a, b);
    return peer_row(row, a, b, c);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    row.state = "failed";
    row.note = e.what();
    return row;
  }
}

}  // namespace

const char* p2p_method_name(P2pMethod m) {
  switch (m) {
    case P2pMethod::staged:
      return "staged";
    case P2pMethod::peer_copy:
      return "peer-copy";
    case P2pMethod::peer_read:
      return "peer-read";
  }
  return "?";
}

double P2pRow::gbps() const {
  return state == "ok" && ms.median > 0 ? static_cast<double>(bytes) / (ms.median * 1e6) : 0.0;
}

std::vector<P2pRow> measure_p2p(const std::vector<P2pDevice>& devices, const P2pConfig& config) {
  if (devices.size() < 2) throw Error("GPU to GPU needs two GPUs");
  std::vector<P2pRow> rows;
  const auto add = [&](std::size_t i, std::size_t j, bool both) {
    for (const std::uint64_t bytes : config.sizes) {
      for (const Api api : kApis) {
        P2pRow row;
        row.src = i, row.dst = j, row.api = api, row.both = both, row.bytes = bytes;
        rows.push_back(run_row(row, devices[i], devices[j], config));
      }
      for (const P2pMethod m : {P2pMethod::peer_copy, P2pMethod::peer_read}) {
        P2pRow row;
        row.src = i, row.dst = j, row.method = m, row.both = both, row.bytes = bytes;
        rows.push_back(run_row(row, devices[i], devices[j], config));
      }
    }
    P2pRow vk;  // once per pair: Vulkan has no direct path to measure
    vk.src = i, vk.dst = j, vk.api = Api::vulkan, vk.method = P2pMethod::peer_copy, vk.both = both;
    rows.push_back(run_row(vk, devices[i], devices[j], config));
  };
  // A loopback's two orders are the same copy: it runs once.
  for (std::size_t i = 0; i < devices.size(); ++i)
    for (std::size_t j = 0; j < devices.size(); ++j)
      if (i != j && (i < j || devices[i].label != devices[j].label)) add(i, j, false);
  for (std::size_t i = 0; i < devices.size(); ++i)
    for (std::size_t j = i + 1; j < devices.size(); ++j) add(i, j, true);
  return rows;
}

}  // namespace cuvk
