// Strategy "block-shared" as an engine: turns a request into launch_block_shared() calls
// (kernels and tuning in block_shared.cu/.cuh).

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "kernels/block_shared.cuh"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

// The kernel reads whole groups of 16 bytes per channel, which the upload pads to.
static_assert(block_shared_group_bytes(1) <= kGroupBytesPerChannel);

BinMode bin_mode(const HistogramRequest& r) {
    if (r.image.type == SampleType::U8) return BinMode::Table;
    if (r.spec.has_edges()) return BinMode::Edges;
    // Even bins: decide whether 32-bit arithmetic is exact for every value that is counted.
    constexpr std::int64_t kValues = 65536;  // 16-bit samples (and their luma) lie below
    const std::int64_t lo = std::clamp<std::int64_t>(r.spec.lower, 0, kValues);
    const std::int64_t hi = std::clamp<std::int64_t>(r.spec.upper, 0, kValues);
    const auto width = static_cast<std::uint64_t>(r.spec.upper - r.spec.lower);
    if (lo >= hi) return BinMode::Even32;  // nothing is counted
    const auto max_off = static_cast<std::uint64_t>(hi - 1 - r.spec.lower);
    const bool fits = width <= 0xFFFFFFFFull &&
                      max_off * static_cast<std::uint64_t>(r.spec.bins) <= 0xFFFFFFFFull;
    return fits ? BinMode::Even32 : BinMode::Even64;
}

// What selects the kernel for `channel` of `r`: sample type, bin mode, layout and luma.
BlockSharedArgs channel_args(const HistogramRequest& r, Channel channel) {
    BlockSharedArgs a;
    a.u16 = r.image.type == SampleType::U16;
    a.mode = bin_mode(r);
    a.bins = r.spec.bins;
    a.channels = r.image.channels;
    a.luma = is_luma(channel) && r.image.channels > 1;
    a.weights = channel == Channel::Luma709 ? kLuma709 : kLuma601;
    a.offset = a.luma ? 0 : std::max(0, channel_offset(channel, r.image.channels));
    return a;
}

class BlockSharedRun final : public KernelRun {
  public:
    BlockSharedRun(const HistogramRequest& r, DeviceLimits limits, cudaStream_t stream)
        : limits_(limits) {
        for (const Channel c : r.channels) args_.push_back(channel_args(r, c));
        const BinMode mode = bin_mode(r);
        std::vector<std::int32_t> aux;
        if (mode == BinMode::Table) {
            // The core's own bin_of() for every 8-bit value: exact by construction.
            aux = bin_table(r.spec, 255);
        } else if (mode == BinMode::Edges) {
            // Samples lie in [0, 65535]: clamping thresholds to [-1, 65536] keeps every
            // comparison with a sample unchanged and fits them in 32 bits.
            for (const std::int64_t t : r.spec.thresholds())
                aux.push_back(static_cast<std::int32_t>(std::clamp<std::int64_t>(t, -1, 65536)));
        } else {
            constexpr std::int64_t kValues = 65536;
            const std::int64_t lo = std::clamp<std::int64_t>(r.spec.lower, 0, kValues);
            const std::int64_t hi = std::clamp<std::int64_t>(r.spec.upper, 0, kValues);
            for (BlockSharedArgs& a : args_) {
                a.lo = static_cast<std::uint32_t>(lo);
                a.hi = static_cast<std::uint32_t>(std::max(lo, hi));
                a.lower = r.spec.lower;
                a.width = static_cast<std::uint64_t>(r.spec.upper - r.spec.lower);
            }
        }
        if (!aux.empty()) {
            // The host copy lives as long as this run, i.e. until the engine has synchronized.
            aux_host_ = std::move(aux);
            aux_ = DeviceBuffer<std::int32_t>(aux_host_.size(), "bin table");
            check(cudaMemcpyAsync(aux_.data(), aux_host_.data(), aux_.bytes(),
                                  cudaMemcpyHostToDevice, stream),
                  "bin table upload (cudaMemcpyAsync)");
            for (BlockSharedArgs& a : args_) a.aux = aux_.data();
        }
    }

    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream) override {
        for (std::size_t i = 0; i < channels.size(); ++i) {
            BlockSharedArgs a = args_[i];
            a.samples = image.data;
            a.pixels = image.pixels;
            a.counts = counts + i * static_cast<std::size_t>(a.bins);
            launch_block_shared(a, limits_, stream);
        }
    }

  private:
    std::vector<BlockSharedArgs> args_;  // per requested channel
    DeviceLimits limits_;
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
        caps.joint = false;
        const State& s = state();
        if (s.error.empty()) {
            // Even bins of 16-bit samples need only the counters (4 bytes per bin).
            BlockSharedArgs even;
            even.u16 = true;
            even.mode = BinMode::Even32;
            caps.max_bins = static_cast<int>(std::min<std::size_t>(
                block_shared_smem_limit(even, s.device.shared_per_block_optin) / 4,
                static_cast<std::size_t>(kMaxBins)));
        }
        return caps;
    }

  protected:
    std::string extra_unsupported_reason(const HistogramRequest& r) const override {
        const State& s = state();
        if (!s.error.empty()) return {};  // compute() reports the unavailability itself
        const BinMode mode = bin_mode(r);
        const std::size_t need = block_shared_smem_bytes(mode, r.spec.bins);
        // The tightest limit of the requested channels' kernels.
        std::size_t have = s.device.shared_per_block_optin;
        try {
            for (const Channel c : r.channels)
                have = std::min(have, block_shared_smem_limit(channel_args(r, c),
                                                              s.device.shared_per_block_optin));
        } catch (const UnsupportedError& e) {
            return e.what();  // no kernel for this value and layout
        }
        if (need <= have) return {};
        const char* what = mode == BinMode::Table   ? " (counters and a 256-entry bin table)"
                           : mode == BinMode::Edges ? " (counters and edge thresholds)"
                                                    : " (counters)";
        return "engine 'block-shared' needs " + std::to_string(need) +
               " bytes of shared memory per block for " + std::to_string(r.spec.bins) + " bins" +
               what + ", but " + s.device.name + " allows its kernel at most " +
               std::to_string(have);
    }
    std::string probe() const override { return block_shared_probe(); }
    std::unique_ptr<KernelRun> prepare(const HistogramRequest& r,
                                       cudaStream_t stream) const override {
        return std::make_unique<BlockSharedRun>(r, limits(), stream);
    }
};

}  // namespace

std::unique_ptr<HistogramEngine> make_block_shared_engine() {
    return std::make_unique<BlockSharedEngine>();
}

}  // namespace hs::cuda::detail
