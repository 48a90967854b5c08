// Statistically sound comparisons of two timed rows: CUDA vs Vulkan on the same run (`parity`) and
// a new run vs a saved one (`--baseline`). Pure computation over rows; the printers only format.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "run_reader.h"
#include "runner.h"

namespace cuvk {

constexpr double kDefaultTolerance = 0.03;  // SAME means within +-3%

// A median and its 95% confidence interval, in ms.
struct MedianCi {
  double median = 0.0, low = 0.0, high = 0.0;
};
MedianCi median_ci(const Summary& s);

// The ratio of two medians (numerator / denominator) with an approximate 95% interval.
struct RatioCi {
  double ratio = 0.0, low = 0.0, high = 0.0;
};
RatioCi ratio_ci(const MedianCi& numerator, const MedianCi& denominator);

// faster: the numerator's time is lower (Vulkan faster / the new run faster).
enum class Verdict { same, faster, slower, uncertain };

// same: [low, high] inside [1 - tol, 1 + tol] (edges included); faster: high < 1 - tol;
// slower: low > 1 + tol; uncertain: otherwise (the interval crosses a tolerance edge).
Verdict judge(const RatioCi& r, double tolerance);

const char* parity_verdict_name(Verdict v);    // SAME, VULKAN FASTER, VULKAN SLOWER, UNCERTAIN
const char* baseline_verdict_name(Verdict v);  // SAME, FASTER, SLOWER, UNCERTAIN

// --tolerance: a percentage with an optional '%' ("3", "0.5%"); returns a fraction. UsageError
// unless 0 < value < 100.
double parse_tolerance(const std::string& text);


// A point's CUDA row and Vulkan row. A run with several Vulkan binding modes (descriptor, bda)
// gives one pair per mode, each with the point's CUDA row.
struct ApiPair {
  ResultRow point;  // the point's fields (either API's row)
  Binding vulkan_binding = Binding::descriptor;
  std::optional<ResultRow> cuda, vulkan;
};
std::vector<ApiPair> pair_apis(const std::vector<ResultRow>& rows);  // in order of first appearance

// Whether two APIs' output buffers are the same bits (by their FNV-1a 64 hashes).
enum class OutputCheck { identical, mismatch, unknown };
const char* output_check_name(OutputCheck c);  // identical, MISMATCH, not hashed

// ---- CUDA vs Vulkan ----

enum class PairState {
  compared,     // both rows ok: ratio and verdict are set
  failed,       // a row failed verification: a difference in itself
  unavailable,  // an API has no row or did not run it: nothing to compare
};

struct ParityLine {
  ResultRow point;  // the point's fields (either API's row)
  Binding vulkan_binding = Binding::descriptor;
  std::optional<ResultRow> cuda, vulkan;
  PairState state = PairState::unavailable;
  std::string reason;  // why not compared / what failed
  RatioCi ratio;       // Vulkan / CUDA, when compared
  Verdict verdict = Verdict::uncertain;
  OutputCheck outputs = OutputCheck::unknown;
  bool differs() const;  // counts against exit code 0
};

struct ParityResult {
  double tolerance = kDefaultTolerance;
  std::vector<ParityLine> lines;
  std::size_t same = 0, faster = 0, slower = 0, uncertain = 0, failed = 0, unavailable = 0;
  std::size_t outputs_identical = 0, outputs_mismatch = 0;
  std::string not_compared_reason;  // one line: why some points could not be compared
  // 0 every point SAME with identical outputs; 1 any difference, UNCERTAIN verdict, failed row or
  // output mismatch; 2 (nothing differs but) some point could not be compared.
  int exit_code = 0;
};

ParityResult compare_apis(const std::vector<ResultRow>& rows, double tolerance);

// ---- new run vs baseline ----

struct BaselineLine {
  ResultRow now;
  std::optional<ResultRow> base;  // nullopt: the row is new (not in the baseline)
  bool compared = false;          // both ok
  std::string reason;             // why not compared
  RatioCi ratio;                  // now / baseline
  Verdict verdict = Verdict::uncertain;
};

struct BaselineResult {
  std::string baseline_name, now_name;
  double tolerance = kDefaultTolerance;
  std::vector<std::string> notes;   // e.g. same model, different board
  std::vector<BaselineLine> lines;  // every row of the new run measured on either side
  std::vector<ResultRow> only_in_baseline;
  std::size_t same = 0, faster = 0, slower = 0, uncertain = 0, not_compared = 0;
  std::size_t unavailable_both = 0;  // rows neither run measured (e.g. CUDA on a CPU-only machine)
  int exit_code = 0;                 // 1 when any row is SLOWER beyond the tolerance
};

// Throws UsageError naming both GPUs when a device common to both runs has a different name;
// returns a note when the names match but the UUIDs do not (another board of the same model).
std::vector<std::string> check_same_gpu(const RunFile& now, const RunFile& base);

BaselineResult compare_baseline(const RunFile& now, const RunFile& base, double tolerance);

}  // namespace cuvk
