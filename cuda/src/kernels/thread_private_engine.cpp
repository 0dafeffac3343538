// Strategy "thread-private" as an engine: turns a request into launch_thread_private() calls
// (kernel and tuning in thread_private.cu/.cuh) and refuses bin counts whose per-thread
// counters would not fit into shared memory for a block of 32 threads.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/device_table.hpp"
#include "kernels/strategies.hpp"
#include "kernels/thread_private.cuh"

namespace hs::cuda::detail {

namespace {

// What selects the kernel for channel `c` of `r` and its bins (no device pointers).
ThreadPrivateArgs channel_args(const HistogramRequest& r, Channel c) {
    ThreadPrivateArgs a;
    a.u16 = r.image.type == SampleType::U16;
    a.pixels = r.image.pixel_count();
    a.channels = r.image.channels;
    a.value = value_rule(c, r.image.channels);
    const std::uint32_t values = channel_max_value(c, r.image.type) + 1;
    a.bins = bin_rule(r.spec, values, values <= 256 ? kTableModes : kWideModes,
                      "engine 'thread-private'");
    return a;
}

class ThreadPrivateRun final : public KernelRun {
  public:
    ThreadPrivateRun(const HistogramRequest& r, const DeviceLimits& limits, cudaStream_t stream) {
        BinModes used = 0;
        for (const Channel c : r.channels) {
            args_.push_back(channel_args(r, c));
            used |= bin_mode_bit(args_.back().bins.mode);
            tunings_.push_back(plan_thread_private(args_.back(), limits));
        }
        tables_ = BinTables(r.spec, used, stream);
        for (ThreadPrivateArgs& a : args_) a.aux = tables_.of(a.bins.mode);
    }

    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream) override {
        if (channels.size() != args_.size() || image.pixels != args_.front().pixels)
            throw UsageError("thread-private: launch() does not match the prepared request");
        for (std::size_t i = 0; i < args_.size(); ++i) {
            ThreadPrivateArgs a = args_[i];
            a.samples = image.data;
            a.counts = counts + i * static_cast<std::size_t>(a.bins.bins);
            launch_thread_private(a, tunings_[i], stream);
        }
    }

    std::string tuning() const override { return tunings_.front().describe(); }

  private:
    std::vector<ThreadPrivateArgs> args_;
    std::vector<ThreadPrivateTuning> tunings_;
    BinTables tables_;
};

class ThreadPrivateEngine final : public GpuEngine {
  public:
    ThreadPrivateEngine()
        : GpuEngine(
              "GPU: private 8-bit counters per thread in shared memory, each thread in its own "
              "bank (no atomics, no bank conflicts, speed independent of the data), flushed "
              "block-wide into 32-bit counters every <= 255 samples; bins x threads bytes must "
              "fit into shared memory") {}
    std::string_view name() const override { return "thread-private"; }
    Capabilities capabilities() const override {
        Capabilities caps;
        const SelectedDevice& s = state();
        if (s.error.empty()) {
            // The most bins whose counters (even bins, no table) fit for 32 threads.
            ThreadPrivateArgs even;
            even.u16 = true;
            even.bins.mode = BinMode::Even32;
            const std::size_t optin =
                thread_private_smem_limit(even, s.device.shared_per_block_optin);
            int bins = static_cast<int>(
                std::min<std::size_t>(optin / 36, static_cast<std::size_t>(kMaxBins)));
            while (bins < kMaxBins &&
                   thread_private_smem_bytes(BinMode::Even32, bins + 1, 32) <= optin)
                ++bins;
            while (bins > 1 && thread_private_smem_bytes(BinMode::Even32, bins, 32) > optin) --bins;
            caps.max_bins = bins;
        }
        return caps;
    }

  protected:
    std::string extra_unsupported_reason(const HistogramRequest& r) const override {
        const SelectedDevice& s = state();
        if (!s.error.empty()) return {};  // compute() reports the unavailability itself
        for (const Channel c : r.channels) {
            std::size_t need = 0, have = 0;
            try {
                const ThreadPrivateArgs a = channel_args(r, c);
                need = thread_private_smem_bytes(a.bins.mode, a.bins.bins, 32);
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
