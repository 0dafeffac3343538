// Strategy "global-atomic": see global_atomic.cuh.

#include "kernels/global_atomic.cuh"

#include <algorithm>
#include <string>

#include "cuda_check.hpp"
#include "histoscope/core/channels.hpp"
#include "histoscope/core/error.hpp"

namespace hs::cuda::detail {

namespace {

// Sample `j` of a group held as 32-bit little-endian words (`j` is a compile-time constant
// after unrolling).
template <typename T>
__device__ __forceinline__ std::uint32_t ga_extract(const std::uint32_t* words, int j) {
    if constexpr (sizeof(T) == 1)
        return (words[j >> 2] >> ((j & 3) * 8)) & 0xFFu;
    else
        return (words[j >> 1] >> ((j & 1) * 16)) & 0xFFFFu;
}

// Bin of `v` under the request's spec, or -1 when it lies outside the histogram.
template <GaBinMode M>
__device__ __forceinline__ int ga_bin(std::uint32_t v, const GlobalAtomicArgs& a) {
    if constexpr (M == GaBinMode::Even) {
        const auto x = static_cast<std::int64_t>(v);
        if (x < a.lower || x >= a.upper) return -1;
        // (x - lower) < 2^32 + 2^31 and bins <= 2^24: the product fits in 64 bits.
        const auto off = static_cast<std::uint64_t>(x - a.lower);
        return static_cast<int>(off * static_cast<std::uint64_t>(a.bins) /
                                static_cast<std::uint64_t>(a.upper - a.lower));
    } else {
        // Thresholds t_0 <= ... <= t_bins; the bin is the i with t_i <= x < t_{i+1}.
        const auto x = static_cast<std::int32_t>(v);
        const std::int32_t* t = a.thresholds;
        if (x < __ldg(t) || x >= __ldg(t + a.bins)) return -1;
        int lo = 0, hi = a.bins;  // invariant: t_lo <= x < t_hi
        while (hi - lo > 1) {
            const int mid = (lo + hi) >> 1;
            if (__ldg(t + mid) <= x)
                lo = mid;
            else
                hi = mid;
        }
        return lo;
    }
}

template <typename T, int C, GaBinMode M>
__global__ void __launch_bounds__(kGlobalAtomicThreads)
    global_atomic_kernel(const GlobalAtomicArgs a) {
    constexpr int kPixels = 16 / static_cast<int>(sizeof(T));  // pixels per group
    constexpr int kWords = 4 * C;                              // 32-bit words per group

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
            std::uint32_t s[C];
#pragma unroll
            for (int c = 0; c < C; ++c) s[c] = ga_extract<T>(w, p * C + c);
            for (int o = 0; o < a.outputs; ++o) {
                const GlobalAtomicOutput& out = a.out[o];
                std::uint32_t v = s[0];
                if constexpr (C >= 3) {
                    if (out.value == GaValue::Luma601)
                        v = hs::luma(kLuma601, s[0], s[1], s[2]);
                    else if (out.value == GaValue::Luma709)
                        v = hs::luma(kLuma709, s[0], s[1], s[2]);
                    else if (out.value == GaValue::Joint)
                        v = hs::joint_value(s[0], s[1], s[2]);
                }
                if (out.value == GaValue::Plain) {
#pragma unroll
                    for (int c = 1; c < C; ++c)
                        if (out.offset == c) v = s[c];
                }
                const int bin = ga_bin<M>(v, a);
                if (bin >= 0) atomicAdd(out.counts + bin, 1ull);
            }
        }
    }
}

using Kernel = void (*)(GlobalAtomicArgs);

template <typename T, int C>
Kernel pick_mode(GaBinMode mode) {
    return mode == GaBinMode::Even ? &global_atomic_kernel<T, C, GaBinMode::Even>
                                   : &global_atomic_kernel<T, C, GaBinMode::Edges>;
}

template <typename T>
Kernel pick_layout(const GlobalAtomicArgs& a) {
    switch (a.channels) {
        case 1:
            return pick_mode<T, 1>(a.mode);
        case 3:
            return pick_mode<T, 3>(a.mode);
        case 4:
            return pick_mode<T, 4>(a.mode);
        default:
            throw UnsupportedError("global-atomic: images must have 1, 3 or 4 channels");
    }
}

}  // namespace

void launch_global_atomic(const GlobalAtomicArgs& a, const DeviceLimits& limits,
                          cudaStream_t stream) {
    if (a.outputs < 1 || a.outputs > kGlobalAtomicMaxOutputs)
        throw UnsupportedError("global-atomic: 1 to " + std::to_string(kGlobalAtomicMaxOutputs) +
                               " channels per pass");
    for (int o = 0; o < a.outputs; ++o) {
        const GaValue v = a.out[o].value;
        if (v != GaValue::Plain && a.channels < 3)
            throw UnsupportedError("global-atomic: luma and joint values need 3 or 4 channels");
        if (v == GaValue::Joint && a.u16)
            throw UnsupportedError("global-atomic: the joint colour histogram needs 8-bit samples");
    }
    if (a.pixels == 0) return;
    const Kernel kernel = a.u16 ? pick_layout<std::uint16_t>(a) : pick_layout<std::uint8_t>(a);

    int per_sm = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
              &per_sm, reinterpret_cast<const void*>(kernel), kGlobalAtomicThreads, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor(global-atomic)");
    const std::uint64_t pixels_per_group = a.u16 ? 8 : 16;
    const std::uint64_t groups = (a.pixels + pixels_per_group - 1) / pixels_per_group;
    const std::uint64_t useful =
        (groups + kGlobalAtomicThreads - 1) / static_cast<std::uint64_t>(kGlobalAtomicThreads);
    const std::uint64_t resident = static_cast<std::uint64_t>(std::max(1, per_sm)) *
                                   static_cast<std::uint64_t>(std::max(1, limits.sm_count));
    const std::uint64_t blocks =
        std::clamp<std::uint64_t>(std::min(resident, useful), 1, 0x7FFFFFFF);
    kernel<<<static_cast<unsigned>(blocks), kGlobalAtomicThreads, 0, stream>>>(a);
    check(cudaGetLastError(), "global-atomic kernel launch");
}

std::string global_atomic_probe() {
    cudaFuncAttributes attr{};
    const cudaError_t e = cudaFuncGetAttributes(
        &attr,
        reinterpret_cast<const void*>(&global_atomic_kernel<std::uint8_t, 1, GaBinMode::Even>));
    if (e == cudaSuccess) return {};
    static_cast<void>(cudaGetLastError());
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
        e == cudaErrorUnsupportedPtxVersion)
        return "this build has no kernel code for the device (" + describe(e) +
               "); rebuild with its architecture in CMAKE_CUDA_ARCHITECTURES";
    return "cannot load the global-atomic kernel: " + describe(e);
}

}  // namespace hs::cuda::detail
