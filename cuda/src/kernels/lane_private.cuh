#pragma once
// Strategy "lane-private": every requested channel of an interleaved 1-, 3- or 4-channel image
// (plain samples and luma) counted in one pass; 8-bit samples with any bins (through a
// table), 16-bit samples with even bins whose width is a power of two (a shift: 1024 bins over
// [0, 65536) and the like).
//
// Every block keeps, per counted channel, R copies of the histogram in shared memory (R = 32
// when it fits, else 16 or 8), laid out lane-major: the counter of bin b for lane l is word
// b * R + l % R. With R = 32 a lane always updates bank l, whatever its value: a warp's 32
// shared-memory atomics never conflict on a bank, on uniform data as on a one-value image (the
// cost is data independent); with R < 32 lanes l and l + R can meet in a bank (bins of the
// same parity for R = 16). Threads stream the padded buffer as 16-byte words, coalesced across
// the warp (word i, i + T, ... with T the number of threads in the grid), two words in flight
// per thread per step. A word holds S = 16 / sizeof(sample) samples; sample j of word i belongs
// to channel (S i + j) % C: constant per sample position for C = 1 and 4, and for C = 3 a
// per-thread rotation that stays fixed because the grid's thread count is kept a multiple of 3.
// With luma among the requested channels a pixel's samples must meet: threads then read whole
// groups of 16 / sizeof(sample) pixels instead (C 16-byte vectors, common/samples.cuh) and
// count every slot's value of each pixel (a sample, or the luma of samples 0..2), lane-major
// as above.
// Bins: 8-bit full-range 256 bins map the value to the bin directly (no table read), any other
// 8-bit spec goes through a 256-entry table in shared memory (-1 = outside); 16-bit values v
// with lo <= v < hi count in bin (v - lower) >> shift.
// At the end each block sums the R copies of every bin (rotated reads, no bank conflicts) and
// adds the non-zero sums to the 64-bit global counts.
//
// Exactness: no block reads more than kLanePrivateMaxBytesPerBlock bytes, so no 32-bit counter
// (nor the sum of the R copies of a bin) can overflow. The shift equals the spec's exact rule
// floor((v - lower) * bins / (upper - lower)) because upper - lower = bins << shift.
//
// One launch, no memset: with `sync` set the kernel zeroes the global counts itself. The first
// block to start (ticket 0 of an atomicInc that wraps at the grid size, so the ticket counter is
// back at 0 after every launch) zeroes them and then publishes the launch's `epoch` in
// sync[1]; every block waits for that epoch before adding its sums. Only a running block that
// waits for nobody holds ticket 0, so the wait cannot deadlock, whatever else shares the GPU;
// it costs nothing in practice because the zeroing is done long before any block has counted
// its bytes.
//
// Frames back to back: the kernel is launched as a dependent of the kernel before it on the
// stream (common/dependent_launch.cuh): its blocks zero their shared copies while that kernel's
// last blocks finish, and wait for it before touching global memory (table, ticket, counts,
// samples). Measured on the H100 (4K RGB, back to back): 13.9 us per frame instead of 15.1.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu_engine.hpp"
#include "kernels/common/bins.cuh"

namespace hs::cuda::detail {

inline constexpr int kLanePrivateMaxSlots = 4;  // counted channels per pass
inline constexpr int kLanePrivateMaxCopies = 32;
inline constexpr int kLanePrivateMinCopies = 8;  // fewer: not this strategy any more
inline constexpr std::uint64_t kLanePrivateMaxBytesPerBlock = std::uint64_t{1} << 31;
// Fewer bytes than this per block: fewer blocks (see plan_lane_private).
inline constexpr std::uint64_t kLanePrivateMinBytesPerBlock = std::uint64_t{192} << 10;
// 8-bit values: the value itself (256 bins over [0, 256), 32 copies only) or the table;
// 16-bit values: a shift.
inline constexpr BinModes kLanePrivateModes8 =
    bin_mode_bit(BinMode::Identity) | bin_mode_bit(BinMode::Table);
inline constexpr BinModes kLanePrivateModesWide = bin_mode_bit(BinMode::EvenShift);

struct LanePrivateArgs {
    const void* samples = nullptr;  // packed, padded to whole 16 * channels byte groups
    std::uint64_t bytes = 0;        // pixels * channels * sample size
    int channels = 1;               // 1, 3 or 4 interleaved samples per pixel
    bool u16 = false;               // 16-bit samples (else 8-bit)
    BinRule bins;                   // Identity, Table or EvenShift
    int copies_log2 = 5;            // R = 1 << copies_log2 copies of the histogram per block
    // Per sample offset of the pixel: the slot it is counted in (-1 = not counted).
    int slot_of_offset[4] = {-1, -1, -1, -1};
    int slots = 1;
    // Luma requested: the pixel path, with the value of every slot.
    bool by_pixel = false;
    std::uint64_t pixels = 0;
    ValueRule slot_value[kLanePrivateMaxSlots];
    const std::int32_t* table = nullptr;  // Table: 256 entries value -> bin (-1 = outside)
    // Per slot: `bins` 64-bit counters, zeroed by the caller unless `sync` is set.
    unsigned long long* counts[kLanePrivateMaxSlots] = {};
    // Two words, zero before the first launch: the ticket counter and the published epoch.
    // Null: the caller zeroes the counts.
    unsigned int* sync = nullptr;
    unsigned int epoch = 0;  // non-zero, different from the previous launch's
};

// The choice for one request; describe() prints it.
struct LanePrivateTuning {
    int threads = 0;
    int blocks_per_sm = 0;
    int blocks = 0;
    std::size_t smem_bytes = 0;
    std::string describe() const;
};

std::size_t lane_private_smem_bytes(int slots, int bins, int copies);
// The most copies (32, 16 or 8) whose shared memory fits into `smem_budget`; 0 when not even
// kLanePrivateMinCopies fit.
int lane_private_copies(int slots, int bins, std::size_t smem_budget);
// The most dynamic shared memory per block of the kernel that `args` select (sample type,
// channels and bin mode): dynamic_smem_limit() of that kernel on a device with opt-in limit
// `optin`.
std::size_t lane_private_smem_limit(const LanePrivateArgs& args, std::size_t optin);
// Block size (256, 512 or 1024 threads: the most resident threads per SM, ties to the larger)
// and grid for `args` on `limits`; raises the kernel's dynamic shared memory limit. Throws
// hs::UnsupportedError when the copies do not fit, hs::DeviceError on CUDA failures.
LanePrivateTuning plan_lane_private(const LanePrivateArgs& args, const DeviceLimits& limits);
void launch_lane_private(const LanePrivateArgs& args, const LanePrivateTuning& tuning,
                         cudaStream_t stream);
// Empty when the kernels of this build can run on the current device, otherwise why not.
std::string lane_private_probe();

}  // namespace hs::cuda::detail
