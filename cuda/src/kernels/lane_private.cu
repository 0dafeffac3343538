// Strategy "lane-private": see lane_private.cuh.

#include <algorithm>
#include <sstream>
#include <string>
#include <type_traits>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/dependent_launch.cuh"
#include "kernels/common/dispatch.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/lane_private.cuh"
#include "shared_memory.hpp"

namespace hs::cuda::detail {

namespace {

extern __shared__ std::uint32_t lane_private_smem[];

// Counts the S samples of one 16-byte word; rot[k] is the lane's column of the channel of
// sample k % C (nullptr: not counted), rlog = log2 of the copies (a constant 5 for Identity).
template <typename T, int C, BinMode B>
__device__ __forceinline__ void count_word(const uint4 w, std::uint32_t* const (&rot)[C],
                                           const LanePrivateArgs& a, const std::int32_t* table,
                                           unsigned rlog) {
    constexpr int kPerWord = 4 / static_cast<int>(sizeof(T));  // samples per 32-bit word
    constexpr std::uint32_t kMask = sizeof(T) == 1 ? 0xFFu : 0xFFFFu;
    const std::uint32_t v[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int q = 0; q < 4; ++q) {
#pragma unroll
        for (int k = 0; k < kPerWord; ++k) {
            std::uint32_t* const col = rot[(q * kPerWord + k) % C];
            if constexpr (C > 1)
                if (col == nullptr) continue;
            const int bin = bin_of<B>((v[q] >> (8 * sizeof(T) * k)) & kMask, a.bins, table);
            if (bin >= 0) atomicAdd(col + (static_cast<unsigned>(bin) << rlog), 1u);
        }
    }
}

// a.slot_of_offset[offset] and a.counts[slot] with run-time indices, written as selects so that
// the arguments stay in the constant bank (a dynamic index copies them to local memory).
__device__ __forceinline__ int slot_at(const LanePrivateArgs& a, int offset) {
    return offset == 0   ? a.slot_of_offset[0]
           : offset == 1 ? a.slot_of_offset[1]
           : offset == 2 ? a.slot_of_offset[2]
                         : a.slot_of_offset[3];
}
__device__ __forceinline__ unsigned long long* counts_at(const LanePrivateArgs& a, int slot) {
    return slot == 0   ? a.counts[0]
           : slot == 1 ? a.counts[1]
           : slot == 2 ? a.counts[2]
                       : a.counts[3];
}

// The start of every block: its copies zeroed, then (once the kernel before it on the stream has
// finished) the table staged; with `sync`, the first block to start zeroes the counts and
// publishes the launch's epoch (see the header).
template <BinMode B>
__device__ __forceinline__ void lane_start(const LanePrivateArgs& a, std::uint32_t* hist,
                                           std::int32_t* table, int words) {
    for (int i = static_cast<int>(threadIdx.x); i < words; i += static_cast<int>(blockDim.x))
        hist[i] = 0;
    // Launched as a dependent of the kernel before it: nothing global is touched before this.
    wait_for_previous_grid();
    if constexpr (B == BinMode::Table)
        for (int i = static_cast<int>(threadIdx.x); i < 256; i += static_cast<int>(blockDim.x))
            table[i] = a.table[i];
    if (a.sync != nullptr) {
        __shared__ unsigned int ticket;
        if (threadIdx.x == 0) ticket = atomicInc(a.sync, gridDim.x - 1);
        __syncthreads();
        if (ticket == 0) {
            for (int idx = static_cast<int>(threadIdx.x); idx < a.bins.bins * a.slots;
                 idx += static_cast<int>(blockDim.x))
                counts_at(a, idx / a.bins.bins)[idx % a.bins.bins] = 0;
            __threadfence();
            __syncthreads();
            if (threadIdx.x == 0) atomicExch(a.sync + 1, a.epoch);
        }
    }
    __syncthreads();
    allow_next_grid();
}

// The end of every block: with `sync`, it waits for the launch's epoch; then a thread per
// (slot, bin) sums the copies, starting at a different bank per thread so that a warp's reads
// never share a bank, and adds the sum to the counts.
__device__ __forceinline__ void lane_finish(const LanePrivateArgs& a, const std::uint32_t* hist,
                                            int region, unsigned rlog) {
    if (a.sync != nullptr && threadIdx.x == 0) {
        const volatile unsigned int* published = a.sync + 1;
        while (*published != a.epoch) __nanosleep(64);
        __threadfence();
    }
    __syncthreads();
    const int copies = 1 << rlog;
    for (int idx = static_cast<int>(threadIdx.x); idx < a.bins.bins * a.slots;
         idx += static_cast<int>(blockDim.x)) {
        const int s = idx / a.bins.bins;
        const int b = idx - s * a.bins.bins;
        const std::uint32_t* row = hist + s * region + (b << rlog);
        std::uint32_t sum = 0;  // at most the samples of this block: < 2^31
#pragma unroll 8
        for (int l = 0; l < copies; ++l) sum += row[(l + b) & (copies - 1)];
        if (sum != 0) atomicAdd(counts_at(a, s) + b, static_cast<unsigned long long>(sum));
    }
}

// Plain channels only: a sample's channel follows from its position in the stream of words.
template <typename T, int C, BinMode B>
__global__ void __launch_bounds__(1024) lane_private_kernel(const LanePrivateArgs a) {
    constexpr int kPerWord16 = 16 / static_cast<int>(sizeof(T));  // samples per 16-byte word
    // Identity always runs with 32 copies (the host falls back to the table otherwise), so its
    // inner loop shifts by a constant.
    const unsigned rlog = B == BinMode::Identity ? 5u : static_cast<unsigned>(a.copies_log2);
    const int region = a.bins.bins << rlog;  // words per counted channel
    std::uint32_t* hist = lane_private_smem;
    auto* table = reinterpret_cast<std::int32_t*>(hist + region * a.slots);
    lane_start<B>(a, hist, table, region * a.slots);

    const unsigned column = threadIdx.x & ((1u << rlog) - 1u);
    const auto* in = static_cast<const uint4*>(a.samples);
    const std::uint64_t n = a.bytes / 16;  // whole words
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;

    // Sample j of word i belongs to channel (S i + j) % C. For C = 3 that is
    // ((S % 3) (i % 3) + j) % 3, and i % 3 stays first % 3 because step is a multiple of 3.
    const int phase = C == 3 ? static_cast<int>((kPerWord16 % 3) * (first % 3u) % 3u) : 0;
    std::uint32_t* rot[C];
#pragma unroll
    for (int k = 0; k < C; ++k) {
        const int slot = slot_at(a, (phase + k) % C);
        rot[k] = slot >= 0 ? hist + slot * region + column : nullptr;
    }

    std::uint64_t i = first;
    for (; i + step < n; i += 2 * step) {
        const uint4 w0 = __ldg(in + i);
        const uint4 w1 = __ldg(in + i + step);
        count_word<T, C, B>(w0, rot, a, table, rlog);
        count_word<T, C, B>(w1, rot, a, table, rlog);
    }
    if (i < n) count_word<T, C, B>(__ldg(in + i), rot, a, table, rlog);

    // The samples of the last, partial word (the rest of it is padding).
    const auto rem = static_cast<int>(a.bytes % 16) / static_cast<int>(sizeof(T));
    if (rem != 0 && first == 0) {
        const auto* tail = reinterpret_cast<const T*>(in + n);
        for (int j = 0; j < rem; ++j) {
            const auto offset = static_cast<int>((kPerWord16 * n + static_cast<std::uint64_t>(j)) %
                                                 static_cast<std::uint64_t>(C));
            const int slot = slot_at(a, offset);
            if (slot < 0) continue;
            const int bin = bin_of<B>(tail[j], a.bins, table);
            if (bin >= 0)
                atomicAdd(hist + slot * region + (static_cast<unsigned>(bin) << rlog) + column, 1u);
        }
    }
    lane_finish(a, hist, region, rlog);
}

// Luma among the channels: whole groups of pixels. A pixel's plain samples go to their slots'
// columns, found by sample offset as in the word kernel, and every luma slot (at most two:
// Rec.601 and Rec.709) counts the luma of samples 0..2 with its weights. The slots' rules are
// read once per thread, and whether any plain sample is counted and whether there are two lumas
// choose one of four loops: looking each slot's rule up per pixel took twice the time, and
// testing per pixel for slots that are not there cost luma alone 10 %.
template <typename T, int C, BinMode B>
__global__ void __launch_bounds__(1024) lane_private_pixel_kernel(const LanePrivateArgs a) {
    const unsigned rlog = B == BinMode::Identity ? 5u : static_cast<unsigned>(a.copies_log2);
    const int region = a.bins.bins << rlog;
    std::uint32_t* hist = lane_private_smem;
    auto* table = reinterpret_cast<std::int32_t*>(hist + region * a.slots);
    lane_start<B>(a, hist, table, region * a.slots);

    std::uint32_t* const column = hist + (threadIdx.x & ((1u << rlog) - 1u));
    std::uint32_t* plain[C];
    bool any_plain = false;
#pragma unroll
    for (int k = 0; k < C; ++k) {
        const int slot = slot_at(a, k);
        plain[k] = slot >= 0 ? column + slot * region : nullptr;
        any_plain = any_plain || slot >= 0;
    }
    std::uint32_t* luma_column[2] = {nullptr, nullptr};
    LumaWeights weights[2] = {};
#pragma unroll
    for (int s = 0; s < kLanePrivateMaxSlots; ++s) {
        if (s >= a.slots || a.slot_value[s].kind != ValueKind::Luma) continue;
        const int j = luma_column[0] == nullptr ? 0 : 1;
        (j == 0 ? luma_column[0] : luma_column[1]) = column + s * region;
        (j == 0 ? weights[0] : weights[1]) = a.slot_value[s].weights;
    }
    const auto count = [&](std::uint32_t* col, std::uint32_t value) {
        const int bin = bin_of<B>(value, a.bins, table);
        if (bin >= 0) atomicAdd(col + (static_cast<unsigned>(bin) << rlog), 1u);
    };

    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    // kPlain: some plain sample is counted; kLumas: the luma slots (0 only without 3 samples).
    const auto count_pixels = [&](auto plain_counted, auto lumas) {
        constexpr bool kPlain = decltype(plain_counted)::value;
        constexpr int kLumas = decltype(lumas)::value;
        // Luma alone has the least work per group: two groups in flight gained 13 % on a 4K
        // frame, where more slots lost 10 % with them.
        constexpr int kInFlight = !kPlain && kLumas == 1 ? 2 : 1;
        for_each_pixel<T, C, kInFlight>(
            a.samples, a.pixels, first, step, [&](const std::uint32_t* w, int p) {
                std::uint32_t v[C];
#pragma unroll
                for (int k = 0; k < C; ++k) {
                    v[k] = group_sample<T>(w, p * C + k);
                    if constexpr (kPlain)
                        if (plain[k] != nullptr) count(plain[k], v[k]);
                }
                if constexpr (kLumas >= 1)
                    count(luma_column[0], hs::luma(weights[0], v[0], v[1], v[2]));
                if constexpr (kLumas >= 2)
                    count(luma_column[1], hs::luma(weights[1], v[0], v[1], v[2]));
            });
    };
    using Yes = std::true_type;
    using No = std::false_type;
    if constexpr (C < 3) {
        count_pixels(Yes{}, std::integral_constant<int, 0>{});
    } else if (luma_column[0] == nullptr) {
        count_pixels(Yes{}, std::integral_constant<int, 0>{});
    } else if (luma_column[1] == nullptr) {
        if (any_plain)
            count_pixels(Yes{}, std::integral_constant<int, 1>{});
        else
            count_pixels(No{}, std::integral_constant<int, 1>{});
    } else {
        if (any_plain)
            count_pixels(Yes{}, std::integral_constant<int, 2>{});
        else
            count_pixels(No{}, std::integral_constant<int, 2>{});
    }
    lane_finish(a, hist, region, rlog);
}

// Plain samples only: the value kind is not a template parameter of the kernel.
// Plain channels: the word kernel; luma among them: the pixel kernel (each slot's value kind
// is chosen at run time).
struct Family : KernelFamily<LanePrivateArgs,
                             value_kind_bit(ValueKind::Plain) | value_kind_bit(ValueKind::Luma),
                             kLanePrivateModes8, kLanePrivateModesWide> {
    template <typename T, int C, ValueKind V, BinMode M>
    static Pointer get() {
        if constexpr (V == ValueKind::Luma)
            return &lane_private_pixel_kernel<T, C, M>;
        else
            return &lane_private_kernel<T, C, M>;
    }
};

Family::Pointer pick(const LanePrivateArgs& a) {
    return pick_kernel<Family>(a.u16, a.channels, a.by_pixel ? ValueKind::Luma : ValueKind::Plain,
                               a.bins.mode, "engine 'lane-private'");
}

}  // namespace

std::string LanePrivateTuning::describe() const {
    std::ostringstream os;
    os << threads << " threads x " << blocks << " blocks (" << blocks_per_sm << "/SM), "
       << smem_bytes << " bytes of shared memory per block";
    return os.str();
}

std::size_t lane_private_smem_bytes(int slots, int bins, int copies) {
    // `copies` lane copies of every bin per counted channel, plus the 8-bit bin table.
    return static_cast<std::size_t>(slots) * static_cast<std::size_t>(bins) *
               static_cast<std::size_t>(copies) * 4 +
           256 * 4;
}

int lane_private_copies(int slots, int bins, std::size_t smem_budget) {
    for (int copies = kLanePrivateMaxCopies; copies >= kLanePrivateMinCopies; copies /= 2)
        if (lane_private_smem_bytes(slots, bins, copies) <= smem_budget) return copies;
    return 0;
}

std::size_t lane_private_smem_limit(const LanePrivateArgs& a, std::size_t optin) {
    return dynamic_smem_limit(pick(a), optin);
}

LanePrivateTuning plan_lane_private(const LanePrivateArgs& a, const DeviceLimits& limits) {
    const Family::Pointer kernel = pick(a);
    LanePrivateTuning t;
    t.smem_bytes = lane_private_smem_bytes(a.slots, a.bins.bins, 1 << a.copies_log2);
    reserve_dynamic_smem(kernel, t.smem_bytes, limits.shared_per_block_optin, "lane-private");
    const BlockShape shape =
        most_resident(kernel, {256, 512, 1024}, t.smem_bytes, true, "lane-private");
    if (shape.threads == 0)
        throw DeviceError("lane-private: no block fits on an SM with " +
                          std::to_string(t.smem_bytes) + " bytes of shared memory");
    t.threads = shape.threads;
    t.blocks_per_sm = shape.blocks_per_sm;
    // One wave of resident blocks, no more than give every thread two words (the word kernel)
    // or a group of pixels (the pixel kernel), and enough that no block reads more than
    // kLanePrivateMaxBytesPerBlock bytes (a block reads at most ceil(items / (blocks *
    // threads)) words or groups per thread).
    // A block's fixed work (zeroing its copies, summing them, adding the sums) is paid per
    // block: below kLanePrivateMinBytesPerBlock of input per block, fewer blocks, but at least
    // one per SM. Measured on the H100 (4K RGB, 8-bit, two resident blocks an SM): one block an
    // SM took 18.4 instead of 19.7 us, 14.8 instead of 16.0 back to back; 8K RGB and 256 MiB
    // ran faster with two.
    const auto sms = static_cast<std::uint64_t>(limits.sm_count);
    const std::uint64_t resident =
        std::max(sms, std::min(static_cast<std::uint64_t>(t.blocks_per_sm) * sms,
                               a.bytes / kLanePrivateMinBytesPerBlock));
    const auto threads = static_cast<std::uint64_t>(t.threads);
    const std::uint64_t exact = a.bytes / (kLanePrivateMaxBytesPerBlock / 2) + 1;
    std::uint64_t blocks = a.by_pixel
                               ? grid_blocks(group_count(a.pixels, a.u16), threads, resident, exact)
                               : grid_blocks(a.bytes / 16 + 1, 2 * threads, resident, exact);
    // 3-channel pixels: the grid's thread count must be a multiple of 3 (see the kernel).
    if (a.channels == 3) blocks = (blocks + 2) / 3 * 3;
    if (blocks > 0x7FFFFFFFull)
        throw UnsupportedError("lane-private: " + std::to_string(blocks) +
                               " blocks exceed the grid limit");
    t.blocks = static_cast<int>(blocks);
    return t;
}

void launch_lane_private(const LanePrivateArgs& a, const LanePrivateTuning& t,
                         cudaStream_t stream) {
    launch_dependent(pick(a), static_cast<unsigned>(t.blocks), static_cast<unsigned>(t.threads),
                     t.smem_bytes, stream, "lane-private kernel launch", a);
}

std::string lane_private_probe() {
    return probe_kernel(&lane_private_kernel<std::uint8_t, 1, BinMode::Identity>,
                        "the lane-private kernel");
}

}  // namespace hs::cuda::detail
