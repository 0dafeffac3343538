// Strategy "cub" as an engine: cub::DeviceHistogram behind the GpuEngine base (the CUB calls,
// the luma/joint transform and the 32-to-64-bit accumulation live in cub.cu/.cuh).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "cuda_check.hpp"
#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/cub.cuh"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

class CubEngine final : public GpuEngine {
  public:
    std::string_view name() const override { return "cub"; }
    std::string_view description() const override {
        return "GPU: cub::DeviceHistogram (MultiHistogramEven with 64-bit integer levels, "
               "HistogramRange over the integer thresholds for edges), 32-bit counts per chunk "
               "of at most 1 GiB added to 64-bit totals; luma and joint colour through a "
               "transform kernel that writes a plane CUB then histograms";
    }
    Capabilities capabilities() const override { return {}; }

  protected:
    std::string extra_unsupported_reason(const HistogramRequest& r) const override {
        const State& s = state();
        if (!s.error.empty()) return {};  // compute() reports the unavailability itself
        if (cudaSetDevice(s.device.index) != cudaSuccess) {
            static_cast<void>(cudaGetLastError());
            return {};  // compute() reports the failure itself
        }
        // Beyond 256 bins CUB privatizes one histogram per thread block in global memory and
        // indexes it with 32-bit ints: blocks x bins must stay below 2^31 (2^24 joint-colour
        // bins on a 1280x720 frame ended in an illegal address on the H100). At most 32 blocks
        // are resident per SM, and CUB launches no more than fit.
        const std::int64_t max_bins =
            (std::int64_t{1} << 31) / (std::int64_t{std::max(1, s.device.sm_count)} * 32);
        if (r.spec.bins > max_bins)
            return "engine 'cub' handles at most " + std::to_string(max_bins) + " bins on " +
                   s.device.name +
                   " (CUB indexes its per-block global histograms with 32-bit ints)";
        std::size_t workspace = 0;
        try {
            workspace = cub_workspace_bytes(r);
        } catch (const UnsupportedError& e) {
            return e.what();
        } catch (const DeviceError&) {
            return {};  // compute() reports the failure itself
        }
        std::size_t free_bytes = 0, total_bytes = 0;
        if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
            static_cast<void>(cudaGetLastError());
            return {};
        }
        const std::size_t counters =
            static_cast<std::size_t>(r.spec.bins) * r.channels.size() * sizeof(std::uint64_t);
        const std::size_t need = workspace + padded_bytes(r.image) + counters;
        // Half of the free memory: the benchmark's rotated input copies may take the rest.
        if (need <= free_bytes / 2) return {};
        return "engine 'cub' needs about " + std::to_string(need >> 20) +
               " MiB of device memory for " + std::to_string(r.spec.bins) +
               " bins (CUB keeps one privatized histogram per thread block in global memory "
               "beyond 256 bins), more than half of the " +
               std::to_string(free_bytes >> 20) + " MiB free on " + s.device.name;
    }
    std::string probe() const override { return cub_probe(); }
    std::unique_ptr<KernelRun> prepare(const HistogramRequest& r,
                                       cudaStream_t stream) const override {
        return make_cub_run(r, limits(), stream);
    }
};

}  // namespace

std::unique_ptr<HistogramEngine> make_cub_engine() {
    return std::make_unique<CubEngine>();
}

}  // namespace hs::cuda::detail
