#pragma once
// What every strategy's launch asks of the device, written once: whether this build's kernels
// load on it, which block size keeps the most threads resident, and how many blocks a
// grid-stride loop gets.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace hs::cuda::detail {

// Empty when `kernel` loads on the current device, otherwise why not, naming `what` (e.g.
// "the block-shared kernel"): a build without code for the device's architecture says how to
// rebuild.
std::string probe_kernel(const void* kernel, std::string_view what);
template <typename... Args>
std::string probe_kernel(void (*kernel)(Args...), std::string_view what) {
    return probe_kernel(reinterpret_cast<const void*>(kernel), what);
}

struct BlockShape {
    int threads = 0;        // per block; 0 when no candidate fits
    int blocks_per_sm = 0;  // resident
};

// Among `candidates` (threads per block), the one whose blocks of `smem` bytes of dynamic
// shared memory keep the most threads resident per SM (the occupancy API); ties go to the
// larger block when `prefer_larger`, else to the smaller. `who` names the strategy in errors.
BlockShape most_resident(const void* kernel, std::initializer_list<int> candidates,
                         std::size_t smem, bool prefer_larger, const char* who);
template <typename... Args>
BlockShape most_resident(void (*kernel)(Args...), std::initializer_list<int> candidates,
                         std::size_t smem, bool prefer_larger, const char* who) {
    return most_resident(reinterpret_cast<const void*>(kernel), candidates, smem, prefer_larger,
                         who);
}

// Blocks of a grid-stride loop over `items` work items with `per_block` of them per block and
// step: one wave of `resident` blocks, no more than the items give work to, and at least
// `at_least` where the items allow (so that no block counts more than its counters hold).
std::uint64_t grid_blocks(std::uint64_t items, std::uint64_t per_block, std::uint64_t resident,
                          std::uint64_t at_least = 1);

}  // namespace hs::cuda::detail
