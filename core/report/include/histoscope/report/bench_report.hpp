#pragma once
// The one schema of benchmark results, written by `histoscope-cli bench --format json|csv` and
// by the GUI's Compare Kernels export: the context, then one row per engine and input, with the
// same field names in JSON and CSV.

#include <string>
#include <vector>

#include "histoscope/core/bench.hpp"
#include "histoscope/report/json.hpp"

namespace hs::report {

// {"device", "read_bandwidth_gbs", "cpu", "host_read_bandwidth_gbs", "timed_runs",
//  "warmup_runs", "rotate_bytes", "date", "version", "results": [row...]}; a row: {"input",
// "width", "height", "image_channels", "depth", "bytes", "channels", "spec", "bins", "kernel",
// "status", "reason" (when not empty), and for status "ok": "median_ms", "min_ms", "runs",
// "input_copies", "gpix_s", "gb_s", "pct_read_bw", "end_to_end_median_ms", "back_to_back_ms",
// "floor_ratio", "back_to_back_floor_ratio" (each when measured), "verified"; then "floor"
// (true on the floor row of an input: a kernel that only reads its bytes)}.
Json bench_json(const BenchContext& context, const std::vector<BenchRow>& rows);

// A header line, then one line per row: the row's fields as in JSON (the timing fields of a row
// that is not ok are empty), then the context's, on every line; RFC 4180 quoting.
std::string bench_csv(const BenchContext& context, const std::vector<BenchRow>& rows);

// One CSV field as RFC 4180 writes it: quoted (inner quotes doubled) when it holds a comma, a
// quote or a line break.
std::string csv_field(const std::string& text);

}  // namespace hs::report
