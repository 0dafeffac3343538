// Strategy "sort-search": see sort_search.cuh.

#include "kernels/sort_search.cuh"

#include <thrust/adjacent_difference.h>
#include <thrust/binary_search.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/transform.h>

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/dispatch.cuh"
#include "kernels/common/launch.hpp"

namespace hs::cuda::detail {

namespace {

// Value of pixel `p` of the packed image: thrust::transform's functor.
template <typename T, int C>
struct PixelValue {
    const T* samples;
    ValueRule rule;
    __host__ __device__ std::uint32_t operator()(std::uint64_t p) const {
        return pixel_value<T, C>(samples + p * static_cast<std::uint64_t>(C), rule);
    }
};

// counts[i] += diff[i + 1]: the adjacent differences of the positions, past the first one
// (which is the number of values below t_0).
__global__ void add_bin_counts(unsigned long long* counts, const unsigned long long* diff,
                               std::uint64_t bins) {
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         i < bins; i += step)
        counts[i] += diff[i + 1];
}

constexpr int kAddThreads = 256;

// Runs one thrust call, turning its exceptions into hs errors.
template <typename F>
void thrust_call(const char* what, F&& f) {
    try {
        std::forward<F>(f)();
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        static_cast<void>(cudaGetLastError());
        throw DeviceError(std::string("sort-search: ") + what + " failed: " + e.what());
    }
}

template <typename T, int C>
void histogram(const SortSearchArgs& a, const DeviceImage& image, const ValueRule& value,
               unsigned long long* counts, const SortSearchTuning& t, cudaStream_t stream) {
    const std::uint64_t n = a.pixels;
    std::uint32_t* values = a.values;
    const auto policy = thrust::cuda::par_nosync(*a.scratch).on(stream);
    const PixelValue<T, C> extract{reinterpret_cast<const T*>(image.data), value};
    thrust_call("extracting the values (thrust::transform)", [&] {
        thrust::transform(policy, thrust::counting_iterator<std::uint64_t>(0),
                          thrust::counting_iterator<std::uint64_t>(n), values, extract);
    });
    thrust_call("sorting the values (thrust::sort)",
                [&] { thrust::sort(policy, values, values + n); });
    const std::uint32_t* th = a.thresholds;
    unsigned long long* pos = a.positions;
    thrust_call("searching the thresholds (thrust::lower_bound)",
                [&] { thrust::lower_bound(policy, values, values + n, th, th + a.bins + 1, pos); });
    unsigned long long* diff = a.differences;
    thrust_call("bin counts (thrust::adjacent_difference)",
                [&] { thrust::adjacent_difference(policy, pos, pos + a.bins + 1, diff); });
    add_bin_counts<<<t.add_blocks, kAddThreads, 0, stream>>>(counts, diff, a.bins);
    check(cudaGetLastError(), "sort-search bin counts kernel launch");
}

}  // namespace

char* ThrustScratch::allocate(std::ptrdiff_t n) {
    const auto bytes = static_cast<std::size_t>(std::max<std::ptrdiff_t>(n, 1));
    for (Block& b : blocks_)
        if (!b.in_use && b.buffer.size() >= bytes) {
            b.in_use = true;
            return b.buffer.data();
        }
    blocks_.push_back({DeviceBuffer<char>(bytes, "sort-search temporary storage"), true});
    return blocks_.back().buffer.data();
}

void ThrustScratch::deallocate(char* p, std::size_t) noexcept {
    for (Block& b : blocks_)
        if (b.buffer.data() == p) b.in_use = false;
}

std::string SortSearchTuning::describe() const {
    return "thrust sort and lower_bound per channel, " + std::to_string(add_blocks) + " x " +
           std::to_string(kAddThreads) + " threads to add the bin counts";
}

std::size_t sort_search_working_set(std::uint64_t pixels, std::size_t bins) {
    return 2 * 4 * static_cast<std::size_t>(pixels) + (std::size_t{1} << 20) +
           (bins + 1) * (4 + 8 + 8);
}

SortSearchTuning plan_sort_search(std::size_t bins, const DeviceLimits& limits) {
    return {static_cast<unsigned>(grid_blocks(
        bins, kAddThreads, static_cast<std::uint64_t>(std::max(1, limits.sm_count)) * 8))};
}

void launch_sort_search(const SortSearchArgs& a, const DeviceImage& image, const ValueRule& value,
                        unsigned long long* counts, const SortSearchTuning& t,
                        cudaStream_t stream) {
    visit_samples_of<IntegerSamples>("sort-search", image.type, image.channels, [&](auto layout) {
        using L = decltype(layout);
        histogram<typename L::Sample, L::kChannels>(a, image, value, counts, t, stream);
    });
}

std::string sort_search_probe() {
    return probe_kernel(&add_bin_counts, "the sort-search kernels");
}

}  // namespace hs::cuda::detail
