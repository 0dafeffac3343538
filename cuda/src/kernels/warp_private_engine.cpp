// Strategy "warp-private" as an engine: samples the race factor of every requested channel on
// the host, chooses the tuning and turns the request into launch_warp_private() calls
// (kernels and tuning in warp_private.cu/.cuh).

#include <algorithm>
#include <bit>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "kernels/strategies.hpp"
#include "kernels/warp_private.cuh"

namespace hs::cuda::detail {

namespace {

// The kernel reads whole groups of 16 bytes per channel, which the upload pads to.
static_assert(kGroupBytesPerChannel == 16);

constexpr std::int64_t kJointValues = std::int64_t{1} << 24;

// Values a channel takes lie below this limit.
std::int64_t value_limit(const ImageView& image, Channel c) {
    return static_cast<std::int64_t>(channel_max_value(c, image.type)) + 1;
}

WpValue value_kind(const ImageView& image, Channel c) {
    if (c == Channel::Joint) return WpValue::Joint;
    if (is_luma(c) && image.channels > 1) return WpValue::Luma;
    return WpValue::Plain;
}

// Bin mode and even-bin parameters of one channel.
void set_bins(const HistogramSpec& spec, const ImageView& image, Channel c, WarpPrivateArgs& a) {
    a.bins = spec.bins;
    if (image.type == SampleType::U8 && c != Channel::Joint) {
        a.mode = WpBinMode::Table;
        return;
    }
    if (spec.has_edges()) {
        a.mode = WpBinMode::Edges;
        return;
    }
    const std::int64_t limit = value_limit(image, c);
    const std::int64_t lo = std::clamp<std::int64_t>(spec.lower, 0, limit);
    const std::int64_t hi = std::clamp<std::int64_t>(spec.upper, 0, limit);
    a.lo = static_cast<std::uint32_t>(lo);
    a.hi = static_cast<std::uint32_t>(std::max(lo, hi));
    a.lower = spec.lower;
    a.width = static_cast<std::uint64_t>(spec.upper - spec.lower);
    const auto bins = static_cast<std::uint64_t>(spec.bins);
    if (lo >= hi) {
        a.mode = WpBinMode::Even32;  // nothing is counted
    } else if (a.width <= 0xFFFFFFFFull && a.width % bins == 0) {
        a.mode = WpBinMode::EvenDiv;
        a.quot = static_cast<std::uint32_t>(a.width / bins);
    } else {
        const auto max_off = static_cast<std::uint64_t>(hi - 1 - spec.lower);
        a.mode = a.width <= 0xFFFFFFFFull && max_off * bins <= 0xFFFFFFFFull ? WpBinMode::Even32
                                                                             : WpBinMode::Even64;
    }
}

std::uint32_t host_value(const ImageView& image, Channel c, std::uint64_t pixel) {
    const auto w = static_cast<std::uint64_t>(image.width);
    const auto x = static_cast<int>(pixel % w);
    const auto y = static_cast<int>(pixel / w);
    if (c == Channel::Joint)
        return joint_value(image.sample(x, y, 0), image.sample(x, y, 1), image.sample(x, y, 2));
    if (is_luma(c) && image.channels > 1)
        return luma(c == Channel::Luma709 ? kLuma709 : kLuma601, image.sample(x, y, 0),
                    image.sample(x, y, 1), image.sample(x, y, 2));
    return image.sample(x, y, std::max(0, channel_offset(c, image.channels)));
}

// The bins that sampled warp steps of the kernel would hit: lane l of a warp reads group
// 32 * w + l and all lanes handle pixel p of their group at the same time.
std::vector<std::int32_t> sample_warp_bins(const HistogramRequest& r, Channel c) {
    const ImageView& image = r.image;
    const auto ppg =
        static_cast<std::uint64_t>(warp_private_pixels_per_group(image.type == SampleType::U16));
    const std::uint64_t pixels = image.pixel_count();
    const std::uint64_t groups = (pixels + ppg - 1) / ppg;
    const std::uint64_t warps = (groups + 31) / 32;
    std::mt19937_64 rng(0x9E3779B97F4A7C15ull ^ pixels);
    std::vector<std::int32_t> out;
    out.reserve(32 * static_cast<std::size_t>(kWarpPrivateSampledSteps));
    for (int s = 0; s < kWarpPrivateSampledSteps; ++s) {
        const std::uint64_t w = rng() % warps;
        const std::uint64_t p = rng() % ppg;
        for (std::uint64_t lane = 0; lane < 32; ++lane) {
            const std::uint64_t pixel = (w * 32 + lane) * ppg + p;
            out.push_back(pixel < pixels ? bin_of(r.spec, host_value(image, c, pixel)) : -1);
        }
    }
    return out;
}

// Tuning texts shown in the engine's description; node-based, so views stay valid.
class TuningNote {
  public:
    explicit TuningNote(std::string base) : base_(std::move(base)), current_(base_) {}
    std::string_view current() const {
        const std::lock_guard lock(mutex_);
        return current_;
    }
    void record(const std::string& tuning) {
        const std::lock_guard lock(mutex_);
        std::string text = base_ + ". Last request: " + tuning;
        if (const auto it = texts_.find(text); it != texts_.end()) {
            current_ = *it;
        } else if (texts_.size() < kMaxTexts) {
            current_ = *texts_.insert(std::move(text)).first;
        }
    }

  private:
    static constexpr std::size_t kMaxTexts = 256;
    mutable std::mutex mutex_;
    std::string base_;
    std::set<std::string> texts_;
    std::string_view current_;
};

class WarpPrivateRun final : public KernelRun {
  public:
    WarpPrivateRun(const HistogramRequest& r, DeviceLimits limits, cudaStream_t stream,
                   TuningNote& note) {
        const ImageView& image = r.image;
        const bool u16 = image.type == SampleType::U16;
        const int bpp = image.channels * bytes_per_sample(image.type);
        std::string notes;
        bool need_table = false, need_thresholds = false;
        for (std::size_t i = 0; i < r.channels.size(); ++i) {
            const Channel c = r.channels[i];
            WarpPrivateArgs a;
            a.u16 = u16;
            a.pixels = image.pixel_count();
            a.channels = image.channels;
            a.value = value_kind(image, c);
            a.weights = c == Channel::Luma709 ? kLuma709 : kLuma601;
            a.offset =
                a.value == WpValue::Plain ? std::max(0, channel_offset(c, image.channels)) : 0;
            set_bins(r.spec, image, c, a);
            need_table = need_table || a.mode == WpBinMode::Table;
            need_thresholds = need_thresholds || a.mode == WpBinMode::Edges;

            WarpPrivateTuning t = choose_warp_private(
                warp_private_race(sample_warp_bins(r, c)), r.spec.bins,
                warp_private_aux_entries(a.mode, r.spec.bins), bpp,
                warp_private_pixels_per_group(u16), a.pixels,
                warp_private_smem_limit(a, limits.shared_per_block_optin), limits);
            a.aux_shared = t.aux_shared;
            a.copies_log2 = std::countr_zero(static_cast<unsigned>(t.copies));
            a.chunk = t.chunk;
            a.passes = t.passes;
            plan_warp_private(a, limits, t);
            if (i > 0) notes += "; ";
            notes += std::string(channel_name(c)) + ": " + t.describe();
            args_.push_back(a);
            tunings_.push_back(t);
        }
        note.record(notes);

        // Device tables, shared by the channels that need them. The host copies live as long
        // as this run, i.e. until the engine has synchronized.
        if (need_table) {
            table_host_ = bin_table(r.spec, 255);
            table_ = upload(table_host_, "bin table", stream);
        }
        if (need_thresholds) {
            // Every value lies in [0, 2^24): clamping thresholds to [-1, 2^24] keeps each
            // comparison with a value unchanged and fits them in 32 bits.
            for (const std::int64_t t : r.spec.thresholds())
                thresholds_host_.push_back(
                    static_cast<std::int32_t>(std::clamp<std::int64_t>(t, -1, kJointValues)));
            thresholds_ = upload(thresholds_host_, "bin thresholds", stream);
        }
        for (WarpPrivateArgs& a : args_)
            a.aux = a.mode == WpBinMode::Table   ? table_.data()
                    : a.mode == WpBinMode::Edges ? thresholds_.data()
                                                 : nullptr;
    }

    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream) override {
        for (std::size_t i = 0; i < channels.size(); ++i) {
            WarpPrivateArgs a = args_[i];
            a.samples = image.data;
            a.pixels = image.pixels;
            a.counts = counts + i * static_cast<std::size_t>(a.bins);
            launch_warp_private(a, tunings_[i], stream);
        }
    }

  private:
    static DeviceBuffer<std::int32_t> upload(const std::vector<std::int32_t>& host,
                                             const char* what, cudaStream_t stream) {
        DeviceBuffer<std::int32_t> buf(host.size(), what);
        check(cudaMemcpyAsync(buf.data(), host.data(), buf.bytes(), cudaMemcpyHostToDevice, stream),
              "bin table upload (cudaMemcpyAsync)");
        return buf;
    }

    std::vector<WarpPrivateArgs> args_;
    std::vector<WarpPrivateTuning> tunings_;
    std::vector<std::int32_t> table_host_, thresholds_host_;
    DeviceBuffer<std::int32_t> table_, thresholds_;
};

class WarpPrivateEngine final : public GpuEngine {
  public:
    std::string_view name() const override { return "warp-private"; }
    std::string_view description() const override { return note_.current(); }
    Capabilities capabilities() const override { return {}; }

  protected:
    std::string probe() const override { return warp_private_probe(); }
    std::unique_ptr<KernelRun> prepare(const HistogramRequest& r,
                                       cudaStream_t stream) const override {
        return std::make_unique<WarpPrivateRun>(r, limits(), stream, note_);
    }

  private:
    mutable TuningNote note_{
        "GPU multi-histogramming (Henriksen et al.): M interleaved 32-bit sub-histograms per "
        "block in shared memory (thread t updates copy t % M), bins split into S passes when "
        "they do not fit; M and S chosen from the device's shared memory, the bin count and a "
        "race factor sampled on the host"};
};

}  // namespace

std::unique_ptr<HistogramEngine> make_warp_private_engine() {
    return std::make_unique<WarpPrivateEngine>();
}

}  // namespace hs::cuda::detail
