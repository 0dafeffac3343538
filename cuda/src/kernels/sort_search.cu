// Strategy "sort-search" (after Milic et al.): a histogram without atomics.
//
// Per requested channel:
//   1. thrust::transform over the pixel indices writes the channel's value of every pixel
//      (a plain sample, the luma of samples 0..2, or the 8-bit joint colour) into a device
//      array of uint32;
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
// does not fit into half of the free device memory (the other half is what the benchmark's
// rotated input copies may take) rather than failing mid-way.

#include <thrust/adjacent_difference.h>
#include <thrust/binary_search.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

// What a pixel becomes.
enum class SsValue : std::uint8_t { Plain, Luma601, Luma709, Joint };

// Value of pixel `p` of the packed image: thrust::transform's functor.
template <typename T, int C>
struct ExtractValue {
    const T* samples;
    SsValue value;
    int offset;

    __host__ __device__ std::uint32_t operator()(std::uint64_t p) const {
        const T* px = samples + p * static_cast<std::uint64_t>(C);
        if constexpr (C >= 3) {
            switch (value) {
                case SsValue::Luma601:
                    return hs::luma(kLuma601, px[0], px[1], px[2]);
                case SsValue::Luma709:
                    return hs::luma(kLuma709, px[0], px[1], px[2]);
                case SsValue::Joint:
                    return hs::joint_value(px[0], px[1], px[2]);
                case SsValue::Plain:
                    break;
            }
        }
        return px[offset];
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

// Thrust's temporary storage, cached for the lifetime of one run: a block handed back is
// reused by the next call on the same stream (stream order keeps that safe), and nothing is
// freed before the run ends (after the engine has synchronized).
class CachingAllocator {
  public:
    using value_type = char;

    char* allocate(std::ptrdiff_t n) {
        const auto bytes = static_cast<std::size_t>(std::max<std::ptrdiff_t>(n, 1));
        for (Block& b : blocks_)
            if (!b.in_use && b.buffer.size() >= bytes) {
                b.in_use = true;
                return b.buffer.data();
            }
        blocks_.push_back({DeviceBuffer<char>(bytes, "sort-search temporary storage"), true});
        return blocks_.back().buffer.data();
    }
    void deallocate(char* p, std::size_t) noexcept {
        for (Block& b : blocks_)
            if (b.buffer.data() == p) b.in_use = false;
    }

  private:
    struct Block {
        DeviceBuffer<char> buffer;
        bool in_use = false;
    };
    std::vector<Block> blocks_;
};

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

// Device bytes the run needs besides the image and the counters.
std::size_t working_set_bytes(const HistogramRequest& r) {
    const std::size_t n = r.image.pixel_count();
    const auto levels = static_cast<std::size_t>(r.spec.bins) + 1;
    // Values, the sort's copy of them plus its scratch, thresholds, positions, differences.
    return 2 * 4 * n + (std::size_t{1} << 20) + levels * (4 + 8 + 8);
}

class SortSearchRun final : public KernelRun {
  public:
    SortSearchRun(const HistogramRequest& r, const DeviceLimits& limits, cudaStream_t stream)
        : bins_(static_cast<std::size_t>(r.spec.bins)),
          values_(r.image.pixel_count(), "sort-search values"),
          thresholds_(bins_ + 1, "sort-search thresholds"),
          positions_(bins_ + 1, "sort-search positions"),
          diff_(bins_ + 1, "sort-search bin counts"),
          add_blocks_(static_cast<unsigned>(std::clamp<std::size_t>(
              (bins_ + kAddThreads - 1) / kAddThreads, 1,
              static_cast<std::size_t>(std::max(1, limits.sm_count)) * 8))) {
        // Values lie in [0, 2^24): clamping the thresholds to [0, 2^24] keeps every
        // comparison with a value unchanged and fits them in the values' type.
        constexpr std::int64_t kTop = std::int64_t{1} << 24;
        for (const std::int64_t t : r.spec.thresholds())
            thresholds_host_.push_back(
                static_cast<std::uint32_t>(std::clamp<std::int64_t>(t, 0, kTop)));
        check(cudaMemcpyAsync(thresholds_.data(), thresholds_host_.data(), thresholds_.bytes(),
                              cudaMemcpyHostToDevice, stream),
              "sort-search thresholds upload (cudaMemcpyAsync)");
    }

    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream) override {
        for (std::size_t i = 0; i < channels.size(); ++i) {
            const Channel channel = channels[i];
            SsValue value = SsValue::Plain;
            if (channel == Channel::Joint)
                value = SsValue::Joint;
            else if (is_luma(channel) && image.channels > 1)
                value = channel == Channel::Luma709 ? SsValue::Luma709 : SsValue::Luma601;
            const int offset = std::max(0, channel_offset(channel, image.channels));
            if (image.type == SampleType::U8)
                histogram_channel<std::uint8_t>(image, value, offset, counts + i * bins_, stream);
            else
                histogram_channel<std::uint16_t>(image, value, offset, counts + i * bins_, stream);
        }
    }

  private:
    template <typename T>
    void histogram_channel(const DeviceImage& image, SsValue value, int offset,
                           unsigned long long* counts, cudaStream_t stream) {
        switch (image.channels) {
            case 1:
                return histogram_channel<T, 1>(image, value, offset, counts, stream);
            case 3:
                return histogram_channel<T, 3>(image, value, offset, counts, stream);
            case 4:
                return histogram_channel<T, 4>(image, value, offset, counts, stream);
            default:
                throw UnsupportedError("sort-search: images must have 1, 3 or 4 channels");
        }
    }

    template <typename T, int C>
    void histogram_channel(const DeviceImage& image, SsValue value, int offset,
                           unsigned long long* counts, cudaStream_t stream) {
        const std::uint64_t n = image.pixels;
        std::uint32_t* values = values_.data();
        const auto policy = thrust::cuda::par_nosync(alloc_).on(stream);
        const ExtractValue<T, C> extract{reinterpret_cast<const T*>(image.data), value, offset};
        thrust_call("extracting the values (thrust::transform)", [&] {
            thrust::transform(policy, thrust::counting_iterator<std::uint64_t>(0),
                              thrust::counting_iterator<std::uint64_t>(n), values, extract);
        });
        thrust_call("sorting the values (thrust::sort)",
                    [&] { thrust::sort(policy, values, values + n); });
        const std::uint32_t* t = thresholds_.data();
        unsigned long long* pos = positions_.data();
        thrust_call("searching the thresholds (thrust::lower_bound)", [&] {
            thrust::lower_bound(policy, values, values + n, t, t + bins_ + 1, pos);
        });
        unsigned long long* diff = diff_.data();
        thrust_call("bin counts (thrust::adjacent_difference)",
                    [&] { thrust::adjacent_difference(policy, pos, pos + bins_ + 1, diff); });
        add_bin_counts<<<add_blocks_, kAddThreads, 0, stream>>>(counts, diff, bins_);
        check(cudaGetLastError(), "sort-search bin counts kernel launch");
    }

    std::size_t bins_;
    DeviceBuffer<std::uint32_t> values_;
    std::vector<std::uint32_t> thresholds_host_;
    DeviceBuffer<std::uint32_t> thresholds_;
    DeviceBuffer<unsigned long long> positions_;
    DeviceBuffer<unsigned long long> diff_;
    unsigned add_blocks_;
    CachingAllocator alloc_;
};

class SortSearchEngine final : public GpuEngine {
  public:
    std::string_view name() const override { return "sort-search"; }
    std::string_view description() const override {
        return "GPU, no atomics (Milic et al.): per channel thrust::sort of the values, then "
               "thrust::lower_bound of the integer bin thresholds and adjacent differences; "
               "any bin count up to 2^24, needs about 8 bytes of device memory per pixel";
    }
    Capabilities capabilities() const override { return {}; }

  protected:
    std::string extra_unsupported_reason(const HistogramRequest& r) const override {
        const State& s = state();
        if (!s.error.empty()) return {};  // compute() reports the unavailability itself
        if (cudaSetDevice(s.device.index) != cudaSuccess) {
            static_cast<void>(cudaGetLastError());
            return {};  // compute() reports the failure itself
        }
        std::size_t free_bytes = 0, total_bytes = 0;
        if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
            static_cast<void>(cudaGetLastError());
            return {};
        }
        const std::size_t counters =
            static_cast<std::size_t>(r.spec.bins) * r.channels.size() * sizeof(std::uint64_t);
        const std::size_t need = working_set_bytes(r) + padded_bytes(r.image) + counters;
        if (need <= free_bytes / 2) return {};
        return "engine 'sort-search' needs about " + std::to_string(need >> 20) +
               " MiB of device memory for this image (a sorted copy of its values, the sort's "
               "scratch, the image and the counters), more than half of the " +
               std::to_string(free_bytes >> 20) + " MiB free on " + s.device.name;
    }
    std::string probe() const override {
        cudaFuncAttributes attr{};
        const cudaError_t e =
            cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(&add_bin_counts));
        if (e == cudaSuccess) return {};
        static_cast<void>(cudaGetLastError());
        if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
            e == cudaErrorUnsupportedPtxVersion)
            return "this build has no kernel code for the device (" + describe(e) +
                   "); rebuild with its architecture in CMAKE_CUDA_ARCHITECTURES";
        return "cannot load the sort-search kernels: " + describe(e);
    }
    std::unique_ptr<KernelRun> prepare(const HistogramRequest& r,
                                       cudaStream_t stream) const override {
        return std::make_unique<SortSearchRun>(r, limits(), stream);
    }
};

}  // namespace

std::unique_ptr<HistogramEngine> make_sort_search_engine() {
    return std::make_unique<SortSearchEngine>();
}

}  // namespace hs::cuda::detail
