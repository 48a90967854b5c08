// One lane of one point of a user's kernel pair (issue 20; runner_parts.h): buffers between guard
// bands, the correctness run, the guard check, the outputs compared with the expected files and
// with the first lane that passed at this block size (CUDA's and Vulkan's outputs element by
// element, bit for bit unless a tolerance is declared), then the same timed batches as built-in
// tests. Also the pair's checks before anything is allocated: sizes and grids against the devices.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "error.h"
#include "host_data.h"
#include "runner_parts.h"

namespace cuvk::runner_detail {
namespace {

std::uint64_t round_up(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m * m; }

std::uint64_t allocation_bytes(const UserBuffer& b) {
  return 2 * kGuardBytes + round_up(b.bytes(), kViewAlignment);
}

std::uint8_t guard_byte(std::uint64_t at) {  // kGuardWord, little endian, repeated
  return static_cast<std::uint8_t>(kGuardWord >> (8 * (at % 4)));
}

// The buffer as uploaded: guard, contents (or the poison word), guard up to the allocation's end.
std::vector<std::uint8_t> guarded_image(const UserBuffer& b, const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> image(allocation_bytes(b));
  for (std::uint64_t i = 0; i < image.size(); ++i) image[i] = guard_byte(i);
  std::uint8_t* interior = image.data() + kGuardBytes;
  if (b.poisoned || data.size() != b.bytes()) {
    for (std::uint64_t i = 0; i < b.bytes(); ++i)
      interior[i] = static_cast<std::uint8_t>(kPoisonWord >> (8 * (i % 4)));
  } else {
    std::memcpy(interior, data.data(), data.size());
  }
  return image;
}

// "" when both guard bands of `b` are intact, else where the first write outside it landed.
std::string guard_damage(const UserBuffer& b, const std::vector<std::uint8_t>& image) {
  const std::uint64_t end = kGuardBytes + b.bytes();
  for (std::uint64_t i = 0; i < image.size(); ++i) {
    if (i == kGuardBytes) i = end;
    if (i >= image.size()) break;
    if (image[i] == guard_byte(i)) continue;
    std::ostringstream o;
    o << "buffer '" << b.name << "': out-of-bounds write at byte offset ";
    if (i < kGuardBytes) {
      o << "-" << (kGuardBytes - i) << " (before its first element)";
    } else {
      o << (i - kGuardBytes) << " (element " << (i - kGuardBytes) / b.element_bytes << "; it has "
        << b.count << " elements)";
    }
    return o.str();
  }
  return {};
}

std::string element_text(const UserBuffer& b, const std::uint8_t* p) {
  std::ostringstream o;
  o.precision(9);
  std::uint64_t bits = 0;
  std::memcpy(&bits, p, std::min<std::uint32_t>(b.element_bytes, 8));
  switch (b.element) {
    case UserElement::f32: {
      float f;
      std::memcpy(&f, p, 4);
      o << f << " (0x" << std::hex << bits << ")";
      break;
    }
    case UserElement::f64: {
      double d;
      std::memcpy(&d, p, 8);
      o.precision(17);
      o << d << " (0x" << std::hex << bits << ")";
      break;
    }
    case UserElement::i32: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      o << v;
      break;
    }
    case UserElement::u32: o << static_cast<std::uint32_t>(bits); break;
    default:
      o << "0x";
      for (std::uint32_t k = b.element_bytes; k-- > 0;) {
        static const char* hex = "0123456789abcdef";
        o << hex[p[k] >> 4] << hex[p[k] & 15];
      }
  }
  return o.str();
}

// Distance of two floats in units in the last place (ordered integer difference); NaNs equal
// only to the same bits.
template <typename Float, typename Int>
double ulp_distance(const std::uint8_t* a, const std::uint8_t* b) {
  Int x, y;
  std::memcpy(&x, a, sizeof x);
  std::memcpy(&y, b, sizeof y);
  if (x == y) return 0.0;
  Float fx, fy;
  std::memcpy(&fx, a, sizeof fx);
  std::memcpy(&fy, b, sizeof fy);
  if (std::isnan(fx) || std::isnan(fy)) return std::numeric_limits<double>::infinity();
  const auto ordered = [](Int v) -> long double {
    return v < 0 ? -static_cast<long double>(v & std::numeric_limits<Int>::max())
                 : static_cast<long double>(v);
  };
  return static_cast<double>(std::fabs(ordered(x) - ordered(y)));
}

// How far element a is from element b under the buffer's tolerance (0: equal); and whether
// that is within it.
double difference(const UserBuffer& b, const std::uint8_t* x, const std::uint8_t* y) {
  if (std::memcmp(x, y, b.element_bytes) == 0) return 0.0;
  const bool f32 = b.element == UserElement::f32, f64 = b.element == UserElement::f64;
  if (b.tolerance.kind == UserTolerance::Kind::ulp && (f32 || f64))
    return f32 ? ulp_distance<float, std::int32_t>(x, y) : ulp_distance<double, std::int64_t>(x, y);
  if (b.tolerance.kind == UserTolerance::Kind::abs && (f32 || f64)) {
    double dx, dy;
    if (f32) {
      float a, c;
      std::memcpy(&a, x, 4);
      std::memcpy(&c, y, 4);
      dx = a, dy = c;
    } else {
      std::memcpy(&dx, x, 8);
      std::memcpy(&dy, y, 8);
    }
    const double d = std::fabs(dx - dy);
    return std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
  }
  return std::numeric_limits<double>::infinity();  // exact: any difference fails
}

struct Comparison {
  std::uint64_t checked = 0, mismatches = 0;
  std::optional<std::uint64_t> first_bad;  // element index within the buffer
  std::string message;                     // the first mismatch, both values
  double worst = 0.0;                      // the largest difference seen within tolerance
};

// Compares `got` with `want` element by element under `b`'s tolerance.
Comparison compare(const UserBuffer& b, const std::uint8_t* got, const std::uint8_t* want,
                   const std::string& got_name, const std::string& want_name) {
  Comparison c;
  const double bound = b.tolerance.kind == UserTolerance::Kind::exact ? 0.0 : b.tolerance.value;
  for (std::uint64_t i = 0; i < b.count; ++i) {
    const std::uint8_t* x = got + i * b.element_bytes;
    const std::uint8_t* y = want + i * b.element_bytes;
    const double d = difference(b, x, y);
    ++c.checked;
    if (d <= bound) {
      c.worst = std::max(c.worst, d);
      continue;
    }
    if (c.mismatches++ == 0) {
      c.first_bad = i;
      c.message = "buffer '" + b.name + "' element " + std::to_string(i) + ": " + got_name + " " +
                  element_text(b, x) + ", " + want_name + " " + element_text(b, y);
    }
  }
  return c;
}

std::string tolerance_text(const UserBuffer& b, double worst) {
  std::ostringstream o;
  o.precision(3);
  if (b.tolerance.kind == UserTolerance::Kind::ulp) o << worst << "ulp";
  else o << worst;
  return "max_diff_" + b.name + "=" + o.str();
}

std::string lane_name(const Lane& lane) {
  return lane.state->api == Api::cuda ? std::string("cuda")
                                      : std::string("vulkan ") + binding_name(lane.binding);
}

// Guards, expected files, then the point's reference outputs (or this lane's become it).
// Returns false (row failed) on any difference.
bool verify_outputs(const Lane& lane, const UserPlan& u, const std::vector<std::vector<std::uint8_t>>& got,
                    const Inputs& in, ResultRow& row) {
  for (std::size_t i = 0; i < u.buffers.size(); ++i)
    if (const std::string why = guard_damage(u.buffers[i], got[i]); !why.empty()) {
      row.status = Status::failed;
      row.reason = why;
      return false;
    }
  UserReference& ref = *in.reference;
  const auto& earlier = ref.by_block.find(row.block_size);
  std::vector<std::uint8_t> outputs;  // every output's interior, in order: the row's hash
  row.verified = true;
  for (std::size_t i = 0; i < u.buffers.size(); ++i) {
    const UserBuffer& b = u.buffers[i];
    if (!b.output) continue;
    const std::uint8_t* mine = got[i].data() + kGuardBytes;
    outputs.insert(outputs.end(), mine, mine + b.bytes());
    std::vector<Comparison> checks;
    if (b.expected && in.user.expected[i].size() == b.bytes())
      checks.push_back(compare(b, mine, in.user.expected[i].data(), lane_name(lane), "expected"));
    if (earlier != ref.by_block.end())
      checks.push_back(compare(b, mine, earlier->second.second[i].data() + kGuardBytes,
                               lane_name(lane), earlier->second.first));
    for (const Comparison& c : checks) {
      row.checked += c.checked;
      row.mismatches += c.mismatches;
      if (c.mismatches > 0 && row.verified) {
        row.verified = false;
        row.first_bad_index = c.first_bad;
        row.reason = std::to_string(c.mismatches) + " of " + std::to_string(c.checked) +
                     " elements differ, first " + c.message;
      }
      if (c.mismatches == 0 && b.tolerance.kind != UserTolerance::Kind::exact)
        row.flags.push_back(tolerance_text(b, c.worst));
    }
  }
  // A hash says "bit-identical across APIs" (parity's outputs column); where a tolerance is
  // declared that is not the criterion, so no hash is recorded.
  bool exact = true;
  for (const UserBuffer& b : u.buffers) exact = exact && (!b.output || b.tolerance.kind == UserTolerance::Kind::exact);
  if (exact) row.output_hash = hash_output(outputs.data(), outputs.size());
  if (!row.verified) {
    row.status = Status::failed;
    return false;
  }
  if (earlier == ref.by_block.end()) ref.by_block[row.block_size] = {lane_name(lane), got};
  return true;
}

}  // namespace

std::vector<std::uint32_t> job_block_sizes(const Job& job, const RunConfig& cfg) {
  if (job.plan.user && !job.plan.user->block_sizes.empty()) return job.plan.user->block_sizes;
  return cfg.block_sizes;
}

Geometry user_geometry(const UserPlan& u, std::uint32_t block, std::uint32_t max_x,
                       std::uint32_t max_y, std::uint32_t max_block) {
  if (block == 0 || block > max_block)
    throw UsageError(u.file + ": launch.block_sizes: " + std::to_string(block) +
                     " threads per block; the devices allow 1.." + std::to_string(max_block));
  const UserLaunch l = u.launch(block);
  if (!l.grid) {
    if (l.threads == 0 || l.threads > std::numeric_limits<std::uint32_t>::max())
      throw UsageError(u.file + ": launch.threads: " + std::to_string(l.threads) +
                       " threads (1..4294967295)");
    const std::uint64_t groups = (l.threads + block - 1) / block;
    if (groups > std::uint64_t{max_x} * max_y)
      throw UsageError(u.file + ": launch.threads: " + std::to_string(l.threads) + " threads need " +
                       std::to_string(groups) + " blocks of " + std::to_string(block) +
                       "; the devices allow " + std::to_string(std::uint64_t{max_x} * max_y));
    return launch_geometry(static_cast<std::uint32_t>(l.threads), block, max_x, max_y);
  }
  const auto [gx, gy] = *l.grid;
  if (gx == 0 || gy == 0 || gx > max_x || gy > max_y)
    throw UsageError(u.file + ": launch.grid: [" + std::to_string(gx) + ", " + std::to_string(gy) +
                     "] blocks; the devices allow 1.." + std::to_string(max_x) + " x 1.." +
                     std::to_string(max_y));
  return Geometry{block, static_cast<std::uint32_t>(gx), static_cast<std::uint32_t>(gy)};
}

std::uint64_t check_user_plan(const UserPlan& u, const std::vector<std::uint32_t>& blocks,
                              std::uint32_t max_x, std::uint32_t max_y, std::uint32_t max_block,
                              std::uint64_t max_buffer) {
  std::uint64_t total = 0;
  for (const UserBuffer& b : u.buffers) {
    const std::string where = u.file + ": buffer '" + b.name + "'.count: ";
    if (b.count == 0) throw UsageError(where + "0 elements");
    if (b.count > std::numeric_limits<std::uint64_t>::max() / 2 / b.element_bytes ||
        b.bytes() > max_buffer)
      throw UsageError(where + std::to_string(b.count) + " elements of " +
                       std::to_string(b.element_bytes) + " bytes; the device allows " +
                       std::to_string(max_buffer) + " bytes per buffer");
    total += allocation_bytes(b);
  }
  for (std::uint32_t block : blocks) user_geometry(u, block, max_x, max_y, max_block);
  return total;
}

void run_user_lane(const Lane& lane, const Job& job, const Inputs& in, const RunConfig& cfg,
                   ClockMonitor* clocks, RunOutcome& out, ResultRow& row) {
  const UserPlan& u = *job.plan.user;
  ApiState& a = *lane.state;
  Backend& b = *a.backend;
  if (lane.binding == Binding::bda && !u.bda) {
    row.status = Status::unavailable;
    row.reason = "the pair has no bda form of its shader ([glsl] bda_defines, bda_source, bda_spirv)";
    return;
  }
  try {
    std::vector<std::unique_ptr<DeviceBuffer>> owned;
    Launch launch;
    launch.kernel = job.plan.kernel;
    launch.geometry = row.geometry;
    launch.binding = lane.binding;
    launch.scalars = u.scalars;
    launch.shared_bytes = static_cast<std::uint32_t>(u.launch(row.block_size).shared_bytes);
    {
      PhaseTimer t(out.phase_s, "upload");
      for (std::size_t i = 0; i < u.buffers.size(); ++i) {
        const UserBuffer& buf = u.buffers[i];
        owned.push_back(b.allocate(allocation_bytes(buf)));
        const std::vector<std::uint8_t> image = guarded_image(buf, in.user.initial[i]);
        b.upload(*owned.back(), image.data(), image.size());
        launch.buffers.push_back({owned.back().get(), kGuardBytes, buf.bytes()});
      }
    }
    {
      PhaseTimer t(out.phase_s, "correctness run");
      b.run(launch, RunOptions{1, nullptr});
    }
    std::vector<std::vector<std::uint8_t>> got(u.buffers.size());
    {
      PhaseTimer t(out.phase_s, "download");
      for (std::size_t i = 0; i < got.size(); ++i) {
        got[i].resize(owned[i]->bytes());
        b.download(*owned[i], got[i].data(), got[i].size());
      }
    }
    {
      PhaseTimer t(out.phase_s, "verify");
      if (!verify_outputs(lane, u, got, in, row)) return;
    }
    measure(b, launch, cfg.l2 == L2Mode::cold ? &a.flush : nullptr, cfg, clocks, out, row);
  } catch (const std::exception& e) {
    row.status = Status::failed;
    row.reason = e.what();
  }
}

}  // namespace cuvk::runner_detail
