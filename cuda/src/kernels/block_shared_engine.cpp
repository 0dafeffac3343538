// Strategy "block-shared" as an engine: turns a request into launch_block_shared() calls
// (kernel and tuning in block_shared.cu/.cuh).

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/block_shared.cuh"
#include "kernels/common/device_table.hpp"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

// What selects the kernel for `channel` of `r`: sample type, layout, value and bin rule.
BlockSharedArgs channel_args(const HistogramRequest& r, Channel channel) {
    BlockSharedArgs a;
    a.u16 = r.image.type == SampleType::U16;
    a.channels = r.image.channels;
    a.pixels = r.image.pixel_count();
    a.value = value_rule(channel, r.image.channels);
    a.bins = bin_rule(r.spec, a.u16 ? 65536 : 256, a.u16 ? kWideModes : kTableModes,
                      "engine 'block-shared'");
    return a;
}

class BlockSharedRun final : public KernelRun {
  public:
    BlockSharedRun(const HistogramRequest& r, const DeviceLimits& limits, cudaStream_t stream) {
        BinModes used = 0;
        for (const Channel c : r.channels) {
            args_.push_back(channel_args(r, c));
            used |= bin_mode_bit(args_.back().bins.mode);
        }
        tables_ = BinTables(r.spec, used, stream);
        for (BlockSharedArgs& a : args_) {
            a.aux = tables_.of(a.bins.mode);
            tunings_.push_back(plan_block_shared(a, limits));
        }
    }

    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream) override {
        if (channels.size() != args_.size() || image.pixels != args_.front().pixels)
            throw UsageError("block-shared: launch() does not match the prepared request");
        for (std::size_t i = 0; i < args_.size(); ++i) {
            BlockSharedArgs a = args_[i];
            a.samples = image.data;
            a.counts = counts + i * static_cast<std::size_t>(a.bins.bins);
            launch_block_shared(a, tunings_[i], stream);
        }
    }

    std::string tuning() const override { return tunings_.front().describe(); }

  private:
    std::vector<BlockSharedArgs> args_;  // per requested channel
    std::vector<BlockSharedTuning> tunings_;
    BinTables tables_;
};

class BlockSharedEngine final : public GpuEngine {
  public:
    BlockSharedEngine()
        : GpuEngine(
              "GPU: one shared-memory sub-histogram (32-bit counters) per block, merged into "
              "64-bit global counts; bins limited by the device's shared memory per block") {}
    std::string_view name() const override { return "block-shared"; }
    Capabilities capabilities() const override {
        Capabilities caps;
        caps.joint = false;
        const SelectedDevice& s = state();
        if (s.error.empty()) {
            // Even bins of 16-bit samples need only the counters (4 bytes per bin).
            BlockSharedArgs even;
            even.u16 = true;
            even.bins.mode = BinMode::Even32;
            caps.max_bins = static_cast<int>(std::min<std::size_t>(
                block_shared_smem_limit(even, s.device.shared_per_block_optin) / 4,
                static_cast<std::size_t>(kMaxBins)));
        }
        return caps;
    }

  protected:
    std::string extra_unsupported_reason(const HistogramRequest& r) const override {
        const SelectedDevice& s = state();
        if (!s.error.empty()) return {};  // compute() reports the unavailability itself
        BinMode mode = BinMode::Table;
        std::size_t have = s.device.shared_per_block_optin;
        try {
            // The tightest limit of the requested channels' kernels.
            for (const Channel c : r.channels) {
                const BlockSharedArgs a = channel_args(r, c);
                mode = a.bins.mode;
                have = std::min(have, block_shared_smem_limit(a, s.device.shared_per_block_optin));
            }
        } catch (const UnsupportedError& e) {
            return e.what();  // no kernel for this value and layout
        }
        const std::size_t need = block_shared_smem_bytes(mode, r.spec.bins);
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
