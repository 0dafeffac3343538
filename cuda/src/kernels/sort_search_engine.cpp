// Strategy "sort-search" as a row of the strategy table: the buffers of one request and
// launch_sort_search() per channel (the thrust calls live in sort_search.cu/.cuh).

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "kernels/common/device_table.hpp"
#include "kernels/sort_search.cuh"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

// The thresholds as the sorted uint32 values are searched for: values lie in [0, 2^24), so
// clamping to [0, 2^24] keeps every comparison with a value unchanged.
std::vector<std::uint32_t> search_thresholds(const HistogramSpec& spec) {
    std::vector<std::uint32_t> t;
    for (const std::int32_t x : edge_thresholds(spec))
        t.push_back(static_cast<std::uint32_t>(std::max(x, 0)));
    return t;
}

class SortSearchRun final : public KernelRun {
  public:
    SortSearchRun(const HistogramRequest& r, const DeviceLimits& limits, cudaStream_t stream)
        : bins_(static_cast<std::size_t>(r.spec.bins)),
          values_(r.image.pixel_count(), "sort-search values"),
          thresholds_(search_thresholds(r.spec), "sort-search thresholds upload", stream),
          positions_(bins_ + 1, "sort-search positions"),
          differences_(bins_ + 1, "sort-search bin counts"),
          tuning_(plan_sort_search(bins_, limits)) {
        for (const Channel c : r.channels) rules_.push_back(value_rule(c, r.image.channels));
    }

    std::string tuning() const override { return tuning_.describe(); }

  protected:
    void queue(const DeviceImage& image, const std::vector<Channel>&, unsigned long long* counts,
               cudaStream_t stream) override {
        const SortSearchArgs args{
            values_.size(),      bins_,    values_.data(), thresholds_.data(), positions_.data(),
            differences_.data(), &scratch_};
        for (std::size_t i = 0; i < rules_.size(); ++i)
            launch_sort_search(args, image, rules_[i], counts + i * bins_, tuning_, stream);
    }

  private:
    std::size_t bins_;
    std::vector<ValueRule> rules_;
    DeviceBuffer<std::uint32_t> values_;
    DeviceTable<std::uint32_t> thresholds_;
    DeviceBuffer<unsigned long long> positions_;
    DeviceBuffer<unsigned long long> differences_;
    SortSearchTuning tuning_;
    ThrustScratch scratch_;
};

std::string refusal(const GpuEngine& engine, const HistogramRequest& r) {
    const auto bins = static_cast<std::size_t>(r.spec.bins);
    return engine.memory_refusal(sort_search_working_set(r.image.pixel_count(), bins) +
                                     padded_bytes(r.image) + bins * r.channels.size() * 8,
                                 "this image (a sorted copy of its values, the sort's scratch, the "
                                 "image and the counters)");
}

}  // namespace

Strategy sort_search_strategy() {
    return {
        .name = "sort-search",
        .summary =
            "GPU, no atomics (Milic et al.): per channel thrust::sort of the values, then "
            "thrust::lower_bound of the integer bin thresholds and adjacent differences; any bin "
            "count up to 2^24, needs about 8 bytes of device memory per pixel",
        .probe = sort_search_probe,
        .refusal = refusal,
        .prepare = prepare_run<SortSearchRun>};
}

}  // namespace hs::cuda::detail
