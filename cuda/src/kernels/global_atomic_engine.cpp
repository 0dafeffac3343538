// Strategy "global-atomic" as an engine: turns a request into launch_global_atomic() calls
// (kernel and launch in global_atomic.cu/.cuh).

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "kernels/global_atomic.cuh"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

// What the kernel computes for `channel` of an image with `channels` samples per pixel.
GlobalAtomicOutput output_for(Channel channel, int channels) {
    GlobalAtomicOutput out;
    if (channels > 1 && is_luma(channel)) {
        out.value = channel == Channel::Luma709 ? GaValue::Luma709 : GaValue::Luma601;
    } else if (channel == Channel::Joint) {
        out.value = GaValue::Joint;
    } else {
        // Plain channels, and luma of a one-channel image (the gray sample itself).
        out.value = GaValue::Plain;
        out.offset = std::max(0, channel_offset(channel, channels));
    }
    return out;
}

class GlobalAtomicRun final : public KernelRun {
  public:
    GlobalAtomicRun(const HistogramRequest& r, DeviceLimits limits, cudaStream_t stream)
        : limits_(limits) {
        args_.u16 = r.image.type == SampleType::U16;
        args_.bins = r.spec.bins;
        if (r.spec.has_edges()) {
            args_.mode = GaBinMode::Edges;
            // Values lie in [0, 2^24): clamping the thresholds to [-1, 2^24] keeps every
            // comparison with a value unchanged and fits them in 32 bits.
            constexpr std::int64_t kTop = std::int64_t{1} << 24;
            for (const std::int64_t t : r.spec.thresholds())
                thresholds_host_.push_back(
                    static_cast<std::int32_t>(std::clamp<std::int64_t>(t, -1, kTop)));
            thresholds_ = DeviceBuffer<std::int32_t>(thresholds_host_.size(), "edge thresholds");
            // The host copy lives as long as this run, i.e. until the engine has synchronized.
            check(cudaMemcpyAsync(thresholds_.data(), thresholds_host_.data(), thresholds_.bytes(),
                                  cudaMemcpyHostToDevice, stream),
                  "edge thresholds upload (cudaMemcpyAsync)");
            args_.thresholds = thresholds_.data();
        } else {
            args_.mode = GaBinMode::Even;
            args_.lower = r.spec.lower;
            args_.upper = r.spec.upper;
        }
    }

    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream) override {
        const auto bins = static_cast<std::size_t>(args_.bins);
        // Up to kGlobalAtomicMaxOutputs channels per pass over the image.
        for (std::size_t first = 0; first < channels.size();
             first += static_cast<std::size_t>(kGlobalAtomicMaxOutputs)) {
            GlobalAtomicArgs a = args_;
            a.samples = image.data;
            a.pixels = image.pixels;
            a.channels = image.channels;
            const std::size_t last = std::min(
                channels.size(), first + static_cast<std::size_t>(kGlobalAtomicMaxOutputs));
            a.outputs = static_cast<int>(last - first);
            for (std::size_t i = first; i < last; ++i) {
                GlobalAtomicOutput& out = a.out[i - first];
                out = output_for(channels[i], image.channels);
                out.counts = counts + i * bins;
            }
            launch_global_atomic(a, limits_, stream);
        }
    }

  private:
    GlobalAtomicArgs args_;
    DeviceLimits limits_;
    std::vector<std::int32_t> thresholds_host_;
    DeviceBuffer<std::int32_t> thresholds_;
};

class GlobalAtomicEngine final : public GpuEngine {
  public:
    std::string_view name() const override { return "global-atomic"; }
    std::string_view description() const override {
        return "GPU baseline: one 64-bit global atomicAdd per counted sample, all requested "
               "channels in one pass; any bin count up to 2^24, edges, luma and joint colour";
    }
    Capabilities capabilities() const override { return {}; }

  protected:
    std::string probe() const override { return global_atomic_probe(); }
    std::unique_ptr<KernelRun> prepare(const HistogramRequest& r,
                                       cudaStream_t stream) const override {
        return std::make_unique<GlobalAtomicRun>(r, limits(), stream);
    }
};

}  // namespace

std::unique_ptr<HistogramEngine> make_global_atomic_engine() {
    return std::make_unique<GlobalAtomicEngine>();
}

}  // namespace hs::cuda::detail
