#include "cpu_kernels.h"

#include <algorithm>
#include <cstring>

#include "error.h"

namespace cuvk::host_api {
namespace {

std::optional<std::uint64_t> g_broken_copy;  // break_copy_at

// Buffer `i`'s words, checked to hold `words` of them: a kernel never reads past a buffer.
std::uint32_t* words_of(const Launch& c, std::size_t i, std::uint64_t words) {
  if (i >= c.buffers.size() || c.buffers[i].buffer == nullptr)
    throw Error("host kernel: no buffer " + std::to_string(i));
  const BufferView& v = c.buffers[i];
  if (v.offset % 4 != 0 || words * 4 > v.bytes || v.offset + v.bytes > v.buffer->bytes())
    throw Error("host kernel: buffer " + std::to_string(i) + " holds " + std::to_string(v.bytes) +
                " bytes, the launch reaches " + std::to_string(words * 4));
  return static_cast<HostBuffer*>(v.buffer)->words.data() + v.offset / 4;
}

// Threads that do work: those the geometry launches, below the index bound n.
std::uint64_t active(const Launch& c, std::uint32_t n) {
  const Geometry& g = c.geometry;
  return std::min<std::uint64_t>(n, std::uint64_t{g.block_size} * g.grid_x * g.grid_y);
}

void copy(const Launch& c) {  // cuda/copy.cu: out[i] = in[i]
  const CuvkParams p = builtin_params(c);
  const std::uint64_t threads = active(c, p.n);
  if (threads == 0) return;  // the calibration's empty dispatch
  const std::uint32_t* in = words_of(c, 0, threads);
  std::uint32_t* out = words_of(c, 1, threads);
  std::copy_n(in, threads, out);
  if (g_broken_copy && *g_broken_copy < threads) out[*g_broken_copy] ^= 1u;
}

void read_x_aos(const Launch& c) {  // cuda/read_x.cu: out[i] = x of particle i {x,y,z,w}
  const CuvkParams p = builtin_params(c);
  const std::uint64_t threads = active(c, p.n);
  if (threads == 0) return;
  const std::uint32_t* in = words_of(c, 0, 4 * threads);
  std::uint32_t* out = words_of(c, 1, threads);
  for (std::uint64_t i = 0; i < threads; ++i) out[i] = in[4 * i];
}

void read_x_soa(const Launch& c) {  // the x plane first: out[i] = in[i]
  const CuvkParams p = builtin_params(c);
  const std::uint64_t threads = active(c, p.n);
  if (threads == 0) return;
  std::copy_n(words_of(c, 0, threads), threads, words_of(c, 1, threads));
}

// cuda/l2_flush.cu: reads n float4s; stores only where one sums to the sentinel in aux.
void l2_flush(const Launch& c) {
  const CuvkParams p = builtin_params(c);
  const std::uint64_t threads = active(c, p.n);
  if (threads == 0) return;
  const std::uint32_t* in = words_of(c, 0, 4 * threads);
  float sentinel = 0.0f;
  std::memcpy(&sentinel, &p.aux, sizeof sentinel);
  for (std::uint64_t i = 0; i < threads; ++i) {
    float v[4];
    std::memcpy(v, in + 4 * i, sizeof v);
    if (v[0] + v[1] + v[2] + v[3] == sentinel) std::memcpy(words_of(c, 1, 1), v, sizeof(float));
  }
}

}  // namespace

const std::map<std::string, CpuKernel>& cpu_kernels() {
  static const std::map<std::string, CpuKernel> kernels = {{"copy", copy},
                                                           {"read_x_aos", read_x_aos},
                                                           {"read_x_soa", read_x_soa},
                                                           {"l2_flush", l2_flush}};
  return kernels;
}

void break_copy_at(std::optional<std::uint64_t> element) {
  g_broken_copy = element;
}

}  // namespace cuvk::host_api
