// Strategy "npp" as a row of the strategy table: the buffers of one request and launch_npp()
// (the NPP calls live in npp.cu/.cuh). Built only with HS_HAVE_NPP.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/device_table.hpp"
#include "kernels/npp.cuh"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

class NppRun final : public KernelRun {
  public:
    NppRun(const HistogramRequest& r, const SelectedDevice& device, cudaStream_t stream)
        : context_(npp_context(device.device, stream)),
          plan_(plan_npp(r, context_)),
          limits_(device.limits()),
          buffer_(plan_.buffer_bytes, "NPP scratch buffer"),
          scratch_(static_cast<std::size_t>(plan_.slots) *
                       static_cast<std::size_t>(plan_.max_piece_bins()),
                   "NPP 32-bit histograms"),
          plane_(plan_.has_luma() ? static_cast<std::size_t>(plan_.plane_row_bytes()) *
                                        static_cast<std::size_t>(plan_.rows_per_chunk)
                                  : 0,
                 "NPP luma plane") {
        if (plan_.levels.pieces.empty()) return;  // every threshold clamps to one level
        map_ = DeviceTable(plan_.levels.map, "NPP bin map upload", stream);
        if (!plan_.levels.even)
            levels_ = DeviceTable(plan_.levels.levels, "NPP levels upload", stream);
    }

    std::string tuning() const override { return plan_.describe(); }

  protected:
    void queue(const DeviceImage& image, const std::vector<Channel>&, unsigned long long* counts,
               cudaStream_t stream) override {
        launch_npp(plan_,
                   {buffer_.data(), scratch_.data(), plane_.data(), map_.data(), levels_.data()},
                   image, counts, limits_, context_, stream);
    }

  private:
    NppStreamContext context_;
    NppPlan plan_;
    DeviceLimits limits_;
    DeviceBuffer<Npp8u> buffer_;
    DeviceBuffer<Npp32s> scratch_;
    DeviceBuffer<std::byte> plane_;
    DeviceTable<std::int32_t> map_;
    DeviceTable<Npp32s> levels_;
};

std::string refusal(const GpuEngine& engine, const HistogramRequest& r) {
    if (static_cast<std::uint64_t>(r.image.row_bytes()) > kNppChunkBytes)
        return "engine 'npp' takes rows of at most " + std::to_string(kNppChunkBytes) +
               " bytes (NPP's row step is an int)";
    // The luma plane of one chunk of rows, the scratch histograms, map and levels (NPP's own
    // scratch buffer is small next to them), the image and the counters.
    const auto row_px = static_cast<std::size_t>(r.image.width);
    const std::size_t rows = std::min<std::size_t>(
        static_cast<std::size_t>(r.image.height),
        std::max<std::size_t>(1, kNppChunkBytes / std::max<std::size_t>(1, r.image.row_bytes())));
    const auto bins = static_cast<std::size_t>(r.spec.bins);
    return engine.memory_refusal(rows * row_px * 2 + 6 * 4 * kNppMaxLevelsPerCall + bins * 8 +
                                     padded_bytes(r.image) + bins * r.channels.size() * 8 +
                                     (std::size_t{16} << 20),
                                 "this request");
}

Capabilities capabilities(const GpuEngine&) {
    Capabilities caps;
    caps.joint = false;
    return caps;
}

}  // namespace

Strategy npp_strategy() {
    return {
        .name = "npp",
        .summary =
            "GPU: NPP nppiHistogramEven/nppiHistogramRange (_Ctx, C1R/C3R/C4R) over the integer "
            "bin thresholds, at most 1024 bins per call and 2^31-1 bytes of rows per chunk, "
            "32-bit counts added to 64-bit totals; luma through a transform kernel that writes a "
            "plane NPP then histograms; no joint colour",
        .probe = npp_probe,
        .capabilities = capabilities,
        .refusal = refusal,
        .prepare = [](const GpuEngine& engine, const HistogramRequest& r, cudaStream_t stream) {
            return std::make_unique<NppRun>(r, engine.state(), stream);
        }};
}

}  // namespace hs::cuda::detail
