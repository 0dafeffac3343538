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

// Blocks of the direct kernel's clusters (see packed.cuh): two where the device launches
// thread-block clusters and the kernel was built for an architecture that has them, unless the
// tuning says otherwise.
int direct_cluster_blocks(PackedKernelPtr kernel, const PackedTuning& tuning) {
    if (tuning.cluster_blocks < 0 || tuning.cluster_blocks > 2)
        throw UsageError("packed: blocks per cluster must be 0 (chosen), 1 or 2");
    if (tuning.cluster_blocks == 1) return 1;
    int device = 0, clusters = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device),
          "cudaDeviceGetAttribute(cluster launch)");
    cudaFuncAttributes attr{};
    check(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)),
          "cudaFuncGetAttributes(packed)");
    if (clusters != 0 && attr.binaryVersion >= 90) return 2;
    if (tuning.cluster_blocks == 2)
        throw UnsupportedError("packed: this device or build launches no thread-block clusters");
    return 1;
}

// The launch configuration of `plan` for `kernel` (the cluster attribute in `attribute`).
cudaLaunchConfig_t launch_config(const PackedPlan& plan, cudaStream_t stream,
                                 cudaLaunchAttribute& attribute) {
    cudaLaunchConfig_t config = {};
    config.gridDim =
        dim3(static_cast<unsigned>(plan.blocks_per_tile), static_cast<unsigned>(plan.tiles.tiles));
    config.blockDim = dim3(static_cast<unsigned>(plan.threads));
    config.dynamicSmemBytes = plan.tiles.smem_bytes;
    config.stream = stream;
    attribute = {};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = static_cast<unsigned>(plan.cluster_blocks);
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = plan.cluster_blocks > 1 ? 1 : 0;
    return config;
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
    plan.cluster_blocks = direct_cluster_blocks(kernel, tuning);
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
        std::uint64_t resident = static_cast<std::uint64_t>(plan.blocks_per_sm) *
                                 static_cast<std::uint64_t>(std::max(1, limits.sm_count));
        if (plan.cluster_blocks > 1) {
            // No more blocks than the whole clusters that fit at once: one wave still.
            const auto k = static_cast<std::uint64_t>(plan.cluster_blocks);
            plan.blocks_per_tile = static_cast<int>(std::max(k, resident / k * k));
            cudaLaunchAttribute attribute;
            const cudaLaunchConfig_t config = launch_config(plan, nullptr, attribute);
            int clusters = 0;
            check(cudaOccupancyMaxActiveClusters(
                      &clusters, reinterpret_cast<const void*>(packed_direct_kernel_for(args)),
                      &config),
                  "cudaOccupancyMaxActiveClusters(packed)");
            resident = std::min<std::uint64_t>(resident,
                                               static_cast<std::uint64_t>(std::max(1, clusters)) *
                                                   static_cast<std::uint64_t>(plan.cluster_blocks));
        }
        const auto tiles = static_cast<std::uint64_t>(plan.tiles.tiles);
        plan.blocks_per_tile = static_cast<int>(std::min<std::uint64_t>(
            grid_blocks(group_count(args.pixels, args.u16),
                        static_cast<std::uint64_t>(plan.threads),
                        std::max<std::uint64_t>(1, (resident + tiles - 1) / tiles)),
            0x7FFFFFFF));
    }
    // Whole clusters (a block of a cluster with nothing to count folds its share all the same).
    const int k = plan.cluster_blocks;
    plan.blocks_per_tile = (plan.blocks_per_tile + k - 1) / k * k;
    return plan;
}

void launch_packed(PackedArgs a, const PackedPlan& plan, cudaStream_t stream) {
    a.counter_bits = plan.counter_bits;
    a.tile_bins = plan.tiles.tile_bins;
    a.tile_words = plan.tiles.tile_words;
    a.cluster_blocks = plan.cluster_blocks;
    const PackedKernelPtr kernel = plan.direct ? packed_direct_kernel_for(a) : kernel_for(a);
    if (kernel == nullptr) throw UnsupportedError("packed: no kernel serves this request");
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = launch_config(plan, stream, attribute);
    check(cudaLaunchKernelEx(&config, kernel, a),
          a.saturating ? "packed-sat kernel launch" : "packed kernel launch");
}

std::string PackedPlan::describe() const {
    return std::string(direct ? "direct, " : "") +
           (cluster_blocks > 1 ? "clusters of " + std::to_string(cluster_blocks) + ", " : "") +
           std::to_string(counter_bits) + "-bit counters, " + std::to_string(tiles.tiles) +
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
