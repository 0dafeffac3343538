#pragma once
// The kernel template of "packed" and "packed-sat" (see packed.cuh), instantiated by packed.cu
// (wrapping counters) and packed_sat.cu (saturating counters). Device code: nvcc only.

#include <cooperative_groups.h>

#include <cstdint>

#include "kernels/common/dispatch.cuh"
#include "kernels/common/samples.cuh"
#include "kernels/packed.cuh"

namespace hs::cuda::detail {

struct PackedSharedOps {
    __device__ static std::uint32_t add(std::uint32_t* p, std::uint32_t v) {
        return atomicAdd(p, v);
    }
    __device__ static std::uint32_t cas(std::uint32_t* p, std::uint32_t expected,
                                        std::uint32_t desired) {
        return atomicCAS(p, expected, desired);
    }
    __device__ static void add_global(unsigned long long* p, unsigned long long v) {
        atomicAdd(p, v);
    }
};

// Local bin of `v` in the tile [tile_base, tile_base + tile_bins), or false when v's bin lies
// outside the tile (or outside the histogram). Table: `lb` is the encoded slot.
template <BinMode M>
__device__ __forceinline__ bool packed_local_bin(std::uint32_t v, const PackedArgs& a,
                                                 const std::int32_t* aux, std::uint32_t tile_base,
                                                 std::uint32_t tile_bins, std::uint32_t& lb) {
    if constexpr (M == BinMode::Table) {
        const std::int32_t e = aux[v];
        lb = static_cast<std::uint32_t>(e);
        return e >= 0;
    } else if constexpr (M == BinMode::Edges) {
        // The tile's thresholds t_0 <= ... <= t_tile_bins.
        const int bin = edge_bin(static_cast<std::int32_t>(v), aux, static_cast<int>(tile_bins));
        lb = static_cast<std::uint32_t>(bin);
        return bin >= 0;
    } else {
        // -1 (outside the histogram) and bins below the tile wrap to values above tile_bins.
        lb = static_cast<std::uint32_t>(bin_of<M>(v, a.bins, nullptr)) - tile_base;
        return lb < tile_bins;
    }
}

template <typename T, int C, ValueKind V, BinMode M, int W, bool Sat>
__global__ void __launch_bounds__(1024) packed_kernel(const PackedArgs a) {
    extern __shared__ std::uint32_t packed_smem[];
    constexpr int kPixels = kPixelsPerGroup<T>;
    constexpr int kWords = 4 * C;  // 32-bit words per group
    // Groups loaded per thread before counting: two for one-channel images whose bins need no
    // division (more loads in flight); the division modes run out of registers with two.
    constexpr int kInFlight = C == 1 && (M == BinMode::Table || M == BinMode::EvenShift) ? 2 : 1;
    // The one-value warp path (see packed.cuh) for one-channel plain values.
    constexpr bool kOneValueWarps = C == 1 && V == ValueKind::Plain && !Sat;

    const auto words = static_cast<std::uint32_t>(a.tile_words);
    const std::uint32_t tile_base = blockIdx.y * static_cast<std::uint32_t>(a.tile_bins);
    const std::uint32_t tile_bins = min(static_cast<std::uint32_t>(a.tile_bins),
                                        static_cast<std::uint32_t>(a.bins.bins) - tile_base);
    unsigned long long* tile_counts = a.counts + tile_base;
    std::uint32_t* hist = packed_smem;
    auto* aux = reinterpret_cast<std::int32_t*>(packed_smem + words);

    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) hist[i] = 0;
    if constexpr (M == BinMode::Table) {
        for (std::uint32_t v = threadIdx.x; v < 256; v += blockDim.x) {
            const std::int32_t g = a.aux[v];
            const std::uint32_t lb = static_cast<std::uint32_t>(g) - tile_base;
            std::int32_t e = -1;
            if (g >= 0 && lb < tile_bins) {
                std::uint32_t word, shift;
                packed_slot<W>(lb, words, word, shift);
                e = packed_encode(word, shift);
            }
            aux[v] = e;
        }
    } else if constexpr (M == BinMode::Edges) {
        for (std::uint32_t i = threadIdx.x; i <= tile_bins; i += blockDim.x)
            aux[i] = a.aux[tile_base + i];
    }
    __syncthreads();

    // Counts n samples of value v (n > 1 only from the one-value warp path, n < 2^W there).
    const auto count = [&](std::uint32_t v, std::uint32_t n) {
        std::uint32_t lb;
        if (!packed_local_bin<M>(v, a, aux, tile_base, tile_bins, lb)) return;
        std::uint32_t word, shift;
        if constexpr (M == BinMode::Table) {
            word = lb >> 5;
            shift = lb & 31u;
        } else {
            packed_slot<W>(lb, words, word, shift);
        }
        if constexpr (Sat)
            packed_saturating_count<W, PackedSharedOps>(hist, word, shift, a.cap);
        else
            packed_count<W, PackedSharedOps>(hist, word, shift, words, tile_bins, tile_counts, n);
    };

    // Counts the group held in w (valid: its pixels, 0 beyond the last group).
    const auto count_group = [&](const std::uint32_t(&w)[kWords], int valid) {
        if constexpr (kOneValueWarps) {
            // Every sample of this lane's group equal, and equal to lane 0's?
            const std::uint32_t v0 = group_sample<T>(w, 0);
            const std::uint32_t splat = sizeof(T) == 1 ? v0 * 0x01010101u : v0 * 0x00010001u;
            bool same = valid == kPixels;
#pragma unroll
            for (int k = 0; k < kWords; ++k) same = same && w[k] == splat;
            const std::uint32_t v_lead = __shfl_sync(0xFFFFFFFFu, v0, 0);
            if (__all_sync(0xFFFFFFFFu, same && v0 == v_lead)) {
                if ((threadIdx.x & 31u) == 0)
                    for (std::uint32_t n = 32u * kPixels; n > 0;) {
                        const std::uint32_t part = min(n, PackedLayout<W>::kMax);
                        count(v_lead, part);
                        n -= part;
                    }
                return;
            }
        }
#pragma unroll
        for (int p = 0; p < kPixels; ++p) {
            if (p >= valid) break;
            count(group_value<T, C, V>(w, p, a.value), 1);
        }
    };

    // Grid-stride over groups, kInFlight loads in flight per thread. The loop condition is the
    // warp's (its first lane's group), so the lanes of a warp stay together for the votes of
    // the one-value path; lanes past the last group count nothing.
    const auto* in = static_cast<const uint4*>(a.samples);
    const std::uint64_t groups = group_count(a.pixels, sizeof(T) == 2);
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (std::uint64_t g0 = first, warp_g0 = first - (threadIdx.x & 31u); warp_g0 < groups;
         g0 += kInFlight * step, warp_g0 += kInFlight * step) {
        std::uint32_t w[kInFlight][kWords];
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
            const std::uint64_t g = g0 + static_cast<std::uint64_t>(u) * step;
            if (g < groups) {
                load_group<C>(in, g, w[u]);
            } else {
#pragma unroll
                for (int k = 0; k < kWords; ++k) w[u][k] = 0;
            }
        }
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
            const std::uint64_t g = g0 + static_cast<std::uint64_t>(u) * step;
            count_group(w[u], g < groups ? group_pixels<T>(a.pixels, g) : 0);
        }
    }
    __syncthreads();

    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        packed_fold_word<W, PackedSharedOps>(hist[i], i, words, tile_bins, tile_counts);
}

// The direct path (see packed.cuh): 16-bit samples of C-sample pixels, one plain channel, a tile
// of all bins in 16-bit counters. Identity: 65536 bins over [0, 65536), word and field by
// constants.
template <int C, bool Identity>
__global__ void __launch_bounds__(1024) packed_direct_kernel(const PackedArgs a) {
    extern __shared__ std::uint32_t packed_smem[];
    using T = std::uint16_t;
    constexpr int kPixels = kPixelsPerGroup<T>;
    constexpr int kWords = 4 * C;
    constexpr unsigned kFull = 0xFFFFFFFFu;
    std::uint32_t* hist = packed_smem;
    const std::uint32_t bins = Identity ? 65536u : static_cast<std::uint32_t>(a.bins.bins);
    const std::uint32_t words = bins / 2;
    const std::uint32_t span = Identity ? 65536u : a.bins.span;
    const int span_bits = Identity ? 16 : 31 - __clz(static_cast<int>(span));
    const int shift = Identity ? 0 : a.bins.shift;

    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) hist[i] = 0;
    __syncthreads();

    // The increment of one count of v (0 outside [0, span): added to a word of the tile, it
    // changes nothing) and where it goes.
    const auto slot = [&](std::uint32_t v, std::uint32_t& word, std::uint32_t& field_shift) {
        packed_direct_slot(v, span_bits, shift, word, field_shift);
        return Identity || v < span ? 1u << field_shift : 0u;
    };
    // n counts of v in one addition (1 <= n < 2^16).
    const auto add = [&](std::uint32_t v, std::uint32_t n) {
        std::uint32_t word, field_shift;
        if (slot(v, word, field_shift) != 0)
            packed_count<16, PackedSharedOps>(hist, word, field_shift, words, bins, a.counts, n);
    };
    // A whole group of kPixels pixels.
    const auto count_group = [&](const std::uint32_t(&w)[kWords]) {
        std::uint32_t v[kPixels];
#pragma unroll
        for (int p = 0; p < kPixels; ++p) v[p] = group_value<T, C, ValueKind::Plain>(w, p, a.value);
        bool flat = true;
        if constexpr (C == 1) {
            // The last word first: in noise one comparison decides.
            const std::uint32_t splat = v[0] * 0x00010001u;
            flat = w[kWords - 1] == splat;
            if (flat) {
#pragma unroll
                for (int k = 0; k < kWords - 1; ++k) flat = flat && w[k] == splat;
            }
        } else {
#pragma unroll
            for (int p = 1; p < kPixels; ++p) flat = flat && v[p] == v[0];
        }
        if (flat) {
            // Every lane of the warp here (all found their group flat): one value for all?
            if (__activemask() == kFull) {
                const std::uint32_t lead = __shfl_sync(kFull, v[0], 0);
                if (__all_sync(kFull, v[0] == lead)) {
                    if ((threadIdx.x & 31u) == 0) add(lead, 32u * kPixels);
                    return;
                }
            }
            add(v[0], kPixels);
            return;
        }
        std::uint32_t old[kPixels], word[kPixels], field_shift[kPixels], inc[kPixels];
#pragma unroll
        for (int p = 0; p < kPixels; ++p) {
            inc[p] = slot(v[p], word[p], field_shift[p]);
            old[p] = atomicAdd(hist + word[p], inc[p]);
        }
        bool wrapped[kPixels], any = false;
#pragma unroll
        for (int p = 0; p < kPixels; ++p) {
            wrapped[p] = (Identity || inc[p] != 0) && packed_wrapped<16>(old[p], field_shift[p], 1);
            any = any || wrapped[p];
        }
        if (any) {
#pragma unroll
            for (int p = 0; p < kPixels; ++p)
                if (wrapped[p])
                    packed_account_wraps<16, PackedSharedOps>(old[p], field_shift[p] / 16, word[p],
                                                              words, bins, a.counts);
        }
    };

    // Grid-stride over the whole groups, two loads in flight per thread.
    const auto* in = static_cast<const uint4*>(a.samples);
    const std::uint64_t whole = a.pixels / kPixels;
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (std::uint64_t g = first; g < whole; g += 2 * step) {
        std::uint32_t w0[kWords], w1[kWords];
        load_group<C>(in, g, w0);
        const bool second = g + step < whole;
        if (second) load_group<C>(in, g + step, w1);
        count_group(w0);
        if (second) count_group(w1);
    }
    // The partial last group, if any (fewer than kPixels pixels): one thread, pixel by pixel.
    if (first == 0 && whole * kPixels < a.pixels) {
        std::uint32_t w[kWords];
        load_group<C>(in, whole, w);
        const int valid = group_pixels<T>(a.pixels, whole);
        for (int p = 0; p < valid; ++p) add(group_value<T, C, ValueKind::Plain>(w, p, a.value), 1);
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (a.cluster_blocks == 2) {
        // The two blocks of the cluster fold their tiles together (see packed.cuh): block r
        // sums its half of the words over both tiles. A read of the other tile waits far longer
        // than one of its own, so each thread issues the reads of kFoldWords words before it
        // adds any.
        constexpr std::uint32_t kFoldWords = 8;
        cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
        cluster.sync();
        const std::uint32_t r = cluster.block_rank();
        const std::uint32_t* other = cluster.map_shared_rank(hist, r ^ 1u);
        const std::uint32_t end = (r + 1) * words / 2;
        for (std::uint32_t first = r * words / 2 + threadIdx.x; first < end;
             first += kFoldWords * blockDim.x) {
            std::uint32_t mine[kFoldWords], theirs[kFoldWords];
#pragma unroll
            for (std::uint32_t u = 0; u < kFoldWords; ++u) {
                const std::uint32_t i = first + u * blockDim.x;
                mine[u] = i < end ? hist[i] : 0u;
                theirs[u] = i < end ? other[i] : 0u;
            }
#pragma unroll
            for (std::uint32_t u = 0; u < kFoldWords; ++u) {
                const std::uint64_t f[2] = {(mine[u] & 0xFFFFu) + (theirs[u] & 0xFFFFu),
                                            (mine[u] >> 16) + (theirs[u] >> 16)};
                packed_fold_fields<16, PackedSharedOps>(f, first + u * blockDim.x, words, bins,
                                                        a.counts);
            }
        }
        cluster.sync();  // both tiles stay until the whole cluster has read them
        return;
    }
#endif
    __syncthreads();
    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        packed_fold_word<16, PackedSharedOps>(hist[i], i, words, bins, a.counts);
}

using PackedKernelPtr = void (*)(PackedArgs);

template <int W, bool Sat>
struct PackedFamily : KernelFamily<PackedArgs, kAllValueKinds, kTableModes, kWideModes> {
    template <typename T, int C, ValueKind V, BinMode M>
    static Pointer get() {
        return &packed_kernel<T, C, V, M, W, Sat>;
    }
};

// The kernel of one family for `a` (nullptr for a combination that no kernel serves).
template <bool Sat>
PackedKernelPtr packed_pick(const PackedArgs& a) {
    if (a.counter_bits != 8 && a.counter_bits != 16) return nullptr;
    return a.counter_bits == 8
               ? find_kernel<PackedFamily<8, Sat>>(a.u16, a.channels, a.value.kind, a.bins.mode)
               : find_kernel<PackedFamily<16, Sat>>(a.u16, a.channels, a.value.kind, a.bins.mode);
}

// Defined in packed.cu and packed_sat.cu (one instantiation of the kernels each).
PackedKernelPtr packed_counting_kernel(const PackedArgs& a);
// The direct kernel for `a` (packed_direct_serves(a)), nullptr for other channel counts.
PackedKernelPtr packed_direct_kernel_for(const PackedArgs& a);
PackedKernelPtr packed_saturating_kernel(const PackedArgs& a);

}  // namespace hs::cuda::detail
