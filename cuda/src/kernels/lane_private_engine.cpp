// Strategy "lane-private" as a row of the strategy table: maps the requested plain channels of
// an 8- or 16-bit image to counting slots and launches lane_private once for all of them
// (kernel and tuning in lane_private.cu/.cuh).

#include <algorithm>
#include <bit>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/device_table.hpp"
#include "kernels/lane_private.cuh"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

// The kernel reads whole 16-byte words of the buffer, which the upload pads to.
static_assert(kGroupBytesPerChannel == 16);

// A request as lane-private counts it: the kernel's arguments without device pointers, the
// slot of every requested channel and the 8-bit bin table, or why it cannot be counted. The
// capability check and the run both take it from lane_layout(), so the engine refuses exactly
// what it cannot launch.
struct LaneLayout {
    LanePrivateArgs args;
    std::vector<int> slot_channel;    // per slot: the first requested channel counted there
    std::vector<int> channel_slot;    // per requested channel: its slot
    std::vector<std::int32_t> table;  // 8-bit: the bin of every value (-1 = outside)
    std::string refusal;              // non-empty: lane-private cannot count the request
};

// The bin rule of `r` (Table or EvenShift), or why lane-private cannot count it: refusals that
// need no device.
std::string layout_refusal(const HistogramRequest& r, BinRule* rule = nullptr) {
    if (r.image.channels != 1 && r.image.channels != 3 && r.image.channels != 4)
        return "engine 'lane-private' reads images of 1, 3 or 4 channels";
    const bool u16 = r.image.type == SampleType::U16;
    try {
        const BinRule b =
            bin_rule(r.spec, u16 ? 65536 : 256, u16 ? kLanePrivateModesWide : kLanePrivateModes8,
                     "engine 'lane-private'");
        if (rule != nullptr) *rule = b;
    } catch (const UnsupportedError&) {
        return "engine 'lane-private' counts 16-bit samples in even bins whose width is a power "
               "of two (such as 1024 bins over [0, 65536)), not in " +
               r.spec.describe();
    }
    return {};
}

// `device` names the device whose opt-in shared memory per block is `optin`.
LaneLayout lane_layout(const HistogramRequest& r, std::size_t optin, const std::string& device) {
    LaneLayout l;
    LanePrivateArgs& a = l.args;
    if (l.refusal = layout_refusal(r, &a.bins); !l.refusal.empty()) return l;
    a.channels = r.image.channels;
    // Distinct values (a sample, or a luma) become slots; a channel asked for twice reads its
    // slot's counts again (copied after the kernel). Luma among them takes the pixel path.
    std::vector<ValueRule> values;
    for (std::size_t i = 0; i < r.channels.size(); ++i) {
        const ValueRule v = value_rule(r.channels[i], r.image.channels);
        const auto same = [&](const ValueRule& u) {
            return u.kind == v.kind && u.offset == v.offset && u.weights.r == v.weights.r &&
                   u.weights.g == v.weights.g && u.weights.b == v.weights.b;
        };
        const auto it = std::find_if(values.begin(), values.end(), same);
        if (it == values.end()) {
            values.push_back(v);
            l.slot_channel.push_back(static_cast<int>(i));
        }
        l.channel_slot.push_back(
            static_cast<int>(std::find_if(values.begin(), values.end(), same) - values.begin()));
        a.by_pixel = a.by_pixel || v.kind == ValueKind::Luma;
    }
    if (values.size() > static_cast<std::size_t>(kLanePrivateMaxSlots)) {
        l.refusal = "engine 'lane-private' counts at most " + std::to_string(kLanePrivateMaxSlots) +
                    " distinct channels in one pass, not " + std::to_string(values.size());
        return l;
    }
    a.slots = static_cast<int>(values.size());
    for (int s = 0; s < a.slots; ++s) {
        const ValueRule& v = values[static_cast<std::size_t>(s)];
        a.slot_value[s] = v;
        if (v.kind == ValueKind::Plain) a.slot_of_offset[v.offset] = s;
    }
    a.pixels = r.image.pixel_count();
    a.u16 = r.image.type == SampleType::U16;
    // 8-bit: core's own bin_of() for every value (exact by construction).
    if (!a.u16) l.table = bin_table(r.spec, 255);
    const int bins = a.bins.bins;
    const int copies = lane_private_copies(a.slots, bins, lane_private_smem_limit(a, optin));
    if (copies == 0) {
        l.refusal = "engine 'lane-private' needs " +
                    std::to_string(lane_private_smem_bytes(a.slots, bins, kLanePrivateMinCopies)) +
                    " bytes of shared memory per block for " +
                    std::to_string(kLanePrivateMinCopies) + " copies of " +
                    std::to_string(a.slots) + " channels of " + std::to_string(bins) +
                    " bins, but " + device + " allows its kernel at most " +
                    std::to_string(lane_private_smem_limit(a, optin));
        return l;
    }
    a.copies_log2 = std::countr_zero(static_cast<unsigned>(copies));
    if (!a.u16 && copies == kLanePrivateMaxCopies) {
        // Full-range 256 bins: the value is the bin, no table read.
        bool identity = bins == 256;
        for (std::size_t v = 0; v < 256 && identity; ++v)
            identity = l.table[v] == static_cast<std::int32_t>(v);
        LanePrivateArgs direct = a;
        direct.bins.mode = BinMode::Identity;
        if (identity && lane_private_smem_bytes(a.slots, bins, copies) <=
                            lane_private_smem_limit(direct, optin))
            a.bins.mode = BinMode::Identity;
    }
    return l;
}

class LanePrivateRun final : public KernelRun {
  public:
    LanePrivateRun(const HistogramRequest& r, DeviceLimits limits, const std::string& device,
                   cudaStream_t stream)
        : layout_(lane_layout(r, limits.shared_per_block_optin, device)) {
        if (!layout_.refusal.empty()) throw UnsupportedError(layout_.refusal);
        LanePrivateArgs& a = layout_.args;
        if (a.bins.mode == BinMode::Table) {
            table_ = DeviceTable(layout_.table, "bin table upload", stream);
            a.table = table_.data();
        }
        a.bytes = r.image.row_bytes() * static_cast<std::uint64_t>(r.image.height);
        tuning_ = plan_lane_private(a, limits);
        // The kernel zeroes the counts itself (ticket counter and epoch, see lane_private.cuh).
        check(cudaMemsetAsync(sync_.data(), 0, sync_.bytes(), stream),
              "lane-private launch tickets (cudaMemsetAsync)");
        a.sync = sync_.data();
    }

    bool zeroes_counts() const override { return true; }
    std::string tuning() const override { return tuning_.describe(); }

  protected:
    void queue(const DeviceImage& image, const std::vector<Channel>& channels,
               unsigned long long* counts, cudaStream_t stream) override {
        LanePrivateArgs a = layout_.args;
        epoch_ = epoch_ == 0xFFFFFFFFu ? 1u : epoch_ + 1u;  // never 0, the initial value
        a.epoch = epoch_;
        a.samples = image.data;
        a.bytes = image.bytes;
        const auto bins = static_cast<std::size_t>(a.bins.bins);
        for (int s = 0; s < a.slots; ++s)
            a.counts[s] =
                counts +
                static_cast<std::size_t>(layout_.slot_channel[static_cast<std::size_t>(s)]) * bins;
        launch_lane_private(a, tuning_, stream);
        for (std::size_t i = 0; i < channels.size(); ++i) {
            const auto first = static_cast<std::size_t>(
                layout_.slot_channel[static_cast<std::size_t>(layout_.channel_slot[i])]);
            if (first != i)
                check(cudaMemcpyAsync(counts + i * bins, counts + first * bins,
                                      bins * sizeof(unsigned long long), cudaMemcpyDeviceToDevice,
                                      stream),
                      "lane-private: repeated channel (cudaMemcpyAsync)");
        }
    }

  private:
    LaneLayout layout_;
    LanePrivateTuning tuning_;
    DeviceTable<std::int32_t> table_;
    DeviceBuffer<unsigned int> sync_{2, "lane-private launch tickets"};
    unsigned int epoch_ = 0;  // of the latest launch
};

Capabilities capabilities(const GpuEngine&) {
    Capabilities caps;
    caps.joint = false;
    return caps;  // bins and channels: as many as fit, see refusal()
}

std::string refusal(const GpuEngine& engine, const HistogramRequest& r) {
    const SelectedDevice& s = engine.state();
    // Without a device compute() reports the unavailability itself.
    if (!s.error.empty()) return layout_refusal(r);
    return lane_layout(r, s.device.shared_per_block_optin, s.device.name).refusal;
}

}  // namespace

Strategy lane_private_strategy() {
    return {
        .name = "lane-private",
        .summary =
            "GPU, plain channels and luma (8-bit: any bins; 16-bit: even bins of a power-of-two "
            "width; as many bins and channels as 8 copies fit into shared memory, on an H100 4096 "
            "bins of one channel, 2048 of two or three, 1024 of four): 32 lane-major copies of "
            "the histogram per block in shared memory (lane l always updates bank l: "
            "conflict-free atomics on any data; 16 or 8 copies where 32 do not fit), every "
            "requested channel of an interleaved image in one pass over coalesced 16-byte words "
            "(whole groups of pixels with luma), one launch (the kernel zeroes the counts)",
        .probe = lane_private_probe,
        .capabilities = capabilities,
        .refusal = refusal,
        .prepare = [](const GpuEngine& engine, const HistogramRequest& r, cudaStream_t stream) {
            return std::make_unique<LanePrivateRun>(r, engine.limits(), engine.state().device.name,
                                                    stream);
        }};
}

}  // namespace hs::cuda::detail
