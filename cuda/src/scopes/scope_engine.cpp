#include "scope_engine.hpp"

#include <algorithm>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "scope_kernels.hpp"

namespace hs::cuda::detail {

namespace {

class GpuScopeEngine final : public ScopeEngine {
  public:
    GpuScopeEngine()
        : note_(
              "CUDA: waveforms and parades in tiles of columns whose histograms stay in shared "
              "memory and are written once (no global atomics; 8-bit rows read in 32-bit "
              "words); vectorscopes in 16-bit shared "
              "counters per chunk of at most 65520 pixels (8-bit pixels read as 16-byte "
              "vectors), runs of pixels with the same bin adding once") {}

    std::string_view name() const override { return "gpu"; }
    std::string_view description() const override { return note_.current(); }
    Availability availability() const override {
        const SelectedDevice& s = state();
        if (!s.error.empty()) return {false, s.error};
        return {};
    }
    bool concurrent() const override { return true; }

    std::string unsupported_reason(const ScopeRequest& r) const override {
        if (r.image.pixel_count() >= (std::uint64_t{1} << 32))
            return "engine 'gpu' keeps scope counts exact only below 2^32 pixels";
        const SelectedDevice& s = state();
        if (!s.error.empty()) return {};
        try {
            check(cudaSetDevice(s.device.index), "cudaSetDevice");
            static_cast<void>(plan_scope(device_image(r.image, nullptr), r.spec, s.limits()));
            std::size_t free_bytes = 0, total_bytes = 0;
            check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
            const std::size_t need = padded_bytes(r.image) + 4 * r.spec.counts(r.image.width);
            if (need > free_bytes / 2)
                return "engine 'gpu' needs about " + std::to_string(need >> 20) +
                       " MiB of device memory, more than half of the " +
                       std::to_string(free_bytes >> 20) + " MiB free";
        } catch (const UnsupportedError& e) {
            return e.what();
        } catch (const DeviceError& e) {
            return e.what();
        }
        return {};
    }

  protected:
    ScopeResult run(const ScopeRequest& r) override {
        use_device();
        const std::size_t n = r.spec.counts(r.image.width);
        Stream stream;
        Event t0, t1, t2, t3;
        DeviceBuffer<std::byte> samples(padded_bytes(r.image), "image upload buffer");
        DeviceBuffer<std::uint32_t> counts(n, "scope counters");
        const DeviceImage image = device_image(r.image, samples.data());
        const ScopePlan plan = plan_of(image, r.spec);
        t0.record(stream);
        upload_image(r.image, samples.data(), stream.get());
        t1.record(stream);
        launch_scope(image, r.spec, plan, counts.data(), n, stream.get());
        t2.record(stream);
        std::vector<std::uint32_t> host(n);
        check(cudaMemcpyAsync(host.data(), counts.data(), counts.bytes(), cudaMemcpyDeviceToHost,
                              stream.get()),
              "scope download (cudaMemcpyAsync)");
        t3.record(stream);
        stream.synchronize("scope (kernel execution)");
        ScopeResult result;
        result.planes = scope_planes(r.image, r.spec, host.data());
        result.stages = {{"upload", static_cast<double>(t1.ms_since(t0))},
                         {"scope", static_cast<double>(t2.ms_since(t1))},
                         {"download", static_cast<double>(t3.ms_since(t2))}};
        return result;
    }

    // As GpuEngine::run_benchmark: device-resident input rotated past the cache, CUDA events;
    // end to end from pinned memory to the counts in pinned memory.
    ScopeBenchTiming run_benchmark(const ScopeRequest& r, const BenchOptions& options) override {
        use_device();
        const std::size_t n = r.spec.counts(r.image.width);
        Stream stream;
        BenchInput input = bench_input(r.image, options, stream.get());
        DeviceBuffer<std::uint32_t> counts(n, "scope counters");
        const ScopePlan plan = plan_of(device_image(r.image, input.copy(0)), r.spec);
        DeviceBenchRuns<std::uint32_t> runs = device_benchmark(
            stream, input, options, counts,
            [&](std::size_t copy) {
                launch_scope(device_image(r.image, input.copy(copy)), r.spec, plan, counts.data(),
                             n, stream.get());
            },
            name());
        ScopeBenchTiming timing;
        timing.input_copies = static_cast<int>(input.copies);
        timing.scope_ms = std::move(runs.kernel_ms);
        timing.back_to_back_ms = std::move(runs.back_to_back_ms);
        timing.end_to_end_ms = std::move(runs.end_to_end_ms);
        timing.last = scope_planes(r.image, r.spec, runs.counts.data());
        return timing;
    }

  private:
    const SelectedDevice& state() const { return selection_.get(scope_probe); }
    void use_device() const {
        const SelectedDevice& s = state();
        if (!s.error.empty()) throw UnsupportedError(s.error);
        check(cudaSetDevice(s.device.index), "cudaSetDevice");
    }
    ScopePlan plan_of(const DeviceImage& image, const ScopeSpec& spec) const {
        const ScopePlan plan = plan_scope(image, spec, state().limits());
        note_.record(plan.describe(spec));
        return plan;
    }

    DeviceSelection selection_;
    mutable TuningNote note_;
};

}  // namespace

std::unique_ptr<ScopeEngine> make_gpu_scope_engine() {
    return std::make_unique<GpuScopeEngine>();
}

}  // namespace hs::cuda::detail
