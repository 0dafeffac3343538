// Strategy "thread-private" as an engine: turns a request into launch_thread_private() calls
// (kernels and tuning in thread_private.cu/.cuh) and refuses bin counts whose per-thread
// counters would not fit into shared memory for a block of 32 threads.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "kernels/strategies.hpp"
#include "kernels/thread_private.cuh"

namespace hs::cuda::detail {

namespace {

// The kernel reads whole groups of 16 bytes per channel, which the upload pads to.
static_assert(kGroupBytesPerChannel == 16);

constexpr std::int64_t kJointValues = std::int64_t{1} << 24;

TpValue value_kind(const ImageView& image, Channel c) {
    if (c == Channel::Joint) return TpValue::Joint;
    if (is_luma(c) && image.channels > 1) return TpValue::Luma;
    return TpValue::Plain;
}

bool uses_table(const ImageView& image, Channel c) {
    return image.type == SampleType::U8 && c != Channel::Joint;
}

// Bin mode and even-bin parameters of one channel.
void set_bins(const HistogramSpec& spec, const ImageView& image, Channel c, ThreadPrivateArgs& a) {
    a.bins = spec.bins;
    if (uses_table(image, c)) {
        a.mode = TpBinMode::Table;
        return;
    }
    if (spec.has_edges()) {
        a.mode = TpBinMode::Edges;
        return;
    }
    const std::int64_t limit = static_cast<std::int64_t>(channel_max_value(c, image.type)) + 1;
    const std::int64_t lo = std::clamp<std::int64_t>(spec.lower, 0, limit);
    const std::int64_t hi = std::clamp<std::int64_t>(spec.upper, 0, limit);
    a.lo = static_cast<std::uint32_t>(lo);
    a.hi = static_cast<std::uint32_t>(std::max(lo, hi));
    a.lower = spec.lower;
    a.width = static_cast<std::uint64_t>(spec.upper - spec.lower);
    const auto bins = static_cast<std::uint64_t>(spec.bins);
    if (lo >= hi) {
        a.mode = TpBinMode::Even32;  // nothing is counted
    } else if (a.width <= 0xFFFFFFFFull && a.width % bins == 0) {
        a.mode = TpBinMode::EvenDiv;
        a.quot = static_cast<std::uint32_t>(a.width / bins);
    } else {
        const auto max_off = static_cast<std::uint64_t>(hi - 1 - spec.lower);
        a.mode = a.width <= 0xFFFFFFFFull && max_off * bins <= 0xFFFFFFFFull ? TpBinMode::Even32
                                                                             : TpBinMode::Even64;
    }
}

// What selects the kernel for channel `c` of `r` and its bins (no device pointers).
ThreadPrivateArgs channel_args(const HistogramRequest& r, Channel c) {
    const ImageView& image = r.image;
    ThreadPrivateArgs a;
    a.u16 = image.type == SampleType::U16;
    a.pixels = image.pixel_count();
    a.channels = image.channels;
    a.value = value_kind(image, c);
    a.weights = c == Channel::Luma709 ? kLuma709 : kLuma601;
    a.offset = a.value == TpValue::Plain ? std::max(0, channel_offset(c, image.channels)) : 0;
    set_bins(r.spec, image, c, a);
    return a;
}

class ThreadPrivateRun final : public KernelRun {
  public:
    ThreadPrivateRun(const HistogramRequest& r, DeviceLimits limits, cudaStream_t stream) {
        bool need_table = false, need_thresholds = false;
        for (const Channel c : r.channels) {
            ThreadPrivateArgs a = channel_args(r, c);
            need_table = need_table || a.mode == TpBinMode::Table;
            need_thresholds = need_thresholds || a.mode == TpBinMode::Edges;
            plans_.push_back(plan_thread_private(a, limits));
            args_.push_back(a);
        }
        // The host copies live as long as this run, i.e. until the engine has synchronized.
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
        for (ThreadPrivateArgs& a : args_)
            a.aux = a.mode == TpBinMode::Table   ? table_.data()
                    : a.mode == TpBinMode::Edges ? thresholds_.data()
                                                 : nullptr;
    }

    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream) override {
        for (std::size_t i = 0; i < channels.size(); ++i) {
            ThreadPrivateArgs a = args_[i];
            a.samples = image.data;
            a.pixels = image.pixels;
            a.counts = counts + i * static_cast<std::size_t>(a.bins);
            launch_thread_private(a, plans_[i], stream);
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

    std::vector<ThreadPrivateArgs> args_;
    std::vector<ThreadPrivatePlan> plans_;
    std::vector<std::int32_t> table_host_, thresholds_host_;
    DeviceBuffer<std::int32_t> table_, thresholds_;
};

class ThreadPrivateEngine final : public GpuEngine {
  public:
    std::string_view name() const override { return "thread-private"; }
    std::string_view description() const override {
        return "GPU: private 8-bit counters per thread in shared memory, each thread in its own "
               "bank (no atomics, no bank conflicts, speed independent of the data), flushed "
               "block-wide into 32-bit counters every <= 255 samples; bins x threads bytes must "
               "fit into shared memory";
    }
    Capabilities capabilities() const override {
        Capabilities caps;
        const State& s = state();
        if (s.error.empty()) {
            // The most bins whose counters (even bins, no table) fit for 32 threads.
            ThreadPrivateArgs even;
            even.u16 = true;
            even.mode = TpBinMode::Even32;
            const std::size_t optin =
                thread_private_smem_limit(even, s.device.shared_per_block_optin);
            int bins = static_cast<int>(
                std::min<std::size_t>(optin / 36, static_cast<std::size_t>(kMaxBins)));
            while (bins < kMaxBins &&
                   thread_private_smem_bytes(TpBinMode::Even32, bins + 1, 32) <= optin)
                ++bins;
            while (bins > 1 && thread_private_smem_bytes(TpBinMode::Even32, bins, 32) > optin)
                --bins;
            caps.max_bins = bins;
        }
        return caps;
    }

  protected:
    std::string extra_unsupported_reason(const HistogramRequest& r) const override {
        const State& s = state();
        if (!s.error.empty()) return {};  // compute() reports the unavailability itself
        for (const Channel c : r.channels) {
            const ThreadPrivateArgs a = channel_args(r, c);
            const std::size_t need = thread_private_smem_bytes(a.mode, a.bins, 32);
            std::size_t have = 0;
            try {
                have = thread_private_smem_limit(a, s.device.shared_per_block_optin);
            } catch (const UnsupportedError& e) {
                return e.what();  // no kernel for this value and layout
            }
            if (need > have)
                return "engine 'thread-private' keeps one 8-bit counter per bin and thread: " +
                       std::to_string(r.spec.bins) + " bins need " + std::to_string(need) +
                       " bytes of shared memory for a block of 32 threads, but " + s.device.name +
                       " allows its kernel at most " + std::to_string(have);
        }
        return {};
    }
    std::string probe() const override { return thread_private_probe(); }
    std::unique_ptr<KernelRun> prepare(const HistogramRequest& r,
                                       cudaStream_t stream) const override {
        return std::make_unique<ThreadPrivateRun>(r, limits(), stream);
    }
};

}  // namespace

std::unique_ptr<HistogramEngine> make_thread_private_engine() {
    return std::make_unique<ThreadPrivateEngine>();
}

}  // namespace hs::cuda::detail
