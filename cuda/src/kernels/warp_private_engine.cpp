// Strategy "warp-private" as a row of the strategy table: samples the race factor of every
// requested channel on the host, chooses the tuning and launches launch_warp_private() per
// channel (kernel and tuning in warp_private.cu/.cuh).

#include <algorithm>
#include <bit>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/channel_run.hpp"
#include "kernels/strategies.hpp"
#include "kernels/warp_private.cuh"

namespace hs::cuda::detail {

namespace {

// The bins that sampled warp steps of the kernel would hit: lane l of a warp reads group
// 32 * w + l and all lanes handle pixel p of their group at the same time.
std::vector<std::int32_t> sample_warp_bins(const HistogramRequest& r, Channel c) {
    const ImageView& image = r.image;
    const bool u16 = image.type == SampleType::U16;
    const std::uint64_t ppg = u16 ? 8 : 16;
    const std::uint64_t pixels = image.pixel_count();
    const std::uint64_t warps = (group_count(pixels, u16) + 31) / 32;
    const auto width = static_cast<std::uint64_t>(image.width);
    std::mt19937_64 rng(0x9E3779B97F4A7C15ull ^ pixels);
    std::vector<std::int32_t> out;
    out.reserve(32 * static_cast<std::size_t>(kWarpPrivateSampledSteps));
    for (int s = 0; s < kWarpPrivateSampledSteps; ++s) {
        const std::uint64_t w = rng() % warps;
        const std::uint64_t p = rng() % ppg;
        for (std::uint64_t lane = 0; lane < 32; ++lane) {
            const std::uint64_t pixel = (w * 32 + lane) * ppg + p;
            out.push_back(
                pixel < pixels
                    ? bin_of(r.spec, channel_value(image, c, static_cast<int>(pixel % width),
                                                   static_cast<int>(pixel / width)))
                    : -1);
        }
    }
    return out;
}

// The kernel's arguments for channel `c` of `r` (no tuning, no device pointers).
WarpPrivateArgs channel_args(const HistogramRequest& r, Channel c) {
    return table_or_wide_args<WarpPrivateArgs>(r, c, "engine 'warp-private'");
}

// One launch per channel (common/channel_run.hpp), each with its own tuning: the race factor
// sampled for that channel.
struct WarpPrivateChannels {
    using Args = WarpPrivateArgs;
    using Plan = WarpPrivateTuning;
    Args args(const HistogramRequest& r, Channel c) const { return channel_args(r, c); }
    Plan plan(Args& a, const HistogramRequest& r, Channel c, const DeviceLimits& limits) const {
        const int bpp = r.image.channels * bytes_per_sample(r.image.type);
        WarpPrivateTuning t = choose_warp_private(
            warp_private_race(sample_warp_bins(r, c)), r.spec.bins,
            bin_aux_entries(a.bins.mode, r.spec.bins), bpp, a.u16 ? 8 : 16, a.pixels,
            warp_private_smem_limit(a, limits.shared_per_block_optin), limits);
        a.aux_shared = t.aux_shared;
        a.copies_log2 = std::countr_zero(static_cast<unsigned>(t.copies));
        a.chunk = t.chunk;
        a.passes = t.passes;
        plan_warp_private(a, limits, t);
        return t;
    }
    void launch(const Args& a, const Plan& t, cudaStream_t stream) const {
        launch_warp_private(a, t, stream);
    }
    // Every channel's tuning, named.
    std::string describe(const std::vector<Plan>& plans,
                         const std::vector<Channel>& channels) const {
        std::string notes;
        for (std::size_t i = 0; i < plans.size(); ++i)
            notes += (notes.empty() ? "" : "; ") + std::string(channel_name(channels[i])) + ": " +
                     plans[i].describe();
        return notes;
    }
};

}  // namespace

Strategy warp_private_strategy() {
    return {
        .name = "warp-private",
        .summary =
            "GPU multi-histogramming (Henriksen et al.): M interleaved 32-bit sub-histograms per "
            "block in shared memory (thread t updates copy t % M), bins split into S passes when "
            "they do not fit; M and S chosen from the device's shared memory, the bin count and a "
            "race factor sampled on the host",
        .probe = warp_private_probe,
        .prepare = channel_runs(WarpPrivateChannels{})};
}

}  // namespace hs::cuda::detail
