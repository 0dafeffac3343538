// Strategy "warp-private" as an engine: samples the race factor of every requested channel on
// the host, chooses the tuning and turns the request into launch_warp_private() calls
// (kernel and tuning in warp_private.cu/.cuh).

#include <algorithm>
#include <bit>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/device_table.hpp"
#include "kernels/strategies.hpp"
#include "kernels/warp_private.cuh"

namespace hs::cuda::detail {

namespace {

// The bins that sampled warp steps of the kernel would hit: lane l of a warp reads group
// 32 * w + l and all lanes handle pixel p of their group at the same time.
std::vector<std::int32_t> sample_warp_bins(const HistogramRequest& r, Channel c) {
    const ImageView& image = r.image;
    const bool u16 = image.type == SampleType::U16;
    const std::uint64_t ppg = u16 ? 8 : 16;
    const std::uint64_t pixels = image.pixel_count();
    const std::uint64_t warps = (group_count(pixels, u16) + 31) / 32;
    const auto width = static_cast<std::uint64_t>(image.width);
    std::mt19937_64 rng(0x9E3779B97F4A7C15ull ^ pixels);
    std::vector<std::int32_t> out;
    out.reserve(32 * static_cast<std::size_t>(kWarpPrivateSampledSteps));
    for (int s = 0; s < kWarpPrivateSampledSteps; ++s) {
        const std::uint64_t w = rng() % warps;
        const std::uint64_t p = rng() % ppg;
        for (std::uint64_t lane = 0; lane < 32; ++lane) {
            const std::uint64_t pixel = (w * 32 + lane) * ppg + p;
            out.push_back(
                pixel < pixels
                    ? bin_of(r.spec, channel_value(image, c, static_cast<int>(pixel % width),
                                                   static_cast<int>(pixel / width)))
                    : -1);
        }
    }
    return out;
}

// The kernel's arguments for channel `c` of `r` (no tuning, no device pointers).
WarpPrivateArgs channel_args(const HistogramRequest& r, Channel c) {
    WarpPrivateArgs a;
    a.u16 = r.image.type == SampleType::U16;
    a.pixels = r.image.pixel_count();
    a.channels = r.image.channels;
    a.value = value_rule(c, r.image.channels);
    const std::uint32_t values = channel_max_value(c, r.image.type) + 1;
    a.bins =
        bin_rule(r.spec, values, values <= 256 ? kTableModes : kWideModes, "engine 'warp-private'");
    return a;
}

class WarpPrivateRun final : public KernelRun {
  public:
    WarpPrivateRun(const HistogramRequest& r, const DeviceLimits& limits, cudaStream_t stream) {
        const int bpp = r.image.channels * bytes_per_sample(r.image.type);
        BinModes used = 0;
        for (const Channel c : r.channels) {
            WarpPrivateArgs a = channel_args(r, c);
            used |= bin_mode_bit(a.bins.mode);
            WarpPrivateTuning t = choose_warp_private(
                warp_private_race(sample_warp_bins(r, c)), r.spec.bins,
                bin_aux_entries(a.bins.mode, r.spec.bins), bpp, a.u16 ? 8 : 16, a.pixels,
                warp_private_smem_limit(a, limits.shared_per_block_optin), limits);
            a.aux_shared = t.aux_shared;
            a.copies_log2 = std::countr_zero(static_cast<unsigned>(t.copies));
            a.chunk = t.chunk;
            a.passes = t.passes;
            plan_warp_private(a, limits, t);
            notes_ +=
                (notes_.empty() ? "" : "; ") + std::string(channel_name(c)) + ": " + t.describe();
            args_.push_back(a);
            tunings_.push_back(t);
        }
        tables_ = BinTables(r.spec, used, stream);
        for (WarpPrivateArgs& a : args_) a.aux = tables_.of(a.bins.mode);
    }

    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream) override {
        if (channels.size() != args_.size() || image.pixels != args_.front().pixels)
            throw UsageError("warp-private: launch() does not match the prepared request");
        for (std::size_t i = 0; i < args_.size(); ++i) {
            WarpPrivateArgs a = args_[i];
            a.samples = image.data;
            a.counts = counts + i * static_cast<std::size_t>(a.bins.bins);
            launch_warp_private(a, tunings_[i], stream);
        }
    }

    std::string tuning() const override { return notes_; }

  private:
    std::vector<WarpPrivateArgs> args_;
    std::vector<WarpPrivateTuning> tunings_;
    BinTables tables_;
    std::string notes_;
};

class WarpPrivateEngine final : public GpuEngine {
  public:
    WarpPrivateEngine()
        : GpuEngine(
              "GPU multi-histogramming (Henriksen et al.): M interleaved 32-bit sub-histograms "
              "per block in shared memory (thread t updates copy t % M), bins split into S "
              "passes when they do not fit; M and S chosen from the device's shared memory, the "
              "bin count and a race factor sampled on the host") {}
    std::string_view name() const override { return "warp-private"; }
    Capabilities capabilities() const override { return {}; }

  protected:
    std::string probe() const override { return warp_private_probe(); }
    std::unique_ptr<KernelRun> prepare(const HistogramRequest& r,
                                       cudaStream_t stream) const override {
        return std::make_unique<WarpPrivateRun>(r, limits(), stream);
    }
};

}  // namespace

std::unique_ptr<HistogramEngine> make_warp_private_engine() {
    return std::make_unique<WarpPrivateEngine>();
}

}  // namespace hs::cuda::detail
