#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuda_check.hpp"
#include "histoscope/core/channels.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/launch.hpp"
#include "scope_kernels.hpp"
#include "shared_memory.hpp"

namespace hs::cuda::detail {

namespace {

constexpr int kWaveformThreads = 1024;
constexpr int kVectorThreads = 1024;
// The most pixels of one vectorscope block: no 16-bit counter can pass 65535. Chunks are
// multiples of 16, so that every chunk of 8-bit pixels starts on a 16-byte boundary
// (whole-vector loads).
constexpr std::uint32_t kChunkPixels = 65520;
// Pixels each thread loads before counting them: loads in flight hide the memory's latency.
constexpr int kWaveformUnroll = 4;
constexpr int kWaveformWordsUnroll = 2;
constexpr int kVectorUnroll = 8;

struct WaveformArgs {
    const void* data;
    int width, height;
    std::uint32_t max_value;
    int depth;
    int levels;
    int columns;  // output columns N
    int tile;     // output columns per block
    int offset;   // one plane: the sample counted, or -1 for luma
    LumaWeights weights;
    std::uint32_t* out;
};

// Value of plane p of a pixel (`px` its samples). The sample is chosen by selects, not by
// indexing: a register array indexed at run time would go to local memory.
template <typename T, int C, int Planes>
__device__ __forceinline__ std::uint32_t plane_value(const T* px, int p, const WaveformArgs& a) {
    if constexpr (Planes == 3) {
        return px[p];
    } else {
        if constexpr (C >= 3)
            if (a.offset < 0) return hs::luma(a.weights, px[0], px[1], px[2]);
        std::uint32_t v = px[0];
#pragma unroll
        for (int c = 1; c < C; ++c)
            if (a.offset == c) v = px[c];
        return v;
    }
}

// The block's column tile: output columns [c0, c1) of image columns [x0, x1), those whose
// output column floor(x * N / W) lies in [c0, c1). Its histograms live in shared memory, each
// column's levels padded by one counter, so that lanes on neighbouring columns at the same level
// hit different banks.
struct ColumnTile {
    int c0, c1, x0, x1;
    int stride, plane_words;
    bool grouped;

    __device__ explicit ColumnTile(const WaveformArgs& a)
        : c0(static_cast<int>(blockIdx.x) * a.tile),
          c1(min(a.columns, c0 + a.tile)),
          x0(first_x(a, c0)),
          x1(first_x(a, c1)),
          stride(a.levels + 1),
          plane_words(a.tile * stride),
          grouped(a.columns != a.width) {}

    static __device__ int first_x(const WaveformArgs& a, int c) {
        return static_cast<int>((static_cast<std::uint64_t>(c) * a.width + a.columns - 1) /
                                a.columns);
    }
    // The tile's column of image column x.
    __device__ int local(const WaveformArgs& a, int x) const {
        if (!grouped) return x - x0;
        const std::uint64_t num = static_cast<std::uint64_t>(x) * a.columns;
        const int c = num < 0x100000000ull
                          ? static_cast<int>(static_cast<std::uint32_t>(num) /
                                             static_cast<std::uint32_t>(a.width))
                          : static_cast<int>(num / static_cast<std::uint64_t>(a.width));
        return c - c0;
    }
    template <int Planes>
    __device__ void clear(std::uint32_t* hist) const {
        for (int i = threadIdx.x; i < Planes * plane_words; i += blockDim.x) hist[i] = 0;
        __syncthreads();
    }
    // Counts value v of plane p at tile column `local`.
    __device__ void add(const WaveformArgs& a, std::uint32_t* hist, int p, int local,
                        std::uint32_t v) const {
        const std::uint32_t level = hs::scope_bin(v, static_cast<std::uint32_t>(a.levels), a.depth);
        atomicAdd(&hist[p * plane_words + local * stride + static_cast<int>(level)], 1u);
    }
    // Once every thread has counted, one write per bin: plane p, column c0 + k, level l at
    // ((p * N + c0 + k) * L + l).
    template <int Planes>
    __device__ void write(const WaveformArgs& a, const std::uint32_t* hist) const {
        __syncthreads();
        const int columns_here = c1 - c0;
        for (int p = 0; p < Planes; ++p)
            for (int i = threadIdx.x; i < columns_here * a.levels; i += blockDim.x) {
                const int k = i / a.levels, l = i - k * a.levels;
                a.out[(static_cast<std::size_t>(p) * a.columns + c0 + k) * a.levels + l] =
                    hist[p * plane_words + k * stride + l];
            }
    }
};

// Block b counts the tile's pixels over every row, a sample at a time.
template <typename T, int C, int Planes>
__global__ void waveform_kernel(WaveformArgs a) {
    extern __shared__ std::uint32_t hist[];
    const ColumnTile tile(a);
    tile.clear<Planes>(hist);
    const int x0 = tile.x0, span = tile.x1 - tile.x0;

    // Thread t takes pixels t, t + blockDim, ... of the tile, row by row: x and y step by
    // (blockDim % span, blockDim / span) without a division per pixel.
    // Below 2^32: the engine refuses images of 2^32 pixels or more.
    const std::uint32_t pixels =
        static_cast<std::uint32_t>(span) * static_cast<std::uint32_t>(a.height);
    const int step_x = static_cast<int>(blockDim.x % span),
              step_y = static_cast<int>(blockDim.x / span);
    int x = static_cast<int>(threadIdx.x % span), y = static_cast<int>(threadIdx.x / span);
    const T* data = static_cast<const T*>(a.data);
    const std::size_t row = static_cast<std::size_t>(a.width) * C;
    for (std::uint64_t i = threadIdx.x; i < pixels;
         i += static_cast<std::uint64_t>(blockDim.x) * kWaveformUnroll) {
        T px[kWaveformUnroll][C];
        int col[kWaveformUnroll];
        bool have[kWaveformUnroll];
#pragma unroll
        for (int u = 0; u < kWaveformUnroll; ++u) {
            have[u] = i + static_cast<std::uint32_t>(u) * blockDim.x < pixels;
            col[u] = x0 + x;
            if (have[u]) {
                const T* p =
                    data + static_cast<std::size_t>(y) * row + static_cast<std::size_t>(x0 + x) * C;
#pragma unroll
                for (int c = 0; c < C; ++c) px[u][c] = p[c];
            }
            x += step_x;
            y += step_y;
            if (x >= span) {
                x -= span;
                ++y;
            }
        }
#pragma unroll
        for (int u = 0; u < kWaveformUnroll; ++u) {
            if (!have[u]) continue;
            const int local = tile.local(a, col[u]);
#pragma unroll
            for (int p = 0; p < Planes; ++p) {
                const std::uint32_t v = plane_value<T, C, Planes>(px[u], p, a);
                if (v <= a.max_value) tile.add(a, hist, p, local, v);
            }
        }
    }
    tile.write<Planes>(a, hist);
}

// Byte b of words w (b constant once unrolled).
template <int N>
__device__ __forceinline__ std::uint32_t byte_of(const std::uint32_t (&w)[N], int b) {
    return (w[b / 4] >> (8 * (b % 4))) & 0xFFu;
}

// As waveform_kernel for 8-bit pixels whose rows start on 4-byte boundaries: each thread takes
// four pixels at a time, C 32-bit words (on the H100 the 4K photo's parade took 36 us a byte at a
// time, 25 so). The tile's groups start at x0 rounded down to a multiple of 4; pixels outside
// [x0, x1) are skipped. A warp's lanes hold four rows of eight groups: the four pixels of a group
// are counted in order, lanes on the same column at once (rotating the order by row to keep the
// lanes on distinct columns was slower).
template <int C, int Planes>
__global__ void waveform_words_kernel(WaveformArgs a) {
    extern __shared__ std::uint32_t hist[];
    const ColumnTile tile(a);
    tile.clear<Planes>(hist);
    const int gx0 = tile.x0 & ~3;
    const int groups = (tile.x1 - gx0 + 3) >> 2;  // per row
    const std::uint32_t items =
        static_cast<std::uint32_t>(groups) * static_cast<std::uint32_t>(a.height);
    const int step_g = static_cast<int>(blockDim.x % groups),
              step_y = static_cast<int>(blockDim.x / groups);
    int g = static_cast<int>(threadIdx.x % groups), y = static_cast<int>(threadIdx.x / groups);
    const auto* words = static_cast<const std::uint32_t*>(a.data);
    const std::size_t row_words = static_cast<std::size_t>(a.width) * C / 4;
    for (std::uint32_t i = threadIdx.x; i < items; i += blockDim.x * kWaveformWordsUnroll) {
        std::uint32_t w[kWaveformWordsUnroll][C];
        int gx[kWaveformWordsUnroll];
        bool have[kWaveformWordsUnroll];
#pragma unroll
        for (int u = 0; u < kWaveformWordsUnroll; ++u) {
            have[u] = i + static_cast<std::uint32_t>(u) * blockDim.x < items;
            gx[u] = gx0 + 4 * g;
            if (have[u]) {
                const std::uint32_t* p = words + static_cast<std::size_t>(y) * row_words +
                                         static_cast<std::size_t>(gx[u] / 4) * C;
#pragma unroll
                for (int c = 0; c < C; ++c) w[u][c] = p[c];
            }
            g += step_g;
            y += step_y;
            if (g >= groups) {
                g -= groups;
                ++y;
            }
        }
#pragma unroll
        for (int u = 0; u < kWaveformWordsUnroll; ++u) {
            if (!have[u]) continue;
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const int x = gx[u] + k;
                if (x < tile.x0 || x >= tile.x1) continue;
                const int local = tile.local(a, x);
#pragma unroll
                for (int p = 0; p < Planes; ++p) {
                    std::uint32_t px[C];
#pragma unroll
                    for (int c = 0; c < C; ++c) px[c] = byte_of(w[u], k * C + c);
                    tile.add(a, hist, p, local, plane_value<std::uint32_t, C, Planes>(px, p, a));
                }
            }
        }
    }
    tile.write<Planes>(a, hist);
}

struct VectorArgs {
    const void* data;
    std::uint64_t pixels;
    std::uint32_t max_value;
    int depth;
    std::uint32_t size;
    ChromaWeights weights;
    std::uint32_t* out;
    std::uint32_t chunk;  // pixels a block counts in 16-bit shared counters
};

// The bin of pixel `i` (counts[cb_bin * S + cr_bin]), or ~0 when it is not counted.
template <typename T, int C>
__device__ __forceinline__ std::uint32_t chroma_bin(const VectorArgs& a, std::uint64_t i) {
    if (i >= a.pixels) return ~0u;
    const T* px = static_cast<const T*>(a.data) + i * C;
    const std::uint32_t r = px[0], g = px[1], b = px[2];
    if (r > a.max_value || g > a.max_value || b > a.max_value) return ~0u;
    const Chroma c = hs::chroma(a.weights, r, g, b, a.depth);
    return hs::scope_bin(c.cb, a.size, a.depth) * a.size + hs::scope_bin(c.cr, a.size, a.depth);
}

// Adds n to 16-bit counter `bin` of `words` (two to a word).
__device__ __forceinline__ void add_packed(std::uint32_t* words, std::uint32_t bin,
                                           std::uint32_t n) {
    atomicAdd(&words[bin >> 1], n << ((bin & 1u) * 16u));
}

// Neighbouring pixels often share a bin: each run of lanes holding the same bin adds once, its
// first lane adding the run's length (a shuffle and a ballot, much cheaper than a match).
__device__ __forceinline__ void add_runs(std::uint32_t bin, std::uint32_t* counters, bool packed) {
    const int lane = static_cast<int>(threadIdx.x & 31u);
    const std::uint32_t before = __shfl_up_sync(0xFFFFFFFFu, bin, 1);
    const bool head = lane == 0 || before != bin;
    const unsigned heads = __ballot_sync(0xFFFFFFFFu, head);
    if (!head || bin == ~0u) return;
    const unsigned later = lane == 31 ? 0u : heads >> (lane + 1) << (lane + 1);
    const int next = later == 0 ? 32 : __ffs(later) - 1;
    const auto n = static_cast<std::uint32_t>(next - lane);
    if (packed)
        add_packed(counters, bin, n);
    else
        atomicAdd(&counters[bin], n);
}

// The block's 16-bit counters of an S x S vectorscope (two to a shared word), zeroed; returns
// how many words they take.
__device__ __forceinline__ std::uint32_t clear_chunk_counters(const VectorArgs& a,
                                                              std::uint32_t* words) {
    const std::uint32_t n_words = (a.size * a.size + 1) / 2;
    for (std::uint32_t i = threadIdx.x; i < n_words; i += blockDim.x) words[i] = 0;
    __syncthreads();
    return n_words;
}

// Once every thread has counted: the bins the block hit, added to the global counts.
__device__ __forceinline__ void add_chunk_counters(const VectorArgs& a, const std::uint32_t* words,
                                                   std::uint32_t n_words) {
    __syncthreads();
    for (std::uint32_t w = threadIdx.x; w < n_words; w += blockDim.x) {
        const std::uint32_t v = words[w];
        if ((v & 0xFFFFu) != 0) atomicAdd(&a.out[2 * w], v & 0xFFFFu);
        if ((v >> 16) != 0) atomicAdd(&a.out[2 * w + 1], v >> 16);
    }
}

// 8-bit pixels in groups that fill whole 16-byte vectors: 16 RGB pixels (three vectors) or 4
// RGBA pixels (one).
template <int C>
struct PixelGroup {
    static constexpr int kPixels = C == 3 ? 16 : 4;
    static constexpr int kVectors = kPixels * C / 16;
};

// The bins of group `g` (pixels g * kPixels ...; the data 16-byte aligned), ~0 for pixels not
// counted; loaded as whole vectors when the group is whole.
template <int C>
__device__ __forceinline__ void group_bins(const VectorArgs& a, std::uint64_t g, std::uint64_t end,
                                           std::uint32_t (&bin)[PixelGroup<C>::kPixels]) {
    constexpr int P = PixelGroup<C>::kPixels, V = PixelGroup<C>::kVectors;
    const std::uint64_t first = g * P;
    if (first + P > end) {
#pragma unroll
        for (int k = 0; k < P; ++k)
            bin[k] = first + k < end ? chroma_bin<std::uint8_t, C>(a, first + k) : ~0u;
        return;
    }
    const uint4* v = reinterpret_cast<const uint4*>(static_cast<const std::uint8_t*>(a.data)) +
                     g * static_cast<std::uint64_t>(V);
    std::uint32_t w[4 * V];
#pragma unroll
    for (int i = 0; i < V; ++i) {
        const uint4 x = v[i];
        w[4 * i] = x.x;
        w[4 * i + 1] = x.y;
        w[4 * i + 2] = x.z;
        w[4 * i + 3] = x.w;
    }
    const auto sample = [&](int k, int c) {
        const int byte = k * C + c;  // constant once unrolled
        return (w[byte / 4] >> (8 * (byte % 4))) & 0xFFu;
    };
#pragma unroll
    for (int k = 0; k < P; ++k) {
        const Chroma ch = hs::chroma(a.weights, sample(k, 0), sample(k, 1), sample(k, 2), 8);
        bin[k] = hs::scope_bin(ch.cb, a.size, 8) * a.size + hs::scope_bin(ch.cr, a.size, 8);
    }
}

// S x S <= 65536, 8-bit pixels: as vectorscope_shared_kernel, each thread taking whole groups
// of pixels loaded as 16-byte vectors (three loads for 16 RGB pixels instead of 48 of a byte).
// Neighbouring pixels are a thread's own here: each run of equal bins among a group's pixels
// adds once (on the H100 the 4K photo's vectorscope took 30 us with runs of lanes, 26 so).
template <int C>
__global__ void vectorscope_vector_kernel(VectorArgs a) {
    extern __shared__ std::uint32_t words[];
    constexpr int P = PixelGroup<C>::kPixels;
    const std::uint32_t n_words = clear_chunk_counters(a, words);
    const std::uint64_t begin = static_cast<std::uint64_t>(blockIdx.x) * a.chunk;
    const std::uint64_t end = min(a.pixels, begin + a.chunk);
    const std::uint64_t first_group = begin / P, end_group = (end + P - 1) / P;
    for (std::uint64_t g = first_group + threadIdx.x; g < end_group; g += blockDim.x) {
        std::uint32_t bin[P];
        group_bins<C>(a, g, end, bin);
        std::uint32_t run_bin = bin[0], run = 1;
#pragma unroll
        for (int k = 1; k < P; ++k) {
            if (bin[k] == run_bin) {
                ++run;
            } else {
                if (run_bin != ~0u) add_packed(words, run_bin, run);
                run_bin = bin[k];
                run = 1;
            }
        }
        if (run_bin != ~0u) add_packed(words, run_bin, run);
    }
    add_chunk_counters(a, words, n_words);
}

// S x S <= 65536: block b counts pixels [b * chunk, (b + 1) * chunk) into 16-bit halves of
// shared words, then adds the bins it hit to the global counts.
template <typename T, int C>
__global__ void vectorscope_shared_kernel(VectorArgs a) {
    extern __shared__ std::uint32_t words[];
    const std::uint32_t n_words = clear_chunk_counters(a, words);
    const std::uint64_t begin = static_cast<std::uint64_t>(blockIdx.x) * a.chunk;
    const std::uint64_t end = min(a.pixels, begin + a.chunk);
    // Every lane of a warp runs the same iterations (the shuffle and ballot need all 32).
    for (std::uint64_t base = begin; base < end;
         base += static_cast<std::uint64_t>(blockDim.x) * kVectorUnroll) {
        std::uint32_t bin[kVectorUnroll];
#pragma unroll
        for (int u = 0; u < kVectorUnroll; ++u) {
            const std::uint64_t i = base + threadIdx.x + static_cast<std::uint64_t>(u) * blockDim.x;
            bin[u] = i < end ? chroma_bin<T, C>(a, i) : ~0u;
        }
#pragma unroll
        for (int u = 0; u < kVectorUnroll; ++u) add_runs(bin[u], words, true);
    }
    add_chunk_counters(a, words, n_words);
}

// Larger vectorscopes: lanes aggregated, straight into the global counts.
template <typename T, int C>
__global__ void vectorscope_global_kernel(VectorArgs a) {
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x;
    for (std::uint64_t base = first; base < a.pixels; base += step)
        add_runs(chroma_bin<T, C>(a, base + threadIdx.x), a.out, false);
}

template <typename T, int C, int Planes>
const void* waveform_for(bool words) {
    if constexpr (std::is_same_v<T, std::uint8_t>)
        if (words) return reinterpret_cast<const void*>(&waveform_words_kernel<C, Planes>);
    return reinterpret_cast<const void*>(&waveform_kernel<T, C, Planes>);
}

// Whether the waveform of `image` is read in 32-bit words: 8-bit rows that start on 4-byte
// boundaries.
bool word_loads(const DeviceImage& image) {
    return image.type == SampleType::U8 &&
           static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.channels) % 4 ==
               0 &&
           reinterpret_cast<std::uintptr_t>(image.data) % 4 == 0;
}

// The kernel of a request: sample type, channels, planes, loads.
const void* waveform_kernel_of(const DeviceImage& image, int planes) {
    const bool u8 = image.type == SampleType::U8, words = word_loads(image);
    switch (image.channels * 4 + planes) {
        case 1 * 4 + 1:
            return u8 ? waveform_for<std::uint8_t, 1, 1>(words)
                      : waveform_for<std::uint16_t, 1, 1>(false);
        case 3 * 4 + 1:
            return u8 ? waveform_for<std::uint8_t, 3, 1>(words)
                      : waveform_for<std::uint16_t, 3, 1>(false);
        case 3 * 4 + 3:
            return u8 ? waveform_for<std::uint8_t, 3, 3>(words)
                      : waveform_for<std::uint16_t, 3, 3>(false);
        case 4 * 4 + 1:
            return u8 ? waveform_for<std::uint8_t, 4, 1>(words)
                      : waveform_for<std::uint16_t, 4, 1>(false);
        case 4 * 4 + 3:
            return u8 ? waveform_for<std::uint8_t, 4, 3>(words)
                      : waveform_for<std::uint16_t, 4, 3>(false);
        default:
            throw UnsupportedError("no waveform kernel for this image");
    }
}

// Whether the vectorscope of `image` is read in whole 16-byte vectors (on the H100 the 4K
// photo's took 48 us read a byte at a time, 30 us so).
bool vector_loads(const DeviceImage& image) {
    return image.type == SampleType::U8 && image.bit_depth == 8 &&
           reinterpret_cast<std::uintptr_t>(image.data) % 16 == 0;
}

const void* vectorscope_kernel_of(const DeviceImage& image, bool shared) {
    const bool u8 = image.type == SampleType::U8;
    if (shared && vector_loads(image))
        return image.channels == 3 ? reinterpret_cast<const void*>(&vectorscope_vector_kernel<3>)
                                   : reinterpret_cast<const void*>(&vectorscope_vector_kernel<4>);
    if (image.channels == 3) {
        if (shared)
            return u8 ? reinterpret_cast<const void*>(&vectorscope_shared_kernel<std::uint8_t, 3>)
                      : reinterpret_cast<const void*>(&vectorscope_shared_kernel<std::uint16_t, 3>);
        return u8 ? reinterpret_cast<const void*>(&vectorscope_global_kernel<std::uint8_t, 3>)
                  : reinterpret_cast<const void*>(&vectorscope_global_kernel<std::uint16_t, 3>);
    }
    if (shared)
        return u8 ? reinterpret_cast<const void*>(&vectorscope_shared_kernel<std::uint8_t, 4>)
                  : reinterpret_cast<const void*>(&vectorscope_shared_kernel<std::uint16_t, 4>);
    return u8 ? reinterpret_cast<const void*>(&vectorscope_global_kernel<std::uint8_t, 4>)
              : reinterpret_cast<const void*>(&vectorscope_global_kernel<std::uint16_t, 4>);
}

int largest_power_of_two_at_most(int n) {
    int p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

}  // namespace

std::string ScopePlan::describe(const ScopeSpec& spec) const {
    if (spec.kind == ScopeKind::Vectorscope)
        return (shared_counts
                    ? "16-bit shared counters per " + std::to_string(chunk_pixels) + "-pixel chunk"
                    : std::string("global counters")) +
               ", " + std::to_string(blocks) + " blocks of " + std::to_string(threads) + " threads";
    return std::to_string(tile_columns) + " columns per block, " + std::to_string(blocks) +
           " blocks of " + std::to_string(threads) + " threads, " + std::to_string(smem >> 10) +
           " KiB shared";
}

ScopePlan plan_scope(const DeviceImage& image, const ScopeSpec& spec, const DeviceLimits& limits) {
    ScopePlan plan;
    if (spec.kind == ScopeKind::Vectorscope) {
        const std::uint64_t bins = static_cast<std::uint64_t>(spec.size) * spec.size;
        plan.shared_counts = bins <= 65536;
        plan.threads = kVectorThreads;
        if (plan.shared_counts) {
            plan.smem = (bins + 1) / 2 * sizeof(std::uint32_t);
            // A block per SM where the image is small enough: the blocks run at once, and the
            // time is one chunk's (on the H100 the 4K photo takes 127 blocks of at most 65520
            // pixels, or 132 of 62848).
            const std::uint64_t per_sm =
                (image.pixels + static_cast<std::uint64_t>(limits.sm_count) - 1) /
                static_cast<std::uint64_t>(std::max(1, limits.sm_count));
            plan.chunk_pixels = static_cast<std::uint32_t>(
                std::min<std::uint64_t>(kChunkPixels, (per_sm + 15) / 16 * 16));
            plan.blocks =
                static_cast<int>((image.pixels + plan.chunk_pixels - 1) / plan.chunk_pixels);
            const void* kernel = vectorscope_kernel_of(image, true);
            if (plan.smem > dynamic_smem_limit(kernel, limits.shared_per_block_optin))
                plan.shared_counts = false;
            else
                reserve_dynamic_smem(kernel, plan.smem, limits.shared_per_block_optin,
                                     "the vectorscope kernel");
        }
        if (!plan.shared_counts) {
            plan.smem = 0;
            plan.blocks = static_cast<int>(grid_blocks(
                image.pixels, kVectorThreads, static_cast<std::uint64_t>(limits.sm_count) * 2));
        }
        return plan;
    }
    const int planes = spec.kind == ScopeKind::Parade ? 3 : 1;
    const int columns = spec.output_columns(image.width);
    const std::size_t column_bytes = static_cast<std::size_t>(planes) *
                                     (static_cast<std::size_t>(spec.levels) + 1) *
                                     sizeof(std::uint32_t);
    const void* kernel = waveform_kernel_of(image, planes);
    const std::size_t budget = dynamic_smem_limit(kernel, limits.shared_per_block_optin);
    if (column_bytes > budget)
        throw UnsupportedError("one column of this waveform needs " + std::to_string(column_bytes) +
                               " bytes of shared memory, more than the " + std::to_string(budget) +
                               " the device gives a block");
    // Wide tiles read long pieces of each row (on the H100, a 4K parade takes 36 us with 32
    // columns a block, 40 with 16, 48 with 8), as long as about half the SMs get a block; at
    // most 32 columns, and what shared memory holds.
    const int wanted = std::max(1, columns / std::max(1, limits.sm_count / 2));
    plan.tile_columns = std::min(
        {largest_power_of_two_at_most(wanted), 32, static_cast<int>(budget / column_bytes)});
    plan.blocks = (columns + plan.tile_columns - 1) / plan.tile_columns;
    plan.threads = kWaveformThreads;
    plan.smem = static_cast<std::size_t>(plan.tile_columns) * column_bytes;
    reserve_dynamic_smem(kernel, plan.smem, limits.shared_per_block_optin, "the waveform kernel");
    return plan;
}

void launch_scope(const DeviceImage& image, const ScopeSpec& spec, const ScopePlan& plan,
                  std::uint32_t* counts, std::size_t n_counts, cudaStream_t stream) {
    if (spec.kind == ScopeKind::Vectorscope) {
        check(cudaMemsetAsync(counts, 0, n_counts * sizeof(std::uint32_t), stream),
              "vectorscope counters (cudaMemsetAsync)");
        const VectorArgs a{image.data,
                           image.pixels,
                           (1u << image.bit_depth) - 1u,
                           image.bit_depth,
                           static_cast<std::uint32_t>(spec.size),
                           chroma_weights(spec.matrix),
                           counts,
                           plan.chunk_pixels};
        const void* kernel = vectorscope_kernel_of(image, plan.shared_counts);
        void* args[] = {const_cast<VectorArgs*>(&a)};
        check(cudaLaunchKernel(kernel, dim3(static_cast<unsigned>(plan.blocks)),
                               dim3(static_cast<unsigned>(plan.threads)), args, plan.smem, stream),
              "vectorscope kernel launch");
        return;
    }
    const int planes = spec.kind == ScopeKind::Parade ? 3 : 1;
    WaveformArgs a{};
    a.data = image.data;
    a.width = image.width;
    a.height = image.height;
    a.max_value = (1u << image.bit_depth) - 1u;
    a.depth = image.bit_depth;
    a.levels = spec.levels;
    a.columns = spec.output_columns(image.width);
    a.tile = plan.tile_columns;
    a.offset = planes == 3 ? 0
               : is_luma(spec.channel) && image.channels > 1
                   ? -1
                   : std::max(0, channel_offset(spec.channel, image.channels));
    a.weights = spec.channel == Channel::Luma709 ? kLuma709 : kLuma601;
    a.out = counts;
    const void* kernel = waveform_kernel_of(image, planes);
    void* args[] = {&a};
    check(cudaLaunchKernel(kernel, dim3(static_cast<unsigned>(plan.blocks)),
                           dim3(static_cast<unsigned>(plan.threads)), args, plan.smem, stream),
          "waveform kernel launch");
}

std::string scope_probe() {
    return probe_kernel(reinterpret_cast<const void*>(&waveform_kernel<std::uint8_t, 3, 3>),
                        "the scope kernels");
}

}  // namespace hs::cuda::detail
