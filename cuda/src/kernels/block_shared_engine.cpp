// Strategy "block-shared" as a row of the strategy table: what it serves and one
// launch_block_shared() per channel (kernel and tuning in block_shared.cu/.cuh).

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/block_shared.cuh"
#include "kernels/common/channel_run.hpp"
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

// One launch per channel (common/channel_run.hpp).
struct BlockSharedChannels {
    using Args = BlockSharedArgs;
    using Plan = BlockSharedTuning;
    BlockSharedPolicy policy;
    Args args(const HistogramRequest& r, Channel c) const { return channel_args(r, c); }
    Plan plan(Args& a, const HistogramRequest&, Channel, const DeviceLimits& limits) const {
        return plan_block_shared(a, limits, policy);
    }
    void launch(const Args& a, const Plan& p, cudaStream_t stream) const {
        launch_block_shared(a, p, stream);
    }
};

Capabilities capabilities(const GpuEngine& engine) {
    Capabilities caps;
    caps.joint = false;
    const SelectedDevice& s = engine.state();
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

std::string refusal(const GpuEngine& engine, const HistogramRequest& r) {
    const SelectedDevice& s = engine.state();
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
    return "engine '" + std::string(engine.name()) + "' needs " + std::to_string(need) +
           " bytes of shared memory per block for " + std::to_string(r.spec.bins) + " bins" + what +
           ", but " + s.device.name + " allows its kernel at most " + std::to_string(have);
}

}  // namespace

Strategy block_shared_row(std::string_view name, std::string_view summary,
                          BlockSharedPolicy policy) {
    return {.name = name,
            .summary = summary,
            .probe = block_shared_probe,
            .capabilities = capabilities,
            .refusal = refusal,
            .prepare = channel_runs(BlockSharedChannels{std::move(policy)})};
}

Strategy block_shared_strategy() {
    return block_shared_row("block-shared",
                            "GPU: one shared-memory sub-histogram (32-bit counters) per block, "
                            "merged into 64-bit global counts; bins limited by the device's "
                            "shared memory per block",
                            {});
}

}  // namespace hs::cuda::detail
