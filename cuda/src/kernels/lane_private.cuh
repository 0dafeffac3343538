#pragma once
// Strategy "lane-private": 8-bit samples, up to 256 bins, every requested plain channel of an
// interleaved 1-, 3- or 4-channel image counted in one pass.
//
// Every block keeps, per counted channel, 32 copies of the histogram in shared memory, laid out
// lane-major: the counter of bin b for lane l is word b * 32 + l. A lane therefore always
// updates bank l, whatever its value: a warp's 32 shared-memory atomics never conflict on a
// bank, on uniform data as on a one-value image (the cost is data independent). Threads stream
// the padded buffer as 16-byte words, coalesced across the warp (word i, i + T, ... with T the
// number of threads in the grid), two words in flight per thread per step. The channel of byte
// j of word i is (16 i + j) % C: constant per byte for C = 1 and 4, and for C = 3 a per-thread
// rotation that stays fixed because the grid's thread count is kept a multiple of 3.
// Bins: full-range 256 bins map the value to the bin directly (no table read); any other spec
// goes through a 256-entry table in shared memory (-1 = outside).
// At the end each block sums the 32 copies of every bin (rotated reads, no bank conflicts) and
// adds the non-zero sums to the 64-bit global counts.
//
// Exactness: no block reads more than kLanePrivateMaxBytesPerBlock bytes, so no 32-bit counter
// (nor the sum of the 32 copies of a bin) can overflow.
//
// One launch, no memset: with `sync` set the kernel zeroes the global counts itself. The first
// block to start (ticket 0 of an atomicInc that wraps at the grid size, so the ticket counter is
// back at 0 after every launch) zeroes them and then publishes the launch's `epoch` in
// sync[1]; every block waits for that epoch before adding its sums. Only a running block that
// waits for nobody holds ticket 0, so the wait cannot deadlock, whatever else shares the GPU;
// it costs nothing in practice because the zeroing is done long before any block has counted
// its bytes.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu_engine.hpp"

namespace hs::cuda::detail {

inline constexpr int kLanePrivateMaxSlots = 4;  // counted channels per pass
inline constexpr int kLanePrivateMaxBins = 256;
inline constexpr std::uint64_t kLanePrivateMaxBytesPerBlock = std::uint64_t{1} << 31;
// Candidate block sizes; the one with the most resident threads per SM wins (ties: larger).
inline constexpr int kLanePrivateThreadCandidates[] = {256, 512, 1024};

struct LanePrivateArgs {
    const void* samples = nullptr;  // packed, padded to whole 16 * channels byte groups
    std::uint64_t bytes = 0;        // pixels * channels
    int channels = 1;               // 1, 3 or 4 interleaved 8-bit samples per pixel
    int bins = 256;
    bool identity = true;  // 256 bins over [0, 256): bin = value
    // Per sample offset of the pixel: the slot it is counted in (-1 = not counted).
    int slot_of_offset[4] = {-1, -1, -1, -1};
    int slots = 1;
    const std::int32_t* table = nullptr;  // !identity: 256 entries value -> bin (-1 = outside)
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

std::size_t lane_private_smem_bytes(int slots, int bins);
// Block size (occupancy API) and grid for `args` on `limits`; sets the kernel's opt-in shared
// memory limit. Throws hs::DeviceError on CUDA failures.
LanePrivateTuning plan_lane_private(const LanePrivateArgs& args, const DeviceLimits& limits);
void launch_lane_private(const LanePrivateArgs& args, const LanePrivateTuning& tuning,
                         cudaStream_t stream);
// Empty when the kernels of this build can run on the current device, otherwise why not.
std::string lane_private_probe();

}  // namespace hs::cuda::detail
