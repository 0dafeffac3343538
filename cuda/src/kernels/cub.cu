// Strategy "cub": see cub.cuh.

#include "kernels/cub.cuh"

#include <cub/cub.cuh>

#include <algorithm>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "histoscope/core/channels.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/dispatch.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/common/planes.cuh"

namespace hs::cuda::detail {

namespace {

// The derived values by plan index (Derived below).
enum class Derived : int { Luma601 = 0, Luma709 = 1, Joint = 2 };

ValueRule derived_rule(Derived d) {
    ValueRule r;
    r.kind = d == Derived::Joint ? ValueKind::Joint : ValueKind::Luma;
    r.weights = d == Derived::Luma709 ? kLuma709 : kLuma601;
    return r;
}

// One CUB histogram call over `pixels` pixels of C interleaved samples of type T into C
// scratch histograms (`scratch` + c * bins). With temp == nullptr it only sizes the storage.
template <typename T, int C>
cudaError_t cub_histogram(void* temp, std::size_t& temp_bytes, const void* data, unsigned* scratch,
                          int pixels, const CubPlan& p, const long long* levels,
                          cudaStream_t stream) {
    const auto* samples = static_cast<const T*>(data);
    ::cuda::std::array<unsigned*, C> hist{};
    ::cuda::std::array<int, C> num_levels{};
    for (int c = 0; c < C; ++c) {
        hist[static_cast<std::size_t>(c)] =
            scratch == nullptr ? nullptr : scratch + static_cast<std::size_t>(c) * p.bins;
        num_levels[static_cast<std::size_t>(c)] = p.bins + 1;
    }
    if (p.even) {
        ::cuda::std::array<long long, C> lower{}, upper{};
        for (int c = 0; c < C; ++c) {
            lower[static_cast<std::size_t>(c)] = p.lower;
            upper[static_cast<std::size_t>(c)] = p.upper;
        }
        return cub::DeviceHistogram::MultiHistogramEven<C, C>(
            temp, temp_bytes, samples, hist, num_levels, lower, upper, pixels, stream);
    }
    ::cuda::std::array<const long long*, C> level_ptrs{};
    for (int c = 0; c < C; ++c) level_ptrs[static_cast<std::size_t>(c)] = levels;
    return cub::DeviceHistogram::MultiHistogramRange<C, C>(temp, temp_bytes, samples, hist,
                                                           num_levels, level_ptrs, pixels, stream);
}

// One call over pixels of `channels` interleaved samples of `type` (`data` points at the
// chunk's first pixel).
cudaError_t sample_histogram(SampleType type, int channels, void* temp, std::size_t& temp_bytes,
                             const void* data, unsigned* scratch, int pixels, const CubPlan& p,
                             const long long* levels, cudaStream_t stream) {
    cudaError_t e = cudaSuccess;
    visit_samples_of<IntegerSamples>("cub", type, channels, [&](auto layout) {
        using L = decltype(layout);
        e = cub_histogram<typename L::Sample, L::kChannels>(temp, temp_bytes, data, scratch, pixels,
                                                            p, levels, stream);
    });
    return e;
}

// All interleaved channels of the image.
cudaError_t plain_histogram(void* temp, std::size_t& temp_bytes, const void* data,
                            unsigned* scratch, int pixels, const CubPlan& p,
                            const long long* levels, cudaStream_t stream) {
    return sample_histogram(p.type, p.channels, temp, temp_bytes, data, scratch, pixels, p, levels,
                            stream);
}

// One derived plane (luma in the sample type, joint colours as uint32).
cudaError_t plane_histogram(void* temp, std::size_t& temp_bytes, Derived d, const void* plane,
                            unsigned* scratch, int pixels, const CubPlan& p,
                            const long long* levels, cudaStream_t stream) {
    if (d == Derived::Joint)
        return cub_histogram<std::uint32_t, 1>(temp, temp_bytes, plane, scratch, pixels, p, levels,
                                               stream);
    return sample_histogram(p.type, 1, temp, temp_bytes, plane, scratch, pixels, p, levels, stream);
}

// The largest temporary storage any call of the plan needs (CUB's size query; host only).
std::size_t temp_storage_bytes(const CubPlan& p) {
    const int n = static_cast<int>(p.first_chunk());
    std::size_t most = 0;
    const auto query = [&](cudaError_t e, std::size_t bytes) {
        if (e == cudaErrorInvalidValue) {
            static_cast<void>(cudaGetLastError());
            throw UnsupportedError(
                "engine 'cub': cub::DeviceHistogram refuses these bins and "
                "range (its bin arithmetic could overflow)");
        }
        check(e, "cub::DeviceHistogram (temporary storage size)");
        most = std::max(most, bytes);
    };
    // (The call sets `bytes`: it must run before `bytes` is read, not as an argument next to it.)
    if (p.plain) {
        std::size_t bytes = 0;
        const cudaError_t e =
            plain_histogram(nullptr, bytes, nullptr, nullptr, n, p, nullptr, nullptr);
        query(e, bytes);
    }
    for (int d = 0; d < kCubDerivedKinds; ++d) {
        if (p.derived_slot[static_cast<std::size_t>(d)] < 0) continue;
        std::size_t bytes = 0;
        const cudaError_t e = plane_histogram(nullptr, bytes, static_cast<Derived>(d), nullptr,
                                              nullptr, n, p, nullptr, nullptr);
        query(e, bytes);
    }
    return most;
}

// counts[b] += scratch[b]: one chunk's 32-bit histogram into the 64-bit counts.
__global__ void add_scratch(unsigned long long* counts, const unsigned* scratch,
                            std::uint64_t bins) {
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t b = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         b < bins; b += step)
        counts[b] += scratch[b];
}

template <typename T>
void launch_plane(Derived d, int channels, const std::byte* chunk, std::uint64_t n, void* plane,
                  int sm_count, cudaStream_t stream) {
    const auto* s = reinterpret_cast<const T*>(chunk);
    if (d != Derived::Joint)
        return launch_value_plane(s, channels, n, derived_rule(d), static_cast<T*>(plane), sm_count,
                                  stream);
    if constexpr (sizeof(T) == 1)
        return launch_value_plane(s, channels, n, derived_rule(d),
                                  static_cast<std::uint32_t*>(plane), sm_count, stream);
    throw UnsupportedError("cub: the joint colour histogram needs 8-bit samples");
}

}  // namespace

CubPlan plan_cub(const HistogramRequest& r) {
    CubPlan p;
    p.type = r.image.type;
    p.channels = r.image.channels;
    p.pixels = r.image.pixel_count();
    p.bins = r.spec.bins;
    p.even = !r.spec.has_edges();
    p.lower = r.spec.lower;
    p.upper = r.spec.upper;
    const auto sample_bytes = static_cast<std::size_t>(bytes_per_sample(r.image.type));

    std::vector<int> derived_of(r.channels.size(), -1);
    std::array<bool, kCubDerivedKinds> needed{};
    for (std::size_t i = 0; i < r.channels.size(); ++i) {
        const ValueRule v = value_rule(r.channels[i], p.channels);
        if (v.kind == ValueKind::Joint)
            derived_of[i] = static_cast<int>(Derived::Joint);
        else if (v.kind == ValueKind::Luma)
            derived_of[i] = static_cast<int>(r.channels[i] == Channel::Luma709 ? Derived::Luma709
                                                                               : Derived::Luma601);
        else
            p.plain = true;
        if (derived_of[i] >= 0) needed[static_cast<std::size_t>(derived_of[i])] = true;
    }
    p.slots = p.plain ? p.channels : 0;
    for (int d = 0; d < kCubDerivedKinds; ++d) {
        if (!needed[static_cast<std::size_t>(d)]) continue;
        p.derived_slot[static_cast<std::size_t>(d)] = p.slots++;
        const std::size_t bytes = d == static_cast<int>(Derived::Joint) ? 4 : sample_bytes;
        p.plane_bytes_per_px = std::max(p.plane_bytes_per_px, bytes);
    }
    for (std::size_t i = 0; i < r.channels.size(); ++i)
        p.slot_of.push_back(derived_of[i] >= 0
                                ? p.derived_slot[static_cast<std::size_t>(derived_of[i])]
                                : std::max(0, channel_offset(r.channels[i], p.channels)));

    // Chunks: at most kCubChunkBytes of samples (and of plane), a multiple of 256 pixels. Then
    // no 32-bit counter can reach 2^32 and all of CUB's offsets fit in int.
    const std::uint64_t px_bytes = std::max<std::uint64_t>(
        static_cast<std::uint64_t>(p.channels) * sample_bytes, p.plane_bytes_per_px);
    p.chunk_pixels = std::max<std::uint64_t>(256, kCubChunkBytes / px_bytes / 256 * 256);
    p.temp_bytes = std::max<std::size_t>(1, temp_storage_bytes(p));
    return p;
}

std::size_t CubPlan::workspace_bytes() const {
    const auto b = static_cast<std::size_t>(bins);
    return temp_bytes + static_cast<std::size_t>(slots) * b * sizeof(unsigned) +
           first_chunk() * plane_bytes_per_px + (even ? 0 : (b + 1) * sizeof(long long));
}

std::string CubPlan::describe() const {
    const std::uint64_t chunks =
        (pixels + chunk_pixels - 1) / std::max<std::uint64_t>(1, chunk_pixels);
    return std::string(plain ? "one Multi" : "no Multi") +
           (even ? "HistogramEven" : "HistogramRange") + " call over the interleaved channels, " +
           std::to_string(slots - (plain ? channels : 0)) + " derived plane(s), " +
           std::to_string(chunks) + " chunk(s) of at most " + std::to_string(chunk_pixels) +
           " pixels, " + std::to_string(temp_bytes) + " B of CUB temporary storage";
}

void launch_cub(const CubPlan& p, const CubBuffers& b, const DeviceImage& image,
                unsigned long long* counts, const DeviceLimits& limits, cudaStream_t stream) {
    const auto bins = static_cast<std::size_t>(p.bins);
    const std::size_t px_bytes = static_cast<std::size_t>(image.channels) *
                                 static_cast<std::size_t>(bytes_per_sample(image.type));
    for (std::uint64_t first = 0; first < p.pixels; first += p.chunk_pixels) {
        const std::uint64_t n = std::min(p.chunk_pixels, p.pixels - first);
        const std::byte* chunk = image.data + first * px_bytes;
        if (p.plain) {
            std::size_t bytes = p.temp_bytes;
            check(plain_histogram(b.temp, bytes, chunk, b.scratch, static_cast<int>(n), p, b.levels,
                                  stream),
                  "cub::DeviceHistogram (interleaved channels)");
        }
        for (int d = 0; d < kCubDerivedKinds; ++d) {
            const int slot = p.derived_slot[static_cast<std::size_t>(d)];
            if (slot < 0) continue;
            const auto kind = static_cast<Derived>(d);
            visit_samples_of<IntegerSamples>("cub", image.type, 1, [&](auto layout) {
                launch_plane<typename decltype(layout)::Sample>(kind, p.channels, chunk, n, b.plane,
                                                                limits.sm_count, stream);
            });
            std::size_t bytes = p.temp_bytes;
            check(plane_histogram(b.temp, bytes, kind, b.plane,
                                  b.scratch + static_cast<std::size_t>(slot) * bins,
                                  static_cast<int>(n), p, b.levels, stream),
                  "cub::DeviceHistogram (luma/joint plane)");
        }
        for (std::size_t i = 0; i < p.slot_of.size(); ++i) {
            const auto slot = static_cast<std::size_t>(p.slot_of[i]);
            add_scratch<<<plane_blocks(bins, limits.sm_count), kPlaneThreads, 0, stream>>>(
                counts + i * bins, b.scratch + slot * bins, bins);
            check(cudaGetLastError(), "cub scratch accumulation kernel launch");
        }
    }
}

std::string cub_probe() {
    return probe_kernel(&add_scratch, "the cub engine's kernels");
}

}  // namespace hs::cuda::detail
