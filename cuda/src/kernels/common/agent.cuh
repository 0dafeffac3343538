#pragma once
// The privatized-histogram agent, in the manner of CUB's AgentHistogram: what a block does
// around its counting loop when it keeps its share of a histogram privately, written once.
// A kernel that privatizes at block scope (block-shared, thread-private's block counters, the
// equalizer's value and tile histograms, the frame pipeline's colour histograms through them)
//
//   1. zeroes its private counters in shared memory (zero_private_counters), stages what its
//      bin rule reads beside them, and synchronizes;
//   2. counts its share of the pixels into them with its own loop (the load shape and the
//      counting are the strategy's: for_each_pixel, load_group, its bin rule);
//   3. synchronizes and adds every non-zero counter to the global counts
//      (merge_private_counters), one atomic per counter.
//
// The index type is the caller's (int or 32-bit unsigned, as each kernel always had), so that
// the generated loops are the ones each kernel had before these were shared. Strategies whose
// private counters are laid out otherwise keep their own zeroing and merge: lane-private and
// warp-private (R or M interleaved copies summed by rotated reads or shuffles), packed (fields
// of packed words, wraps accounted), thread-private's 8-bit per-thread counters (flushed
// block-wide); global-atomic does not privatize.

#include <cstdint>

namespace hs::cuda::detail {

// counters[i] = 0 for i < n, by the threads of the block (before a __syncthreads()).
template <typename Index>
__device__ __forceinline__ void zero_private_counters(std::uint32_t* counters, Index n) {
    for (Index i = static_cast<Index>(threadIdx.x); i < n; i += static_cast<Index>(blockDim.x))
        counters[i] = 0;
}

// out[i] += counters[i] for the non-zero counters i < n (after a __syncthreads()); `Out` is the
// global counters' type (64-bit counts, or the equalizer's 32-bit tile counts).
template <typename Index, typename Out>
__device__ __forceinline__ void merge_private_counters(const std::uint32_t* counters, Index n,
                                                       Out* out) {
    for (Index i = static_cast<Index>(threadIdx.x); i < n; i += static_cast<Index>(blockDim.x))
        if (const std::uint32_t c = counters[i]; c != 0) atomicAdd(&out[i], static_cast<Out>(c));
}

}  // namespace hs::cuda::detail
