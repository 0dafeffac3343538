#pragma once
// Strategy "sort-search" (after Milic et al.): a histogram without atomics.
//
// Per requested channel:
//   1. thrust::transform over the pixel indices writes the channel's value of every pixel
//      (common/samples.cuh) into a device array of uint32;
//   2. thrust::sort sorts that array (a radix sort for 32-bit keys);
//   3. thrust::lower_bound finds, for every integer threshold t_i of the spec
//      (HistogramSpec::thresholds(): bin i holds t_i <= v < t_{i+1}), how many values lie
//      below t_i (lower_bound(t) = upper_bound(t - 1) for integer values);
//   4. thrust::adjacent_difference of those positions gives the 64-bit count of every bin,
//      which a small kernel adds to the channel's counters.
//
// Exactness: the positions are exact 64-bit element counts, and for integer values
// #(t_i <= v < t_{i+1}) = #(v < t_{i+1}) - #(v < t_i) is exactly the rule of hs::bin_of, for
// even bins as for explicit edges. Any bin count up to 2^24 works; the cost grows with the
// pixels (the sort), not with the bins.
//
// Memory: the value array (4 bytes per pixel) and the sort's temporary storage (about as much
// again) live on the device next to the image; the engine refuses requests whose working set
// does not fit rather than failing mid-way.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "kernels/common/samples.cuh"

namespace hs::cuda::detail {

// Thrust's temporary storage, cached for the lifetime of one run: a block handed back is
// reused by the next call on the same stream (stream order keeps that safe), and nothing is
// freed before the run ends (after the engine has synchronized).
class ThrustScratch {
  public:
    using value_type = char;
    char* allocate(std::ptrdiff_t n);
    void deallocate(char* p, std::size_t) noexcept;

  private:
    struct Block {
        DeviceBuffer<char> buffer;
        bool in_use = false;
    };
    std::vector<Block> blocks_;
};

struct SortSearchArgs {
    std::uint64_t pixels = 0;
    std::size_t bins = 0;
    std::uint32_t* values = nullptr;            // `pixels` entries
    const std::uint32_t* thresholds = nullptr;  // bins + 1 integer thresholds, in [0, 2^24]
    unsigned long long* positions = nullptr;    // bins + 1
    unsigned long long* differences = nullptr;  // bins + 1
    ThrustScratch* scratch = nullptr;
};

struct SortSearchTuning {
    unsigned add_blocks = 1;  // of the kernel that adds the bin counts
    std::string describe() const;
};

// Device bytes of a run besides the image and the counters: values, the sort's copy of them
// plus its scratch, thresholds, positions and differences.
std::size_t sort_search_working_set(std::uint64_t pixels, std::size_t bins);
SortSearchTuning plan_sort_search(std::size_t bins, const DeviceLimits& limits);
// Adds the histogram of the value `value` of every pixel of `image` to `counts`.
void launch_sort_search(const SortSearchArgs& args, const DeviceImage& image,
                        const ValueRule& value, unsigned long long* counts,
                        const SortSearchTuning& tuning, cudaStream_t stream);
std::string sort_search_probe();

}  // namespace hs::cuda::detail
