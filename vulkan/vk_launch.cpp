// Launch checks (device limits, binding mode, the kernel's buffers and scalars, the copy engine's
// buffers) and launch recording: bind pipeline, descriptor set, push constants (scalars, bda
// addresses), dispatch; or vkCmdCopyBuffer.
#include "vk_launch.h"

#include <volk.h>

#include <cstring>
#include <string>
#include <vector>

#include "error.h"

namespace cuvk::vk {
namespace {

// A view's buffer checked and owned here: inside its buffer; a run-time kernel's view also
// non-empty, aligned and within the device's range.
const VulkanBuffer& own_view(const BufferView& v, bool runtime, const std::string& name,
                             const std::string& where, const DeviceInfo& info,
                             const Allocator& allocator) {
  if (v.buffer == nullptr || v.offset + v.bytes > v.buffer->bytes() ||
      (runtime &&
       (v.bytes == 0 || v.offset % kViewAlignment != 0 || v.bytes > info.max_buffer_bytes))) {
    throw Error(where + name + ": missing, empty, misaligned, or outside its buffer");
  }
  return allocator.own(*v.buffer, "launch buffer");
}

// The copy engine copies buffers[1].bytes from buffers[0]; geometry and scalars do not apply.
ResolvedLaunch resolve_copy_engine(const Launch& launch, const std::string& where,
                                   const DeviceInfo& info, const Allocator& allocator) {
  if (launch.buffers.size() != 2) {
    throw Error(where + std::to_string(launch.buffers.size()) +
                " buffers; the copy engine takes 2 (from, to)");
  }
  const BufferView &from = launch.buffers[0], &to = launch.buffers[1];
  ResolvedLaunch r;
  r.engine = true;
  r.stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  const VkBuffer src = own_view(from, false, "buffer 0", where, info, allocator).handle();
  const VkBuffer dst = own_view(to, false, "buffer 1", where, info, allocator).handle();
  if (src == dst) throw Error(where + "input and output must be different buffers");
  if (to.bytes == 0 || from.bytes < to.bytes) {
    throw Error(where + "copies the output's " + std::to_string(to.bytes) +
                " bytes, so the input needs at least as many (it has " +
                std::to_string(from.bytes) + ")");
  }
  r.views = {{src, from.offset, from.bytes}, {dst, to.offset, to.bytes}};
  r.copy.srcOffset = from.offset;
  r.copy.dstOffset = to.offset;
  r.copy.size = to.bytes;
  return r;
}

void check_geometry(const Geometry& g, const DeviceInfo& info, const std::string& where) {
  if (g.block_size == 0 || g.block_size > info.max_block_size) {
    throw Error(where + "block size " + std::to_string(g.block_size) + " outside 1.." +
                std::to_string(info.max_block_size) + " on " + info.name);
  }
  if (g.grid_x == 0 || g.grid_x > info.max_grid_x) {
    throw Error(where + "grid_x " + std::to_string(g.grid_x) + " outside 1.." +
                std::to_string(info.max_grid_x) + " on " + info.name);
  }
  if (g.grid_y == 0 || g.grid_y > info.max_grid_y) {
    throw Error(where + "grid_y " + std::to_string(g.grid_y) + " outside 1.." +
                std::to_string(info.max_grid_y) + " on " + info.name);
  }
}

// A traced twin (built-in kernels): which module, and its trace buffer's size checked.
Trace resolve_trace(const Launch& launch, const std::string& where,
                    const EnabledFeatures& features) {
  if (launch.trace == nullptr) return Trace::none;
  if (!features.trace.unavailable.empty()) throw Error(where + features.trace.unavailable);
  const Geometry& g = launch.geometry;
  const std::uint64_t need = std::uint64_t{g.grid_x} * g.grid_y * CUVK_TRACE_WORDS * 4;
  if (launch.trace->bytes() < need) {
    throw Error(where + "trace buffer of " + std::to_string(launch.trace->bytes()) +
                " bytes; the launch needs " + std::to_string(need));
  }
  return features.trace.sm_ids ? Trace::with_sm : Trace::without_sm;
}

// The kernel's buffer views (a traced twin's trace buffer after them) and the push-constant block
// of its binding mode: the scalars, then in the bda form the buffers' addresses. A built-in
// kernel's whole buffers are bound as before views existed, to VK_WHOLE_SIZE.
void resolve_buffers(const Launch& launch, const KernelShape& k, bool traced,
                     const std::string& where, const DeviceInfo& info, const Allocator& allocator,
                     ResolvedLaunch& r) {
  if (launch.buffers.size() != k.buffers || launch.scalars.size() != k.scalar_bytes) {
    throw Error(where + std::to_string(launch.buffers.size()) + " buffers and " +
                std::to_string(launch.scalars.size()) + " scalar bytes; the kernel takes " +
                std::to_string(k.buffers) + " and " + std::to_string(k.scalar_bytes));
  }
  std::vector<BufferView> views = launch.buffers;
  if (traced) views.push_back(whole(*launch.trace));
  const bool bda = r.binding == Binding::bda;
  r.push = launch.scalars;
  if (bda) r.push.resize(k.address_offset + 8 * views.size(), 0);
  for (std::size_t i = 0; i < views.size(); ++i) {
    const BufferView& v = views[i];
    const bool trace = i == k.buffers;
    const std::string name = trace ? "trace buffer" : "buffer " + std::to_string(i);
    const VulkanBuffer& owned = own_view(v, k.runtime, name, where, info, allocator);
    const bool whole_buffer = !k.runtime && v.offset == 0 && v.bytes == v.buffer->bytes();
    r.views.push_back({owned.handle(), v.offset, whole_buffer ? VK_WHOLE_SIZE : v.bytes});
    if (bda) {
      const VkDeviceAddress address = owned.address() + v.offset;
      std::memcpy(r.push.data() + k.address_offset + 8 * i, &address, sizeof address);
    }
  }
}

}  // namespace

std::string binding_unsupported(Binding binding, const EnabledFeatures& features) {
  switch (binding) {
    case Binding::descriptor:
      return {};
    case Binding::bda:
      return features.bda ? std::string() : features.bda_unsupported;
    case Binding::pointer:
      break;
  }
  return "Vulkan shaders take a descriptor set or buffer device addresses, not pointers";
}

ResolvedLaunch resolve_launch(const Launch& launch, const char* what, const DeviceInfo& info,
                              const EnabledFeatures& features, const Allocator& allocator,
                              Pipelines& pipelines) {
  const Geometry& g = launch.geometry;
  const std::string where = std::string(what) + " '" + launch.kernel + "': ";
  if (launch.kernel == kCopyEngine) return resolve_copy_engine(launch, where, info, allocator);
  check_geometry(g, info, where);
  if (const std::string why = binding_unsupported(launch.binding, features); !why.empty()) {
    throw Error(where + why);
  }
  const bool runtime = pipelines.runtime(launch.kernel) != nullptr;
  if (runtime && launch.trace != nullptr)
    throw Error(where + "run-time kernels have no traced form");
  const Trace trace = resolve_trace(launch, where, features);
  const KernelShape shape = pipelines.shape(launch.kernel, launch.binding, trace);
  ResolvedLaunch r;
  r.geometry = g;
  r.binding = launch.binding;
  resolve_buffers(launch, shape, trace != Trace::none, where, info, allocator, r);
  r.pipeline = pipelines.get(launch.kernel, g.block_size, launch.binding, trace);
  r.layout = shape.layout;
  r.set_layout = shape.set_layout;
  return r;
}

void prepare_descriptor_sets(Pipelines& pipelines, std::vector<ResolvedLaunch>& launches) {
  pipelines.reset_sets();
  for (ResolvedLaunch& r : launches) {
    if (r.engine || r.binding == Binding::bda) continue;
    r.set = pipelines.make_set(r.set_layout, r.views);
  }
}

void record_launch(const VolkDeviceTable& table, VkCommandBuffer cb, const ResolvedLaunch& r) {
  if (r.engine) {
    table.vkCmdCopyBuffer(cb, r.views[0].buffer, r.views[1].buffer, 1, &r.copy);
    return;
  }
  table.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, r.pipeline);
  if (r.binding != Binding::bda) {
    table.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, r.layout, 0, 1, &r.set, 0,
                                  nullptr);
  }
  if (!r.push.empty()) {
    table.vkCmdPushConstants(cb, r.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                             static_cast<std::uint32_t>(r.push.size()), r.push.data());
  }
  table.vkCmdDispatch(cb, r.geometry.grid_x, r.geometry.grid_y, 1);
}

}  // namespace cuvk::vk
