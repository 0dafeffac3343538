#pragma once
// Strategy "warp-private": multi-histogramming after Henriksen et al. (generalized histograms
// on GPUs).
//
// Every block keeps M copies ("sub-histograms") of its share of the histogram in shared
// memory, 32-bit counters, interleaved bin-major: the counter of bin b in copy m is word
// b * M + m, and thread t always updates copy t % M (M = 1, 2, 4, ..., 32). Lanes of one warp
// that hit the same bin therefore hit M different words in M different banks, which divides
// the serialization of conflicting shared-memory atomics by up to M. When bins * M counters
// do not fit into the shared memory of a block, the bins are split into S chunks ("passes"):
// a block of pass s counts only the values whose bin falls into chunk s. All passes run in
// one grid (block i serves pass i % S over part i / S of the pixels, so blocks resident at
// the same time read the same pixels and share them through the L2 cache). At the end every
// block sums the M copies of each bin of its chunk (warp shuffles over contiguous words, no
// bank conflicts) and adds the non-zero sums to the 64-bit global histogram with atomicAdd.
//
// Exactness: a block never counts more than kWarpPrivateMaxPixelsPerBlock pixels, so no
// 32-bit counter (and no sum of the M copies of one bin) can overflow.
//
// Tuning (WarpPrivateTuning): M and S come from the device's shared memory, the bin count and
// a race factor sampled on the host (the engine reads a few thousand values of the image the
// way the kernel's warps do, and measures for every M how many serialized atomic rounds one
// warp step costs); a small cost model trades passes (re-reading the image), contention
// (rounds per warp step) and the merge of M copies per block against each other. The block
// size comes from the occupancy API.

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_engine.hpp"
#include "kernels/common/bins.cuh"

namespace hs::cuda::detail {

// Bins: kTableModes for 8-bit plain values and luma, kWideModes for the others.
struct WarpPrivateArgs : ImageArgs {
    ValueRule value;
    BinRule bins;
    // Table or Edges: device memory, copied to shared memory when aux_shared.
    const std::int32_t* aux = nullptr;
    bool aux_shared = false;
    // The tuning: M = 1 << copies_log2 copies, `passes` chunks of `chunk` bins (the last may
    // be shorter).
    int copies_log2 = 0;
    int chunk = 256;
    int passes = 1;
    unsigned long long* counts = nullptr;  // `bins` 64-bit counters, zeroed by the caller
};

// Upper bound of pixels one block counts, keeping its 32-bit counters exact.
inline constexpr std::uint64_t kWarpPrivateMaxPixelsPerBlock = std::uint64_t{1} << 30;
// Copies per block tried: 1, 2, 4, 8, 16, 32.
inline constexpr int kWarpPrivateCopyChoices = 6;
// Sampled warp steps per channel (32 values each).
inline constexpr int kWarpPrivateSampledSteps = 128;

// The race factor of a channel: for M = 1 << k, the mean number of serialized atomic rounds
// of one sampled warp step (the largest number of lanes hitting the same counter). Lanes whose
// value falls outside the histogram do no atomic.
struct WarpPrivateRace {
    std::array<double, kWarpPrivateCopyChoices> rounds{};
    int steps = 0;    // sampled warp steps
    int counted = 0;  // sampled values inside the histogram
};
// `warp_bins`: 32 bins (-1 = outside or no pixel) per sampled warp step, lane by lane.
WarpPrivateRace warp_private_race(const std::vector<std::int32_t>& warp_bins);

// The choice for one channel of one request; describe() prints it.
struct WarpPrivateTuning {
    int copies = 1;  // M: sub-histograms per block
    int passes = 1;  // S: chunks of the bins, one per pass
    int chunk = 0;   // bins per chunk
    bool aux_shared = false;
    std::size_t smem_bytes = 0;
    int threads = 0;        // per block (occupancy API)
    int blocks_per_sm = 0;  // resident
    int parts = 0;          // blocks per pass
    double cost = 0.0;      // of the cost model, per pixel
    WarpPrivateRace race;
    std::string describe() const;
};

// The most dynamic shared memory per block of the kernel that `args` select (sample type,
// channels, value kind, bin mode) on a device with opt-in limit `optin` (dynamic_smem_limit()).
// Throws hs::UnsupportedError when no kernel serves `args`.
std::size_t warp_private_smem_limit(const WarpPrivateArgs& args, std::size_t optin);

// M, S, the chunk and where the table or thresholds live, from the race factor and the
// kernel's shared memory (`smem_limit`: warp_private_smem_limit()); pure host code (no CUDA
// call). `aux_entries`: 256 (table), bins + 1 (thresholds) or 0.
WarpPrivateTuning choose_warp_private(const WarpPrivateRace& race, int bins, int aux_entries,
                                      int bytes_per_pixel, int pixels_per_group,
                                      std::uint64_t pixels, std::size_t smem_limit,
                                      const DeviceLimits& limits);

// Block size (256, 512 or 1024 threads: the most resident threads per SM, ties to the larger,
// fewer blocks to merge) and grid (tuning.threads, blocks_per_sm, parts) for `args` on
// `limits`; raises the kernel's dynamic shared memory limit. Throws hs::DeviceError on CUDA
// failures.
void plan_warp_private(const WarpPrivateArgs& args, const DeviceLimits& limits,
                       WarpPrivateTuning& tuning);
// Blocks per pass: one wave of resident blocks shared by the passes, no more than give every
// thread a group, and enough that no block counts more than kWarpPrivateMaxPixelsPerBlock.
int warp_private_parts(std::uint64_t pixels, bool u16, int threads, int blocks_per_sm, int passes,
                       int sm_count);
// Launches the kernel for `args` (tuning already copied into it) with `tuning`'s grid.
void launch_warp_private(const WarpPrivateArgs& args, const WarpPrivateTuning& tuning,
                         cudaStream_t stream);

// Empty when the kernels of this build can run on the current device, otherwise why not.
std::string warp_private_probe();

}  // namespace hs::cuda::detail
