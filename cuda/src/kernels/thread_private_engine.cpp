// Strategy "thread-private" as a row of the strategy table: one launch_thread_private() per
// channel (kernel and tuning in thread_private.cu/.cuh); refuses bin counts whose per-thread
// counters would not fit into shared memory for a block of 32 threads.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/channel_run.hpp"
#include "kernels/strategies.hpp"
#include "kernels/thread_private.cuh"

namespace hs::cuda::detail {

namespace {

// What selects the kernel for channel `c` of `r` and its bins (no device pointers).
ThreadPrivateArgs channel_args(const HistogramRequest& r, Channel c) {
    return table_or_wide_args<ThreadPrivateArgs>(r, c, "engine 'thread-private'");
}

// One launch per channel (common/channel_run.hpp).
using Channels = PlannedChannels<ThreadPrivateArgs, ThreadPrivateTuning, channel_args,
                                 plan_thread_private, launch_thread_private>;

Capabilities capabilities(const GpuEngine& engine) {
    Capabilities caps;
    const SelectedDevice& s = engine.state();
    if (s.error.empty()) {
        // The most bins whose counters (even bins, no table) fit for 32 threads.
        ThreadPrivateArgs even;
        even.u16 = true;
        even.bins.mode = BinMode::Even32;
        const std::size_t optin = thread_private_smem_limit(even, s.device.shared_per_block_optin);
        int bins =
            static_cast<int>(std::min<std::size_t>(optin / 36, static_cast<std::size_t>(kMaxBins)));
        while (bins < kMaxBins && thread_private_smem_bytes(BinMode::Even32, bins + 1, 32) <= optin)
            ++bins;
        while (bins > 1 && thread_private_smem_bytes(BinMode::Even32, bins, 32) > optin) --bins;
        caps.max_bins = bins;
    }
    return caps;
}

std::string refusal(const GpuEngine& engine, const HistogramRequest& r) {
    const SelectedDevice& s = engine.state();
    if (!s.error.empty()) return {};  // compute() reports the unavailability itself
    for (const Channel c : r.channels) {
        std::size_t need = 0, have = 0;
        try {
            const ThreadPrivateArgs a = channel_args(r, c);
            need = thread_private_smem_bytes(a.bins.mode, a.bins.bins, 32);
            have = thread_private_smem_limit(a, s.device.shared_per_block_optin);
        } catch (const UnsupportedError& e) {
            return e.what();  // no kernel for this value and layout
        }
        if (need > have)
            return "engine 'thread-private' keeps one 8-bit counter per bin and thread: " +
                   std::to_string(r.spec.bins) + " bins need " + std::to_string(need) +
                   " bytes of shared memory for a block of 32 threads, but " + s.device.name +
                   " allows its kernel at most " + std::to_string(have);
    }
    return {};
}

}  // namespace

Strategy thread_private_strategy() {
    return {
        .name = "thread-private",
        .summary =
            "GPU: private 8-bit counters per thread in shared memory, each thread in its own bank "
            "(no atomics, no bank conflicts, speed independent of the data), flushed block-wide "
            "into 32-bit counters every <= 255 samples; bins x threads bytes must fit into "
            "shared memory",
        .probe = thread_private_probe,
        .capabilities = capabilities,
        .refusal = refusal,
        .prepare = channel_runs(Channels{})};
}

}  // namespace hs::cuda::detail
