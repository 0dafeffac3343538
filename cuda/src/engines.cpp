// The GPU engines: a base class that owns the device side of a request (device choice,
// upload, per-channel launches, download, stage timings with CUDA events) and one subclass
// per kernel strategy, which only turns a request into launches of its kernel.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/cuda/register.hpp"
#include "kernels/block_shared.cuh"

namespace hs::cuda {

namespace {

using detail::check;
using detail::DeviceBuffer;
using detail::Event;
using detail::Stream;

// The upload packs rows back to back and pads the buffer to whole groups of 16 bytes per
// channel (zeroed), so kernels may read any group of 16 / sample-size pixels with aligned
// 16-byte vector loads.
constexpr std::size_t kUploadGroupBytesPerChannel = 16;
static_assert(detail::block_shared_group_bytes(1) <= kUploadGroupBytesPerChannel);

// The image as uploaded for one request.
struct DeviceImage {
    const std::byte* data = nullptr;
    std::uint64_t pixels = 0;
    int channels = 0;
    SampleType type = SampleType::U8;
};

// What one strategy does for one request: prepare() (timed as "upload") copies its own tables
// to the device, launch() (timed as "histogram") counts one channel into `counts`.
class KernelRun {
  public:
    virtual ~KernelRun() = default;
    virtual void launch(const DeviceImage& image, Channel channel, unsigned long long* counts,
                        cudaStream_t stream) = 0;
};

// Base of every GPU engine.
class GpuEngine : public HistogramEngine {
  public:
    Availability availability() const override {
        const State& s = state();
        if (!s.error.empty()) return {false, s.error};
        return {};
    }

  protected:
    struct State {
        DeviceInfo device;
        std::string error;  // why the engine cannot run here (empty: it can)
    };

    // The device (and whether this engine's kernels load on it), queried once.
    const State& state() const {
        std::call_once(once_, [this] {
            const DeviceQuery q = query_devices();
            if (q.devices.empty()) {
                state_.error = q.error.empty() ? "no CUDA device" : q.error;
                return;
            }
            int current = 0;
            if (cudaGetDevice(&current) != cudaSuccess) {
                static_cast<void>(cudaGetLastError());
                current = 0;
            }
            const auto it = std::find_if(q.devices.begin(), q.devices.end(),
                                         [&](const DeviceInfo& d) { return d.index == current; });
            state_.device = it != q.devices.end() ? *it : q.devices.front();
            if (cudaSetDevice(state_.device.index) != cudaSuccess) {
                static_cast<void>(cudaGetLastError());
                state_.error = "cannot select CUDA device " + std::to_string(state_.device.index);
                return;
            }
            if (std::string why = probe(); !why.empty())
                state_.error = state_.device.name + ": " + why;
        });
        return state_;
    }
    detail::DeviceLimits limits() const {
        const DeviceInfo& d = state().device;
        return {d.sm_count, d.shared_per_block_optin};
    }

    // Empty when this strategy's kernels run on the (already selected) device.
    virtual std::string probe() const = 0;
    virtual std::unique_ptr<KernelRun> prepare(const HistogramRequest& request,
                                               cudaStream_t stream) const = 0;

    HistogramResult run(const HistogramRequest& r) final {
        const State& s = state();
        if (!s.error.empty()) throw UnsupportedError(s.error);
        check(cudaSetDevice(s.device.index), "cudaSetDevice");

        const ImageView& img = r.image;
        const std::size_t row_bytes = img.row_bytes();
        const std::size_t packed = row_bytes * static_cast<std::size_t>(img.height);
        const std::size_t group =
            kUploadGroupBytesPerChannel * static_cast<std::size_t>(img.channels);
        const std::size_t padded = (packed + group - 1) / group * group;
        const auto bins = static_cast<std::size_t>(r.spec.bins);
        const std::size_t n_counts = bins * r.channels.size();

        Stream stream;
        Event t0, t1, t2, t3;
        DeviceBuffer<std::byte> samples(padded, "image upload buffer");
        DeviceBuffer<unsigned long long> counts(n_counts, "histogram counters");

        t0.record(stream);
        check(cudaMemcpy2DAsync(samples.data(), row_bytes, img.data, img.stride, row_bytes,
                                static_cast<std::size_t>(img.height), cudaMemcpyHostToDevice,
                                stream.get()),
              "image upload (cudaMemcpy2DAsync)");
        if (padded > packed)
            check(cudaMemsetAsync(samples.data() + packed, 0, padded - packed, stream.get()),
                  "image padding (cudaMemsetAsync)");
        check(cudaMemsetAsync(counts.data(), 0, counts.bytes(), stream.get()),
              "histogram counters (cudaMemsetAsync)");
        const std::unique_ptr<KernelRun> kernel = prepare(r, stream.get());
        t1.record(stream);

        const DeviceImage image{samples.data(), img.pixel_count(), img.channels, img.type};
        for (std::size_t i = 0; i < r.channels.size(); ++i)
            kernel->launch(image, r.channels[i], counts.data() + i * bins, stream.get());
        t2.record(stream);

        std::vector<std::uint64_t> host(n_counts);
        static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
        check(cudaMemcpyAsync(host.data(), counts.data(), counts.bytes(), cudaMemcpyDeviceToHost,
                              stream.get()),
              "histogram download (cudaMemcpyAsync)");
        t3.record(stream);
        stream.synchronize("histogram (kernel execution)");

        HistogramResult result;
        for (std::size_t i = 0; i < r.channels.size(); ++i) {
            const auto first = host.begin() + static_cast<std::ptrdiff_t>(i * bins);
            result.channels.push_back(
                {r.channels[i],
                 std::vector<std::uint64_t>(first, first + static_cast<std::ptrdiff_t>(bins))});
        }
        result.stages = {{"upload", static_cast<double>(t1.ms_since(t0))},
                         {"histogram", static_cast<double>(t2.ms_since(t1))},
                         {"download", static_cast<double>(t3.ms_since(t2))}};
        return result;
    }

  private:
    mutable std::once_flag once_;
    mutable State state_;
};

// ---------------------------------------------------------------------------------------------
// block-shared

detail::BinMode bin_mode(const HistogramRequest& r) {
    if (r.image.type == SampleType::U8) return detail::BinMode::Table;
    if (r.spec.has_edges()) return detail::BinMode::Edges;
    // Even bins: decide whether 32-bit arithmetic is exact for every value that is counted.
    constexpr std::int64_t kValues = 65536;  // 16-bit samples (and their luma) lie below
    const std::int64_t lo = std::clamp<std::int64_t>(r.spec.lower, 0, kValues);
    const std::int64_t hi = std::clamp<std::int64_t>(r.spec.upper, 0, kValues);
    const auto width = static_cast<std::uint64_t>(r.spec.upper - r.spec.lower);
    if (lo >= hi) return detail::BinMode::Even32;  // nothing is counted
    const auto max_off = static_cast<std::uint64_t>(hi - 1 - r.spec.lower);
    const bool fits = width <= 0xFFFFFFFFull &&
                      max_off * static_cast<std::uint64_t>(r.spec.bins) <= 0xFFFFFFFFull;
    return fits ? detail::BinMode::Even32 : detail::BinMode::Even64;
}

class BlockSharedRun final : public KernelRun {
  public:
    BlockSharedRun(const HistogramRequest& r, detail::DeviceLimits limits, cudaStream_t stream)
        : limits_(limits) {
        args_.u16 = r.image.type == SampleType::U16;
        args_.mode = bin_mode(r);
        args_.bins = r.spec.bins;
        std::vector<std::int32_t> aux;
        if (args_.mode == detail::BinMode::Table) {
            // The core's own bin_of() for every 8-bit value: exact by construction.
            aux = bin_table(r.spec, 255);
        } else if (args_.mode == detail::BinMode::Edges) {
            // Samples lie in [0, 65535]: clamping thresholds to [-1, 65536] keeps every
            // comparison with a sample unchanged and fits them in 32 bits.
            for (const std::int64_t t : r.spec.thresholds())
                aux.push_back(static_cast<std::int32_t>(std::clamp<std::int64_t>(t, -1, 65536)));
        } else {
            constexpr std::int64_t kValues = 65536;
            const std::int64_t lo = std::clamp<std::int64_t>(r.spec.lower, 0, kValues);
            const std::int64_t hi = std::clamp<std::int64_t>(r.spec.upper, 0, kValues);
            args_.lo = static_cast<std::uint32_t>(lo);
            args_.hi = static_cast<std::uint32_t>(std::max(lo, hi));
            args_.lower = r.spec.lower;
            args_.width = static_cast<std::uint64_t>(r.spec.upper - r.spec.lower);
        }
        if (!aux.empty()) {
            // The host copy lives as long as this run, i.e. until the engine has synchronized.
            aux_host_ = std::move(aux);
            aux_ = DeviceBuffer<std::int32_t>(aux_host_.size(), "bin table");
            check(cudaMemcpyAsync(aux_.data(), aux_host_.data(), aux_.bytes(),
                                  cudaMemcpyHostToDevice, stream),
                  "bin table upload (cudaMemcpyAsync)");
            args_.aux = aux_.data();
        }
    }

    void launch(const DeviceImage& image, Channel channel, unsigned long long* counts,
                cudaStream_t stream) override {
        detail::BlockSharedArgs a = args_;
        a.samples = image.data;
        a.pixels = image.pixels;
        a.channels = image.channels;
        a.luma = is_luma(channel) && image.channels > 1;
        a.weights = channel == Channel::Luma709 ? kLuma709 : kLuma601;
        a.offset = a.luma ? 0 : std::max(0, channel_offset(channel, image.channels));
        a.counts = counts;
        detail::launch_block_shared(a, limits_, stream);
    }

  private:
    detail::BlockSharedArgs args_;
    detail::DeviceLimits limits_;
    std::vector<std::int32_t> aux_host_;
    DeviceBuffer<std::int32_t> aux_;
};

class BlockSharedEngine final : public GpuEngine {
  public:
    std::string_view name() const override { return "block-shared"; }
    std::string_view description() const override {
        return "GPU: one shared-memory sub-histogram (32-bit counters) per block, merged into "
               "64-bit global counts; bins limited by the device's shared memory per block";
    }
    Capabilities capabilities() const override {
        Capabilities caps;
        const State& s = state();
        // Even bins of 16-bit samples need only the counters (4 bytes per bin).
        if (s.error.empty())
            caps.max_bins = static_cast<int>(std::min<std::size_t>(
                s.device.shared_per_block_optin / 4, static_cast<std::size_t>(kMaxBins)));
        return caps;
    }

  protected:
    std::string extra_unsupported_reason(const HistogramRequest& r) const override {
        const State& s = state();
        if (!s.error.empty()) return {};  // compute() reports the unavailability itself
        const detail::BinMode mode = bin_mode(r);
        const std::size_t need = detail::block_shared_smem_bytes(mode, r.spec.bins);
        const std::size_t have = s.device.shared_per_block_optin;
        if (need <= have) return {};
        const char* what = mode == detail::BinMode::Table ? " (counters and a 256-entry bin table)"
                           : mode == detail::BinMode::Edges ? " (counters and edge thresholds)"
                                                            : " (counters)";
        return "engine 'block-shared' needs " + std::to_string(need) +
               " bytes of shared memory per block for " + std::to_string(r.spec.bins) + " bins" +
               what + ", but " + s.device.name + " allows at most " + std::to_string(have);
    }
    std::string probe() const override { return detail::block_shared_probe(); }
    std::unique_ptr<KernelRun> prepare(const HistogramRequest& r,
                                       cudaStream_t stream) const override {
        return std::make_unique<BlockSharedRun>(r, limits(), stream);
    }
};

}  // namespace

void register_engines(EngineRegistry& registry) {
    registry.add(std::make_unique<BlockSharedEngine>());
}

}  // namespace hs::cuda
