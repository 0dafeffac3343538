// Strategy "thread-private": see thread_private.cuh.

#include "kernels/thread_private.cuh"
#include "shared_memory.hpp"

#include <algorithm>
#include <string>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"

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

template <typename T, int C, TpValue V, TpBinMode B>
__global__ void __launch_bounds__(1024) thread_private_kernel(const ThreadPrivateArgs a) {
    constexpr int kPixels = 16 / static_cast<int>(sizeof(T));  // pixels per group
    constexpr int kWords = 4 * C;                              // 32-bit words per group
    constexpr int kRound = thread_private_round(sizeof(T) == 2);

    const auto threads = static_cast<int>(blockDim.x);
    const auto tid = static_cast<int>(threadIdx.x);
    const int rows = (a.bins + 3) >> 2;
    std::uint32_t* priv = thread_private_smem;
    std::uint32_t* block = priv + rows * threads;
    auto* aux = reinterpret_cast<std::int32_t*>(block + a.bins);
    for (int i = tid; i < rows * threads; i += threads) priv[i] = 0;
    for (int i = tid; i < a.bins; i += threads) block[i] = 0;
    if constexpr (B == TpBinMode::Table || B == TpBinMode::Edges) {
        const int n = thread_private_aux_entries(B, a.bins);
        for (int i = tid; i < n; i += threads) aux[i] = a.aux[i];
    }
    __syncthreads();

    const auto* in = static_cast<const uint4*>(a.samples);
    const std::uint64_t groups = (a.pixels + kPixels - 1) / kPixels;
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * a.groups_per_block;
    const std::uint64_t end = min(groups, first + a.groups_per_block);
    const auto round = static_cast<std::uint64_t>(kRound) * static_cast<std::uint64_t>(threads);
    std::uint32_t* mine = priv + tid;  // this thread's column
    // Trip count uniform over the block: every thread reaches each flush.
    for (std::uint64_t base = first; base < end; base += round) {
        for (int k = 0; k < kRound; ++k) {
            const std::uint64_t g = base + static_cast<std::uint64_t>(k * threads + tid);
            if (g >= end) break;
            std::uint32_t w[kWords];
#pragma unroll
            for (int c = 0; c < C; ++c) {
                const uint4 v = __ldg(in + g * C + c);
                w[4 * c + 0] = v.x;
                w[4 * c + 1] = v.y;
                w[4 * c + 2] = v.z;
                w[4 * c + 3] = v.w;
            }
            const std::uint64_t left = a.pixels - g * kPixels;
            const int valid = left < kPixels ? static_cast<int>(left) : kPixels;
#pragma unroll
            for (int p = 0; p < kPixels; ++p) {
                if (p >= valid) break;
                const int bin = tp::bin_of<B>(tp::value<T, C, V>(w, p, a), a, aux);
                if (bin >= 0) mine[tp::counter_word(bin, 0, threads)] += tp::counter_one(bin);
            }
        }
        __syncthreads();
        flush(priv, block, rows, a.bins);
        __syncthreads();
    }

    for (int i = tid; i < a.bins; i += threads)
        if (const std::uint32_t c = block[i]; c != 0)
            atomicAdd(&a.counts[i], static_cast<unsigned long long>(c));
}

using Kernel = void (*)(ThreadPrivateArgs);

template <typename T, int C, TpValue V>
Kernel pick_mode(TpBinMode mode) {
    if constexpr (sizeof(T) == 1 && V != TpValue::Joint) {
        if (mode == TpBinMode::Table) return &thread_private_kernel<T, C, V, TpBinMode::Table>;
        throw UnsupportedError("thread-private: 8-bit values use the bin table");
    } else {
        switch (mode) {
            case TpBinMode::EvenDiv:
                return &thread_private_kernel<T, C, V, TpBinMode::EvenDiv>;
            case TpBinMode::Even32:
                return &thread_private_kernel<T, C, V, TpBinMode::Even32>;
            case TpBinMode::Even64:
                return &thread_private_kernel<T, C, V, TpBinMode::Even64>;
            case TpBinMode::Edges:
                return &thread_private_kernel<T, C, V, TpBinMode::Edges>;
            case TpBinMode::Table:
                break;
        }
        throw UnsupportedError(
            "thread-private: a bin table serves only 8-bit plain or luma values");
    }
}

template <typename T>
Kernel pick_layout(const ThreadPrivateArgs& a) {
    if (a.value == TpValue::Joint) {
        if constexpr (sizeof(T) == 1) {
            if (a.channels == 3) return pick_mode<T, 3, TpValue::Joint>(a.mode);
            if (a.channels == 4) return pick_mode<T, 4, TpValue::Joint>(a.mode);
            throw UnsupportedError("thread-private: joint colour needs 3 or 4 channels");
        } else {
            throw UnsupportedError("thread-private: joint colour needs 8-bit samples");
        }
    }
    if (a.value == TpValue::Luma) {
        if (a.channels == 3) return pick_mode<T, 3, TpValue::Luma>(a.mode);
        if (a.channels == 4) return pick_mode<T, 4, TpValue::Luma>(a.mode);
        throw UnsupportedError("thread-private: luma needs 3 or 4 channels");
    }
    switch (a.channels) {
        case 1:
            return pick_mode<T, 1, TpValue::Plain>(a.mode);
        case 3:
            return pick_mode<T, 3, TpValue::Plain>(a.mode);
        case 4:
            return pick_mode<T, 4, TpValue::Plain>(a.mode);
        default:
            throw UnsupportedError("thread-private: images must have 1, 3 or 4 channels");
    }
}

Kernel pick(const ThreadPrivateArgs& a) {
    return a.u16 ? pick_layout<std::uint16_t>(a) : pick_layout<std::uint8_t>(a);
}

}  // namespace

std::string ThreadPrivatePlan::describe() const {
    return std::to_string(threads) + " threads x " + std::to_string(blocks) + " blocks (" +
           std::to_string(blocks_per_sm) + "/SM), " + std::to_string(smem_bytes) + " B shared, " +
           std::to_string(groups_per_block) + " groups per block";
}

std::size_t thread_private_smem_limit(const ThreadPrivateArgs& a, std::size_t optin) {
    return dynamic_smem_limit(pick(a), optin);
}

ThreadPrivatePlan plan_thread_private(const ThreadPrivateArgs& a, const DeviceLimits& limits) {
    const Kernel kernel = pick(a);
    const std::size_t optin = limits.shared_per_block_optin;
    const std::size_t limit = dynamic_smem_limit(kernel, optin);
    const std::size_t smallest = thread_private_smem_bytes(a.mode, a.bins, 32);
    if (smallest > limit)
        throw UnsupportedError(
            "thread-private: " + std::to_string(a.bins) + " bins need " + std::to_string(smallest) +
            " bytes of shared memory for 32 threads, the device allows " + std::to_string(limit));
    // Raised once for the largest block that fits; smaller blocks need no more.
    reserve_dynamic_smem(kernel, std::min(limit, thread_private_smem_bytes(a.mode, a.bins, 1024)),
                         optin, "thread-private");
    ThreadPrivatePlan plan;
    for (int threads = 32; threads <= 1024; threads += 32) {
        const std::size_t smem = thread_private_smem_bytes(a.mode, a.bins, threads);
        if (smem > limit) break;
        int per_sm = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                  &per_sm, reinterpret_cast<const void*>(kernel), threads, smem),
              "cudaOccupancyMaxActiveBlocksPerMultiprocessor(thread-private)");
        if (per_sm > 0 && per_sm * threads >= plan.blocks_per_sm * plan.threads) {
            plan.threads = threads;
            plan.blocks_per_sm = per_sm;
            plan.smem_bytes = smem;
        }
    }
    if (plan.blocks_per_sm == 0)
        throw DeviceError("thread-private: no block of " + std::to_string(a.bins) +
                          " bins fits on an SM");

    thread_private_grid(a.pixels, a.u16, limits.sm_count, plan);
    return plan;
}

void thread_private_grid(std::uint64_t pixels, bool u16, int sm_count, ThreadPrivatePlan& plan) {
    const auto ppg = static_cast<std::uint64_t>(thread_private_pixels_per_group(u16));
    const std::uint64_t groups = std::max<std::uint64_t>(1, (pixels + ppg - 1) / ppg);
    const auto threads = static_cast<std::uint64_t>(plan.threads);
    const std::uint64_t resident = static_cast<std::uint64_t>(plan.blocks_per_sm) *
                                   static_cast<std::uint64_t>(std::max(1, sm_count));
    // One wave of resident blocks, no more blocks than give each thread a group, and enough
    // that no block counts more than kThreadPrivateMaxPixelsPerBlock pixels.
    const std::uint64_t useful = (groups + threads - 1) / threads;
    const std::uint64_t max_groups = kThreadPrivateMaxPixelsPerBlock / ppg;
    const std::uint64_t exact = (groups + max_groups - 1) / max_groups;
    std::uint64_t blocks = std::max(std::min(resident, useful), exact);
    plan.groups_per_block = (groups + blocks - 1) / blocks;
    blocks = (groups + plan.groups_per_block - 1) / plan.groups_per_block;
    if (blocks > 0x7FFFFFFFull)
        throw UnsupportedError("thread-private: " + std::to_string(blocks) +
                               " blocks exceed the grid limit");
    plan.blocks = static_cast<int>(blocks);
}

void launch_thread_private(const ThreadPrivateArgs& a, const ThreadPrivatePlan& plan,
                           cudaStream_t stream) {
    const Kernel kernel = pick(a);
    ThreadPrivateArgs args = a;
    args.groups_per_block = plan.groups_per_block;
    kernel<<<static_cast<unsigned>(plan.blocks), static_cast<unsigned>(plan.threads),
             plan.smem_bytes, stream>>>(args);
    check(cudaGetLastError(), "thread-private kernel launch");
}

std::string thread_private_probe() {
    cudaFuncAttributes attr{};
    const cudaError_t e = cudaFuncGetAttributes(
        &attr, reinterpret_cast<const void*>(
                   &thread_private_kernel<std::uint8_t, 1, TpValue::Plain, TpBinMode::Table>));
    if (e == cudaSuccess) return {};
    static_cast<void>(cudaGetLastError());
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
        e == cudaErrorUnsupportedPtxVersion)
        return "this build has no kernel code for the device (" + describe(e) +
               "); rebuild with its architecture in CMAKE_CUDA_ARCHITECTURES";
    return "cannot load the thread-private kernel: " + describe(e);
}

}  // namespace hs::cuda::detail
