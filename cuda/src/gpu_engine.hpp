#pragma once
// The engine of every GPU strategy: device selection, the upload of a request's image, the
// download of its counts, stage timings and the device-resident benchmark. A strategy is a row
// of the table (kernels/strategies.cpp, struct Strategy below): it only says what it can serve
// and turns a request into launches of its kernels (a KernelRun); every run prints the tuning
// it chose, which the engine's description shows after its summary.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "device_buffer.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/cuda/device.hpp"

namespace hs::cuda::detail {

// The image as the engines keep it on the device: rows packed back to back, the buffer
// padded with zeros to whole groups of kGroupBytesPerChannel * channels bytes and aligned to
// 256 bytes, so kernels may read any whole group with aligned 16-byte vector loads.
inline constexpr std::size_t kGroupBytesPerChannel = 16;

struct DeviceImage {
    const std::byte* data = nullptr;
    std::uint64_t pixels = 0;
    int width = 0;
    int height = 0;
    int channels = 0;
    SampleType type = SampleType::U8;
    int bit_depth = 8;
    std::size_t bytes = 0;         // packed bytes (pixels * channels * sample size)
    std::size_t padded_bytes = 0;  // allocation, whole groups
};

// Bytes of the padded device copy of `image`.
std::size_t padded_bytes(const ImageView& image);
// The device copy at `data` of `image` (packed and padded as above).
DeviceImage device_image(const ImageView& image, const std::byte* data);
// Queues the upload of `image` into `dst` (padded_bytes(image) bytes): its rows packed, the
// padding zeroed.
void upload_image(const ImageView& image, std::byte* dst, cudaStream_t stream);

// What a device-resident benchmark reads: the image packed and padded in pinned memory (for
// the end-to-end runs' uploads) and `copies` device copies of it covering the options'
// rotate_bytes, within half of the free device memory, so that no run reads what the one
// before left in the cache.
struct BenchInput {
    PinnedBuffer<std::byte> pinned;
    DeviceBuffer<std::byte> samples;
    std::size_t padded = 0;
    std::size_t copies = 1;
    std::byte* copy(std::size_t i) const { return samples.data() + (i % copies) * padded; }
    // Queues the upload of the pinned image into copy 0 (an end-to-end run's upload).
    void upload(cudaStream_t stream) const;
};
// Makes it: one upload queued on `stream`, then the copies doubled on the device.
BenchInput bench_input(const ImageView& image, const BenchOptions& options, cudaStream_t stream);

// The milliseconds of each of `runs` calls of `queue(i)`, each between two events on `stream`
// (the calls queue work on it); waits for the last, naming `what` when the stream fails.
template <typename Queue>
std::vector<double> event_timed(const Stream& stream, std::size_t runs, Queue&& queue,
                                const char* what) {
    std::vector<Event> start(runs), stop(runs);
    for (std::size_t i = 0; i < runs; ++i) {
        start[i].record(stream);
        queue(i);
        stop[i].record(stream);
    }
    stream.synchronize(what);
    std::vector<double> ms;
    for (std::size_t i = 0; i < runs; ++i)
        ms.push_back(static_cast<double>(stop[i].ms_since(start[i])));
    return ms;
}

// What a device-resident benchmark measured: the kernels alone, each run and back to back (one
// value: per run), end to end, and the counts of the last timed run.
template <typename T>
struct DeviceBenchRuns {
    std::vector<double> kernel_ms, back_to_back_ms, end_to_end_ms;
    std::vector<T> counts;
};

// The benchmark of every GPU engine: the warm-up runs of `once(copy)` (which queues the
// kernels on `stream` into `counts`, reading copy `copy` of `input`), the timed runs over the
// rotated copies, the counts downloaded; the same runs again back to back between two events
// (no event between runs, as frames of a stream follow each other); then as many runs end to
// end (the upload from pinned memory, once(0), the counts downloaded into pinned memory), whose
// counts must be the same (else DeviceError naming `engine`).
template <typename T, typename Once>
DeviceBenchRuns<T> device_benchmark(const Stream& stream, BenchInput& input,
                                    const BenchOptions& options, const DeviceBuffer<T>& counts,
                                    Once&& once, std::string_view engine) {
    for (int i = 0; i < options.warmup_runs; ++i) once(static_cast<std::size_t>(i));
    stream.synchronize("benchmark warm-up");
    const auto runs = static_cast<std::size_t>(options.timed_runs);
    DeviceBenchRuns<T> out;
    out.kernel_ms = event_timed(stream, runs, once, "benchmark (kernels)");
    out.counts.resize(counts.size());
    check(cudaMemcpy(out.counts.data(), counts.data(), counts.bytes(), cudaMemcpyDeviceToHost),
          "counts download (cudaMemcpy)");
    const std::vector<double> all = event_timed(
        stream, 1,
        [&](std::size_t) {
            for (std::size_t i = 0; i < runs; ++i) once(i);
        },
        "benchmark (back to back)");
    out.back_to_back_ms = {all.front() / static_cast<double>(runs)};
    PinnedBuffer<T> pinned(counts.size(), "pinned counters");
    out.end_to_end_ms = event_timed(
        stream, runs,
        [&](std::size_t) {
            input.upload(stream.get());
            once(0);
            check(cudaMemcpyAsync(pinned.data(), counts.data(), counts.bytes(),
                                  cudaMemcpyDeviceToHost, stream.get()),
                  "counts download (cudaMemcpyAsync)");
        },
        "benchmark (end to end)");
    if (!std::equal(out.counts.begin(), out.counts.end(), pinned.data()))
        throw DeviceError("engine '" + std::string(engine) +
                          "' gave different counts for the same input in two runs");
    return out;
}

// The device limits strategies tune from.
struct DeviceLimits {
    int sm_count = 1;
    std::size_t shared_per_block_optin = 48 * 1024;
    std::size_t shared_per_sm = 64 * 1024;
    std::size_t l2_bytes = 0;
};

// The device an engine runs on: the current device, made current; `error` says why the engine
// cannot run there (no device, or its kernels do not load).
struct SelectedDevice {
    DeviceInfo device;
    bool found = false;  // a device was selected
    std::string error;   // empty: the engine can run
    DeviceLimits limits() const;
};
// Selects the device now; `probe` (run on the selected device) is empty when the engine's
// kernels load there.
SelectedDevice select_device(const std::function<std::string()>& probe);
// The same, once per engine.
class DeviceSelection {
  public:
    // The selection, made on the first call; `probe` (run once, on the selected device) is
    // empty when the engine's kernels load there.
    const SelectedDevice& get(const std::function<std::string()>& probe) const;

  private:
    mutable std::once_flag once_;
    mutable SelectedDevice selected_;
};

// A summary followed by the latest tuning an engine chose, shown as its description. The texts
// are kept (at most a few hundred), so the views handed out stay valid.
class TuningNote {
  public:
    explicit TuningNote(std::string summary);
    std::string_view current() const;
    void record(const std::string& tuning);

  private:
    mutable std::mutex mutex_;
    std::string summary_;
    std::set<std::string> texts_;
    std::string_view current_;
};

class GpuEngine;

// One request prepared for one strategy: tables and scratch memory it needs live here.
class KernelRun {
  public:
    virtual ~KernelRun() = default;
    // Adds the histograms of `channels` of `image` to `counts` (channels.size() * bins 64-bit
    // counters, channel-major, zeroed by the caller unless zeroes_counts()). All work is queued
    // on `stream`. Throws UsageError when the image's shape or the channels are not those of
    // the request the run was prepared for (its tables, scratch and grid were sized for them).
    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream);
    // True when launch() zeroes the counts itself (in its kernel: one launch per histogram,
    // no memset before it).
    virtual bool zeroes_counts() const { return false; }
    // What a caller does before every launch(): zeroes `n` counters on `stream` unless the
    // kernel does.
    void clear_counts(unsigned long long* counts, std::size_t n, cudaStream_t stream) const;
    // The tuning the strategy chose for this request, in words.
    virtual std::string tuning() const = 0;

  protected:
    // launch() once the image and the channels are known to be the prepared ones.
    virtual void queue(const DeviceImage& image, const std::vector<Channel>& channels,
                       unsigned long long* counts, cudaStream_t stream) = 0;

  private:
    friend class GpuEngine;
    // What launch() accepts, set by GpuEngine::make_run(): the engine's name (for the error),
    // the image's shape (no data) and the channels of the prepared request.
    std::string_view engine_;
    DeviceImage shape_;
    std::vector<Channel> channels_;
};

// A histogram strategy: one row of the table in kernels/strategies.cpp, which the one GpuEngine
// below turns into a registered engine. A row names the strategy, says what it serves and how
// a request becomes a KernelRun; its hooks read the device through the engine (state(),
// limits(), memory_refusal()).
struct Strategy {
    std::string_view name;
    std::string_view summary;  // what it does: the start of the engine's description
    // Empty when the strategy's kernels load on the (already selected) device.
    std::string (*probe)() = nullptr;
    // What it serves on the selected device (unset: everything Capabilities{} says).
    std::function<Capabilities(const GpuEngine&)> capabilities = {};
    // Why it cannot serve a valid request beyond the capabilities, such as the device's shared
    // memory per block (unset: no further limit).
    std::function<std::string(const GpuEngine&, const HistogramRequest&)> refusal = {};
    // The run of a valid, supported request; may queue uploads of tables on the stream.
    std::function<std::unique_ptr<KernelRun>(const GpuEngine&, const HistogramRequest&,
                                             cudaStream_t)>
        prepare = {};
};

// The engine of every strategy: device selection, upload, download, timing and benchmark around
// the row's hooks.
class GpuEngine final : public HistogramEngine {
  public:
    explicit GpuEngine(Strategy strategy);

    std::string_view name() const override { return strategy_.name; }
    std::string_view description() const override { return note_.current(); }
    Availability availability() const override;
    Capabilities capabilities() const override;

    // The strategy's run for a valid, supported `request`, for callers that queue its launches
    // themselves (the frame pipeline keeps one per stream). Throws UnsupportedError when the
    // engine cannot run here.
    std::unique_ptr<KernelRun> make_run(const HistogramRequest& request, cudaStream_t stream) const;

    // The device (and whether this engine's kernels load on it), selected once.
    const SelectedDevice& state() const;
    DeviceLimits limits() const { return state().limits(); }
    // Empty when `need` bytes of device memory fit into half of what is free (the benchmark's
    // rotated input copies may take the other half), or when the device cannot be asked
    // (compute() reports that itself); otherwise the refusal, saying what the bytes are `for`.
    std::string memory_refusal(std::size_t need, std::string_view what) const;

  protected:
    std::string extra_unsupported_reason(const HistogramRequest& request) const override;
    HistogramResult run(const HistogramRequest& request) override;
    BenchTiming run_benchmark(const HistogramRequest& request,
                              const BenchOptions& options) override;

  private:
    // Makes the engine's device current; throws UnsupportedError when the engine cannot run.
    void use_device() const;

    Strategy strategy_;
    DeviceSelection selection_;
    mutable TuningNote note_;
};

// The prepare hook of a row whose run is made as Run(request, the device's limits, stream).
template <typename Run>
std::unique_ptr<KernelRun> prepare_run(const GpuEngine& engine, const HistogramRequest& request,
                                       cudaStream_t stream) {
    return std::make_unique<Run>(request, engine.limits(), stream);
}

}  // namespace hs::cuda::detail
