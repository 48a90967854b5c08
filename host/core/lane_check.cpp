// What a lane of a point checked by its lanes (CheckBy::lanes: a kernel pair's) needs beyond the
// one lane body (runner_lane.cpp): buffers between guard bands, the guard check, the outputs
// compared with the expected files and with every lane that passed before at this block size
// (CUDA's and Vulkan's outputs element by element, bit for bit unless a tolerance is declared),
// the concluding of those comparisons at the point's end; a sequence's launch and state check;
// and the model's checks before anything is allocated: sizes and grids against the devices.
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
#include "numbers.h"
#include "output_check.h"
#include "runner_parts.h"

namespace cuvk::runner_detail {
namespace {

std::uint8_t guard_byte(std::uint64_t at) {  // kGuardWord, little endian, repeated
  return static_cast<std::uint8_t>(kGuardWord >> (8 * (at % 4)));
}

}  // namespace

std::uint64_t allocation_bytes(const ModelBuffer& b) {
  return b.guarded ? 2 * kGuardBytes + round_up(b.bytes(), kViewAlignment) : b.bytes();
}

std::vector<std::uint8_t> guarded_image(const ModelBuffer& b, const std::vector<std::uint8_t>& data,
                                        std::uint32_t poison) {
  std::vector<std::uint8_t> image(allocation_bytes(b));
  for (std::uint64_t i = 0; i < image.size(); ++i) image[i] = guard_byte(i);
  std::uint8_t* interior = image.data() + kGuardBytes;
  if (b.poisoned || data.size() != b.bytes()) {
    for (std::uint64_t i = 0; i < b.bytes(); ++i) interior[i] = poison_byte(poison, i);
  } else {
    std::memcpy(interior, data.data(), data.size());
  }
  return image;
}

namespace {

// "" when both guard bands of `b` are intact, else where the first write outside it landed.
std::string guard_damage(const ModelBuffer& b, const std::vector<std::uint8_t>& image) {
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

std::string tolerance_text(const ModelBuffer& b, double worst) {
  std::ostringstream o;
  o.precision(3);
  if (b.tolerance.kind == Tolerance::Kind::ulp)
    o << worst << "ulp";
  else
    o << worst;
  return "max_diff_" + b.name + "=" + o.str();
}

// "cuda", "vulkan descriptor", "vulkan bda" (and a sequence's submission mode): a lane as a row's
// checked_against names it, from the lane itself or from its row.
std::string lane_label(Api api, Binding binding, const std::optional<Submission>& submission) {
  const std::string mode = submission ? std::string(" ") + submission_name(*submission) : "";
  return (api == Api::cuda ? std::string("cuda")
                           : std::string(api_name(api)) + " " + binding_name(binding)) +
         mode;
}

std::string lane_name(const Lane& lane) {
  return lane_label(lane.state->api, lane.binding, lane.submission);
}

std::string lane_name_of(const ResultRow& r) {
  return lane_label(r.api, r.binding, r.submission);
}

std::string count_text(std::uint64_t k, std::uint64_t n) {
  return std::to_string(k) + " of " + std::to_string(n);
}

std::string hex_word(std::uint32_t w) {
  std::ostringstream o;
  o << "0x" << std::hex << w;
  return o.str();
}

// One output buffer on its own: unwritten elements (a failure unless the buffer is partial) and
// NaNs beyond the declared fraction. "" when it passes, else the row's reason.
std::string scan_verdict(const ModelBuffer& b, const std::uint8_t* mine,
                         std::optional<std::uint32_t> poison, ResultRow& row) {
  const OutputScan s = scan_output(b, mine, poison);
  if (s.unwritten > 0 && !b.partial) {
    row.first_bad_index = s.first_unwritten;
    row.mismatches += s.unwritten;
    return "buffer '" + b.name + "': " + count_text(s.unwritten, b.count) +
           " elements never written (still this lane's poison " + hex_word(*poison) +
           "), first at index " + std::to_string(*s.first_unwritten) +
           " (declare the buffer partial = true where that is intended)";
  }
  if (b.partial && poison)
    row.flags.push_back("unwritten_" + b.name + "=" + std::to_string(s.unwritten));
  const auto allowed =
      static_cast<std::uint64_t>(std::floor(b.nan_fraction * static_cast<double>(b.count)));
  if (s.nans > allowed) {
    row.first_bad_index = s.first_nan;
    row.mismatches += s.nans;
    return "buffer '" + b.name + "': " + count_text(s.nans, b.count) +
           " elements are NaN, first at index " + std::to_string(*s.first_nan) +
           " (allowed: " + std::to_string(allowed) + "; a buffer may declare nan_fraction)";
  }
  if (s.nans > 0) row.flags.push_back("nan_" + b.name + "=" + std::to_string(s.nans));
  return {};
}

}  // namespace

bool verify_outputs(const Lane& lane, const KernelModel& u,
                    const std::vector<std::vector<std::uint8_t>>& got, const Inputs& in,
                    ResultRow& row) {
  for (std::size_t i = 0; i < u.buffers.size(); ++i)
    if (const std::string why = guard_damage(u.buffers[i], got[i]); !why.empty()) {
      row.status = Status::failed;
      row.reason = why;
      return false;
    }
  const std::string me = lane_name(lane);
  const std::uint32_t my_poison = lane_poison_word(lane.state->api, lane.binding);
  std::vector<LaneOutputs>& earlier = in.reference->by_block[row.block_size];
  std::vector<std::uint8_t> outputs;  // every output's interior, in order: the row's hash
  std::vector<std::string> compared_with;
  for (std::size_t i = 0; i < u.buffers.size() && row.reason.empty(); ++i) {
    const ModelBuffer& b = u.buffers[i];
    if (!b.output) continue;
    const std::uint8_t* mine = got[i].data() + kGuardBytes;
    const auto poison = b.poisoned ? std::optional<std::uint32_t>(my_poison) : std::nullopt;
    outputs.insert(outputs.end(), mine, mine + b.bytes());
    row.reason = scan_verdict(b, mine, poison, row);
    if (!row.reason.empty()) break;
    std::vector<std::pair<std::string, Comparison>> checks;
    if (b.expected && in.declared.expected[i].size() == b.bytes()) {
      checks.emplace_back("expected file",
                          compare_output(b, mine, poison, me, in.declared.expected[i].data(),
                                         std::nullopt, "expected"));
    }
    for (LaneOutputs& e : earlier) {
      const auto theirs = b.poisoned ? std::optional<std::uint32_t>(e.poison) : std::nullopt;
      checks.emplace_back(
          e.lane,
          compare_output(b, mine, poison, me, e.buffers[i].data() + kGuardBytes, theirs, e.lane));
      e.compared_by_later += checks.back().second.checked;
    }
    for (const auto& [with, c] : checks) {
      row.checked += c.checked;
      row.mismatches += c.mismatches;
      if (c.mismatches > 0 && row.reason.empty()) {
        row.first_bad_index = c.first_bad;
        row.reason = count_text(c.mismatches, c.checked) + " elements differ, first " + c.message;
      }
      if (c.mismatches == 0 && b.tolerance.kind != Tolerance::Kind::exact)
        row.flags.push_back(tolerance_text(b, c.worst));
      if (std::find(compared_with.begin(), compared_with.end(), with) == compared_with.end())
        compared_with.push_back(with);
    }
  }
  // A hash says "bit-identical across APIs" (parity's outputs column); where a tolerance is
  // declared that is not the criterion, so no hash is recorded.
  bool exact = true;
  for (const ModelBuffer& b : u.buffers)
    exact = exact && (!b.output || b.tolerance.kind == Tolerance::Kind::exact);
  if (exact && !u.timing_only) row.output_hash = hash_output(outputs.data(), outputs.size());
  row.verified = false;
  if (!row.reason.empty()) {
    row.status = Status::failed;
    return false;
  }
  row.checked_against = compared_with;
  earlier.push_back({me, my_poison, got});
  return true;
}

namespace {

bool names_api(const std::string& against, Api api) {
  return against.rfind(api_name(api), 0) == 0;
}

}  // namespace

void add_sequence(const KernelModel& u, const Lane& lane, const ResultRow& row, Backend& b,
                  const std::vector<std::vector<std::uint8_t>>& images,
                  std::vector<std::unique_ptr<DeviceBuffer>>& owned, Launch& launch) {
  const DeviceInfo& info = b.info();
  for (const ModelStep& step : u.steps) {
    Launch s = launch;
    s.kernel = step.kernel;
    s.geometry = model_geometry(u, row.block_size, info.max_grid_x, info.max_grid_y,
                                info.max_block_size, &step);
    s.shared_bytes = static_cast<std::uint32_t>(step.launch(s.geometry.block_size).shared_bytes);
    launch.sequence.push_back(std::move(s));
  }
  launch.repeat = u.repeat;
  launch.chain.submission = *lane.submission;
  if (u.state != ModelState::restore) return;
  const std::size_t buffers = u.buffers.size();
  for (std::size_t i = 0; i < buffers; ++i) {
    if (u.buffers[i].poisoned) continue;
    owned.push_back(b.allocate(images[i].size()));
    b.upload(*owned.back(), images[i].data(), images[i].size());
    launch.restore.push_back(copy_launch(*owned.back(), *owned[i]));
  }
}

void check_state(const KernelModel& u, Backend& b,
                 const std::vector<std::unique_ptr<DeviceBuffer>>& owned,
                 const std::vector<std::vector<std::uint8_t>>& got, ResultRow& row) {
  if (u.state == ModelState::none || row.status != Status::ok) return;
  for (std::size_t i = 0; i < u.buffers.size(); ++i) {
    const ModelBuffer& buf = u.buffers[i];
    if (!buf.output) continue;
    std::vector<std::uint8_t> now(got[i].size());
    b.download(*owned[i], now.data(), now.size());
    std::uint64_t differ = 0, first = 0;
    for (std::uint64_t e = 0; e < buf.count; ++e) {
      const std::uint64_t at = kGuardBytes + e * buf.element_bytes;
      if (std::memcmp(now.data() + at, got[i].data() + at, buf.element_bytes) == 0) continue;
      if (differ++ == 0) first = e;
    }
    if (differ == 0) continue;
    row.status = Status::failed;
    row.first_bad_index = first;
    row.mismatches += differ;
    row.reason = "buffer '" + buf.name + "': " + count_text(differ, buf.count) +
                 " elements differ after the timed repetitions from after the first run, first "
                 "at index " +
                 std::to_string(first) +
                 (u.state == ModelState::idempotent
                      ? ": the sequence is not idempotent (state = \"idempotent\"); declare "
                        "state = \"restore\" to put its inputs back before each repetition"
                      : ": the inputs were restored before each repetition, so the sequence is "
                        "not deterministic");
    return;
  }
}

std::vector<std::uint32_t> job_block_sizes(const Job& job, const RunConfig& cfg) {
  return job.plan.block_sizes(cfg.block_sizes);
}

Geometry model_geometry(const KernelModel& u, std::uint32_t block, std::uint32_t max_x,
                        std::uint32_t max_y, std::uint32_t max_block, const ModelStep* step) {
  if (!step && !u.steps.empty()) step = &u.steps[0];
  if (step && step->block) block = step->block;
  const std::string file = step && !step->name.empty() ? u.file + ": " + step->name : u.file;
  if (block == 0 || block > max_block)
    throw UsageError(file + (step && step->block ? ": launch.block: " : ": launch.block_sizes: ") +
                     std::to_string(block) + " threads per block; the devices allow 1.." +
                     std::to_string(max_block));
  const ModelLaunch l = step ? step->launch(block) : u.launch(block);
  if (!l.grid) {
    if (l.threads == 0 || l.threads > std::numeric_limits<std::uint32_t>::max())
      throw UsageError(file + ": launch.threads: " + std::to_string(l.threads) +
                       " threads (1..4294967295)");
    const std::uint64_t groups = (l.threads + block - 1) / block;
    if (groups > std::uint64_t{max_x} * max_y)
      throw UsageError(file + ": launch.threads: " + std::to_string(l.threads) + " threads need " +
                       std::to_string(groups) + " blocks of " + std::to_string(block) +
                       "; the devices allow " + std::to_string(std::uint64_t{max_x} * max_y));
    return launch_geometry(static_cast<std::uint32_t>(l.threads), block, max_x, max_y);
  }
  const auto [gx, gy] = *l.grid;
  if (gx == 0 || gy == 0 || gx > max_x || gy > max_y)
    throw UsageError(file + ": launch.grid: [" + std::to_string(gx) + ", " + std::to_string(gy) +
                     "] blocks; the devices allow 1.." + std::to_string(max_x) + " x 1.." +
                     std::to_string(max_y));
  return Geometry{block, static_cast<std::uint32_t>(gx), static_cast<std::uint32_t>(gy)};
}

std::uint64_t check_model(const KernelModel& u, const std::vector<std::uint32_t>& blocks,
                          std::uint32_t max_x, std::uint32_t max_y, std::uint32_t max_block,
                          std::uint64_t max_buffer) {
  std::uint64_t total = 0;
  for (const ModelBuffer& b : u.buffers) {
    const std::string where = u.file + ": buffer '" + b.name + "'.count: ";
    if (b.count == 0) throw UsageError(where + "0 elements");
    if (b.count > std::numeric_limits<std::uint64_t>::max() / 2 / b.element_bytes ||
        b.bytes() > max_buffer)
      throw UsageError(where + std::to_string(b.count) + " elements of " +
                       std::to_string(b.element_bytes) + " bytes; the device allows " +
                       std::to_string(max_buffer) + " bytes per buffer");
    total += allocation_bytes(b);
  }
  for (std::uint32_t block : blocks) {
    model_geometry(u, block, max_x, max_y, max_block);
    for (const ModelStep& step : u.steps) model_geometry(u, block, max_x, max_y, max_block, &step);
  }
  // Restore (issue 34): a saved copy of every buffer that starts with contents.
  if (u.state == ModelState::restore)
    for (const ModelBuffer& b : u.buffers) total += b.poisoned ? 0 : allocation_bytes(b);
  return total;
}

void settle_pair_checks(const KernelModel& u, const std::vector<LaneOutputs>& lanes,
                        std::vector<ResultRow>& rows) {
  // Both rows of a comparison name each other (a later lane compared itself with the earlier),
  // and count the elements compared.
  for (ResultRow& r : rows)
    for (const LaneOutputs& l : lanes)
      if (r.status == Status::ok && l.lane == lane_name_of(r)) r.checked += l.compared_by_later;
  for (ResultRow& r : rows)
    for (const ResultRow& s : rows) {
      if (&r == &s || r.status != Status::ok || s.status != Status::ok) continue;
      const auto& theirs = s.checked_against;
      const std::string mine = lane_name_of(r), their = lane_name_of(s);
      if (std::find(theirs.begin(), theirs.end(), mine) != theirs.end() &&
          std::find(r.checked_against.begin(), r.checked_against.end(), their) ==
              r.checked_against.end())
        r.checked_against.push_back(their);
    }
  std::string no_expected;  // an output without an expected file
  for (const ModelBuffer& b : u.buffers)
    if (b.output && !b.expected && no_expected.empty()) no_expected = b.name;
  for (ResultRow& r : rows) {
    if (r.status != Status::ok) continue;
    const auto& a = r.checked_against;
    const bool other_api = std::any_of(a.begin(), a.end(), [&r](const std::string& x) {
      return x != "expected file" && !names_api(x, r.api);
    });
    const bool same_api =
        std::any_of(a.begin(), a.end(), [&r](const std::string& x) { return names_api(x, r.api); });
    const bool all_expected =
        no_expected.empty() && std::find(a.begin(), a.end(), "expected file") != a.end();
    if (u.timing_only) {
      r.check = Check::timing_only;
      r.check_note = "the pair is declared timing only (timing_only = true): nothing compared";
    } else if (other_api || all_expected) {
      r.check = Check::verified;
    } else {
      r.check = same_api ? Check::consistent : Check::unchecked;
      r.check_note = (same_api ? "compared only with the same API's other binding"
                               : std::string("nothing to compare with"));
      r.check_note += other_api ? "" : ": no other API ran";
      r.check_note += ", and buffer '" + no_expected + "' has no expected file";
    }
    r.verified = r.check == Check::verified;
  }
}

}  // namespace cuvk::runner_detail
