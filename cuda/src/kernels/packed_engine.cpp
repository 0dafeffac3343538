// Strategy "packed" as an engine, and the request handling it shares with "packed-sat"
// (PackedEngineBase): turns a request into launch_packed() calls (kernels, tiling and tuning
// in packed.cu/.cuh).

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "kernels/packed.cuh"
#include "kernels/packed_tuning.hpp"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

// The kernels read whole groups of 16 bytes per channel, which the upload pads to.
static_assert(kGroupBytesPerChannel == 16);

constexpr std::int64_t kJointValues = std::int64_t{1} << 24;

// The arguments of one channel of `r`, without the device pointers and the plan.
PackedArgs channel_args(const HistogramRequest& r, Channel channel) {
    PackedArgs a;
    a.u16 = r.image.type == SampleType::U16;
    a.channels = r.image.channels;
    a.bins = r.spec.bins;
    std::int64_t values = a.u16 ? 65536 : 256;  // values lie in [0, values)
    if (channel == Channel::Joint) {
        a.value = PackedValue::Joint;
        values = kJointValues;
    } else if (is_luma(channel) && r.image.channels > 1) {
        a.value = PackedValue::Luma;
        a.weights = channel == Channel::Luma709 ? kLuma709 : kLuma601;
    } else {
        a.value = PackedValue::Plain;
        a.offset = std::max(0, channel_offset(channel, r.image.channels));
    }
    if (!a.u16 && a.value != PackedValue::Joint) {
        a.mode = PackedBins::Table;
    } else if (r.spec.has_edges()) {
        a.mode = PackedBins::Edges;
    } else {
        const std::int64_t lo = std::clamp<std::int64_t>(r.spec.lower, 0, values);
        const std::int64_t hi = std::clamp<std::int64_t>(r.spec.upper, 0, values);
        a.lo = static_cast<std::uint32_t>(lo);
        a.hi = static_cast<std::uint32_t>(std::max(lo, hi));
        a.lower = r.spec.lower;
        a.width = static_cast<std::uint64_t>(r.spec.upper - r.spec.lower);
        const auto bins = static_cast<std::uint64_t>(r.spec.bins);
        // Every counted v satisfies lower <= v < values <= 2^24 and lower >= -2^31, so
        // v - lower < 2^32: the 32-bit difference of the kernels is exact.
        if (a.width % bins == 0 && a.width / bins <= 0xFFFFFFFFull) {
            a.quot = static_cast<std::uint32_t>(a.width / bins);
            const std::optional<ShiftBins> shift =
                shift_bins(r.spec, static_cast<std::uint32_t>(values));
            a.mode = shift ? PackedBins::EvenShift : PackedBins::EvenDiv;
            if (shift) a.shift = shift->shift;
        } else if (lo >= hi) {
            a.mode = PackedBins::Even32;  // nothing is counted
        } else {
            const auto max_off = static_cast<std::uint64_t>(hi - 1 - r.spec.lower);
            const bool fits = a.width <= 0xFFFFFFFFull && max_off * bins <= 0xFFFFFFFFull;
            a.mode = fits ? PackedBins::Even32 : PackedBins::Even64;
        }
    }
    // Used by the saturating kernels only (PackedRun sets `saturating` for "packed-sat").
    if (r.spec.saturate)
        a.cap = static_cast<std::uint32_t>(std::min<std::uint64_t>(*r.spec.saturate, 0xFFFFFFFFu));
    return a;
}

class PackedRun final : public KernelRun {
  public:
    PackedRun(const HistogramRequest& r, DeviceLimits limits, const PackedTuning& tuning,
              bool saturating, cudaStream_t stream)
        : limits_(limits), tuning_(tuning) {
        bool need_table = false, need_edges = false;
        for (const Channel c : r.channels) {
            PackedArgs a = channel_args(r, c);
            a.saturating = saturating;
            need_table = need_table || a.mode == PackedBins::Table;
            need_edges = need_edges || a.mode == PackedBins::Edges;
            args_.push_back(a);
        }
        plans_.resize(args_.size());
        if (need_table) {
            // The core's own bin_of() for every 8-bit value: exact by construction.
            table_host_ = bin_table(r.spec, 255);
            table_ = upload(table_host_, "bin table", stream);
        }
        if (need_edges) {
            // Values lie in [0, 2^24): clamping thresholds to [-1, 2^24] keeps every
            // comparison with a value unchanged and fits them in 32 bits.
            for (const std::int64_t t : r.spec.thresholds())
                edges_host_.push_back(
                    static_cast<std::int32_t>(std::clamp<std::int64_t>(t, -1, kJointValues)));
            edges_ = upload(edges_host_, "bin thresholds", stream);
        }
    }

    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream) override {
        if (channels.size() != args_.size())
            throw UsageError("packed: the run was prepared for other channels");
        for (std::size_t i = 0; i < args_.size(); ++i) {
            PackedArgs a = args_[i];
            a.samples = image.data;
            a.pixels = image.pixels;
            a.aux = a.mode == PackedBins::Table   ? table_.data()
                    : a.mode == PackedBins::Edges ? edges_.data()
                                                  : nullptr;
            a.counts = counts + i * static_cast<std::size_t>(a.bins);
            // Planned once per image size (the grid follows the pixel count), not per launch:
            // planning queries the occupancy API.
            Planned& p = plans_[i];
            if (p.pixels != a.pixels) p = {a.pixels, plan_packed(a, limits_, tuning_)};
            launch_packed(a, p.plan, stream);
        }
    }

  private:
    // The host copies live as long as this run, i.e. until the engine has synchronized.
    static DeviceBuffer<std::int32_t> upload(const std::vector<std::int32_t>& host,
                                             const char* what, cudaStream_t stream) {
        DeviceBuffer<std::int32_t> buffer(host.size(), what);
        check(cudaMemcpyAsync(buffer.data(), host.data(), buffer.bytes(), cudaMemcpyHostToDevice,
                              stream),
              "bin table upload (cudaMemcpyAsync)");
        return buffer;
    }

    DeviceLimits limits_;
    PackedTuning tuning_;
    std::vector<PackedArgs> args_;
    struct Planned {
        std::uint64_t pixels = 0;  // the image size it was made for (0: none yet)
        PackedPlan plan;
    };
    std::vector<Planned> plans_;  // per channel
    std::vector<std::int32_t> table_host_, edges_host_;
    DeviceBuffer<std::int32_t> table_, edges_;
};

class PackedEngine final : public PackedEngineBase {
  public:
    explicit PackedEngine(const PackedTuning& tuning) : PackedEngineBase(tuning, false) {}
    std::string_view name() const override { return "packed"; }
    std::string_view description() const override {
        return "GPU: shared-memory sub-histograms of packed 8- or 16-bit counters (Ross's packed "
               "atomics), wraps detected from atomicAdd's old value and corrected in 64-bit "
               "global counts; bins beyond shared memory in tiles (up to 2^24)";
    }
};

}  // namespace

Capabilities PackedEngineBase::capabilities() const {
    return Capabilities{};  // everything; extra_unsupported_reason() checks the device limits
}

std::string PackedEngineBase::extra_unsupported_reason(const HistogramRequest& r) const {
    const State& s = state();
    if (!s.error.empty()) return {};  // compute() reports the unavailability itself
    const std::string who = "engine '" + std::string(name()) + "' ";
    if (tuning_.threads < 0 || tuning_.threads > 1024 || tuning_.threads % 32 != 0)
        return who + "was built with " + std::to_string(tuning_.threads) +
               " threads per block; it needs a multiple of 32 up to 1024";
    const std::uint64_t cap = r.spec.saturate.value_or(0);
    const std::vector<int> widths = packed_counter_widths(tuning_, saturating_, cap);
    if (widths.empty()) {
        if (saturating_)
            return who + "needs a saturation cap that fits its counters (at most " +
                   std::to_string(tuning_.counter_bits == 8 ? 255 : 65535) + ")";
        return who + "was built with " + std::to_string(tuning_.counter_bits) +
               "-bit counters; it has 8- and 16-bit ones";
    }
    for (const Channel c : r.channels) {
        PackedArgs a = channel_args(r, c);
        a.saturating = saturating_;
        bool fits = false;
        std::size_t have = 0;
        for (const int w : widths) {
            a.counter_bits = w;
            have = packed_smem_limit(a, s.device.shared_per_block_optin);
            const PackedTiles t = packed_tiles(a.mode, a.bins, w, have, tuning_.max_tile_bins);
            fits = fits || (t.tiles > 0 && t.tiles <= kPackedMaxTiles);
        }
        if (!fits)
            return who + "cannot split " + std::to_string(r.spec.bins) + " bins into at most " +
                   std::to_string(kPackedMaxTiles) + " tiles that fit into the " +
                   std::to_string(have) + " bytes of shared memory per block that " +
                   s.device.name + " allows its kernel";
    }
    return {};
}

std::unique_ptr<KernelRun> PackedEngineBase::prepare(const HistogramRequest& r,
                                                     cudaStream_t stream) const {
    return std::make_unique<PackedRun>(r, limits(), tuning_, saturating_, stream);
}

std::unique_ptr<HistogramEngine> make_packed_engine(const PackedTuning& tuning) {
    return std::make_unique<PackedEngine>(tuning);
}

std::unique_ptr<HistogramEngine> make_packed_engine() {
    return make_packed_engine(PackedTuning{});
}

}  // namespace hs::cuda::detail
