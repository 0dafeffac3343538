// The LUT stage of the "gpu" equalizer: global equalization, histogram matching and the CLAHE
// tile LUTs (see equalize_kernels.cuh).

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "cuda_check.hpp"
#include "equalize/equalize_device.cuh"

namespace hs::cuda::detail::eq {

namespace {

// a * b >= c * d, exactly (128-bit products).
__device__ __forceinline__ bool product_ge(unsigned long long a, unsigned long long b,
                                           unsigned long long c, unsigned long long d) {
    const unsigned long long hi1 = __umul64hi(a, b), hi2 = __umul64hi(c, d);
    return hi1 > hi2 || (hi1 == hi2 && a * b >= c * d);
}

// --- LUTs: one block of kLutThreads per plane (or tile); thread t owns the consecutive bins
// [t * chunk, (t + 1) * chunk) with chunk = max(1, L / kLutThreads); the bins' prefix sums come
// from a block-wide exclusive scan of the per-thread totals.

constexpr int kLutThreads = 1024;
using Scan = cub::BlockScan<unsigned long long, kLutThreads>;
using MinReduce = cub::BlockReduce<std::uint32_t, kLutThreads>;

struct MinOf {
    __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
        return a < b ? a : b;
    }
};

struct Bins {
    std::uint32_t begin, end;
};
__device__ __forceinline__ Bins my_bins(std::uint32_t levels) {
    const std::uint32_t chunk = max(1u, levels / kLutThreads);
    const std::uint32_t begin = min(threadIdx.x * chunk, levels);
    return {begin, min(begin + chunk, levels)};
}

__global__ void __launch_bounds__(kLutThreads)
    global_lut_kernel(const unsigned long long* counts, std::uint32_t levels, std::int64_t weight,
                      std::uint16_t* luts) {
    __shared__ typename Scan::TempStorage scan_tmp;
    __shared__ typename MinReduce::TempStorage min_tmp;
    __shared__ std::uint32_t first_shared;
    const std::size_t plane = blockIdx.x;
    const unsigned long long* h = counts + plane * levels;
    std::uint16_t* lut = luts + plane * levels;
    const Bins b = my_bins(levels);

    unsigned long long local = 0;
    std::uint32_t first = levels;
    for (std::uint32_t v = b.begin; v < b.end; ++v) {
        local += h[v];
        if (h[v] != 0 && first == levels) first = v;
    }
    unsigned long long prefix = 0, total = 0;
    Scan(scan_tmp).ExclusiveSum(local, prefix, total);
    const std::uint32_t block_first = MinReduce(min_tmp).Reduce(first, MinOf{});
    if (threadIdx.x == 0) first_shared = block_first;
    __syncthreads();
    const std::uint32_t i = first_shared;
    const unsigned long long hi = i < levels ? h[i] : 0;
    const bool identity = i == levels || hi == total;
    const std::uint32_t max_value = levels - 1;
    const float scale =
        identity ? 0.0f : __fdiv_rn(static_cast<float>(max_value), __ull2float_rn(total - hi));
    unsigned long long run = prefix;
    for (std::uint32_t v = b.begin; v < b.end; ++v) {
        run += h[v];
        std::uint32_t t = v;
        if (!identity)
            t = v <= i ? 0
                       : round_even_clamp(__fmul_rn(__ull2float_rn(run - hi), scale), max_value);
        lut[v] = static_cast<std::uint16_t>(hs::blend(v, t, weight));
    }
}

__global__ void __launch_bounds__(kLutThreads)
    match_lut_kernel(const unsigned long long* source, const unsigned long long* reference,
                     std::uint32_t levels, std::int64_t weight, unsigned long long* scratch,
                     std::uint16_t* luts) {
    __shared__ typename Scan::TempStorage scan_tmp;
    const std::size_t plane = blockIdx.x;
    const unsigned long long* hs_ = source + plane * levels;
    const unsigned long long* hr = reference + plane * levels;
    unsigned long long* cr = scratch + plane * levels;  // Cr(u), written and read here
    std::uint16_t* lut = luts + plane * levels;
    const Bins b = my_bins(levels);

    unsigned long long local = 0;
    for (std::uint32_t u = b.begin; u < b.end; ++u) local += hr[u];
    unsigned long long prefix = 0, nr = 0;
    Scan(scan_tmp).ExclusiveSum(local, prefix, nr);
    for (std::uint32_t u = b.begin; u < b.end; ++u) cr[u] = prefix += hr[u];
    __syncthreads();  // cr complete and visible to the block; scan_tmp free again

    local = 0;
    for (std::uint32_t v = b.begin; v < b.end; ++v) local += hs_[v];
    unsigned long long cs = 0, ns = 0;
    Scan(scan_tmp).ExclusiveSum(local, cs, ns);
    for (std::uint32_t v = b.begin; v < b.end; ++v) {
        cs += hs_[v];
        // Smallest u with Cr(u) * Ns >= Cs(v) * Nr; u = L - 1 always qualifies.
        std::uint32_t lo = 0, hi = levels - 1;
        while (lo < hi) {
            const std::uint32_t mid = (lo + hi) >> 1;
            if (product_ge(cr[mid], ns, cs, nr))
                hi = mid;
            else
                lo = mid + 1;
        }
        lut[v] = static_cast<std::uint16_t>(hs::blend(v, lo, weight));
    }
}

// blockIdx.x = tile, blockIdx.y = plane.
__global__ void __launch_bounds__(kLutThreads)
    clahe_lut_kernel(const unsigned int* counts, int tiles, std::uint32_t levels,
                     unsigned long long clip_limit, float lut_scale, std::uint16_t* luts) {
    __shared__ typename Scan::TempStorage scan_tmp;
    const std::size_t index =
        static_cast<std::size_t>(blockIdx.y) * static_cast<std::size_t>(tiles) + blockIdx.x;
    const unsigned int* h = counts + index * levels;
    std::uint16_t* lut = luts + index * levels;
    const Bins b = my_bins(levels);

    // 4c: the excess above the clip limit, spread as batch + residual.
    unsigned long long excess = 0;
    for (std::uint32_t v = b.begin; v < b.end; ++v)
        if (h[v] > clip_limit) excess += h[v] - clip_limit;
    unsigned long long ignored = 0, clipped = 0;
    Scan(scan_tmp).ExclusiveSum(excess, ignored, clipped);
    __syncthreads();
    const unsigned long long batch = clipped / levels;
    const unsigned long long residual = clipped - batch * levels;
    const unsigned long long step = residual != 0 ? max(levels / residual, 1ull) : 1ull;
    const auto clipped_bin = [&](std::uint32_t v) {
        const unsigned long long c = min(static_cast<unsigned long long>(h[v]), clip_limit);
        const bool bonus = residual != 0 && v % step == 0 && v / step < residual;
        return c + batch + (bonus ? 1ull : 0ull);
    };

    unsigned long long local = 0;
    for (std::uint32_t v = b.begin; v < b.end; ++v) local += clipped_bin(v);
    unsigned long long run = 0, total = 0;
    Scan(scan_tmp).ExclusiveSum(local, run, total);
    const std::uint32_t max_value = levels - 1;
    for (std::uint32_t v = b.begin; v < b.end; ++v) {
        run += clipped_bin(v);
        lut[v] = static_cast<std::uint16_t>(
            round_even_clamp(__fmul_rn(__ull2float_rn(run), lut_scale), max_value));
    }
}

}  // namespace

void launch_global_lut(const unsigned long long* counts, int planes, int levels,
                       std::int64_t weight, std::uint16_t* luts, cudaStream_t stream) {
    global_lut_kernel<<<static_cast<unsigned int>(planes), kLutThreads, 0, stream>>>(
        counts, static_cast<std::uint32_t>(levels), weight, luts);
    check(cudaGetLastError(), "global LUT kernel launch");
}

void launch_match_lut(const unsigned long long* source, const unsigned long long* reference,
                      int planes, int levels, std::int64_t weight, unsigned long long* scratch,
                      std::uint16_t* luts, cudaStream_t stream) {
    match_lut_kernel<<<static_cast<unsigned int>(planes), kLutThreads, 0, stream>>>(
        source, reference, static_cast<std::uint32_t>(levels), weight, scratch, luts);
    check(cudaGetLastError(), "match LUT kernel launch");
}

void launch_clahe_lut(const unsigned int* counts, int planes, int tiles, int levels,
                      std::int64_t clip_limit, float lut_scale, std::uint16_t* luts,
                      cudaStream_t stream) {
    const dim3 grid(static_cast<unsigned int>(tiles), static_cast<unsigned int>(planes));
    clahe_lut_kernel<<<grid, kLutThreads, 0, stream>>>(
        counts, tiles, static_cast<std::uint32_t>(levels),
        static_cast<unsigned long long>(clip_limit), lut_scale, luts);
    check(cudaGetLastError(), "CLAHE LUT kernel launch");
}

}  // namespace hs::cuda::detail::eq
