// Launch checks (device limits, binding mode, the copy engine's buffers) and launch recording:
// bind pipeline, descriptor set or bda push constants, push params, dispatch; or vkCmdCopyBuffer.
#include "vk_launch.h"

#include <volk.h>

#include <cstring>
#include <string>
#include <vector>

#include "error.h"

namespace cuvk::vk {
namespace {

// The copy engine copies the output's bytes from the input; geometry and params do not apply.
void resolve_copy_engine(const Launch& launch, const std::string& where, ResolvedLaunch& r) {
  if (r.in == r.out) throw Error(where + "input and output must be different buffers");
  if (launch.out->bytes() == 0 || launch.in->bytes() < launch.out->bytes()) {
    throw Error(where + "copies the output's " + std::to_string(launch.out->bytes()) +
                " bytes, so the input needs at least as many (it has " +
                std::to_string(launch.in->bytes()) + ")");
  }
  r.engine = true;
  r.stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  r.copy_bytes = launch.out->bytes();
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

// A traced twin: its module, its trace buffer (one record per workgroup) and that buffer's address.
void resolve_trace(const Launch& launch, const std::string& where, const EnabledFeatures& features,
                   const Allocator& allocator, ResolvedLaunch& r) {
  if (!features.trace.unavailable.empty()) throw Error(where + features.trace.unavailable);
  const Geometry& g = launch.geometry;
  const std::uint64_t need = std::uint64_t{g.grid_x} * g.grid_y * CUVK_TRACE_WORDS * 4;
  if (launch.trace->bytes() < need) {
    throw Error(where + "trace buffer of " + std::to_string(launch.trace->bytes()) +
                " bytes; the launch needs " + std::to_string(need));
  }
  r.trace = features.trace.sm_ids ? Trace::with_sm : Trace::without_sm;
  r.trace_buffer = allocator.own(*launch.trace, "trace buffer").handle();
  if (launch.binding == Binding::bda) {
    r.trace_address = allocator.own(*launch.trace, "trace buffer").address();
  }
}

// A run-time kernel's launch: N buffer views (each inside its buffer, offset aligned) and the
// push-constant block of its binding mode.
void resolve_runtime(const Launch& launch, const std::string& where, const DeviceInfo& info,
                     const Allocator& allocator, ResolvedLaunch& r) {
  const RuntimeKernel& k = *r.runtime;
  if (launch.buffers.size() != k.buffers || launch.scalars.size() < k.scalar_bytes) {
    throw Error(where + std::to_string(launch.buffers.size()) + " buffers and " +
                std::to_string(launch.scalars.size()) + " scalar bytes; the kernel takes " +
                std::to_string(k.buffers) + " and " + std::to_string(k.scalar_bytes));
  }
  r.push.assign(launch.scalars.begin(), launch.scalars.begin() + k.scalar_bytes);
  if (r.binding == Binding::bda) r.push.resize(k.address_offset + 8 * k.buffers, 0);
  for (std::uint32_t i = 0; i < k.buffers; ++i) {
    const BufferView& v = launch.buffers[i];
    const std::string name = "buffer " + std::to_string(i);
    if (v.buffer == nullptr || v.bytes == 0 || v.offset % kViewAlignment != 0 ||
        v.offset + v.bytes > v.buffer->bytes() || v.bytes > info.max_buffer_bytes) {
      throw Error(where + name + ": missing, empty, misaligned, or outside its buffer");
    }
    const VulkanBuffer& owned = allocator.own(*v.buffer, "launch buffer");
    r.views.push_back({owned.handle(), v.offset, v.bytes});
    if (r.binding == Binding::bda) {
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
  if (const RuntimeKernel* k = pipelines.runtime(launch.kernel)) {
    check_geometry(g, info, where);
    if (const std::string why = binding_unsupported(launch.binding, features); !why.empty()) {
      throw Error(where + why);
    }
    if (launch.trace != nullptr) throw Error(where + "run-time kernels have no traced form");
    ResolvedLaunch r;
    r.runtime = k;
    r.geometry = g;
    r.binding = launch.binding;
    resolve_runtime(launch, where, info, allocator, r);
    r.pipeline = pipelines.get(launch.kernel, g.block_size, launch.binding);
    r.layout = launch.binding == Binding::bda ? k->bda_layout.get() : k->layout.get();
    return r;
  }
  if (launch.in == nullptr || launch.out == nullptr) {
    throw Error(where + "input and output buffers are required");
  }
  ResolvedLaunch r;
  r.in = allocator.own(*launch.in, "launch input").handle();
  r.out = allocator.own(*launch.out, "launch output").handle();
  r.params = launch.params;
  r.geometry = g;
  if (launch.kernel == kCopyEngine) {
    resolve_copy_engine(launch, where, r);
    return r;
  }
  check_geometry(g, info, where);
  if (const std::string why = binding_unsupported(launch.binding, features); !why.empty()) {
    throw Error(where + why);
  }
  r.binding = launch.binding;
  if (r.binding == Binding::bda) {
    r.in_address = allocator.own(*launch.in, "launch input").address();
    r.out_address = allocator.own(*launch.out, "launch output").address();
  }
  if (launch.trace != nullptr) resolve_trace(launch, where, features, allocator, r);
  r.pipeline = pipelines.get(launch.kernel, g.block_size, launch.binding, r.trace);
  r.layout = pipelines.layout(launch.binding, r.trace);
  return r;
}

void prepare_descriptor_sets(Pipelines& pipelines, std::vector<ResolvedLaunch>& launches) {
  pipelines.reset_sets();
  for (ResolvedLaunch& r : launches) {
    if (r.engine || r.binding == Binding::bda) continue;
    r.set = r.runtime != nullptr ? pipelines.make_runtime_set(*r.runtime, r.views)
                                 : pipelines.make_set(r.in, r.out, r.trace_buffer);
  }
}

void record_launch(const VolkDeviceTable& table, VkCommandBuffer cb, const ResolvedLaunch& r) {
  if (r.engine) {
    VkBufferCopy region{};
    region.size = r.copy_bytes;
    table.vkCmdCopyBuffer(cb, r.in, r.out, 1, &region);
    return;
  }
  table.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, r.pipeline);
  if (r.runtime != nullptr) {
    if (r.binding != Binding::bda) {
      table.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, r.layout, 0, 1, &r.set, 0,
                                    nullptr);
    }
    if (!r.push.empty()) {
      table.vkCmdPushConstants(cb, r.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                               static_cast<std::uint32_t>(r.push.size()), r.push.data());
    }
    table.vkCmdDispatch(cb, r.geometry.grid_x, r.geometry.grid_y, 1);
    return;
  }
  if (r.binding == Binding::bda && r.trace != Trace::none) {
    const CuvkTraceBdaPush push{r.params, r.in_address, r.out_address, r.trace_address};
    table.vkCmdPushConstants(cb, r.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                             kTraceBdaPushConstantBytes, &push);
    table.vkCmdDispatch(cb, r.geometry.grid_x, r.geometry.grid_y, 1);
    return;
  }
  if (r.binding == Binding::bda) {  // no descriptor set: the addresses travel with the params
    const CuvkBdaPush push{r.params, r.in_address, r.out_address};
    table.vkCmdPushConstants(cb, r.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, kBdaPushConstantBytes,
                             &push);
    table.vkCmdDispatch(cb, r.geometry.grid_x, r.geometry.grid_y, 1);
    return;
  }
  table.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, r.layout, 0, 1, &r.set, 0,
                                nullptr);
  table.vkCmdPushConstants(cb, r.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes,
                           &r.params);
  table.vkCmdDispatch(cb, r.geometry.grid_x, r.geometry.grid_y, 1);
}

}  // namespace cuvk::vk
