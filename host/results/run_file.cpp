#include "run_file.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "catalogue.h"
#include "counters_report.h"
#include "dims.h"
#include "lanes.h"
#include "util.h"

namespace cuvk {
namespace {

using nlohmann::json;

bool carries(Rows rows, const ResultRow& r) {
  return rows == Rows::all || (rows == Rows::ok) == (r.status == Status::ok);
}

RowField group(std::string name, Need need, std::vector<RowField> fields, Rows rows = Rows::all,
               OtherRows other_rows = OtherRows::omitted) {
  RowField g(std::move(name), need, nullptr, nullptr, rows, other_rows);
  g.fields = std::move(fields);
  return g;
}

json null_or(const std::optional<std::uint64_t>& v) {
  return v ? json(*v) : json(nullptr);
}

// A row's hash under the key of `kind`: its hex digits when it is of that kind; otherwise null
// for the key a row without a hash carries (`null_key`), else no key at all (discarded).
json hash_json(const std::optional<OutputHash>& h, HashKind kind, bool null_key) {
  if (h && h->kind == kind) return hash_text(h->value);
  return !h && null_key ? json(nullptr) : json(json::value_t::discarded);
}

std::uint64_t parse_hash(const JsonIn& in) {
  if (!in.value().is_string())
    in.fail(std::string("expected 16 hex digits or null, found ") + type_of(in.value()));
  const std::string s = in.value().get<std::string>();
  if (s.size() != 16 || s.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    in.fail("expected 16 hex digits, found " + quoted(s));
  return std::stoull(s, nullptr, 16);
}

void read_hash(const JsonIn& in, HashKind kind, ResultRow& r) {
  if (!in.present() || in.value().is_null()) return;
  if (r.output_hash) in.fail("a row carries one output hash, this one has two");
  r.output_hash = OutputHash{kind, parse_hash(in)};
}

// ---- what the run is: test, layout, variant, kernel and the lane (API, binding...) ----

// The lane (lanes.h): a field per lane dimension, named, written and read as lane_dims() says.
// Its `set` decides what an absent field means (binding: the API's own; queue family: none, a
// file from before copy queues then takes the device's compute family, run_reader.cpp).
RowField lane_field(const LaneDim& dim) {
  return {dim.name, dim.required ? Need::required : Need::optional,
          [&dim](const ResultRow& r) {
            const std::optional<std::string> v = dim.get(r);
            if (!v) return json(json::value_t::discarded);
            return dim.number ? json(std::stoull(*v)) : json(*v);
          },
          [&dim](const JsonIn& in, ResultRow& r) {
            std::optional<std::string> v;
            if (in.present()) v = dim.number ? std::to_string(in.u32()) : in.string();
            const std::string why = dim.set(r, v);
            if (!why.empty()) in.fail(why + ", found " + quoted(v.value_or("")));
          }};
}

// A point dimension (dims.h): written and read as point_dims() says. A required one must be
// there; an optional one (a sweep axis) absent from a file reads as its neutral value.
RowField point_field(const PointDim& dim) {
  return {dim.name, dim.required ? Need::required : Need::optional,
          [&dim](const ResultRow& r) { return point_json_value(dim, r); },
          [&dim](const JsonIn& in, ResultRow& r) {
            if (!in.present() && !dim.required) return dim.set(r, dim.neutral);
            if (dim.kind == DimKind::number) return dim.set(r, std::to_string(in.u32()));
            if (dim.kind == DimKind::text) return dim.set(r, in.string());
            const json& v = in.required().value();
            if (!v.is_null() && !v.is_string())
              in.fail(std::string("expected a string or null, found ") + type_of(v));
            dim.set(r, v.is_string() ? v.get<std::string>() : "");
          }};
}

// The point dimensions the run file keeps in `group` ("": the row itself, "params").
std::vector<RowField> point_fields(const std::string& group) {
  std::vector<RowField> fields;
  for (const DimColumn& c : dim_columns(kPointFile))
    if (c.point->group == group) fields.push_back(point_field(*c.point));
  return fields;
}

std::vector<RowField> identity_fields() {
  std::vector<RowField> fields = point_fields("");  // test, layout, variant
  fields.push_back(
      {"kernel", Need::optional, [](const ResultRow& r) { return json(r.kernel); },
       [](const JsonIn& in, ResultRow& r) { r.kernel = in.if_string().value_or(""); }});
  for (std::size_t d : lane_columns(kLaneJson)) fields.push_back(lane_field(lane_dims()[d]));
  return fields;
}

// `params`: the problem size, every sweep axis (axes.h) and the block size; `geometry`: the launch.
RowField params_group() {
  std::vector<RowField> f = point_fields("params");  // n, the axes, block_size
  f.push_back({"threads", Need::informative, [](const ResultRow& r) { return json(r.threads); }});
  return group("params", Need::required, std::move(f));
}

RowField geometry_group() {
  return group(
      "geometry", Need::informative,
      {{"block_size", Need::informative,
        [](const ResultRow& r) { return json(r.geometry.block_size); }},
       {"grid_x", Need::informative, [](const ResultRow& r) { return json(r.geometry.grid_x); }},
       {"grid_y", Need::informative, [](const ResultRow& r) { return json(r.geometry.grid_y); }}});
}

// ---- what happened: status, bytes, verification ----

std::vector<RowField> outcome_fields() {
  return {
      {"status", Need::required, [](const ResultRow& r) { return json(status_name(r.status)); },
       [](const JsonIn& in, ResultRow& r) {
         const std::string s = in.string();
         if (s == "ok")
           r.status = Status::ok;
         else if (s == "failed")
           r.status = Status::failed;
         else if (s == "unavailable")
           r.status = Status::unavailable;
         else
           in.fail("expected ok, failed or unavailable, found " + quoted(s));
       }},
      {"reason", Need::required, [](const ResultRow& r) { return json(r.reason); },
       [](const JsonIn& in, ResultRow& r) { r.reason = in.string(); }, Rows::not_ok},
      {"useful_bytes", Need::required, [](const ResultRow& r) { return json(r.useful_bytes); },
       [](const JsonIn& in, ResultRow& r) { r.useful_bytes = in.unsigned_int(); }},
      {"moved_bytes", Need::required, [](const ResultRow& r) { return json(r.moved_bytes); },
       [](const JsonIn& in, ResultRow& r) { r.moved_bytes = in.unsigned_int(); }},
      {"sectors_per_request", Need::required,
       [](const ResultRow& r) { return json(r.sectors_per_request); },
       [](const JsonIn& in, ResultRow& r) { r.sectors_per_request = in.u32(); }},
      {"request_efficiency", Need::informative,
       [](const ResultRow& r) { return json(r.request_efficiency); }},
      {"verified", Need::required, [](const ResultRow& r) { return json(r.verified); },
       [](const JsonIn& in, ResultRow& r) { r.verified = in.boolean(); }},
      // Issue 31: what the output was compared with. A file without `check` (written before it)
      // reads as not_recorded; its ok rows said `verified` whatever was compared.
      {"check", Need::optional,
       [](const ResultRow& r) {
         return r.status == Status::ok ? json(check_name(r.check)) : json(nullptr);
       },
       [](const JsonIn& in, ResultRow& r) {
         if (!in.present() || in.value().is_null()) return;
         const std::string s = in.string();
         const auto c = parse_check(s);
         if (!c)
           in.fail("expected verified, consistent, unchecked, timing_only or not_recorded, found " +
                   quoted(s));
         r.check = *c;
       }},
      {"checked_against", Need::optional, [](const ResultRow& r) { return json(r.checked_against); },
       [](const JsonIn& in, ResultRow& r) {
         if (in.present() && in.value().is_array())
           for (const json& f : in.value())
             if (f.is_string()) r.checked_against.push_back(f.get<std::string>());
       }},
      {"check_note", Need::optional, [](const ResultRow& r) { return json(r.check_note); },
       [](const JsonIn& in, ResultRow& r) { r.check_note = in.if_string().value_or(""); }},
      {"checked_elements", Need::optional, [](const ResultRow& r) { return json(r.checked); },
       [](const JsonIn& in, ResultRow& r) { r.checked = in.if_unsigned().value_or(0); }},
      // The output's hash, under its kind's key: output_xxh3_64 (null without a hash) in files
      // this cuvk writes, output_fnv1a64 in files written before XXH3 (still read).
      {"output_xxh3_64", Need::optional,
       [](const ResultRow& r) { return hash_json(r.output_hash, HashKind::xxh3_64, true); },
       [](const JsonIn& in, ResultRow& r) { read_hash(in, HashKind::xxh3_64, r); }},
      {"output_fnv1a64", Need::optional,
       [](const ResultRow& r) { return hash_json(r.output_hash, HashKind::fnv1a64, false); },
       [](const JsonIn& in, ResultRow& r) { read_hash(in, HashKind::fnv1a64, r); }},
      {"mismatches", Need::optional, [](const ResultRow& r) { return json(r.mismatches); },
       [](const JsonIn& in, ResultRow& r) { r.mismatches = in.if_unsigned().value_or(0); }},
      {"first_bad_index", Need::informative,
       [](const ResultRow& r) { return null_or(r.first_bad_index); }},
      {"flags", Need::optional, [](const ResultRow& r) { return json(r.flags); },
       [](const JsonIn& in, ResultRow& r) {
         if (in.present() && in.value().is_array())
           for (const json& f : in.value())
             if (f.is_string()) r.flags.push_back(f.get<std::string>());
       }},
  };
}

// ---- the timing, only in ok rows ----

RowField time_group() {
  return group(
      "time_ms", Need::required,
      {{"median", Need::required, [](const ResultRow& r) { return json(r.time_ms.median); },
        [](const JsonIn& in, ResultRow& r) { r.time_ms.median = in.number(true); }},
       {"min", Need::required, [](const ResultRow& r) { return json(r.time_ms.min); },
        [](const JsonIn& in, ResultRow& r) { r.time_ms.min = in.number(); }},
       {"max", Need::required, [](const ResultRow& r) { return json(r.time_ms.max); },
        [](const JsonIn& in, ResultRow& r) { r.time_ms.max = in.number(); }},
       {"q1", Need::informative, [](const ResultRow& r) { return json(r.time_ms.q1); }},
       {"q3", Need::informative, [](const ResultRow& r) { return json(r.time_ms.q3); }}},
      Rows::ok, OtherRows::null);
}

RowField ci_group() {
  RowField ci =
      group("ci", Need::required,
            {{"level", Need::informative, [](const ResultRow&) { return json(kCiLevel); }},
             {"low_ms", Need::required, [](const ResultRow& r) { return json(r.time_ms.ci_low); },
              [](const JsonIn& in, ResultRow& r) { r.time_ms.ci_low = in.number(); }},
             {"high_ms", Need::required, [](const ResultRow& r) { return json(r.time_ms.ci_high); },
              [](const JsonIn& in, ResultRow& r) { r.time_ms.ci_high = in.number(); }},
             {"rel_half_width", Need::required,
              [](const ResultRow& r) { return json(r.time_ms.ci_rel_half_width); },
              [](const JsonIn& in, ResultRow& r) { r.time_ms.ci_rel_half_width = in.number(); }}},
            Rows::ok, OtherRows::null);
  ci.check = [](const JsonIn& in, const ResultRow& r) {
    if (!(r.time_ms.ci_low <= r.time_ms.median && r.time_ms.median <= r.time_ms.ci_high))
      in.fail("the interval does not contain time_ms.median");
  };
  return ci;
}

std::vector<RowField> timing_fields() {
  return {
      time_group(),
      ci_group(),
      {"samples", Need::required, [](const ResultRow& r) { return json(r.time_ms.samples); },
       [](const JsonIn& in, ResultRow& r) { r.time_ms.samples = in.unsigned_int(); }, Rows::ok,
       OtherRows::zero},
      {"rel_spread", Need::required, [](const ResultRow& r) { return json(r.time_ms.rel_spread); },
       [](const JsonIn& in, ResultRow& r) { r.time_ms.rel_spread = in.number(); }, Rows::ok,
       OtherRows::null},
      {"gbps_useful", Need::required, [](const ResultRow& r) { return json(r.gbps_useful); },
       [](const JsonIn& in, ResultRow& r) { r.gbps_useful = in.number(); }, Rows::ok,
       OtherRows::null},
      {"gbps_moved", Need::required, [](const ResultRow& r) { return json(r.gbps_moved); },
       [](const JsonIn& in, ResultRow& r) { r.gbps_moved = in.number(); }, Rows::ok,
       OtherRows::null},
      {"stop_reason", Need::optional, [](const ResultRow& r) { return json(r.stop_reason); },
       [](const JsonIn& in, ResultRow& r) { r.stop_reason = in.if_string().value_or(""); },
       Rows::ok},
      {"host_us_per_step", Need::optional,  // chain rows only
       [](const ResultRow& r) {
         return r.host_us_per_step ? json(*r.host_us_per_step) : json(json::value_t::discarded);
       },
       [](const JsonIn& in, ResultRow& r) {
         if (in.present()) r.host_us_per_step = in.number();
       },
       Rows::ok},
      {"host_chains", Need::optional,  // chain rows only: the chains behind host_us_per_step
       [](const ResultRow& r) {
         return r.host_chains ? json(*r.host_chains) : json(json::value_t::discarded);
       },
       [](const JsonIn& in, ResultRow& r) {
         if (in.present()) r.host_chains = in.u32();
       },
       Rows::ok},
      {"pct_of_ceiling", Need::informative,
       [](const ResultRow& r) {
         return r.pct_of_ceiling ? json(*r.pct_of_ceiling) : json(nullptr);
       }},
      {"counters", Need::optional,  // `cuvk run --counters` only; read leniently (explain)
       [](const ResultRow& r) {
         return r.counters ? counters_json(*r.counters) : json(json::value_t::discarded);
       },
       [](const JsonIn& in, ResultRow& r) {  // lenient: `cuvk explain` reads the sampled figures
         if (in.present()) r.counters = read_counters(in.value());
       }},
      group("clocks", Need::informative,
            {{"start", Need::informative,
              [](const ResultRow& r) {
                return r.clocks_start ? clock_json(*r.clocks_start) : json(nullptr);
              }},
             {"end", Need::informative,
              [](const ResultRow& r) {
                return r.clocks_end ? clock_json(*r.clocks_end) : json(nullptr);
              }}}),
  };
}

std::vector<RowField> make_table() {
  std::vector<RowField> t = identity_fields();
  t.push_back(params_group());
  t.push_back(geometry_group());
  for (RowField& f : outcome_fields()) t.push_back(std::move(f));
  for (RowField& f : timing_fields()) t.push_back(std::move(f));
  return t;
}

json write_fields(const std::vector<RowField>& fields, const ResultRow& r) {
  json obj = json::object();
  for (const RowField& f : fields) {
    if (carries(f.rows, r)) {
      json v = f.fields.empty() ? f.write(r) : write_fields(f.fields, r);
      if (!v.is_discarded()) obj[f.name] = std::move(v);  // a leaf this row does not carry
    } else if (f.other_rows == OtherRows::null)
      obj[f.name] = nullptr;
    else if (f.other_rows == OtherRows::zero)
      obj[f.name] = 0;
  }
  return obj;
}

void read_fields(const std::vector<RowField>& fields, const JsonIn& obj, ResultRow& r) {
  for (const RowField& f : fields) {
    if (f.need == Need::informative || !carries(f.rows, r)) continue;
    const JsonIn in = obj.at(f.name);
    if (f.need == Need::required) in.required();
    if (f.fields.empty()) {
      f.read(in, r);
    } else if (in.present()) {
      read_fields(f.fields, in.object(), r);
      if (f.check) f.check(in, r);
    }
  }
}

std::string num_text(double v) {
  return format_number("{:.6g}", v);
}

// A stored GB/s against bytes / median time: equal up to the rounding of a printed number.
void check_gbps(const JsonIn& field, double stored, std::uint64_t bytes, const char* bytes_name,
                double median_ms) {
  const double expected = gbps(bytes, median_ms);
  if (std::fabs(stored - expected) <= kGbpsTolerance * std::max(expected, 1e-300)) return;
  field.fail(fmt::format("{} contradicts {} / time_ms.median ({} bytes in {} ms = {} GB/s)",
                         num_text(stored), bytes_name, bytes, num_text(median_ms),
                         num_text(expected)));
}

}  // namespace

void check_row(const JsonIn& in, const ResultRow& r) {
  if (r.n == 0) in.at("params").at("n").fail("0 elements: a row measures at least 1");
  if (r.block_size == 0) in.at("params").at("block_size").fail("0: a block has at least 1 thread");
  // A user's kernel pair (docs/PAIRS.md) names its rows after the pair and its kernel
  // "pair:<name>": one variant, no layout. Every other row names a built-in test of this cuvk.
  if (r.kernel == "pair:" + r.test) {
    const bool identifier =
        !r.test.empty() && !std::isdigit(static_cast<unsigned char>(r.test[0])) &&
        std::all_of(r.test.begin(), r.test.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        });
    if (!identifier)
      in.at("test").fail(quoted(r.test) + " is not a kernel pair's name (letters, digits, _)");
    if (r.variant != "scalar")
      in.at("variant").fail(quoted(r.variant) + " in a kernel pair's row (kernel " +
                            quoted(r.kernel) + "): a pair has the one variant \"scalar\"");
    if (!r.layout.empty())
      in.at("layout").fail(quoted(r.layout) + " in a kernel pair's row (kernel " +
                           quoted(r.kernel) + "): a pair has no layout (null)");
  } else if (const TestCase* test = find_test(r.test)) {  // names this cuvk knows
    const auto has = [](const std::vector<std::string>& v, const std::string& x) {
      return std::find(v.begin(), v.end(), x) != v.end();
    };
    if (!has(test->variants, r.variant))
      in.at("variant").fail(fmt::format("{} is not a variant of {} ({})", quoted(r.variant), r.test,
                                        fmt::join(test->variants, ", ")));
    if (test->layouts.empty() ? !r.layout.empty() : !has(test->layouts, r.layout))
      in.at("layout").fail(
          test->layouts.empty()
              ? fmt::format("{} is not a layout of {} (none: null)", quoted(r.layout), r.test)
              : fmt::format("{} is not a layout of {} ({})", quoted(r.layout), r.test,
                            fmt::join(test->layouts, ", ")));
  } else {
    std::vector<std::string> known;
    for (const TestCase& t : catalogue()) known.push_back(t.name);
    in.at("test").fail(
        fmt::format("unknown test {} (known: {}; a kernel pair's row has kernel \"pair:<name>\")",
                    quoted(r.test), fmt::join(known, ", ")));
  }
  if (r.status != Status::ok) return;
  const bool verified_check = r.check == Check::verified || r.check == Check::not_recorded;
  if (verified_check && !r.verified)
    in.at("verified").fail("false in an ok row whose check is " + quoted(check_name(r.check)) +
                           ": such a row is ok only once its output verified (status \"failed\" "
                           "otherwise)");
  if (!verified_check && r.verified)
    in.at("verified").fail("true in a row whose check is " + quoted(check_name(r.check)) +
                           ": only a verified check verifies");
  // Issue 49, class 8: a row that says it verified its output, and that it checked 0 elements.
  // (Files from before `check` was recorded wrote 0 for some verified pair rows: not_recorded.)
  if (r.check == Check::verified && r.checked == 0 && in.at("checked_elements").present())
    in.at("checked_elements")
        .fail("0 in a row whose check is 'verified': a verified output was compared element by "
              "element (at least one)");
  if (r.mismatches != 0)
    in.at("mismatches")
        .fail(fmt::format("{} in an ok row: an ok row's output matched everywhere", r.mismatches));
  const Summary& t = r.time_ms;
  const JsonIn time = in.at("time_ms");
  if (t.min > t.max)
    time.at("min").fail(num_text(t.min) + " is above time_ms.max " + num_text(t.max));
  if (t.median < t.min || t.median > t.max)
    time.at("median").fail(num_text(t.median) + " lies outside [time_ms.min, time_ms.max] = [" +
                           num_text(t.min) + ", " + num_text(t.max) + "]");
  if (t.samples < 1) in.at("samples").fail("0: an ok row has at least 1 timed repetition");
  check_gbps(in.at("gbps_useful"), r.gbps_useful, r.useful_bytes, "useful_bytes", t.median);
  check_gbps(in.at("gbps_moved"), r.gbps_moved, r.moved_bytes, "moved_bytes", t.median);
}

std::string schema_name(int version) {
  return fmt::format("{}{}", kSchemaFamily, version);
}

std::string RunDevice::property(const std::string& key) const {
  for (const auto& [k, v] : properties)
    if (k == key) return v;
  return {};
}

const std::optional<RunDevice>& RunFile::device(Api api) const {
  if (api == Api::cuda) return cuda;
  if (api == Api::vulkan) return vulkan;
  static const std::optional<RunDevice> none;
  return none;
}

std::string RunFile::gpu_name() const {
  if (cuda) return cuda->name;
  if (vulkan) return vulkan->name;
  return "unknown device";
}

std::string RunFile::cuda_driver() const {
  if (!cuda) return {};
  const std::string v = cuda->property("cuda_driver_version");
  return v.empty() ? cuda->driver : "CUDA " + v;
}

std::string RunFile::vulkan_driver() const {
  return vulkan ? vulkan->driver : std::string();
}

const std::vector<RowField>& row_fields() {
  static const std::vector<RowField> table = make_table();
  return table;
}

json row_json(const ResultRow& row) {
  return write_fields(row_fields(), row);
}

ResultRow read_row(const JsonIn& in) {
  ResultRow row;
  read_fields(row_fields(), in.object(), row);
  check_row(in, row);
  return row;
}

json point_json_value(const PointDim& dim, const ResultRow& row) {
  const std::string v = dim.get(row);
  if (dim.kind == DimKind::number) return json(std::stoull(v));
  return dim.kind == DimKind::text_or_null && v.empty() ? json(nullptr) : json(v);
}

json clock_json(const ClockSample& c) {
  return {{"sm_mhz", c.sm_mhz},
          {"mem_mhz", c.mem_mhz},
          {"event_reasons", describe_reasons(c.event_reasons)},
          {"temperature_c", c.temperature_c},
          {"power_w", c.power_mw / 1000.0}};
}

std::string hash_text(std::uint64_t hash) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

}  // namespace cuvk
