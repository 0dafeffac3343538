// Strategy "thread-private": see thread_private.cuh.

#include "kernels/thread_private.cuh"
#include "shared_memory.hpp"

#include <algorithm>
#include <string>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/agent.cuh"
#include "kernels/common/dispatch.cuh"
#include "kernels/common/launch.hpp"

namespace hs::cuda::detail {

namespace {

extern __shared__ std::uint32_t thread_private_smem[];

// Adds the 8-bit counters of all threads into the block's 32-bit counters and zeroes them.
// Row j (T words, bins 4j .. 4j+3) belongs to warp j % warps; lane l sums words l, l + 32, ...
// of the row byte-wise in two packed accumulators (bytes 0 and 2, bytes 1 and 3): at most
// T / 32 <= 32 words of bytes <= 255 each, i.e. <= 8160 per 16-bit half. Shuffles then sum the
// 32 lanes in 32-bit registers.
__device__ __forceinline__ void flush(std::uint32_t* priv, std::uint32_t* block, int rows,
                                      int bins) {
    const auto threads = static_cast<int>(blockDim.x);
    const int warp = static_cast<int>(threadIdx.x >> 5);
    const int lane = static_cast<int>(threadIdx.x & 31u);
    const int warps = threads >> 5;
    for (int j = warp; j < rows; j += warps) {
        std::uint32_t* row = priv + j * threads;
        std::uint32_t even = 0, odd = 0;
        for (int i = lane; i < threads; i += 32) {
            const std::uint32_t w = row[i];
            row[i] = 0;
            even += w & 0x00FF00FFu;
            odd += (w >> 8) & 0x00FF00FFu;
        }
        std::uint32_t s0 = even & 0xFFFFu, s1 = odd & 0xFFFFu, s2 = even >> 16, s3 = odd >> 16;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            s0 += __shfl_xor_sync(0xFFFFFFFFu, s0, o);
            s1 += __shfl_xor_sync(0xFFFFFFFFu, s1, o);
            s2 += __shfl_xor_sync(0xFFFFFFFFu, s2, o);
            s3 += __shfl_xor_sync(0xFFFFFFFFu, s3, o);
        }
        const int bin = 4 * j + lane;
        if (lane < 4 && bin < bins)
            block[bin] += lane == 0 ? s0 : lane == 1 ? s1 : lane == 2 ? s2 : s3;
    }
}

// Word of thread `t`'s counter for `bin` in a block of `threads` threads, and the increment
// that adds one to that counter's byte.
__device__ __forceinline__ int counter_word(int bin, int t, int threads) {
    return (bin >> 2) * threads + t;
}
__device__ __forceinline__ std::uint32_t counter_one(int bin) {
    return 1u << ((bin & 3) * 8);
}

template <typename T, int C, ValueKind V, BinMode M>
__global__ void __launch_bounds__(1024) thread_private_kernel(const ThreadPrivateArgs a) {
    constexpr int kRound = thread_private_round(sizeof(T) == 2);

    const int bins = a.bins.bins;
    const auto threads = static_cast<int>(blockDim.x);
    const auto tid = static_cast<int>(threadIdx.x);
    const int rows = (bins + 3) >> 2;
    std::uint32_t* priv = thread_private_smem;
    std::uint32_t* block = priv + rows * threads;
    auto* aux = reinterpret_cast<std::int32_t*>(block + bins);
    for (int i = tid; i < rows * threads; i += threads) priv[i] = 0;
    zero_private_counters(block, bins);
    if constexpr (M == BinMode::Table || M == BinMode::Edges) {
        const int n = bin_aux_entries(M, bins);
        for (int i = tid; i < n; i += threads) aux[i] = a.aux[i];
    }
    __syncthreads();

    const auto* in = static_cast<const uint4*>(a.samples);
    const std::uint64_t groups = group_count(a.pixels, sizeof(T) == 2);
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * a.groups_per_block;
    const std::uint64_t end = min(groups, first + a.groups_per_block);
    const auto round = static_cast<std::uint64_t>(kRound) * static_cast<std::uint64_t>(threads);
    std::uint32_t* mine = priv + tid;  // this thread's column
    // Trip count uniform over the block: every thread reaches each flush.
    for (std::uint64_t base = first; base < end; base += round) {
        for (int k = 0; k < kRound; ++k) {
            const std::uint64_t g = base + static_cast<std::uint64_t>(k * threads + tid);
            if (g >= end) break;
            std::uint32_t w[4 * C];
            load_group<C>(in, g, w);
            const int valid = group_pixels<T>(a.pixels, g);
#pragma unroll
            for (int p = 0; p < kPixelsPerGroup<T>; ++p) {
                if (p >= valid) break;
                const int bin = bin_of<M>(group_value<T, C, V>(w, p, a.value), a.bins, aux);
                if (bin >= 0) mine[counter_word(bin, 0, threads)] += counter_one(bin);
            }
        }
        __syncthreads();
        flush(priv, block, rows, bins);
        __syncthreads();
    }

    merge_private_counters(block, bins, a.counts);
}

struct Family : KernelFamily<ThreadPrivateArgs, kAllValueKinds, kTableModes, kWideModes> {
    template <typename T, int C, ValueKind V, BinMode M>
    static Pointer get() {
        return &thread_private_kernel<T, C, V, M>;
    }
};

Family::Pointer pick(const ThreadPrivateArgs& a) {
    return pick_kernel<Family>(a.u16, a.channels, a.value.kind, a.bins.mode,
                               "engine 'thread-private'");
}

}  // namespace

std::string ThreadPrivateTuning::describe() const {
    return std::to_string(threads) + " threads x " + std::to_string(blocks) + " blocks (" +
           std::to_string(blocks_per_sm) + "/SM), " + std::to_string(smem_bytes) + " B shared, " +
           std::to_string(groups_per_block) + " groups per block";
}

std::size_t thread_private_smem_limit(const ThreadPrivateArgs& a, std::size_t optin) {
    return dynamic_smem_limit(pick(a), optin);
}

ThreadPrivateTuning plan_thread_private(const ThreadPrivateArgs& a, const DeviceLimits& limits) {
    const Family::Pointer kernel = pick(a);
    const std::size_t optin = limits.shared_per_block_optin;
    const std::size_t limit = dynamic_smem_limit(kernel, optin);
    const BinMode mode = a.bins.mode;
    const int bins = a.bins.bins;
    const std::size_t smallest = thread_private_smem_bytes(mode, bins, 32);
    if (smallest > limit)
        throw UnsupportedError(
            "thread-private: " + std::to_string(bins) + " bins need " + std::to_string(smallest) +
            " bytes of shared memory for 32 threads, the device allows " + std::to_string(limit));
    // Raised once for the largest block that fits; smaller blocks need no more.
    reserve_dynamic_smem(kernel, std::min(limit, thread_private_smem_bytes(mode, bins, 1024)),
                         optin, "thread-private");
    ThreadPrivateTuning plan;
    for (int threads = 32; threads <= 1024; threads += 32) {
        const std::size_t smem = thread_private_smem_bytes(mode, bins, threads);
        if (smem > limit) break;
        const BlockShape shape = most_resident(kernel, {threads}, smem, true, "thread-private");
        if (shape.threads > 0 &&
            shape.blocks_per_sm * threads >= plan.blocks_per_sm * plan.threads) {
            plan.threads = threads;
            plan.blocks_per_sm = shape.blocks_per_sm;
            plan.smem_bytes = smem;
        }
    }
    if (plan.blocks_per_sm == 0)
        throw DeviceError("thread-private: no block of " + std::to_string(bins) +
                          " bins fits on an SM");

    thread_private_grid(a.pixels, a.u16, limits.sm_count, plan);
    return plan;
}

void thread_private_grid(std::uint64_t pixels, bool u16, int sm_count, ThreadPrivateTuning& plan) {
    const std::uint64_t groups = std::max<std::uint64_t>(1, group_count(pixels, u16));
    const std::uint64_t resident = static_cast<std::uint64_t>(plan.blocks_per_sm) *
                                   static_cast<std::uint64_t>(std::max(1, sm_count));
    // Enough blocks that no block counts more than kThreadPrivateMaxPixelsPerBlock pixels.
    const std::uint64_t max_groups = kThreadPrivateMaxPixelsPerBlock / (u16 ? 8 : 16);
    std::uint64_t blocks = grid_blocks(groups, static_cast<std::uint64_t>(plan.threads), resident,
                                       (groups + max_groups - 1) / max_groups);
    plan.groups_per_block = (groups + blocks - 1) / blocks;
    blocks = (groups + plan.groups_per_block - 1) / plan.groups_per_block;
    if (blocks > 0x7FFFFFFFull)
        throw UnsupportedError("thread-private: " + std::to_string(blocks) +
                               " blocks exceed the grid limit");
    plan.blocks = static_cast<int>(blocks);
}

void launch_thread_private(const ThreadPrivateArgs& a, const ThreadPrivateTuning& plan,
                           cudaStream_t stream) {
    ThreadPrivateArgs args = a;
    args.groups_per_block = plan.groups_per_block;
    pick(a)<<<static_cast<unsigned>(plan.blocks), static_cast<unsigned>(plan.threads),
              plan.smem_bytes, stream>>>(args);
    check(cudaGetLastError(), "thread-private kernel launch");
}

std::string thread_private_probe() {
    return probe_kernel(&thread_private_kernel<std::uint8_t, 1, ValueKind::Plain, BinMode::Table>,
                        "the thread-private kernel");
}

}  // namespace hs::cuda::detail
