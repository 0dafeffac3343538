#pragma once
// The run of every strategy that launches its kernel once per requested channel (block-shared,
// warp-private, thread-private, packed, packed-sat), written once: the kernel's arguments and
// plan of every channel, the bin tables their rules read (each uploaded once), and one launch
// per channel into its histogram's counters. A strategy describes a channel with a small type
// `S`:
//
//   struct S {
//       using Args = ...;  // its kernel's arguments (ImageArgs with bins, aux, counts)
//       using Plan = ...;  // its tuning, with describe()
//       // The arguments of `channel`, without device pointers.
//       Args args(const HistogramRequest&, Channel channel) const;
//       // The plan of those arguments on the device (may complete them with the tuning).
//       Plan plan(Args&, const HistogramRequest&, Channel, const DeviceLimits&) const;
//       void launch(const Args&, const Plan&, cudaStream_t) const;
//       // Optional: the tuning in words (default: the first channel's plan).
//       std::string describe(const std::vector<Plan>&, const std::vector<Channel>&) const;
//   };
//
// and its table row's prepare hook is channel_runs(S{...}).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpu_engine.hpp"
#include "kernels/common/device_table.hpp"

namespace hs::cuda::detail {

// The arguments of a kernel over `channel` of `r` that bins 8-bit values of plain channels and
// luma through the table and any other value by the exact integer rules or the edges (no
// device pointers, no tuning); `who` names the engine in refusals.
template <typename Args>
Args table_or_wide_args(const HistogramRequest& r, Channel channel, const char* who) {
    Args a;
    a.u16 = r.image.type == SampleType::U16;
    a.pixels = r.image.pixel_count();
    a.channels = r.image.channels;
    a.value = value_rule(channel, r.image.channels);
    const std::uint32_t values = channel_max_value(channel, r.image.type) + 1;
    a.bins = bin_rule(r.spec, values, values <= 256 ? kTableModes : kWideModes, who);
    return a;
}

template <typename S>
class ChannelRun final : public KernelRun {
  public:
    using Args = typename S::Args;
    using Plan = typename S::Plan;

    ChannelRun(S strategy, const HistogramRequest& r, const DeviceLimits& limits,
               cudaStream_t stream)
        : strategy_(std::move(strategy)) {
        BinModes used = 0;
        for (const Channel c : r.channels) {
            Args a = strategy_.args(r, c);
            used |= bin_mode_bit(a.bins.mode);
            plans_.push_back(strategy_.plan(a, r, c, limits));
            args_.push_back(a);
        }
        tables_ = BinTables(r.spec, used, stream);
        for (Args& a : args_) a.aux = tables_.of(a.bins.mode);
        if constexpr (requires { strategy_.describe(plans_, r.channels); })
            note_ = strategy_.describe(plans_, r.channels);
        else
            note_ = plans_.front().describe();
    }

    std::string tuning() const override { return note_; }

  protected:
    void queue(const DeviceImage& image, const std::vector<Channel>&, unsigned long long* counts,
               cudaStream_t stream) override {
        for (std::size_t i = 0; i < args_.size(); ++i) {
            Args a = args_[i];
            a.samples = image.data;
            a.counts = counts + i * static_cast<std::size_t>(a.bins.bins);
            strategy_.launch(a, plans_[i], stream);
        }
    }

  private:
    S strategy_;
    std::vector<Args> args_;  // per requested channel
    std::vector<Plan> plans_;
    BinTables tables_;
    std::string note_;
};

// The `S` of a strategy whose channel needs only its arguments (ArgsOf(request, channel)), a
// plan from them and the device's limits (PlanOf(args, limits)) and its launch (Launch(args,
// plan, stream)).
template <typename A, typename P, auto ArgsOf, auto PlanOf, auto Launch>
struct PlannedChannels {
    using Args = A;
    using Plan = P;
    Args args(const HistogramRequest& r, Channel c) const { return ArgsOf(r, c); }
    Plan plan(Args& a, const HistogramRequest&, Channel, const DeviceLimits& limits) const {
        return PlanOf(a, limits);
    }
    void launch(const Args& a, const Plan& p, cudaStream_t stream) const { Launch(a, p, stream); }
};

// The prepare hook of a table row whose strategy launches once per channel.
template <typename S>
auto channel_runs(S strategy) {
    return [strategy](const GpuEngine& engine, const HistogramRequest& r,
                      cudaStream_t stream) -> std::unique_ptr<KernelRun> {
        return std::make_unique<ChannelRun<S>>(strategy, r, engine.limits(), stream);
    };
}

}  // namespace hs::cuda::detail
