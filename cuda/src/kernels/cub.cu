// Strategy "cub": see cub.cuh.

#include "kernels/cub.cuh"

#include <cub/cub.cuh>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "histoscope/core/channels.hpp"
#include "histoscope/core/error.hpp"

namespace hs::cuda::detail {

namespace {

// Values CUB cannot compute itself: a transform kernel writes them as a plane first.
enum class Derived : int { Luma601 = 0, Luma709 = 1, Joint = 2 };
constexpr int kDerivedKinds = 3;

// How one request maps onto CUB calls.
struct CubPlan {
    SampleType type = SampleType::U8;
    int channels = 1;
    std::uint64_t pixels = 0;
    std::uint64_t chunk_pixels = 0;  // pixels per chunk (CUB call)
    int bins = 1;
    bool even = true;
    long long lower = 0, upper = 0;
    bool plain = false;  // one Multi* call over all interleaved channels
    std::array<int, kDerivedKinds> derived_slot{-1, -1, -1};
    int slots = 0;                       // scratch histograms
    std::vector<int> slot_of;            // per requested channel
    std::size_t plane_bytes_per_px = 0;  // 0: no derived plane

    std::uint64_t first_chunk() const { return std::min(chunk_pixels, pixels); }
};

CubPlan make_plan(const HistogramRequest& r) {
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
    std::array<bool, kDerivedKinds> needed{};
    for (std::size_t i = 0; i < r.channels.size(); ++i) {
        const Channel c = r.channels[i];
        if (c == Channel::Joint)
            derived_of[i] = static_cast<int>(Derived::Joint);
        else if (is_luma(c) && p.channels > 1)
            derived_of[i] =
                static_cast<int>(c == Channel::Luma709 ? Derived::Luma709 : Derived::Luma601);
        else
            p.plain = true;
        if (derived_of[i] >= 0) needed[static_cast<std::size_t>(derived_of[i])] = true;
    }
    p.slots = p.plain ? p.channels : 0;
    for (int d = 0; d < kDerivedKinds; ++d) {
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
    return p;
}

// One CUB histogram call over `pixels` pixels of C interleaved samples of type T into C
// scratch histograms (`scratch` + c * bins). With temp == nullptr it only sizes the storage.
template <typename T, int C>
cudaError_t cub_histogram(void* temp, std::size_t& temp_bytes, const T* samples, unsigned* scratch,
                          int pixels, const CubPlan& p, const long long* levels,
                          cudaStream_t stream) {
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

// All interleaved channels of the image (`data` points at the chunk's first pixel).
cudaError_t plain_histogram(void* temp, std::size_t& temp_bytes, const void* data,
                            unsigned* scratch, int pixels, const CubPlan& p,
                            const long long* levels, cudaStream_t stream) {
    if (p.type == SampleType::U8) {
        const auto* s = static_cast<const std::uint8_t*>(data);
        switch (p.channels) {
            case 1:
                return cub_histogram<std::uint8_t, 1>(temp, temp_bytes, s, scratch, pixels, p,
                                                      levels, stream);
            case 3:
                return cub_histogram<std::uint8_t, 3>(temp, temp_bytes, s, scratch, pixels, p,
                                                      levels, stream);
            case 4:
                return cub_histogram<std::uint8_t, 4>(temp, temp_bytes, s, scratch, pixels, p,
                                                      levels, stream);
            default:
                break;
        }
    } else {
        const auto* s = static_cast<const std::uint16_t*>(data);
        switch (p.channels) {
            case 1:
                return cub_histogram<std::uint16_t, 1>(temp, temp_bytes, s, scratch, pixels, p,
                                                       levels, stream);
            case 3:
                return cub_histogram<std::uint16_t, 3>(temp, temp_bytes, s, scratch, pixels, p,
                                                       levels, stream);
            case 4:
                return cub_histogram<std::uint16_t, 4>(temp, temp_bytes, s, scratch, pixels, p,
                                                       levels, stream);
            default:
                break;
        }
    }
    throw UnsupportedError("cub: images must have 1, 3 or 4 channels");
}

// One derived plane (luma in the sample type, joint colours as uint32).
cudaError_t plane_histogram(void* temp, std::size_t& temp_bytes, Derived d, const void* plane,
                            unsigned* scratch, int pixels, const CubPlan& p,
                            const long long* levels, cudaStream_t stream) {
    if (d == Derived::Joint)
        return cub_histogram<std::uint32_t, 1>(temp, temp_bytes,
                                               static_cast<const std::uint32_t*>(plane), scratch,
                                               pixels, p, levels, stream);
    if (p.type == SampleType::U8)
        return cub_histogram<std::uint8_t, 1>(temp, temp_bytes,
                                              static_cast<const std::uint8_t*>(plane), scratch,
                                              pixels, p, levels, stream);
    return cub_histogram<std::uint16_t, 1>(temp, temp_bytes,
                                           static_cast<const std::uint16_t*>(plane), scratch,
                                           pixels, p, levels, stream);
}

// The largest temporary storage any call of the run needs (CUB's size query; host only).
std::size_t temp_storage_bytes(const CubPlan& p) {
    const int n = static_cast<int>(p.first_chunk());
    std::size_t most = 0;
    const auto query = [&](cudaError_t e, std::size_t bytes, const char* what) {
        if (e == cudaErrorInvalidValue) {
            static_cast<void>(cudaGetLastError());
            throw UnsupportedError(std::string("engine 'cub': ") + what +
                                   " refuses these bins and range (its bin arithmetic could "
                                   "overflow)");
        }
        check(e, what);
        most = std::max(most, bytes);
    };
    // (The call sets `bytes`: it must run before `bytes` is read, not as an argument next to it.)
    if (p.plain) {
        std::size_t bytes = 0;
        const cudaError_t e =
            plain_histogram(nullptr, bytes, nullptr, nullptr, n, p, nullptr, nullptr);
        query(e, bytes, "cub::DeviceHistogram (temporary storage size)");
    }
    for (int d = 0; d < kDerivedKinds; ++d) {
        if (p.derived_slot[static_cast<std::size_t>(d)] < 0) continue;
        std::size_t bytes = 0;
        const cudaError_t e = plane_histogram(nullptr, bytes, static_cast<Derived>(d), nullptr,
                                              nullptr, n, p, nullptr, nullptr);
        query(e, bytes, "cub::DeviceHistogram (temporary storage size)");
    }
    return most;
}

// Writes the derived value of pixels [0, n) of `samples` (C interleaved samples each).
template <typename T, int C, Derived D, typename P>
__global__ void make_plane(const T* samples, std::uint64_t n, P* plane) {
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += step) {
        const T* px = samples + i * C;
        if constexpr (D == Derived::Joint)
            plane[i] = static_cast<P>(hs::joint_value(px[0], px[1], px[2]));
        else
            plane[i] = static_cast<P>(
                hs::luma(D == Derived::Luma601 ? kLuma601 : kLuma709, px[0], px[1], px[2]));
    }
}

// counts[b] += scratch[b]: one chunk's 32-bit histogram into the 64-bit counts.
__global__ void add_scratch(unsigned long long* counts, const unsigned* scratch,
                            std::uint64_t bins) {
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t b = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         b < bins; b += step)
        counts[b] += scratch[b];
}

constexpr int kThreads = 256;

unsigned grid_for(std::uint64_t items, const DeviceLimits& limits) {
    const std::uint64_t useful = (items + kThreads - 1) / kThreads;
    const std::uint64_t cap = static_cast<std::uint64_t>(std::max(1, limits.sm_count)) * 8;
    return static_cast<unsigned>(std::clamp<std::uint64_t>(useful, 1, cap));
}

template <typename T, int C>
void launch_plane(Derived d, const T* samples, std::uint64_t n, void* plane, unsigned grid,
                  cudaStream_t stream) {
    if constexpr (sizeof(T) == 1) {
        if (d == Derived::Joint) {
            make_plane<T, C, Derived::Joint, std::uint32_t>
                <<<grid, kThreads, 0, stream>>>(samples, n, static_cast<std::uint32_t*>(plane));
            return;
        }
    }
    if (d == Derived::Joint)
        throw UnsupportedError("cub: the joint colour histogram needs 8-bit samples");
    if (d == Derived::Luma601)
        make_plane<T, C, Derived::Luma601, T>
            <<<grid, kThreads, 0, stream>>>(samples, n, static_cast<T*>(plane));
    else
        make_plane<T, C, Derived::Luma709, T>
            <<<grid, kThreads, 0, stream>>>(samples, n, static_cast<T*>(plane));
}

template <typename T>
void launch_plane(Derived d, const CubPlan& p, const void* chunk, std::uint64_t n, void* plane,
                  unsigned grid, cudaStream_t stream) {
    const auto* s = static_cast<const T*>(chunk);
    if (p.channels == 3)
        launch_plane<T, 3>(d, s, n, plane, grid, stream);
    else if (p.channels == 4)
        launch_plane<T, 4>(d, s, n, plane, grid, stream);
    else
        throw UnsupportedError("cub: luma and joint colours need 3 or 4 channels");
}

class CubRun final : public KernelRun {
  public:
    CubRun(const HistogramRequest& r, const DeviceLimits& limits, cudaStream_t stream)
        : plan_(make_plan(r)), limits_(limits) {
        temp_bytes_ = std::max<std::size_t>(1, temp_storage_bytes(plan_));
        temp_ = DeviceBuffer<char>(temp_bytes_, "CUB temporary storage");
        scratch_ = DeviceBuffer<unsigned>(
            static_cast<std::size_t>(plan_.slots) * static_cast<std::size_t>(plan_.bins),
            "CUB 32-bit scratch histograms");
        if (plan_.plane_bytes_per_px > 0)
            plane_ = DeviceBuffer<char>(plan_.first_chunk() * plan_.plane_bytes_per_px,
                                        "CUB luma/joint plane");
        if (!plan_.even) {
            // The spec's integer thresholds: exact levels for integer samples.
            for (const std::int64_t t : r.spec.thresholds())
                levels_host_.push_back(static_cast<long long>(t));
            levels_ = DeviceBuffer<long long>(levels_host_.size(), "CUB histogram levels");
            // The host copy lives as long as this run, i.e. until the engine has synchronized.
            check(cudaMemcpyAsync(levels_.data(), levels_host_.data(), levels_.bytes(),
                                  cudaMemcpyHostToDevice, stream),
                  "CUB levels upload (cudaMemcpyAsync)");
        }
    }

    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream) override {
        if (channels.size() != plan_.slot_of.size() || image.pixels != plan_.pixels ||
            image.channels != plan_.channels || image.type != plan_.type)
            throw UsageError("cub: launch() does not match the prepared request");
        const auto bins = static_cast<std::size_t>(plan_.bins);
        const std::size_t px_bytes = static_cast<std::size_t>(image.channels) *
                                     static_cast<std::size_t>(bytes_per_sample(image.type));
        const long long* levels = levels_.data();
        for (std::uint64_t first = 0; first < plan_.pixels; first += plan_.chunk_pixels) {
            const std::uint64_t n = std::min(plan_.chunk_pixels, plan_.pixels - first);
            const std::byte* chunk = image.data + first * px_bytes;
            if (plan_.plain) {
                std::size_t bytes = temp_bytes_;
                check(plain_histogram(temp_.data(), bytes, chunk, scratch_.data(),
                                      static_cast<int>(n), plan_, levels, stream),
                      "cub::DeviceHistogram (interleaved channels)");
            }
            for (int d = 0; d < kDerivedKinds; ++d) {
                const int slot = plan_.derived_slot[static_cast<std::size_t>(d)];
                if (slot < 0) continue;
                const auto kind = static_cast<Derived>(d);
                const unsigned grid = grid_for(n, limits_);
                if (image.type == SampleType::U8)
                    launch_plane<std::uint8_t>(kind, plan_, chunk, n, plane_.data(), grid, stream);
                else
                    launch_plane<std::uint16_t>(kind, plan_, chunk, n, plane_.data(), grid, stream);
                check(cudaGetLastError(), "cub luma/joint plane kernel launch");
                std::size_t bytes = temp_bytes_;
                check(plane_histogram(temp_.data(), bytes, kind, plane_.data(),
                                      scratch_.data() + static_cast<std::size_t>(slot) * bins,
                                      static_cast<int>(n), plan_, levels, stream),
                      "cub::DeviceHistogram (luma/joint plane)");
            }
            for (std::size_t i = 0; i < channels.size(); ++i) {
                const auto slot = static_cast<std::size_t>(plan_.slot_of[i]);
                add_scratch<<<grid_for(bins, limits_), kThreads, 0, stream>>>(
                    counts + i * bins, scratch_.data() + slot * bins, bins);
                check(cudaGetLastError(), "cub scratch accumulation kernel launch");
            }
        }
    }

  private:
    CubPlan plan_;
    DeviceLimits limits_;
    std::size_t temp_bytes_ = 0;
    DeviceBuffer<char> temp_;
    DeviceBuffer<unsigned> scratch_;
    DeviceBuffer<char> plane_;
    std::vector<long long> levels_host_;
    DeviceBuffer<long long> levels_;
};

}  // namespace

std::size_t cub_workspace_bytes(const HistogramRequest& r) {
    const CubPlan p = make_plan(r);
    const auto bins = static_cast<std::size_t>(p.bins);
    return temp_storage_bytes(p) + static_cast<std::size_t>(p.slots) * bins * sizeof(unsigned) +
           p.first_chunk() * p.plane_bytes_per_px + (p.even ? 0 : (bins + 1) * sizeof(long long));
}

std::unique_ptr<KernelRun> make_cub_run(const HistogramRequest& r, const DeviceLimits& limits,
                                        cudaStream_t stream) {
    return std::make_unique<CubRun>(r, limits, stream);
}

std::string cub_probe() {
    cudaFuncAttributes attr{};
    const cudaError_t e = cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(&add_scratch));
    if (e == cudaSuccess) return {};
    static_cast<void>(cudaGetLastError());
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
        e == cudaErrorUnsupportedPtxVersion)
        return "this build has no kernel code for the device (" + describe(e) +
               "); rebuild with its architecture in CMAKE_CUDA_ARCHITECTURES";
    return "cannot load the cub engine's kernels: " + describe(e);
}

}  // namespace hs::cuda::detail
