#pragma once
// Benchmarks of histogram and scope engines: what `histoscope-cli bench` and the GUI's Compare
// Kernels both run, under one set of rules, reported as one row type with one context (written as
// JSON and CSV by histoscope/report/bench_report.hpp).

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/scopes.hpp"
#include "histoscope/core/timing.hpp"

namespace hs {

// The rules every benchmark follows: 3 warm-up runs, then `timed_runs`; an engine reading
// device-resident input rotates over copies covering 4 times the device's L2 cache (none
// without a device), so that no run reads what the previous one left in the cache.
BenchOptions bench_options(int timed_runs, std::size_t device_l2_bytes);

// One engine on one request.
struct BenchRow {
    // The input and the request.
    std::string input;  // the file's name, or the synthetic input's description
    int width = 0, height = 0, image_channels = 0, depth = 0;
    std::uint64_t bytes = 0;  // of the image, as the engine reads it
    std::string channels;     // "r,g,b"
    std::string spec;         // as HistogramSpec::describe() says
    int bins = 0;
    // The engine and what it did.
    std::string kernel;
    std::string status = "ok";  // "ok", "unavailable", "unsupported", "error"
    std::string reason;         // why not ok, or why not verified
    int runs = 0;
    int input_copies = 1;
    double median_ms = 0, min_ms = 0, end_to_end_median_ms = 0;
    // Per run when the runs are queued back to back (0 where the engine does not measure it).
    double back_to_back_ms = 0;
    double gpix_s = 0, gb_s = 0;
    double pct_read_bw = 0;  // of the read bandwidth where the engine runs; 0 when unknown
    bool verified = false;   // counts equal to the CPU reference in every timed run's last
    // The floor of the input: a kernel that only reads its bytes (verified: it read every
    // byte). The other rows of the input then say how far they are from it (0: not known).
    bool floor = false;
    double floor_ratio = 0;               // median_ms over the floor's
    double back_to_back_floor_ratio = 0;  // back_to_back_ms over the floor's
};

// What makes a set of rows reproducible.
struct BenchContext {
    std::string device = "none";  // the GPU the GPU engines run on, or "none"
    double device_read_bandwidth_gbs = 0;
    std::string cpu;  // model and threads
    double host_read_bandwidth_gbs = 0;
    int timed_runs = 0, warmup_runs = 0;
    std::uint64_t rotate_bytes = 0;
    std::string date;     // ISO 8601, UTC
    std::string version;  // Histoscope's
};

// The context of a run under `options`: the GPU (`device`, or "none (device_absence)" when it
// is empty), the CPU and its read bandwidth (measured), the date.
BenchContext bench_context(const BenchOptions& options, const std::string& device,
                           const std::string& device_absence, double device_read_bandwidth_gbs,
                           double host_read_bandwidth_gbs);

// How a caller hears of progress and asks to stop (both optional).
struct BenchControl {
    const std::atomic<bool>* cancel = nullptr;          // checked between chunks of runs
    std::function<void(int timed_runs_done)> progress;  // after every chunk
};

// Times `engine` on `request` under `options` and verifies its counts against `reference`
// (the CPU reference, before saturation). Unavailable and unsupported engines, and engines
// failing with an hs::Error, get a row saying why. With a `control`, the timed runs go in
// chunks of about a quarter second (one benchmark() call each, the first after the warm-up
// runs, the others after one), so a cancel is heard quickly on slow engines; without, in one
// call after the warm-up runs. `read_bandwidth_gbs`: where the
// engine runs (0: unknown). False when cancelled (the row is then incomplete).
bool bench_engine(HistogramEngine& engine, const HistogramRequest& request,
                  const std::vector<ChannelHistogram>& reference, const BenchOptions& options,
                  double read_bandwidth_gbs, BenchRow& row, const BenchControl& control = {});

// The same for a scope engine, verified against the reference planes; the row's "channels" are
// the planes' names, its "spec" the scope's description, its "bins" those of one plane.
bool bench_scope_engine(ScopeEngine& engine, const ScopeRequest& request,
                        const std::vector<ScopePlane>& reference, const BenchOptions& options,
                        double read_bandwidth_gbs, BenchRow& row, const BenchControl& control = {});

// What the floor of an input measured: its runs as an engine's (histogram_ms: one read-only
// kernel over the device copy of the image, rotated past the cache like the engines' input;
// back_to_back_ms; end_to_end_ms: the upload from pinned memory and the read), and whether the
// kernel read every byte (the XOR of its words equals the host's).
struct FloorTiming {
    BenchTiming timing;
    bool read_every_byte = false;
};
// Measures the floor of `image` under `options` (the GPU's, where the GPU engines run).
using FloorTimer = std::function<FloorTiming(const ImageView& image, const BenchOptions& options)>;

// The floor row of `image` (kernel "floor", no channels nor spec: it depends on the bytes
// alone), timed like an engine's row; false when cancelled.
bool bench_floor(const FloorTimer& floor, const ImageView& image, const BenchOptions& options,
                 double read_bandwidth_gbs, BenchRow& row, const BenchControl& control = {});
// Sets `row`'s ratios to `floor` when both were measured.
void relate_to_floor(const BenchRow& floor, BenchRow& row);
// The same for every row and the floor row of its input, where there is one.
void relate_to_floor(std::vector<BenchRow>& rows);

// The host's read bandwidth: the best of `passes` parallel sums over 128 MiB, in GB/s.
double measure_host_read_bandwidth_gbs(int passes = 5);
// "MODEL, N threads" (from /proc/cpuinfo where there is one).
std::string cpu_description();

}  // namespace hs
