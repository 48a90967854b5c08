#include "lanes.h"

#include <tuple>

#include "error.h"

namespace cuvk {
namespace {

using Value = std::optional<std::string>;

std::uint32_t index_of(const Value& v, const std::vector<std::string>& names) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (v && *v == names[i]) return static_cast<std::uint32_t>(i);
  return static_cast<std::uint32_t>(names.size());
}

const std::vector<std::string>& api_names() {
  static const std::vector<std::string> names = {api_name(Api::cuda), api_name(Api::vulkan)};
  return names;
}

const std::vector<std::string>& binding_names() {
  static const std::vector<std::string> names = {binding_name(Binding::pointer),
                                                 binding_name(Binding::descriptor),
                                                 binding_name(Binding::bda)};
  return names;
}

LaneDim api_dim() {
  LaneDim d;
  d.name = d.header = "api";
  d.show = kLaneRunTable | kLaneRunCsvHead | kLaneCompare | kLaneCsvHead | kLaneSummary |
           kLaneLabel | kLaneJson;
  d.required = true;
  d.width = 6;
  d.get = [](const ResultRow& r) { return Value(api_name(r.api)); };
  d.set = [](ResultRow& r, const Value& v) -> std::string {
    const std::uint32_t i = index_of(v, api_names());
    if (i == api_names().size()) return "expected \"cuda\" or \"vulkan\"";
    r.api = static_cast<Api>(i);
    return "";
  };
  d.neutral = [](Api, const Value&) { return false; };
  d.rank = [](const Value& v) { return index_of(v, api_names()); };
  return d;
}

// How the kernel reached its buffers. Absent in files from before binding modes: the API's own.
LaneDim binding_dim() {
  LaneDim d;
  d.name = d.header = "binding";
  d.show = kLaneDefault;
  d.width = 10;
  d.get = [](const ResultRow& r) { return Value(binding_name(r.binding)); };
  d.set = [](ResultRow& r, const Value& v) -> std::string {
    r.binding = native_binding(r.api);
    if (!v) return "";
    const std::uint32_t i = index_of(v, binding_names());
    if (i == binding_names().size()) return "expected pointer, descriptor or bda";
    r.binding = static_cast<Binding>(i);
    // The api (set first, lane_dims) decides which bindings can be: CUDA's kernels take pointers,
    // Vulkan's shaders descriptors or buffer device addresses.
    if (r.api == Api::cuda && r.binding != Binding::pointer)
      return "a cuda row binds by pointer, not " + std::string(binding_name(r.binding));
    if (r.api == Api::vulkan && r.binding == Binding::pointer)
      return "a vulkan row binds by descriptor or bda, not pointer";
    return "";
  };
  d.neutral = [](Api api, const Value& v) { return v && *v == binding_name(native_binding(api)); };
  d.rank = [](const Value& v) { return index_of(v, binding_names()); };
  return d;
}

// Copy-engine rows of an API with queue families (Vulkan): the family whose queue ran the copy.
// Shown inside the variant cell (variant_label), not as a column of its own.
LaneDim queue_family_dim() {
  LaneDim d;
  d.name = "queue_family";
  d.header = "queue family";
  d.show = kLaneRunCsvTail | kLaneCsvTail | kLaneMergeCsv | kLaneJson;
  d.number = true;
  d.id_tag = "q";
  d.get = [](const ResultRow& r) {
    return r.queue_family ? Value(std::to_string(*r.queue_family)) : std::nullopt;
  };
  d.set = [](ResultRow& r, const Value& v) -> std::string {
    r.queue_family =
        v ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(std::stoul(*v))) : std::nullopt;
    return "";
  };
  d.neutral = [](Api, const Value& v) { return !v; };
  d.rank = [](const Value& v) { return v ? static_cast<std::uint32_t>(std::stoul(*v)) : 0u; };
  return d;
}

// The queue family's capabilities ("graphics|compute|transfer"): a label of the family.
LaneDim queue_flags_dim() {
  LaneDim d;
  d.name = "queue_flags";
  d.header = "queue flags";
  d.show = kLaneRunCsvTail | kLaneJson;
  d.identity = false;
  d.get = [](const ResultRow& r) { return r.queue_family ? Value(r.queue_flags) : std::nullopt; };
  d.set = [](ResultRow& r, const Value& v) -> std::string {
    r.queue_flags = v.value_or("");
    return "";
  };
  d.neutral = [](Api, const Value& v) { return !v; };
  d.rank = [](const Value&) { return 0u; };
  return d;
}

// Chain rows (issue 33): how the steps were submitted. Shown inside the variant cell
// (variant_label: "scalar graph"), tagged in the row identity ("|sgraph").
LaneDim submission_dim() {
  LaneDim d;
  d.name = d.header = "submission";
  d.show = kLaneRunCsvTail | kLaneCsvTail | kLaneMergeCsv | kLaneLabel | kLaneJson;
  d.id_tag = "s";
  d.get = [](const ResultRow& r) {
    return r.submission ? Value(submission_name(*r.submission)) : std::nullopt;
  };
  d.set = [](ResultRow& r, const Value& v) -> std::string {
    r.submission.reset();
    if (!v) return "";
    for (Submission s : kSubmissions)
      if (*v == submission_name(s)) r.submission = s;
    return r.submission ? ""
                        : "expected a submission mode (stream, graph, pdl, recorded, "
                          "rerecorded, submit-each, wait-each)";
  };
  d.neutral = [](Api, const Value& v) { return !v; };
  d.rank = [](const Value& v) {
    for (std::size_t i = 0; i < kSubmissions.size(); ++i)
      if (v && *v == submission_name(kSubmissions[i])) return static_cast<std::uint32_t>(i + 1);
    return 0u;
  };
  return d;
}

}  // namespace

std::string submission_group(const ResultRow& row) {
  if (!row.submission) return "";
  switch (*row.submission) {
    case Submission::graph:
    case Submission::recorded:
      return "recorded once";
    case Submission::stream:
    case Submission::rerecorded:
      return "issued each time";
    default:
      return submission_name(*row.submission);
  }
}

const std::vector<LaneDim>& lane_dims() {
  static const std::vector<LaneDim> dims = {api_dim(), binding_dim(), queue_family_dim(),
                                            queue_flags_dim(), submission_dim()};
  return dims;
}

Lane Lane::of(const ResultRow& row) {
  Lane lane;
  lane.api = row.api;
  for (const LaneDim& d : lane_dims()) lane.values.push_back(d.get(row));
  return lane;
}

Lane Lane::native(Api api) {
  ResultRow row;
  row.api = api;
  row.binding = native_binding(api);
  return of(row);
}

const std::optional<std::string>& Lane::value(const std::string& dim) const {
  const std::vector<LaneDim>& dims = lane_dims();
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i].name == dim) return values[i];
  throw Error("unknown lane dimension '" + dim + "'");
}

void Lane::apply(ResultRow& row) const {
  row.api = api;
  const std::vector<LaneDim>& dims = lane_dims();
  for (std::size_t i = 0; i < dims.size(); ++i) dims[i].set(row, values[i]);
}

std::string Lane::text(std::size_t dim) const {
  return values[dim].value_or("");
}

bool Lane::neutral(std::size_t dim) const {
  return lane_dims()[dim].neutral(api, values[dim]);
}

bool operator==(const Lane& a, const Lane& b) {
  const std::vector<LaneDim>& dims = lane_dims();
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i].identity && a.values[i] != b.values[i]) return false;
  return true;
}

bool operator<(const Lane& a, const Lane& b) {
  const std::vector<LaneDim>& dims = lane_dims();
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (!dims[i].identity) continue;
    const auto ka = std::make_tuple(dims[i].rank(a.values[i]), a.values[i]);
    const auto kb = std::make_tuple(dims[i].rank(b.values[i]), b.values[i]);
    if (ka != kb) return ka < kb;
  }
  return false;
}

std::vector<std::size_t> lane_columns(unsigned place, bool pair) {
  std::vector<std::size_t> out;
  const std::vector<LaneDim>& dims = lane_dims();
  for (std::size_t i = 0; i < dims.size(); ++i)
    if ((dims[i].show & place) != 0 && !(pair && dims[i].name == "api")) out.push_back(i);
  return out;
}

std::string lane_label(const Lane& lane, bool all) {
  std::string s;
  for (std::size_t i : lane_columns(kLaneLabel))
    if (lane.values[i] && (all || !lane.neutral(i))) s += " " + *lane.values[i];
  return s;
}

std::string variant_label(const ResultRow& point, const Lane& lane) {
  ResultRow row = point;
  lane.apply(row);
  // A chain pair: both APIs' submission modes side by side ("scalar graph/recorded"); a mode
  // without a counterpart (pdl) keeps its own.
  if (point.submission && !row.submission) return variant_label(point);
  if (point.submission && row.submission && *point.submission != *row.submission)
    return variant_label(point) + "/" + submission_name(*row.submission);
  return variant_label(row);
}

std::string lane_identity(const Lane& lane, bool tagged) {
  std::string s;
  const std::vector<LaneDim>& dims = lane_dims();
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (!dims[i].identity || dims[i].id_tag.empty() == tagged) continue;
    if (tagged && !lane.values[i]) continue;
    s += "|" + dims[i].id_tag + lane.values[i].value_or("");
  }
  return s;
}

}  // namespace cuvk
