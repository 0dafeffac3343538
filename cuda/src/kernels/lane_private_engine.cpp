// Strategy "lane-private" as an engine: maps the requested plain channels of an 8- or 16-bit
// image to counting slots and launches lane_private once for all of them (kernel and tuning in
// lane_private.cu/.cuh).

#include <algorithm>
#include <bit>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "kernels/lane_private.cuh"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

// The kernel reads whole 16-byte words of the buffer, which the upload pads to.
static_assert(kGroupBytesPerChannel == 16);

class LanePrivateRun final : public KernelRun {
  public:
    LanePrivateRun(const HistogramRequest& r, DeviceLimits limits, cudaStream_t stream) {
        const ImageView& image = r.image;
        args_.channels = image.channels;
        args_.bins = r.spec.bins;
        // Distinct sample offsets become slots; a channel asked for twice reads its slot's
        // counts again (copied after the kernel).
        for (std::size_t i = 0; i < r.channels.size(); ++i) {
            const int offset = std::max(0, channel_offset(r.channels[i], image.channels));
            if (args_.slot_of_offset[offset] < 0) {
                args_.slot_of_offset[offset] = static_cast<int>(slot_channel_.size());
                slot_channel_.push_back(static_cast<int>(i));
            }
            channel_slot_.push_back(args_.slot_of_offset[offset]);
        }
        args_.slots = static_cast<int>(slot_channel_.size());
        const int copies =
            lane_private_copies(args_.slots, args_.bins, limits.shared_per_block_optin);
        if (copies == 0)
            throw UnsupportedError("lane-private: the histograms do not fit into shared memory");
        args_.copies_log2 = std::countr_zero(static_cast<unsigned>(copies));
        args_.u16 = image.type == SampleType::U16;
        if (args_.u16) {
            const std::optional<ShiftBins> shift = shift_bins(r.spec, 65536);
            if (!shift) throw UnsupportedError("lane-private: 16-bit bins must be a shift");
            args_.mode = LaneBins::Shift;
            args_.lo = shift->lo;
            args_.span = shift->hi - shift->lo;
            args_.base = shift->base;
            args_.shift = shift->shift;
        } else {
            // The core's own bin_of() for every 8-bit value: exact by construction.
            table_host_ = bin_table(r.spec, 255);
            bool identity = r.spec.bins == 256 && copies == kLanePrivateMaxCopies;
            for (std::size_t v = 0; v < 256 && identity; ++v)
                identity = table_host_[v] == static_cast<std::int32_t>(v);
            args_.mode = identity ? LaneBins::Identity : LaneBins::Table;
        }
        if (args_.mode == LaneBins::Table) {
            table_ = DeviceBuffer<std::int32_t>(table_host_.size(), "bin table");
            check(cudaMemcpyAsync(table_.data(), table_host_.data(), table_.bytes(),
                                  cudaMemcpyHostToDevice, stream),
                  "bin table upload (cudaMemcpyAsync)");
            args_.table = table_.data();
        }
        args_.bytes = image.row_bytes() * static_cast<std::uint64_t>(image.height);
        tuning_ = plan_lane_private(args_, limits);
        // The kernel zeroes the counts itself (ticket counter and epoch, see lane_private.cuh).
        check(cudaMemsetAsync(sync_.data(), 0, sync_.bytes(), stream),
              "lane-private launch tickets (cudaMemsetAsync)");
        args_.sync = sync_.data();
    }

    bool zeroes_counts() const override { return true; }

    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream) override {
        LanePrivateArgs a = args_;
        epoch_ = epoch_ == 0xFFFFFFFFu ? 1u : epoch_ + 1u;  // never 0, the initial value
        a.epoch = epoch_;
        a.samples = image.data;
        a.bytes = image.bytes;
        const auto bins = static_cast<std::size_t>(a.bins);
        for (int s = 0; s < a.slots; ++s)
            a.counts[s] =
                counts +
                static_cast<std::size_t>(slot_channel_[static_cast<std::size_t>(s)]) * bins;
        launch_lane_private(a, tuning_, stream);
        for (std::size_t i = 0; i < channels.size(); ++i) {
            const auto first =
                static_cast<std::size_t>(slot_channel_[static_cast<std::size_t>(channel_slot_[i])]);
            if (first != i)
                check(cudaMemcpyAsync(counts + i * bins, counts + first * bins,
                                      bins * sizeof(unsigned long long), cudaMemcpyDeviceToDevice,
                                      stream),
                      "lane-private: repeated channel (cudaMemcpyAsync)");
        }
    }

  private:
    LanePrivateArgs args_;
    LanePrivateTuning tuning_;
    std::vector<int> slot_channel_;  // per slot: the first requested channel counted there
    std::vector<int> channel_slot_;  // per requested channel: its slot
    std::vector<std::int32_t> table_host_;
    DeviceBuffer<std::int32_t> table_;
    DeviceBuffer<unsigned int> sync_{2, "lane-private launch tickets"};
    unsigned int epoch_ = 0;  // of the latest launch
};

class LanePrivateEngine final : public GpuEngine {
  public:
    std::string_view name() const override { return "lane-private"; }
    std::string_view description() const override {
        return "GPU, plain channels (8-bit: any bins; 16-bit: even bins of a power-of-two width, "
               "up to 4096): 32 lane-major copies of the histogram per block in shared memory "
               "(lane l always updates bank l: conflict-free atomics on any data; 16 or 8 copies "
               "where 32 do not fit), every requested channel of an interleaved image in one pass "
               "over coalesced 16-byte words, one launch (the kernel zeroes the counts)";
    }
    Capabilities capabilities() const override {
        Capabilities caps;
        caps.luma = false;
        caps.joint = false;
        return caps;  // bins: as many as fit, see extra_unsupported_reason()
    }

  protected:
    std::string extra_unsupported_reason(const HistogramRequest& r) const override {
        if (r.image.channels != 1 && r.image.channels != 3 && r.image.channels != 4)
            return "engine 'lane-private' reads images of 1, 3 or 4 channels";
        if (r.image.type == SampleType::U16 && !shift_bins(r.spec, 65536))
            return "engine 'lane-private' counts 16-bit samples in even bins whose width is a "
                   "power of two (such as 1024 bins over [0, 65536)), not in " +
                   r.spec.describe();
        const State& s = state();
        if (!s.error.empty()) return {};  // compute() reports the unavailability itself
        int slots = 0;
        bool seen[4] = {};
        for (const Channel c : r.channels) {
            const int offset = std::max(0, channel_offset(c, r.image.channels));
            if (!seen[offset]) ++slots;
            seen[offset] = true;
        }
        if (lane_private_copies(slots, r.spec.bins, s.device.shared_per_block_optin) > 0) return {};
        return "engine 'lane-private' needs " +
               std::to_string(lane_private_smem_bytes(slots, r.spec.bins, kLanePrivateMinCopies)) +
               " bytes of shared memory per block for " + std::to_string(kLanePrivateMinCopies) +
               " copies of " + std::to_string(slots) + " channels of " +
               std::to_string(r.spec.bins) + " bins, but " + s.device.name + " allows at most " +
               std::to_string(s.device.shared_per_block_optin);
    }
    std::string probe() const override { return lane_private_probe(); }
    std::unique_ptr<KernelRun> prepare(const HistogramRequest& r,
                                       cudaStream_t stream) const override {
        return std::make_unique<LanePrivateRun>(r, limits(), stream);
    }
};

}  // namespace

std::unique_ptr<HistogramEngine> make_lane_private_engine() {
    return std::make_unique<LanePrivateEngine>();
}

}  // namespace hs::cuda::detail
