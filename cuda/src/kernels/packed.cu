// Strategy "packed": see packed.cuh. This file instantiates the wrapping ("packed") kernels
// and holds the planning and launch shared with "packed-sat" (whose kernels are instantiated
// in packed_sat.cu).

#include <algorithm>
#include <string>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/packed.cuh"
#include "shared_memory.hpp"

namespace hs::cuda::detail {

PackedKernelPtr packed_counting_kernel(const PackedArgs& a) {
    return packed_pick<false>(a);
}

namespace {

// Candidate block sizes; the one with the most resident threads per SM wins (ties: smaller).
constexpr int kPackedThreadCandidates[] = {256, 512, 1024};

PackedKernelPtr kernel_for(const PackedArgs& a) {
    return a.saturating ? packed_saturating_kernel(a) : packed_counting_kernel(a);
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
    p.tiles = packed_tiles(a.mode, a.bins, a.counter_bits,
                           dynamic_smem_limit(kernel, limits.shared_per_block_optin),
                           tuning.max_tile_bins);
    if (p.tiles.tiles == 0 || p.tiles.tiles > kPackedMaxTiles) return p;
    reserve_dynamic_smem(kernel, p.tiles.smem_bytes, limits.shared_per_block_optin,
                         a.saturating ? "packed-sat" : "packed");
    const auto try_threads = [&](int threads) {
        int per_sm = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                  &per_sm, reinterpret_cast<const void*>(kernel), threads, p.tiles.smem_bytes),
              "cudaOccupancyMaxActiveBlocksPerMultiprocessor(packed)");
        if (per_sm * threads > p.blocks_per_sm * p.threads) {
            p.threads = threads;
            p.blocks_per_sm = per_sm;
        }
    };
    if (tuning.threads > 0) {
        try_threads(tuning.threads);
    } else {
        for (const int threads : kPackedThreadCandidates) try_threads(threads);
    }
    return p;
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
        throw UnsupportedError("packed: " + std::to_string(args.bins) +
                               " bins do not fit into the shared memory of a block (" +
                               std::to_string(limits.shared_per_block_optin) +
                               " bytes less the kernel's static shared memory)");
    plan.tiles = best.tiles;
    plan.threads = best.threads;
    plan.blocks_per_sm = best.blocks_per_sm;

    if (tuning.blocks_per_tile > 0) {
        plan.blocks_per_tile = tuning.blocks_per_tile;
    } else {
        // Fill the device once over all tiles, but give no block nothing to do.
        const std::uint64_t pixels_per_group = args.u16 ? 8 : 16;
        const std::uint64_t groups = (args.pixels + pixels_per_group - 1) / pixels_per_group;
        const auto threads = static_cast<std::uint64_t>(plan.threads);
        const std::uint64_t useful = std::max<std::uint64_t>(1, (groups + threads - 1) / threads);
        const std::uint64_t resident = static_cast<std::uint64_t>(plan.blocks_per_sm) *
                                       static_cast<std::uint64_t>(std::max(1, limits.sm_count));
        const auto tiles = static_cast<std::uint64_t>(plan.tiles.tiles);
        const std::uint64_t per_tile = std::max<std::uint64_t>(1, (resident + tiles - 1) / tiles);
        plan.blocks_per_tile =
            static_cast<int>(std::min<std::uint64_t>(std::min(per_tile, useful), 0x7FFFFFFF));
    }
    return plan;
}

void launch_packed(PackedArgs a, const PackedPlan& plan, cudaStream_t stream) {
    a.counter_bits = plan.counter_bits;
    a.tile_bins = plan.tiles.tile_bins;
    a.tile_words = plan.tiles.tile_words;
    const PackedKernelPtr kernel = kernel_for(a);
    if (kernel == nullptr) throw UnsupportedError("packed: no kernel serves this request");
    const dim3 grid(static_cast<unsigned>(plan.blocks_per_tile),
                    static_cast<unsigned>(plan.tiles.tiles));
    kernel<<<grid, static_cast<unsigned>(plan.threads), plan.tiles.smem_bytes, stream>>>(a);
    check(cudaGetLastError(), a.saturating ? "packed-sat kernel launch" : "packed kernel launch");
}

std::string packed_probe() {
    cudaFuncAttributes attr{};
    PackedArgs counting;  // 8-bit gray, 256 bins through the table, 16-bit counters
    PackedArgs saturating = counting;
    saturating.saturating = true;
    const PackedKernelPtr kernels[] = {packed_counting_kernel(counting),
                                       packed_saturating_kernel(saturating)};
    for (const PackedKernelPtr kernel : kernels) {
        const cudaError_t e = cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel));
        if (e == cudaSuccess) continue;
        static_cast<void>(cudaGetLastError());
        if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
            e == cudaErrorUnsupportedPtxVersion)
            return "this build has no kernel code for the device (" + describe(e) +
                   "); rebuild with its architecture in CMAKE_CUDA_ARCHITECTURES";
        return "cannot load the packed kernels: " + describe(e);
    }
    return {};
}

}  // namespace hs::cuda::detail
