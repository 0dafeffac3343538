// Strategy "global-atomic" as a row of the strategy table: its run turns a request into
// launch_global_atomic() calls (kernel and launch in global_atomic.cu/.cuh).

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/device_table.hpp"
#include "kernels/global_atomic.cuh"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

class GlobalAtomicRun final : public KernelRun {
  public:
    GlobalAtomicRun(const HistogramRequest& r, const DeviceLimits& limits, cudaStream_t stream) {
        args_.u16 = r.image.type == SampleType::U16;
        args_.channels = r.image.channels;
        args_.pixels = r.image.pixel_count();
        args_.bins = bin_rule(r.spec, 1u << 24, kGlobalAtomicBinModes, "engine 'global-atomic'");
        tables_ = BinTables(r.spec, bin_mode_bit(args_.bins.mode), stream);
        args_.thresholds = tables_.of(args_.bins.mode);
        // Every pass counts up to kGlobalAtomicMaxOutputs channels with the same grid.
        for (const Channel c : r.channels) rules_.push_back(value_rule(c, r.image.channels));
        GlobalAtomicArgs first = args_;
        first.outputs =
            static_cast<int>(std::min<std::size_t>(rules_.size(), kGlobalAtomicMaxOutputs));
        for (int o = 0; o < first.outputs; ++o)
            first.out[o].value = rules_[static_cast<std::size_t>(o)];
        tuning_ = plan_global_atomic(first, limits);
    }

    std::string tuning() const override { return tuning_.describe(); }

  protected:
    void queue(const DeviceImage& image, const std::vector<Channel>&, unsigned long long* counts,
               cudaStream_t stream) override {
        const auto bins = static_cast<std::size_t>(args_.bins.bins);
        for (std::size_t first = 0; first < rules_.size();
             first += static_cast<std::size_t>(kGlobalAtomicMaxOutputs)) {
            GlobalAtomicArgs a = args_;
            a.samples = image.data;
            const std::size_t last =
                std::min(rules_.size(), first + static_cast<std::size_t>(kGlobalAtomicMaxOutputs));
            a.outputs = static_cast<int>(last - first);
            for (std::size_t i = first; i < last; ++i)
                a.out[i - first] = {rules_[i], counts + i * bins};
            launch_global_atomic(a, tuning_, stream);
        }
    }

  private:
    GlobalAtomicArgs args_;
    std::vector<ValueRule> rules_;  // per requested channel
    BinTables tables_;
    GlobalAtomicTuning tuning_;
};

}  // namespace

Strategy global_atomic_strategy() {
    return {.name = "global-atomic",
            .summary =
                "64-bit atomicAdds in global memory, one per run of equal bins among a thread's "
                "pixels, all requested channels in one pass; any bin count up to 2^24, edges, luma "
                "and joint colour",
            .probe = global_atomic_probe,
            .prepare = prepare_run<GlobalAtomicRun>};
}

}  // namespace hs::cuda::detail
