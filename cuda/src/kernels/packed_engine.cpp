// Strategies "packed" and "packed-sat" as rows of the strategy table: one request handling for
// both (the saturating one only adds its refusals), one launch_packed() per channel (kernels,
// tiling and tuning in packed.cuh, packed_kernel.cuh, packed.cu and packed_sat.cu).

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/channel_run.hpp"
#include "kernels/packed.cuh"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

// The arguments of one channel of `r`, without the device pointers and the plan.
PackedArgs channel_args(const HistogramRequest& r, Channel channel, bool saturating) {
    PackedArgs a = table_or_wide_args<PackedArgs>(r, channel, "engine 'packed'");
    a.saturating = saturating;
    // Used by the saturating kernels only.
    if (r.spec.saturate)
        a.cap = static_cast<std::uint32_t>(std::min<std::uint64_t>(*r.spec.saturate, 0xFFFFFFFFu));
    return a;
}

// One launch per channel (common/channel_run.hpp) with the engine's tuning overrides.
struct PackedChannels {
    using Args = PackedArgs;
    using Plan = PackedPlan;
    PackedTuning tuning;
    bool saturating = false;
    Args args(const HistogramRequest& r, Channel c) const { return channel_args(r, c, saturating); }
    Plan plan(Args& a, const HistogramRequest&, Channel, const DeviceLimits& limits) const {
        return plan_packed(a, limits, tuning);
    }
    void launch(const Args& a, const Plan& p, cudaStream_t stream) const {
        launch_packed(a, p, stream);
    }
};

// Refuses what does not fit (tiles of the device's shared memory, counter widths, caps).
std::string refusal(const GpuEngine& engine, const HistogramRequest& r, const PackedTuning& tuning,
                    bool saturating) {
    const std::string who = "engine '" + std::string(engine.name()) + "' ";
    if (saturating) {
        if (!r.spec.saturate)
            return who +
                   "only counts with a saturation cap (its counters stop at the cap); "
                   "the request has none";
        const std::uint64_t limit = tuning.counter_bits == 8 ? 255 : 65535;
        if (*r.spec.saturate > limit)
            return who + "only serves saturation caps up to " + std::to_string(limit) + " (its " +
                   (limit == 255 ? "8" : "16") + "-bit counters stop at the cap), not " +
                   std::to_string(*r.spec.saturate);
    }
    const SelectedDevice& s = engine.state();
    if (!s.error.empty()) return {};  // compute() reports the unavailability itself
    if (tuning.threads < 0 || tuning.threads > 1024 || tuning.threads % 32 != 0)
        return who + "was built with " + std::to_string(tuning.threads) +
               " threads per block; it needs a multiple of 32 up to 1024";
    if (tuning.cluster_blocks < 0 || tuning.cluster_blocks > 2)
        return who + "was built with " + std::to_string(tuning.cluster_blocks) +
               " blocks per cluster; it takes 0 (chosen), 1 or 2";
    const std::uint64_t cap = r.spec.saturate.value_or(0);
    const std::vector<int> widths = packed_counter_widths(tuning, saturating, cap);
    if (widths.empty()) {
        if (saturating)
            return who + "needs a saturation cap that fits its counters (at most " +
                   std::to_string(tuning.counter_bits == 8 ? 255 : 65535) + ")";
        return who + "was built with " + std::to_string(tuning.counter_bits) +
               "-bit counters; it has 8- and 16-bit ones";
    }
    for (const Channel c : r.channels) {
        PackedArgs a = channel_args(r, c, saturating);
        bool fits = false;
        std::size_t have = 0;
        for (const int w : widths) {
            a.counter_bits = w;
            have = packed_smem_limit(a, s.device.shared_per_block_optin);
            const PackedTiles t =
                packed_tiles(a.bins.mode, a.bins.bins, w, have, tuning.max_tile_bins);
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

// The row of "packed" or "packed-sat" with `tuning`'s overrides (everything capabilities{}
// says; refusal() checks the device limits).
Strategy packed_row(const PackedTuning& tuning, bool saturating) {
    return {
        .name = saturating ? "packed-sat" : "packed",
        .summary = saturating
                       ? "GPU: saturating packed 8- or 16-bit counters in shared memory (Parboil "
                         "style, atomicCAS stops each counter at the cap); only for requests "
                         "with a saturation cap of at most 65535; bins beyond shared memory in "
                         "tiles (up to 2^24)"
                       : "GPU: shared-memory sub-histograms of packed 8- or 16-bit counters "
                         "(Ross's packed atomics), wraps detected from atomicAdd's old value and "
                         "corrected in 64-bit global counts; bins beyond shared memory in tiles "
                         "(up to 2^24)",
        .probe = packed_probe,
        .refusal =
            [tuning, saturating](const GpuEngine& engine, const HistogramRequest& r) {
                return refusal(engine, r, tuning, saturating);
            },
        .prepare = channel_runs(PackedChannels{tuning, saturating})};
}

}  // namespace

std::unique_ptr<HistogramEngine> make_packed_engine(const PackedTuning& tuning) {
    return make_engine(packed_row(tuning, false));
}

std::unique_ptr<HistogramEngine> make_packed_sat_engine(const PackedTuning& tuning) {
    return make_engine(packed_row(tuning, true));
}

Strategy packed_strategy() {
    return packed_row(PackedTuning{}, false);
}

Strategy packed_sat_strategy() {
    return packed_row(PackedTuning{}, true);
}

}  // namespace hs::cuda::detail
