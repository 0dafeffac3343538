// Strategies "packed" and "packed-sat" as engines: one request handling for both (the
// saturating one only adds its refusals), turning a request into launch_packed() calls
// (kernels, tiling and tuning in packed.cuh, packed_kernel.cuh, packed.cu and packed_sat.cu).

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/device_table.hpp"
#include "kernels/packed.cuh"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

// The arguments of one channel of `r`, without the device pointers and the plan.
PackedArgs channel_args(const HistogramRequest& r, Channel channel, bool saturating) {
    PackedArgs a;
    a.u16 = r.image.type == SampleType::U16;
    a.channels = r.image.channels;
    a.pixels = r.image.pixel_count();
    a.value = value_rule(channel, r.image.channels);
    const std::uint32_t values = channel_max_value(channel, r.image.type) + 1;
    a.bins = bin_rule(r.spec, values, values <= 256 ? kTableModes : kWideModes, "engine 'packed'");
    a.saturating = saturating;
    // Used by the saturating kernels only.
    if (r.spec.saturate)
        a.cap = static_cast<std::uint32_t>(std::min<std::uint64_t>(*r.spec.saturate, 0xFFFFFFFFu));
    return a;
}

class PackedRun final : public KernelRun {
  public:
    PackedRun(const HistogramRequest& r, const DeviceLimits& limits, const PackedTuning& tuning,
              bool saturating, cudaStream_t stream) {
        BinModes used = 0;
        for (const Channel c : r.channels) {
            args_.push_back(channel_args(r, c, saturating));
            used |= bin_mode_bit(args_.back().bins.mode);
            plans_.push_back(plan_packed(args_.back(), limits, tuning));
        }
        tables_ = BinTables(r.spec, used, stream);
        for (PackedArgs& a : args_) a.aux = tables_.of(a.bins.mode);
    }

    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream) override {
        if (channels.size() != args_.size() || image.pixels != args_.front().pixels)
            throw UsageError("packed: launch() does not match the prepared request");
        for (std::size_t i = 0; i < args_.size(); ++i) {
            PackedArgs a = args_[i];
            a.samples = image.data;
            a.counts = counts + i * static_cast<std::size_t>(a.bins.bins);
            launch_packed(a, plans_[i], stream);
        }
    }

    std::string tuning() const override { return plans_.front().describe(); }

  private:
    std::vector<PackedArgs> args_;  // per channel
    std::vector<PackedPlan> plans_;
    BinTables tables_;
};

class PackedEngine final : public GpuEngine {
  public:
    PackedEngine(const PackedTuning& tuning, bool saturating)
        : GpuEngine(saturating
                        ? "GPU: saturating packed 8- or 16-bit counters in shared memory (Parboil "
                          "style, atomicCAS stops each counter at the cap); only for requests "
                          "with a saturation cap of at most 65535; bins beyond shared memory in "
                          "tiles (up to 2^24)"
                        : "GPU: shared-memory sub-histograms of packed 8- or 16-bit counters "
                          "(Ross's packed atomics), wraps detected from atomicAdd's old value and "
                          "corrected in 64-bit global counts; bins beyond shared memory in tiles "
                          "(up to 2^24)"),
          tuning_(tuning),
          saturating_(saturating) {}

    std::string_view name() const override { return saturating_ ? "packed-sat" : "packed"; }
    // Everything; extra_unsupported_reason() checks the device limits.
    Capabilities capabilities() const override { return {}; }

  protected:
    // Refuses what does not fit (tiles of the device's shared memory, counter widths, caps).
    std::string extra_unsupported_reason(const HistogramRequest& r) const override {
        const std::string who = "engine '" + std::string(name()) + "' ";
        if (saturating_) {
            if (!r.spec.saturate)
                return who +
                       "only counts with a saturation cap (its counters stop at the cap); "
                       "the request has none";
            const std::uint64_t limit = tuning_.counter_bits == 8 ? 255 : 65535;
            if (*r.spec.saturate > limit)
                return who + "only serves saturation caps up to " + std::to_string(limit) +
                       " (its " + (limit == 255 ? "8" : "16") +
                       "-bit counters stop at the cap), not " + std::to_string(*r.spec.saturate);
        }
        const SelectedDevice& s = state();
        if (!s.error.empty()) return {};  // compute() reports the unavailability itself
        if (tuning_.threads < 0 || tuning_.threads > 1024 || tuning_.threads % 32 != 0)
            return who + "was built with " + std::to_string(tuning_.threads) +
                   " threads per block; it needs a multiple of 32 up to 1024";
        const std::uint64_t cap = r.spec.saturate.value_or(0);
        const std::vector<int> widths = packed_counter_widths(tuning_, saturating_, cap);
        if (widths.empty()) {
            if (saturating_)
                return who + "needs a saturation cap that fits its counters (at most " +
                       std::to_string(tuning_.counter_bits == 8 ? 255 : 65535) + ")";
            return who + "was built with " + std::to_string(tuning_.counter_bits) +
                   "-bit counters; it has 8- and 16-bit ones";
        }
        for (const Channel c : r.channels) {
            PackedArgs a = channel_args(r, c, saturating_);
            bool fits = false;
            std::size_t have = 0;
            for (const int w : widths) {
                a.counter_bits = w;
                have = packed_smem_limit(a, s.device.shared_per_block_optin);
                const PackedTiles t =
                    packed_tiles(a.bins.mode, a.bins.bins, w, have, tuning_.max_tile_bins);
                fits = fits || (t.tiles > 0 && t.tiles <= kPackedMaxTiles);
            }
            if (!fits)
                return who + "cannot split " + std::to_string(r.spec.bins) + " bins into at most " +
                       std::to_string(kPackedMaxTiles) + " tiles that fit into the " +
                       std::to_string(have) + " bytes of shared memory per block that " +
                       s.device.name + " allows its kernel";
        }
        return {};
    }
    std::string probe() const override { return packed_probe(); }
    std::unique_ptr<KernelRun> prepare(const HistogramRequest& r,
                                       cudaStream_t stream) const override {
        return std::make_unique<PackedRun>(r, limits(), tuning_, saturating_, stream);
    }

  private:
    PackedTuning tuning_;
    bool saturating_ = false;
};

}  // namespace

std::unique_ptr<HistogramEngine> make_packed_engine(const PackedTuning& tuning) {
    return std::make_unique<PackedEngine>(tuning, false);
}

std::unique_ptr<HistogramEngine> make_packed_sat_engine(const PackedTuning& tuning) {
    return std::make_unique<PackedEngine>(tuning, true);
}

std::unique_ptr<HistogramEngine> make_packed_engine() {
    return make_packed_engine(PackedTuning{});
}

std::unique_ptr<HistogramEngine> make_packed_sat_engine() {
    return make_packed_sat_engine(PackedTuning{});
}

}  // namespace hs::cuda::detail
