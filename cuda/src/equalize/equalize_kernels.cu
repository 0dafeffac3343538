// The kernels of the "gpu" equalization engine: see equalize_kernels.cuh.

#include "equalize/equalize_kernels.cuh"

#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "cuda_check.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/error.hpp"
#include "shared_memory.hpp"

namespace hs::cuda::detail::eq {

namespace {

// --- samples in 16-byte groups (16 / sizeof(T) pixels of C samples, as C uint4 words)

template <typename T>
inline constexpr int kPixelsPerGroup = 16 / static_cast<int>(sizeof(T));

// Sample `j` of a group held as 32-bit little-endian words (`j` is a compile-time constant
// after unrolling, so this is a bit-field extract from a register).
template <typename T>
__device__ __forceinline__ std::uint32_t extract(const std::uint32_t* words, int j) {
    if constexpr (sizeof(T) == 1)
        return (words[j >> 2] >> ((j & 3) * 8)) & 0xFFu;
    else
        return (words[j >> 1] >> ((j & 1) * 16)) & 0xFFFFu;
}

template <typename T>
__device__ __forceinline__ void insert(std::uint32_t* words, int j, std::uint32_t v) {
    if constexpr (sizeof(T) == 1) {
        const int shift = (j & 3) * 8;
        words[j >> 2] = (words[j >> 2] & ~(0xFFu << shift)) | (v << shift);
    } else {
        const int shift = (j & 1) * 16;
        words[j >> 1] = (words[j >> 1] & ~(0xFFFFu << shift)) | (v << shift);
    }
}

template <int C>
__device__ __forceinline__ void load_group(const void* base, std::uint64_t g, std::uint32_t* w) {
    const auto* in = static_cast<const uint4*>(base) + g * C;
#pragma unroll
    for (int k = 0; k < C; ++k) {
        const uint4 v = __ldg(in + k);
        w[4 * k + 0] = v.x;
        w[4 * k + 1] = v.y;
        w[4 * k + 2] = v.z;
        w[4 * k + 3] = v.w;
    }
}

template <int C>
__device__ __forceinline__ void store_group(void* base, std::uint64_t g, const std::uint32_t* w) {
    auto* out = static_cast<uint4*>(base) + g * C;
#pragma unroll
    for (int k = 0; k < C; ++k)
        out[k] = make_uint4(w[4 * k + 0], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]);
}

// Sample `c` (runtime) of pixel `p` (compile-time) without indexing registers at run time.
template <typename T, int C>
__device__ __forceinline__ std::uint32_t sample_of(const std::uint32_t* w, int p, int c) {
    std::uint32_t v = extract<T>(w, p * C);
#pragma unroll
    for (int k = 1; k < C; ++k)
        if (c == k) v = extract<T>(w, p * C + k);
    return v;
}

// Y of YCrCb (3 in equalize.hpp), core's own formula.
__device__ __forceinline__ std::uint32_t luma_y(std::uint32_t r, std::uint32_t g, std::uint32_t b,
                                                int depth) {
    return hs::rgb_to_ycrcb(r, g, b, depth).a;
}

// clamp(round_even(x)) to [0, max] (core's round_even_clamp).
__device__ __forceinline__ std::uint32_t round_even_clamp(float x, std::uint32_t max) {
    const float r = rintf(x);
    if (!(r > 0.0f)) return 0;
    if (r >= static_cast<float>(max)) return max;
    return static_cast<std::uint32_t>(r);
}

__device__ __forceinline__ int reflect101(int p, int n) {
    if (n == 1) return 0;
    while (p < 0 || p >= n) p = p < 0 ? -p : 2 * n - 2 - p;
    return p;
}

// a * b >= c * d, exactly (128-bit products).
__device__ __forceinline__ bool product_ge(unsigned long long a, unsigned long long b,
                                           unsigned long long c, unsigned long long d) {
    const unsigned long long hi1 = __umul64hi(a, b), hi2 = __umul64hi(c, d);
    return hi1 > hi2 || (hi1 == hi2 && a * b >= c * d);
}

__device__ __forceinline__ void report_bad(unsigned long long* bad, std::uint64_t pixel) {
    atomicMin(bad, static_cast<unsigned long long>(pixel));
}

extern __shared__ unsigned int eq_smem[];

// --- histograms

struct ValueHistArgs {
    DeviceFrame frame;
    PlaneSelect select;
    std::uint32_t levels = 256;
    std::uint32_t seg_bins = 256;  // bins per block (one segment of the levels: gridDim.y)
    unsigned long long* counts = nullptr;
    unsigned long long* bad = nullptr;
};

// blockIdx.z = plane, blockIdx.y = segment; a grid-stride loop over the groups.
template <typename T, int C, bool Luma>
__global__ void __launch_bounds__(1024) value_histogram_kernel(const ValueHistArgs a) {
    constexpr int kP = kPixelsPerGroup<T>;
    unsigned int* hist = eq_smem;
    const int plane = static_cast<int>(blockIdx.z);
    const int channel = a.select.channel[plane];
    const std::uint32_t lo = blockIdx.y * a.seg_bins;
    const std::uint32_t max_value = a.levels - 1;
    const bool check = a.bad != nullptr && blockIdx.y == 0 && blockIdx.z == 0;
    for (std::uint32_t i = threadIdx.x; i < a.seg_bins; i += blockDim.x) hist[i] = 0;
    __syncthreads();

    const std::uint64_t groups = (a.frame.pixels + kP - 1) / kP;
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         g < groups; g += step) {
        std::uint32_t w[4 * C];
        load_group<C>(a.frame.data, g, w);
        const std::uint64_t left = a.frame.pixels - g * kP;
        const int valid = left < kP ? static_cast<int>(left) : kP;
#pragma unroll
        for (int p = 0; p < kP; ++p) {
            if (p >= valid) break;
            if (check) {
                bool over = false;
#pragma unroll
                for (int c = 0; c < C; ++c) over |= extract<T>(w, p * C + c) > max_value;
                if (over) report_bad(a.bad, g * kP + static_cast<std::uint64_t>(p));
            }
            std::uint32_t v;
            if constexpr (Luma)
                v = luma_y(extract<T>(w, p * C), extract<T>(w, p * C + 1), extract<T>(w, p * C + 2),
                           a.frame.bit_depth);
            else
                v = sample_of<T, C>(w, p, channel);
            if (v <= max_value && v - lo < a.seg_bins) atomicAdd(&hist[v - lo], 1u);
        }
    }
    __syncthreads();
    unsigned long long* out = a.counts + static_cast<std::size_t>(plane) * a.levels + lo;
    for (std::uint32_t i = threadIdx.x; i < a.seg_bins; i += blockDim.x)
        if (const unsigned int c = hist[i]; c != 0)
            atomicAdd(&out[i], static_cast<unsigned long long>(c));
}

struct TileHistArgs {
    DeviceFrame frame;
    PlaneSelect select;
    TileGrid grid;
    std::uint32_t levels = 256;
    std::uint32_t seg_bins = 256;
    int segments = 1;
    int slice_rows = 1;  // tile rows per block (gridDim.y slices of a tile)
    unsigned int* counts = nullptr;
};

// blockIdx.x = tile * segments + segment, blockIdx.y = slice of the tile's rows,
// blockIdx.z = plane. Coordinates of the padded image map to the original by reflect101.
template <typename T, int C, bool Luma>
__global__ void __launch_bounds__(1024) tile_histogram_kernel(const TileHistArgs a) {
    unsigned int* hist = eq_smem;
    const int plane = static_cast<int>(blockIdx.z);
    const int channel = a.select.channel[plane];
    const int tile = static_cast<int>(blockIdx.x) / a.segments;
    const auto segment = static_cast<std::uint32_t>(static_cast<int>(blockIdx.x) % a.segments);
    const std::uint32_t lo = segment * a.seg_bins;
    const std::uint32_t max_value = a.levels - 1;
    const int tx = tile % a.grid.tiles_x, ty = tile / a.grid.tiles_x;
    const int tw = a.grid.tile_width;
    const int row0 = static_cast<int>(blockIdx.y) * a.slice_rows;
    const int rows = min(a.slice_rows, a.grid.tile_height - row0);
    for (std::uint32_t i = threadIdx.x; i < a.seg_bins; i += blockDim.x) hist[i] = 0;
    __syncthreads();

    const T* samples = static_cast<const T*>(a.frame.data);
    const std::int64_t n = rows > 0 ? static_cast<std::int64_t>(rows) * tw : 0;
    for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) {
        const int r = static_cast<int>(i / tw), col = static_cast<int>(i % tw);
        const int sy = reflect101(ty * a.grid.tile_height + row0 + r, a.frame.height);
        const int sx = reflect101(tx * tw + col, a.frame.width);
        const T* px =
            samples + (static_cast<std::size_t>(sy) * static_cast<std::size_t>(a.frame.width) +
                       static_cast<std::size_t>(sx)) *
                          C;
        std::uint32_t v;
        if constexpr (Luma)
            v = luma_y(px[0], px[1], px[2], a.frame.bit_depth);
        else
            v = px[channel];
        if (v <= max_value && v - lo < a.seg_bins) atomicAdd(&hist[v - lo], 1u);
    }
    __syncthreads();
    const int tiles = a.grid.tiles_x * a.grid.tiles_y;
    unsigned int* out = a.counts +
                        (static_cast<std::size_t>(plane) * static_cast<std::size_t>(tiles) +
                         static_cast<std::size_t>(tile)) *
                            a.levels +
                        lo;
    for (std::uint32_t i = threadIdx.x; i < a.seg_bins; i += blockDim.x)
        if (const unsigned int c = hist[i]; c != 0) atomicAdd(&out[i], c);
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

// --- apply

struct ApplyArgs {
    DeviceFrame frame;
    int planes = 1;
    const std::uint16_t* luts = nullptr;
    void* out = nullptr;
    unsigned long long* bad = nullptr;
    // CLAHE
    TileGrid grid;
    AxisTables x_axis, y_axis;
    std::int64_t weight = 0;
};

constexpr int kApplyThreads = 256;

template <typename T, int C>
__device__ __forceinline__ void check_pixel(const ApplyArgs& a, const std::uint32_t* w, int p,
                                            std::uint64_t pixel, std::uint32_t max_value) {
    bool over = false;
#pragma unroll
    for (int c = 0; c < C; ++c) over |= extract<T>(w, p * C + c) > max_value;
    if (over) report_bad(a.bad, pixel);
}

// One group per thread. 8-bit LUTs are staged in shared memory.
template <typename T, int C, bool Luma>
__global__ void __launch_bounds__(kApplyThreads) apply_lut_kernel(const ApplyArgs a) {
    constexpr int kP = kPixelsPerGroup<T>;
    constexpr bool kShared = sizeof(T) == 1;
    __shared__ std::uint16_t shared_lut[kShared ? 3 * 256 : 1];
    const std::uint32_t levels = 1u << a.frame.bit_depth;
    const std::uint32_t max_value = levels - 1;
    const std::uint16_t* lut = a.luts;
    if constexpr (kShared) {
        for (int i = static_cast<int>(threadIdx.x); i < a.planes * 256; i += kApplyThreads)
            shared_lut[i] = a.luts[i];
        __syncthreads();
        lut = shared_lut;
    }
    const std::uint64_t groups = (a.frame.pixels + kP - 1) / kP;
    const std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * kApplyThreads + threadIdx.x;
    if (g >= groups) return;
    std::uint32_t w[4 * C];
    load_group<C>(a.frame.data, g, w);
    const std::uint64_t left = a.frame.pixels - g * kP;
    const int valid = left < kP ? static_cast<int>(left) : kP;
    const auto look = [&](int plane, std::uint32_t v) -> std::uint32_t {
        if constexpr (kShared)
            return lut[plane * 256 + static_cast<int>(min(v, max_value))];
        else
            return __ldg(lut + static_cast<std::size_t>(plane) * levels + min(v, max_value));
    };
#pragma unroll
    for (int p = 0; p < kP; ++p) {
        if (a.bad != nullptr && p < valid) check_pixel<T, C>(a, w, p, g * kP + p, max_value);
        if constexpr (C == 1) {
            insert<T>(w, p, look(0, extract<T>(w, p)));
        } else if constexpr (Luma) {
            const Triple ycc = hs::rgb_to_ycrcb(extract<T>(w, p * C), extract<T>(w, p * C + 1),
                                                extract<T>(w, p * C + 2), a.frame.bit_depth);
            const Triple rgb = hs::ycrcb_to_rgb(look(0, ycc.a), ycc.b, ycc.c, a.frame.bit_depth);
            insert<T>(w, p * C, rgb.a);
            insert<T>(w, p * C + 1, rgb.b);
            insert<T>(w, p * C + 2, rgb.c);
        } else {
#pragma unroll
            for (int k = 0; k < 3; ++k) insert<T>(w, p * C + k, look(k, extract<T>(w, p * C + k)));
        }
    }
    store_group<C>(a.out, g, w);
}

// 4d for one plane at pixel (x, y) with value v (below L).
__device__ __forceinline__ std::uint32_t clahe_value(const ApplyArgs& a, int plane, int x, int y,
                                                     std::uint32_t v, std::uint32_t levels) {
    const int tiles = a.grid.tiles_x * a.grid.tiles_y;
    const std::uint16_t* base =
        a.luts + static_cast<std::size_t>(plane) * static_cast<std::size_t>(tiles) * levels;
    const auto at = [&](int tx, int ty) {
        return static_cast<float>(
            __ldg(base +
                  (static_cast<std::size_t>(ty) * static_cast<std::size_t>(a.grid.tiles_x) +
                   static_cast<std::size_t>(tx)) *
                      levels +
                  v));
    };
    const int x1 = a.x_axis.tile1[x], x2 = a.x_axis.tile2[x];
    const int y1 = a.y_axis.tile1[y], y2 = a.y_axis.tile2[y];
    const float xa = a.x_axis.weight2[x], xa1 = a.x_axis.weight1[x];
    const float ya = a.y_axis.weight2[y], ya1 = a.y_axis.weight1[y];
    const float top = __fadd_rn(__fmul_rn(at(x1, y1), xa1), __fmul_rn(at(x2, y1), xa));
    const float bottom = __fadd_rn(__fmul_rn(at(x1, y2), xa1), __fmul_rn(at(x2, y2), xa));
    const float r = __fadd_rn(__fmul_rn(top, ya1), __fmul_rn(bottom, ya));
    return round_even_clamp(r, levels - 1);
}

template <typename T, int C, bool Luma>
__global__ void __launch_bounds__(kApplyThreads) apply_clahe_kernel(const ApplyArgs a) {
    constexpr int kP = kPixelsPerGroup<T>;
    const std::uint32_t levels = 1u << a.frame.bit_depth;
    const std::uint32_t max_value = levels - 1;
    const std::uint64_t groups = (a.frame.pixels + kP - 1) / kP;
    const std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * kApplyThreads + threadIdx.x;
    if (g >= groups) return;
    std::uint32_t w[4 * C];
    load_group<C>(a.frame.data, g, w);
    const auto width = static_cast<std::uint64_t>(a.frame.width);
    int x = static_cast<int>((g * kP) % width);
    int y = static_cast<int>((g * kP) / width);
    const auto processed = [&](int plane, int px, int py, std::uint32_t v) {
        const std::uint32_t t = clahe_value(a, plane, px, py, min(v, max_value), levels);
        return hs::blend(v, t, a.weight);
    };
#pragma unroll
    for (int p = 0; p < kP; ++p) {
        if (g * kP + p >= a.frame.pixels) break;
        if (a.bad != nullptr) check_pixel<T, C>(a, w, p, g * kP + p, max_value);
        if constexpr (C == 1) {
            insert<T>(w, p, processed(0, x, y, extract<T>(w, p)));
        } else if constexpr (Luma) {
            const Triple ycc = hs::rgb_to_ycrcb(extract<T>(w, p * C), extract<T>(w, p * C + 1),
                                                extract<T>(w, p * C + 2), a.frame.bit_depth);
            const Triple rgb =
                hs::ycrcb_to_rgb(processed(0, x, y, ycc.a), ycc.b, ycc.c, a.frame.bit_depth);
            insert<T>(w, p * C, rgb.a);
            insert<T>(w, p * C + 1, rgb.b);
            insert<T>(w, p * C + 2, rgb.c);
        } else {
#pragma unroll
            for (int k = 0; k < 3; ++k)
                insert<T>(w, p * C + k, processed(k, x, y, extract<T>(w, p * C + k)));
        }
        if (++x == a.frame.width) {
            x = 0;
            ++y;
        }
    }
    store_group<C>(a.out, g, w);
}

// --- dispatch over sample type, channel count and luma

template <typename T, int C, bool L>
struct Layout {
    using Sample = T;
    static constexpr int kChannels = C;
    static constexpr bool kLuma = L;
};

template <typename T, typename F>
auto dispatch_channels(int channels, bool luma, F&& f) {
    switch (channels) {
        case 1:
            return f(Layout<T, 1, false>{});
        case 3:
            return luma ? f(Layout<T, 3, true>{}) : f(Layout<T, 3, false>{});
        case 4:
            return luma ? f(Layout<T, 4, true>{}) : f(Layout<T, 4, false>{});
        default:
            throw UnsupportedError("gpu equalize: images must have 1, 3 or 4 channels, not " +
                                   std::to_string(channels));
    }
}

template <typename F>
auto dispatch(const DeviceFrame& frame, bool luma, F&& f) {
    if (frame.u16) return dispatch_channels<std::uint16_t>(frame.channels, luma, f);
    return dispatch_channels<std::uint8_t>(frame.channels, luma, f);
}

std::uint32_t levels_of(const DeviceFrame& f) {
    return 1u << f.bit_depth;
}

// Bins per shared-memory histogram of `kernel`: all levels, or the largest power of two that
// fits.
std::uint32_t segment_bins(std::uint32_t levels, const void* kernel, const Limits& limits) {
    const std::size_t limit = dynamic_smem_limit(kernel, limits.shared_per_block_optin);
    std::uint32_t bins = levels;
    while (bins > 256 && std::size_t{bins} * 4 > limit) bins >>= 1;
    return bins;
}

// Lets the kernel launch with `smem` bytes of dynamic shared memory and returns its resident
// blocks per SM at `threads` threads.
int prepare_smem(const void* kernel, std::size_t smem, int threads, const Limits& limits,
                 const char* what) {
    reserve_dynamic_smem(kernel, smem, limits.shared_per_block_optin, what);
    int per_sm = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem), what);
    if (per_sm == 0)
        throw DeviceError(std::string(what) + ": no block of " + std::to_string(threads) +
                          " threads and " + std::to_string(smem) +
                          " bytes of shared memory fits on an SM");
    return per_sm;
}

unsigned int group_blocks(const DeviceFrame& f) {
    const std::uint64_t per_group = f.u16 ? 8 : 16;
    const std::uint64_t groups = (f.pixels + per_group - 1) / per_group;
    return static_cast<unsigned int>((groups + kApplyThreads - 1) / kApplyThreads);
}

}  // namespace

std::string probe() {
    cudaFuncAttributes attr{};
    const cudaError_t e = cudaFuncGetAttributes(
        &attr, reinterpret_cast<const void*>(&apply_lut_kernel<std::uint8_t, 1, false>));
    if (e == cudaSuccess) return {};
    static_cast<void>(cudaGetLastError());
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
        e == cudaErrorUnsupportedPtxVersion)
        return "this build has no kernel code for the device (" + describe(e) +
               "); rebuild with its architecture in CMAKE_CUDA_ARCHITECTURES";
    return "the equalization kernels cannot be loaded: " + describe(e);
}

void launch_value_histogram(const DeviceFrame& frame, const PlaneSelect& select, int planes,
                            unsigned long long* counts, unsigned long long* bad,
                            const Limits& limits, cudaStream_t stream) {
    ValueHistArgs a;
    a.frame = frame;
    a.select = select;
    a.levels = levels_of(frame);
    a.counts = counts;
    a.bad = bad;
    const auto kernel = dispatch(frame, select.luma, [](auto layout) {
        using L = decltype(layout);
        return &value_histogram_kernel<typename L::Sample, L::kChannels, L::kLuma>;
    });
    a.seg_bins = segment_bins(a.levels, reinterpret_cast<const void*>(kernel), limits);
    const int threads = a.seg_bins > 4096 ? 1024 : 512;
    const std::size_t smem = std::size_t{a.seg_bins} * 4;
    const int per_sm = prepare_smem(reinterpret_cast<const void*>(kernel), smem, threads, limits,
                                    "value histogram kernel setup");
    const unsigned int segments = a.levels / a.seg_bins;
    const std::uint64_t per_group = frame.u16 ? 8 : 16;
    const std::uint64_t groups = (frame.pixels + per_group - 1) / per_group;
    const auto per_block = static_cast<std::uint64_t>(threads);
    const std::uint64_t useful = (groups + per_block - 1) / per_block;
    const std::uint64_t resident = static_cast<std::uint64_t>(limits.sm_count) *
                                   static_cast<std::uint64_t>(per_sm) /
                                   (segments * static_cast<unsigned int>(planes));
    // No block counts more than 2^30 samples, so its 32-bit shared counters stay exact.
    const std::uint64_t least = (frame.pixels >> 30) + 1;
    const std::uint64_t blocks =
        std::max(least, std::min(useful, std::max<std::uint64_t>(resident, 1)));
    const dim3 grid(static_cast<unsigned int>(blocks), segments, static_cast<unsigned int>(planes));
    kernel<<<grid, threads, smem, stream>>>(a);
    check(cudaGetLastError(), "value histogram kernel launch");
}

void launch_tile_histogram(const DeviceFrame& frame, const PlaneSelect& select, int planes,
                           const TileGrid& grid, unsigned int* counts, const Limits& limits,
                           cudaStream_t stream) {
    TileHistArgs a;
    a.frame = frame;
    a.select = select;
    a.grid = grid;
    a.levels = levels_of(frame);
    a.counts = counts;
    const auto kernel = dispatch(frame, select.luma, [](auto layout) {
        using L = decltype(layout);
        return &tile_histogram_kernel<typename L::Sample, L::kChannels, L::kLuma>;
    });
    a.seg_bins = segment_bins(a.levels, reinterpret_cast<const void*>(kernel), limits);
    a.segments = static_cast<int>(a.levels / a.seg_bins);
    const int threads = a.seg_bins > 4096 ? 1024 : 256;
    const std::size_t smem = std::size_t{a.seg_bins} * 4;
    const int per_sm = prepare_smem(reinterpret_cast<const void*>(kernel), smem, threads, limits,
                                    "tile histogram kernel setup");
    // Enough slices of every tile to fill the device twice over.
    const std::int64_t tiles = std::int64_t{grid.tiles_x} * grid.tiles_y;
    const std::int64_t wanted = 2 * std::int64_t{limits.sm_count} * per_sm;
    const std::int64_t per_slice_blocks = tiles * a.segments * planes;
    const std::int64_t slices = std::clamp<std::int64_t>(
        (wanted + per_slice_blocks - 1) / per_slice_blocks, 1, grid.tile_height);
    a.slice_rows = static_cast<int>((grid.tile_height + slices - 1) / slices);
    const auto used_slices =
        static_cast<unsigned int>((grid.tile_height + a.slice_rows - 1) / a.slice_rows);
    const dim3 blocks(static_cast<unsigned int>(tiles * a.segments), used_slices,
                      static_cast<unsigned int>(planes));
    kernel<<<blocks, threads, smem, stream>>>(a);
    check(cudaGetLastError(), "tile histogram kernel launch");
}

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

void launch_apply_lut(const DeviceFrame& frame, bool luma, int planes, const std::uint16_t* luts,
                      void* out, unsigned long long* bad, cudaStream_t stream) {
    ApplyArgs a;
    a.frame = frame;
    a.planes = planes;
    a.luts = luts;
    a.out = out;
    a.bad = bad;
    const auto kernel = dispatch(frame, luma, [](auto layout) {
        using L = decltype(layout);
        return &apply_lut_kernel<typename L::Sample, L::kChannels, L::kLuma>;
    });
    kernel<<<group_blocks(frame), kApplyThreads, 0, stream>>>(a);
    check(cudaGetLastError(), "LUT apply kernel launch");
}

void launch_apply_clahe(const DeviceFrame& frame, bool luma, int planes, const TileGrid& grid,
                        const AxisTables& x_axis, const AxisTables& y_axis,
                        const std::uint16_t* luts, std::int64_t weight, void* out,
                        unsigned long long* bad, cudaStream_t stream) {
    ApplyArgs a;
    a.frame = frame;
    a.planes = planes;
    a.luts = luts;
    a.out = out;
    a.bad = bad;
    a.grid = grid;
    a.x_axis = x_axis;
    a.y_axis = y_axis;
    a.weight = weight;
    const auto kernel = dispatch(frame, luma, [](auto layout) {
        using L = decltype(layout);
        return &apply_clahe_kernel<typename L::Sample, L::kChannels, L::kLuma>;
    });
    kernel<<<group_blocks(frame), kApplyThreads, 0, stream>>>(a);
    check(cudaGetLastError(), "CLAHE apply kernel launch");
}

}  // namespace hs::cuda::detail::eq
