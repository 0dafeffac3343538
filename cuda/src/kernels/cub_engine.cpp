// Strategy "cub" as a row of the strategy table: cub::DeviceHistogram behind the one GpuEngine
// (the CUB calls, the luma/joint transform and the 32-to-64-bit accumulation live in
// cub.cu/.cuh).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/device_table.hpp"
#include "kernels/cub.cuh"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

class CubRun final : public KernelRun {
  public:
    CubRun(const HistogramRequest& r, const DeviceLimits& limits, cudaStream_t stream)
        : plan_(plan_cub(r)),
          limits_(limits),
          temp_(plan_.temp_bytes, "CUB temporary storage"),
          scratch_(static_cast<std::size_t>(plan_.slots) * static_cast<std::size_t>(plan_.bins),
                   "CUB 32-bit scratch histograms"),
          plane_(plan_.first_chunk() * plan_.plane_bytes_per_px, "CUB luma/joint plane") {
        // Explicit edges: the spec's integer thresholds, exact levels for integer samples.
        if (!plan_.even) {
            const std::vector<std::int64_t> t = r.spec.thresholds();
            levels_ = DeviceTable(std::vector<long long>(t.begin(), t.end()), "CUB levels upload",
                                  stream);
        }
    }

    std::string tuning() const override { return plan_.describe(); }

  protected:
    void queue(const DeviceImage& image, const std::vector<Channel>&, unsigned long long* counts,
               cudaStream_t stream) override {
        launch_cub(plan_, {temp_.data(), scratch_.data(), plane_.data(), levels_.data()}, image,
                   counts, limits_, stream);
    }

  private:
    CubPlan plan_;
    DeviceLimits limits_;
    DeviceBuffer<char> temp_;
    DeviceBuffer<unsigned> scratch_;
    DeviceBuffer<char> plane_;
    DeviceTable<long long> levels_;
};

std::string refusal(const GpuEngine& engine, const HistogramRequest& r) {
    const SelectedDevice& s = engine.state();
    if (!s.error.empty()) return {};  // compute() reports the unavailability itself
    // Beyond 256 bins CUB privatizes one histogram per thread block in global memory and
    // indexes it with 32-bit ints: blocks x bins must stay below 2^31 (2^24 joint-colour
    // bins on a 1280x720 frame ended in an illegal address on the H100). At most 32 blocks
    // are resident per SM, and CUB launches no more than fit.
    const std::int64_t max_bins =
        (std::int64_t{1} << 31) / (std::int64_t{std::max(1, s.device.sm_count)} * 32);
    if (r.spec.bins > max_bins)
        return "engine 'cub' handles at most " + std::to_string(max_bins) + " bins on " +
               s.device.name + " (CUB indexes its per-block global histograms with 32-bit ints)";
    if (cudaSetDevice(s.device.index) != cudaSuccess) {
        static_cast<void>(cudaGetLastError());
        return {};  // compute() reports the failure itself
    }
    std::size_t workspace = 0;
    try {
        workspace = plan_cub(r).workspace_bytes();
    } catch (const UnsupportedError& e) {
        return e.what();
    } catch (const DeviceError&) {
        return {};  // compute() reports the failure itself
    }
    const std::size_t counters =
        static_cast<std::size_t>(r.spec.bins) * r.channels.size() * sizeof(std::uint64_t);
    return engine.memory_refusal(workspace + padded_bytes(r.image) + counters,
                                 std::to_string(r.spec.bins) +
                                     " bins (CUB keeps one privatized histogram per thread block "
                                     "in global memory beyond 256 bins)");
}

}  // namespace

Strategy cub_strategy() {
    return {
        .name = "cub",
        .summary =
            "GPU: cub::DeviceHistogram (MultiHistogramEven with 64-bit integer levels, "
            "HistogramRange over the integer thresholds for edges), 32-bit counts per chunk of at "
            "most 1 GiB added to 64-bit totals; luma and joint colour through a transform kernel "
            "that writes a plane CUB then histograms",
        .probe = cub_probe,
        .refusal = refusal,
        .prepare = prepare_run<CubRun>};
}

}  // namespace hs::cuda::detail
