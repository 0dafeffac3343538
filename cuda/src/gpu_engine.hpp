#pragma once
// The base of every GPU engine: device selection, the upload of a request's image, the
// download of its counts, stage timings and the device-resident benchmark. A strategy
// (one per file under kernels/) only says what it can serve and turns a request into
// launches of its kernels (a KernelRun).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "histoscope/core/engine.hpp"
#include "histoscope/cuda/register.hpp"

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

// One request prepared for one strategy: tables and scratch memory it needs live here.
class KernelRun {
  public:
    virtual ~KernelRun() = default;
    // Adds the histograms of `channels` of `image` to `counts` (channels.size() * bins 64-bit
    // counters, channel-major, zeroed by the caller unless zeroes_counts()). All work is queued
    // on `stream`.
    virtual void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                        unsigned long long* counts, cudaStream_t stream) = 0;
    // True when launch() zeroes the counts itself (in its kernel: one launch per histogram,
    // no memset before it).
    virtual bool zeroes_counts() const { return false; }
    // What a caller does before every launch(): zeroes `n` counters on `stream` unless the
    // kernel does.
    void clear_counts(unsigned long long* counts, std::size_t n, cudaStream_t stream) const;
};

// The device limits strategies tune from.
struct DeviceLimits {
    int sm_count = 1;
    std::size_t shared_per_block_optin = 48 * 1024;
    std::size_t shared_per_sm = 64 * 1024;
    std::size_t l2_bytes = 0;
};

class GpuEngine : public HistogramEngine {
  public:
    Availability availability() const override;

    // The strategy's run for a valid, supported `request`, for callers that queue its launches
    // themselves (the frame pipeline keeps one per stream). Throws UnsupportedError when the
    // engine cannot run here.
    std::unique_ptr<KernelRun> make_run(const HistogramRequest& request, cudaStream_t stream) const;

  protected:
    struct State {
        DeviceInfo device;
        std::string error;  // why the engine cannot run here (empty: it can)
    };
    // The device (and whether this engine's kernels load on it), queried once.
    const State& state() const;
    DeviceLimits limits() const;

    // Empty when this strategy's kernels run on the (already selected) device.
    virtual std::string probe() const = 0;
    // Builds the strategy's run for `request`; may queue uploads of tables on `stream`.
    virtual std::unique_ptr<KernelRun> prepare(const HistogramRequest& request,
                                               cudaStream_t stream) const = 0;

    HistogramResult run(const HistogramRequest& request) final;
    BenchTiming run_benchmark(const HistogramRequest& request, const BenchOptions& options) final;

  private:
    mutable std::once_flag once_;
    mutable State state_;
};

}  // namespace hs::cuda::detail
