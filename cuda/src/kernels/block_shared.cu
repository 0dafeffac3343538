// Strategy "block-shared": see block_shared.cuh.

#include "kernels/block_shared.cuh"

#include <algorithm>
#include <string>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/agent.cuh"
#include "kernels/common/dispatch.cuh"
#include "kernels/common/launch.hpp"
#include "shared_memory.hpp"

namespace hs::cuda::detail {

namespace {

extern __shared__ std::uint32_t block_shared_smem[];

template <typename T, int C, ValueKind V, BinMode M>
__global__ void __launch_bounds__(1024) block_shared_kernel(const BlockSharedArgs a) {
    const int bins = a.bins.bins;
    std::uint32_t* hist = block_shared_smem;
    auto* aux = reinterpret_cast<std::int32_t*>(block_shared_smem + bins);
    zero_private_counters(hist, bins);
    constexpr bool kAux = M == BinMode::Table || M == BinMode::Edges;
    if constexpr (kAux) {
        const int n = bin_aux_entries(M, bins);
        for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x))
            aux[i] = a.aux[i];
    }
    __syncthreads();

    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for_each_pixel<T, C>(a.samples, a.pixels, first, step, [&](const std::uint32_t* w, int p) {
        const int bin = bin_of<M>(group_value<T, C, V>(w, p, a.value), a.bins, aux);
        if (bin >= 0) atomicAdd(&hist[bin], 1u);
    });
    __syncthreads();

    merge_private_counters(hist, bins, a.counts);
}

struct Family : KernelFamily<BlockSharedArgs,
                             value_kind_bit(ValueKind::Plain) | value_kind_bit(ValueKind::Luma),
                             kTableModes, kWideModes> {
    template <typename T, int C, ValueKind V, BinMode M>
    static Pointer get() {
        return &block_shared_kernel<T, C, V, M>;
    }
};

Family::Pointer pick(const BlockSharedArgs& a) {
    return pick_kernel<Family>(a.u16, a.channels, a.value.kind, a.bins.mode,
                               "engine 'block-shared'");
}

}  // namespace

std::string BlockSharedTuning::describe() const {
    return std::to_string(threads) + " threads x " + std::to_string(blocks) + " blocks (" +
           std::to_string(blocks_per_sm) + "/SM), " + std::to_string(smem_bytes) +
           " B shared per block";
}

std::size_t block_shared_smem_limit(const BlockSharedArgs& a, std::size_t optin) {
    return dynamic_smem_limit(pick(a), optin);
}

BlockSharedTuning plan_block_shared(const BlockSharedArgs& a, const DeviceLimits& limits,
                                    const BlockSharedPolicy& policy) {
    const Family::Pointer kernel = pick(a);
    BlockSharedTuning t;
    t.smem_bytes = block_shared_smem_bytes(a.bins.mode, a.bins.bins);
    reserve_dynamic_smem(kernel, t.smem_bytes, limits.shared_per_block_optin, "block-shared");
    // The policy's block size keeping the most threads resident (ties: the first, smaller).
    BlockShape shape;
    for (const int threads : policy.threads) {
        const BlockShape s = most_resident(kernel, {threads}, t.smem_bytes, false, "block-shared");
        if (s.blocks_per_sm * s.threads > shape.blocks_per_sm * shape.threads) shape = s;
    }
    if (shape.threads == 0)
        throw DeviceError("block-shared: no block fits on an SM with " +
                          std::to_string(t.smem_bytes) + " bytes of shared memory");
    t.threads = shape.threads;
    t.blocks_per_sm = shape.blocks_per_sm;
    const std::uint64_t resident = static_cast<std::uint64_t>(t.blocks_per_sm) *
                                   static_cast<std::uint64_t>(std::max(1, limits.sm_count));
    // Enough blocks that none counts more than kMaxPixelsPerBlock pixels (a block handles at
    // most ceil(groups / (blocks * threads)) groups per thread).
    const std::uint64_t exact = (a.pixels + kMaxPixelsPerBlock - 1) / kMaxPixelsPerBlock + 1;
    t.blocks = static_cast<int>(
        std::min<std::uint64_t>(grid_blocks(group_count(a.pixels, a.u16),
                                            static_cast<std::uint64_t>(t.threads), resident, exact),
                                0x7FFFFFFF));
    return t;
}

void launch_block_shared(const BlockSharedArgs& a, const BlockSharedTuning& t,
                         cudaStream_t stream) {
    pick(a)<<<static_cast<unsigned>(t.blocks), static_cast<unsigned>(t.threads), t.smem_bytes,
              stream>>>(a);
    check(cudaGetLastError(), "block-shared kernel launch");
}

std::string block_shared_probe() {
    return probe_kernel(&block_shared_kernel<std::uint8_t, 1, ValueKind::Plain, BinMode::Table>,
                        "the block-shared kernel");
}

}  // namespace hs::cuda::detail
