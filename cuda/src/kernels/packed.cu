// Strategy "packed": see packed.cuh. This file instantiates the wrapping ("packed") kernels
// and holds the planning and launch shared with "packed-sat" (whose kernels are instantiated
// in packed_sat.cu).

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/launch.hpp"
#include "kernels/packed_kernel.cuh"
#include "shared_memory.hpp"

namespace hs::cuda::detail {

PackedKernelPtr packed_counting_kernel(const PackedArgs& a) {
    return packed_pick<false>(a);
}

namespace {

// The direct kernels: 16-bit samples only.
struct DirectLayouts {
    template <typename L>
    static constexpr bool serves() {
        return std::is_same_v<typename L::Sample, std::uint16_t>;
    }
};

}  // namespace

PackedKernelPtr packed_direct_kernel_for(const PackedArgs& a) {
    const bool identity = a.bins.bins == 65536;  // span 65536 and shift 0 (direct serves a)
    PackedKernelPtr kernel = nullptr;
    visit_samples<DirectLayouts>(SampleType::U16, a.channels, [&](auto layout) {
        constexpr int C = decltype(layout)::kChannels;
        kernel = identity ? &packed_direct_kernel<C, true> : &packed_direct_kernel<C, false>;
    });
    return kernel;
}

namespace {

PackedKernelPtr kernel_for(const PackedArgs& a) {
    return a.saturating ? packed_saturating_kernel(a) : packed_counting_kernel(a);
}

// The block size the tuning forces, else the most resident of `candidates`.
BlockShape block_shape(PackedKernelPtr kernel, const PackedTuning& tuning, std::size_t smem,
                       std::initializer_list<int> candidates) {
    return tuning.threads > 0 ? most_resident(kernel, {tuning.threads}, smem, false, "packed")
                              : most_resident(kernel, candidates, smem, false, "packed");
}

// The direct path's plan when the request and the tuning allow it and its tile fits.
std::optional<PackedPlan> plan_direct(const PackedArgs& a, const DeviceLimits& limits,
                                      const PackedTuning& tuning) {
    if (!tuning.direct || (tuning.counter_bits != 0 && tuning.counter_bits != 16) ||
        (tuning.max_tile_bins != 0 && tuning.max_tile_bins < a.bins.bins) ||
        !packed_direct_serves(a))
        return std::nullopt;
    const PackedKernelPtr kernel = packed_direct_kernel_for(a);
    if (kernel == nullptr) return std::nullopt;
    PackedPlan plan;
    plan.direct = true;
    plan.counter_bits = 16;
    plan.tiles.tiles = 1;
    plan.tiles.tile_bins = a.bins.bins;
    plan.tiles.tile_words = a.bins.bins / 2;
    plan.tiles.smem_bytes = 4 * static_cast<std::size_t>(plan.tiles.tile_words);
    if (plan.tiles.smem_bytes > dynamic_smem_limit(kernel, limits.shared_per_block_optin))
        return std::nullopt;
    reserve_dynamic_smem(kernel, plan.tiles.smem_bytes, limits.shared_per_block_optin, "packed");
    // Whole blocks of 1024 threads: the lab's best (occupancy is bounded by the 128 KiB tile).
    const BlockShape shape = block_shape(kernel, tuning, plan.tiles.smem_bytes, {1024});
    if (shape.blocks_per_sm == 0) return std::nullopt;
    plan.threads = shape.threads;
    plan.blocks_per_sm = shape.blocks_per_sm;
    return plan;
}

struct WidthPlan {
    PackedTiles tiles;
    int threads = 0;
    int blocks_per_sm = 0;
};

// Tiles, block size and occupancy of one counter width (blocks_per_sm == 0: does not fit).
WidthPlan plan_width(const PackedArgs& a, const DeviceLimits& limits, const PackedTuning& tuning) {
    WidthPlan p;
    const PackedKernelPtr kernel = kernel_for(a);
    if (kernel == nullptr) throw UnsupportedError("packed: no kernel serves this request");
    p.tiles = packed_tiles(a.bins.mode, a.bins.bins, a.counter_bits,
                           dynamic_smem_limit(kernel, limits.shared_per_block_optin),
                           tuning.max_tile_bins);
    if (p.tiles.tiles == 0 || p.tiles.tiles > kPackedMaxTiles) return p;
    reserve_dynamic_smem(kernel, p.tiles.smem_bytes, limits.shared_per_block_optin,
                         a.saturating ? "packed-sat" : "packed");
    const BlockShape shape = block_shape(kernel, tuning, p.tiles.smem_bytes, {256, 512, 1024});
    p.threads = shape.threads;
    p.blocks_per_sm = shape.blocks_per_sm;
    return p;
}

// The generic kernel's plan: counter width, tiles and block shape.
PackedPlan plan_generic(const PackedArgs& args, const DeviceLimits& limits,
                        const PackedTuning& tuning) {
    PackedPlan plan;
    WidthPlan best;
    for (const int bits : packed_counter_widths(tuning, args.saturating, args.cap)) {
        PackedArgs a = args;
        a.counter_bits = bits;
        const WidthPlan p = plan_width(a, limits, tuning);
        if (p.blocks_per_sm == 0) continue;
        // Fewer tiles (fewer passes over the image), then more resident threads, then the
        // wider counters (fewer wraps, fewer bins sharing a word).
        const bool better = best.blocks_per_sm == 0 || p.tiles.tiles < best.tiles.tiles ||
                            (p.tiles.tiles == best.tiles.tiles &&
                             p.blocks_per_sm * p.threads >= best.blocks_per_sm * best.threads);
        if (better) {
            best = p;
            plan.counter_bits = bits;
        }
    }
    if (best.blocks_per_sm == 0)
        throw UnsupportedError("packed: " + std::to_string(args.bins.bins) +
                               " bins do not fit into the shared memory of a block (" +
                               std::to_string(limits.shared_per_block_optin) +
                               " bytes less the kernel's static shared memory)");
    plan.tiles = best.tiles;
    plan.threads = best.threads;
    plan.blocks_per_sm = best.blocks_per_sm;
    return plan;
}

}  // namespace

std::size_t packed_smem_limit(const PackedArgs& a, std::size_t optin) {
    const PackedKernelPtr kernel = kernel_for(a);
    return kernel == nullptr ? 0 : dynamic_smem_limit(kernel, optin);
}

PackedPlan plan_packed(const PackedArgs& args, const DeviceLimits& limits,
                       const PackedTuning& tuning) {
    if (tuning.threads < 0 || tuning.threads > 1024 || tuning.threads % 32 != 0)
        throw UsageError("packed: threads per block must be a multiple of 32 up to 1024");
    const std::optional<PackedPlan> direct = plan_direct(args, limits, tuning);
    PackedPlan plan = direct ? *direct : plan_generic(args, limits, tuning);

    if (tuning.blocks_per_tile > 0) {
        plan.blocks_per_tile = tuning.blocks_per_tile;
    } else {
        // Fill the device once over all tiles, but give no block nothing to do.
        const std::uint64_t resident = static_cast<std::uint64_t>(plan.blocks_per_sm) *
                                       static_cast<std::uint64_t>(std::max(1, limits.sm_count));
        const auto tiles = static_cast<std::uint64_t>(plan.tiles.tiles);
        plan.blocks_per_tile = static_cast<int>(std::min<std::uint64_t>(
            grid_blocks(group_count(args.pixels, args.u16),
                        static_cast<std::uint64_t>(plan.threads),
                        std::max<std::uint64_t>(1, (resident + tiles - 1) / tiles)),
            0x7FFFFFFF));
    }
    return plan;
}

void launch_packed(PackedArgs a, const PackedPlan& plan, cudaStream_t stream) {
    a.counter_bits = plan.counter_bits;
    a.tile_bins = plan.tiles.tile_bins;
    a.tile_words = plan.tiles.tile_words;
    const PackedKernelPtr kernel = plan.direct ? packed_direct_kernel_for(a) : kernel_for(a);
    if (kernel == nullptr) throw UnsupportedError("packed: no kernel serves this request");
    const dim3 grid(static_cast<unsigned>(plan.blocks_per_tile),
                    static_cast<unsigned>(plan.tiles.tiles));
    kernel<<<grid, static_cast<unsigned>(plan.threads), plan.tiles.smem_bytes, stream>>>(a);
    check(cudaGetLastError(), a.saturating ? "packed-sat kernel launch" : "packed kernel launch");
}

std::string PackedPlan::describe() const {
    return std::string(direct ? "direct, " : "") + std::to_string(counter_bits) +
           "-bit counters, " + std::to_string(tiles.tiles) +
           (tiles.tiles == 1 ? " tile" : " tiles") + " of " + std::to_string(tiles.tile_bins) +
           " bins (" + std::to_string(tiles.smem_bytes) + " B shared), " + std::to_string(threads) +
           " threads x " + std::to_string(blocks_per_tile) + " blocks per tile (" +
           std::to_string(blocks_per_sm) + "/SM)";
}

std::string packed_probe() {
    PackedArgs counting;  // 8-bit gray, 256 bins through the table, 16-bit counters
    PackedArgs saturating = counting;
    saturating.saturating = true;
    PackedArgs direct = counting;  // 16-bit gray, 65536 bins
    direct.bins.bins = 65536;
    for (const PackedKernelPtr kernel :
         {packed_counting_kernel(counting), packed_saturating_kernel(saturating),
          packed_direct_kernel_for(direct)})
        if (std::string why = probe_kernel(kernel, "the packed kernels"); !why.empty()) return why;
    return {};
}

}  // namespace hs::cuda::detail
