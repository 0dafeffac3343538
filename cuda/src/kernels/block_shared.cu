// Strategy "block-shared": see block_shared.cuh.

#include "kernels/block_shared.cuh"
#include "shared_memory.hpp"

#include <algorithm>
#include <string>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"

namespace hs::cuda::detail {

namespace {

// Sample `j` of a group held as 32-bit little-endian words; `j` is a compile-time constant
// after unrolling, so this is a bit-field extract from a register.
template <typename T>
__device__ __forceinline__ std::uint32_t extract(const std::uint32_t* words, int j) {
    if constexpr (sizeof(T) == 1)
        return (words[j >> 2] >> ((j & 3) * 8)) & 0xFFu;
    else
        return (words[j >> 1] >> ((j & 1) * 16)) & 0xFFFFu;
}

// Bin of value `v`, or -1 when it lies outside the histogram.
template <BinMode M>
__device__ __forceinline__ int bin_of(std::uint32_t v, const BlockSharedArgs& a,
                                      const std::int32_t* aux) {
    if constexpr (M == BinMode::Table) {
        return aux[v];
    } else if constexpr (M == BinMode::Even32) {
        if (v < a.lo || v >= a.hi) return -1;
        // Exact: the host checked that (v - lower) * bins < 2^32 and upper - lower < 2^32;
        // v - lower is formed modulo 2^32, which is exact because it lies in [0, 2^32).
        const std::uint32_t off = v - static_cast<std::uint32_t>(a.lower);
        return static_cast<int>(off * static_cast<std::uint32_t>(a.bins) /
                                static_cast<std::uint32_t>(a.width));
    } else if constexpr (M == BinMode::Even64) {
        if (v < a.lo || v >= a.hi) return -1;
        const auto off = static_cast<std::uint64_t>(static_cast<std::int64_t>(v) - a.lower);
        return static_cast<int>(off * static_cast<std::uint64_t>(a.bins) / a.width);
    } else {
        // Thresholds t_0 <= ... <= t_bins; find i with t_i <= v < t_{i+1}.
        const auto x = static_cast<std::int32_t>(v);
        if (x < aux[0] || x >= aux[a.bins]) return -1;
        int lo = 0, hi = a.bins;  // invariant: t_lo <= x < t_hi
        while (hi - lo > 1) {
            const int mid = (lo + hi) >> 1;
            if (aux[mid] <= x)
                lo = mid;
            else
                hi = mid;
        }
        return lo;
    }
}

extern __shared__ std::uint32_t block_shared_smem[];

template <typename T, int C, bool Luma, BinMode M>
__global__ void __launch_bounds__(1024) block_shared_kernel(const BlockSharedArgs a) {
    constexpr int kPixels = 16 / static_cast<int>(sizeof(T));  // pixels per group
    constexpr int kWords = 4 * C;                              // 32-bit words per group

    std::uint32_t* hist = block_shared_smem;
    auto* aux = reinterpret_cast<std::int32_t*>(block_shared_smem + a.bins);
    for (int i = static_cast<int>(threadIdx.x); i < a.bins; i += static_cast<int>(blockDim.x))
        hist[i] = 0;
    if constexpr (M == BinMode::Table || M == BinMode::Edges) {
        const int n = block_shared_aux_entries(M, a.bins);
        for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x))
            aux[i] = a.aux[i];
    }
    __syncthreads();

    const auto* in = static_cast<const uint4*>(a.samples);
    const std::uint64_t groups = (a.pixels + kPixels - 1) / kPixels;
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         g < groups; g += step) {
        std::uint32_t w[kWords];
#pragma unroll
        for (int k = 0; k < C; ++k) {
            const uint4 v = __ldg(in + g * C + k);
            w[4 * k + 0] = v.x;
            w[4 * k + 1] = v.y;
            w[4 * k + 2] = v.z;
            w[4 * k + 3] = v.w;
        }
        const std::uint64_t left = a.pixels - g * kPixels;
        const int valid = left < kPixels ? static_cast<int>(left) : kPixels;
#pragma unroll
        for (int p = 0; p < kPixels; ++p) {
            if (p >= valid) break;
            std::uint32_t v;
            if constexpr (Luma) {
                v = hs::luma(a.weights, extract<T>(w, p * C), extract<T>(w, p * C + 1),
                             extract<T>(w, p * C + 2));
            } else {
                v = extract<T>(w, p * C);
#pragma unroll
                for (int c = 1; c < C; ++c)
                    if (a.offset == c) v = extract<T>(w, p * C + c);
            }
            const int bin = bin_of<M>(v, a, aux);
            if (bin >= 0) atomicAdd(&hist[bin], 1u);
        }
    }
    __syncthreads();

    for (int i = static_cast<int>(threadIdx.x); i < a.bins; i += static_cast<int>(blockDim.x))
        if (const std::uint32_t c = hist[i]; c != 0)
            atomicAdd(&a.counts[i], static_cast<unsigned long long>(c));
}

using Kernel = void (*)(BlockSharedArgs);

template <typename T, int C, bool Luma>
Kernel pick_mode(BinMode mode) {
    if constexpr (sizeof(T) == 1) {
        // 8-bit samples always use the table (the engine builds it for every spec).
        return &block_shared_kernel<T, C, Luma, BinMode::Table>;
    } else {
        switch (mode) {
            case BinMode::Even32:
                return &block_shared_kernel<T, C, Luma, BinMode::Even32>;
            case BinMode::Even64:
                return &block_shared_kernel<T, C, Luma, BinMode::Even64>;
            case BinMode::Edges:
                return &block_shared_kernel<T, C, Luma, BinMode::Edges>;
            case BinMode::Table:
                break;
        }
        throw UnsupportedError("block-shared: a bin table serves only 8-bit samples");
    }
}

template <typename T>
Kernel pick_layout(const BlockSharedArgs& a) {
    if (a.luma) {
        if (a.channels == 3) return pick_mode<T, 3, true>(a.mode);
        if (a.channels == 4) return pick_mode<T, 4, true>(a.mode);
        throw UnsupportedError("block-shared: luma needs 3 or 4 channels");
    }
    switch (a.channels) {
        case 1:
            return pick_mode<T, 1, false>(a.mode);
        case 3:
            return pick_mode<T, 3, false>(a.mode);
        case 4:
            return pick_mode<T, 4, false>(a.mode);
        default:
            throw UnsupportedError("block-shared: images must have 1, 3 or 4 channels");
    }
}

Kernel pick(const BlockSharedArgs& a) {
    if ((a.mode == BinMode::Table) != !a.u16)
        throw UnsupportedError("block-shared: 8-bit samples use the bin table, 16-bit never");
    return a.u16 ? pick_layout<std::uint16_t>(a) : pick_layout<std::uint8_t>(a);
}

}  // namespace

std::size_t block_shared_smem_limit(const BlockSharedArgs& a, std::size_t optin) {
    return dynamic_smem_limit(pick(a), optin);
}

BlockSharedPlan plan_block_shared(const BlockSharedArgs& a, const DeviceLimits& limits) {
    const Kernel kernel = pick(a);
    BlockSharedPlan plan;
    plan.smem_bytes = block_shared_smem_bytes(a.mode, a.bins);
    reserve_dynamic_smem(kernel, plan.smem_bytes, limits.shared_per_block_optin, "block-shared");

    for (const int threads : kBlockSharedThreadCandidates) {
        int per_sm = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                  &per_sm, reinterpret_cast<const void*>(kernel), threads, plan.smem_bytes),
              "cudaOccupancyMaxActiveBlocksPerMultiprocessor(block-shared)");
        if (per_sm * threads > plan.blocks_per_sm * plan.threads) {
            plan.threads = threads;
            plan.blocks_per_sm = per_sm;
        }
    }
    if (plan.blocks_per_sm == 0)
        throw DeviceError("block-shared: no block fits on an SM with " +
                          std::to_string(plan.smem_bytes) + " bytes of shared memory");

    const std::uint64_t pixels_per_group = a.u16 ? 8 : 16;
    const std::uint64_t groups = (a.pixels + pixels_per_group - 1) / pixels_per_group;
    const std::uint64_t threads = static_cast<std::uint64_t>(plan.threads);
    const std::uint64_t useful = std::max<std::uint64_t>(1, (groups + threads - 1) / threads);
    const std::uint64_t resident = static_cast<std::uint64_t>(plan.blocks_per_sm) *
                                   static_cast<std::uint64_t>(std::max(1, limits.sm_count));
    // Enough blocks that none counts more than kMaxPixelsPerBlock pixels (a block handles at
    // most ceil(groups / (blocks * threads)) groups per thread).
    const std::uint64_t exact = (a.pixels + kMaxPixelsPerBlock - 1) / kMaxPixelsPerBlock + 1;
    const std::uint64_t blocks = std::max(std::min(resident, useful), std::min(exact, useful));
    plan.blocks = static_cast<int>(std::min<std::uint64_t>(blocks, 0x7FFFFFFF));
    return plan;
}

void launch_block_shared(const BlockSharedArgs& a, const DeviceLimits& limits,
                         cudaStream_t stream) {
    const BlockSharedPlan plan = plan_block_shared(a, limits);
    const Kernel kernel = pick(a);
    kernel<<<static_cast<unsigned>(plan.blocks), static_cast<unsigned>(plan.threads),
             plan.smem_bytes, stream>>>(a);
    check(cudaGetLastError(), "block-shared kernel launch");
}

std::string block_shared_probe() {
    cudaFuncAttributes attr{};
    const cudaError_t e = cudaFuncGetAttributes(
        &attr, reinterpret_cast<const void*>(
                   &block_shared_kernel<std::uint8_t, 1, false, BinMode::Table>));
    if (e == cudaSuccess) return {};
    static_cast<void>(cudaGetLastError());
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
        e == cudaErrorUnsupportedPtxVersion)
        return "this build has no kernel code for the device (" + describe(e) +
               "); rebuild with its architecture in CMAKE_CUDA_ARCHITECTURES";
    return "cannot load the block-shared kernel: " + describe(e);
}

}  // namespace hs::cuda::detail
