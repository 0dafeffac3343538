// The "gpu" equalization engine: global equalization, CLAHE and histogram matching on the
// device, bit-exact with equalize_reference() (see equalize.hpp for every formula).
//
// The frame stays on the device (the work itself is DeviceEqualizer's): upload (packed,
// zero-padded to whole 16-byte groups per channel), histogram (shared-memory value histograms,
// or per-tile histograms over the reflect101-padded image for CLAHE), LUT (block-wide CUB scans:
// one block per plane or per tile), apply (16-byte vector loads and stores; YCrCb in and out in
// luma space), download. Each stage is timed with CUDA events. Samples above a 16-bit image's
// declared depth are reported as the CPU reference reports them (InputError naming the first such
// row).

#include "equalize/equalize_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "equalize/device_equalizer.hpp"
#include "gpu_engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/error.hpp"

namespace hs::cuda::detail {

namespace {

class GpuEqualizeEngine final : public EqualizeEngine {
  public:
    std::string_view name() const override { return "gpu"; }
    std::string_view description() const override {
        return "GPU, bit-exact with cpu: shared-memory value and CLAHE tile histograms, "
               "CUB block-scan LUTs, vectorized apply (global, CLAHE, matching; 8/16-bit, luma "
               "via YCrCb or per channel)";
    }

    Availability availability() const override {
        const SelectedDevice& s = state();
        if (!s.error.empty()) return {false, s.error};
        return {};
    }

    std::string unsupported_reason(const EqualizeRequest& r) const override {
        return gpu_equalize_refusal(r);
    }

  protected:
    EqualizeResult run(const EqualizeRequest& r) override;

  private:
    const SelectedDevice& state() const {
        return selection_.get([] { return eq::probe(); });
    }

    DeviceSelection selection_;
};

EqualizeResult GpuEqualizeEngine::run(const EqualizeRequest& r) {
    EqualizeResult result;
    if (r.strength == 0.0) {
        // As the reference: a copy of the input (no YCrCb round trip), nothing to compute.
        const auto start = std::chrono::steady_clock::now();
        result.image = copy_image(r.image);
        result.stages.push_back({"copy", std::chrono::duration<double, std::milli>(
                                             std::chrono::steady_clock::now() - start)
                                             .count()});
        return result;
    }
    const SelectedDevice& s = state();
    if (!s.error.empty()) throw UnsupportedError(s.error);
    check(cudaSetDevice(s.device.index), "cudaSetDevice");
    const ImageView& img = r.image;

    // Every allocation, table and the match reference before the first event, so the stages
    // time the frame's own work.
    Stream stream;
    Event t_upload, t_histogram, t_lut, t_apply, t_download, t_end;
    DeviceBuffer<std::byte> in(padded_bytes(img), "image upload buffer");
    DeviceBuffer<std::byte> out(padded_bytes(img), "equalized image buffer");
    DeviceBuffer<unsigned long long> bad(1, "depth check flag");
    DeviceEqualizer equalizer(r, s.limits(), stream.get());
    result.image = Image(img.width, img.height, img.channels, img.type, img.bit_depth);

    t_upload.record(stream);
    upload_image(img, in.data(), stream.get());
    check(cudaMemsetAsync(bad.data(), 0xFF, bad.bytes(), stream.get()),
          "depth check flag (cudaMemsetAsync)");
    t_histogram.record(stream);
    equalizer.enqueue(device_image(img, in.data()), out.data(), bad.data(), stream.get(),
                      {t_lut.get(), t_apply.get()});
    t_download.record(stream);
    check(cudaMemcpy2DAsync(result.image.data(), result.image.stride(), out.data(), img.row_bytes(),
                            img.row_bytes(), static_cast<std::size_t>(img.height),
                            cudaMemcpyDeviceToHost, stream.get()),
          "image download (cudaMemcpy2DAsync)");
    unsigned long long bad_host = kNoBadPixel;
    check(cudaMemcpyAsync(&bad_host, bad.data(), bad.bytes(), cudaMemcpyDeviceToHost, stream.get()),
          "depth check download (cudaMemcpyAsync)");
    t_end.record(stream);
    stream.synchronize("equalization (kernel execution)");

    if (bad_host != kNoBadPixel) throw_depth_error(img, bad_host);
    equalizer.check_reference();

    result.stages = {{"upload", static_cast<double>(t_histogram.ms_since(t_upload))},
                     {"histogram", static_cast<double>(t_lut.ms_since(t_histogram))},
                     {"lut", static_cast<double>(t_apply.ms_since(t_lut))},
                     {"apply", static_cast<double>(t_download.ms_since(t_apply))},
                     {"download", static_cast<double>(t_end.ms_since(t_download))}};
    return result;
}

}  // namespace

std::string gpu_equalize_refusal(const EqualizeRequest& r) {
    if (r.mode != EqualizeMode::Clahe) return {};
    // Tile histograms use 32-bit counters (and 4c's sums stay far below 2^53).
    const ClaheGrid g =
        clahe_grid(r.image.width, r.image.height, r.image.bit_depth, r.clip, r.tiles_x, r.tiles_y);
    const std::int64_t area = std::int64_t{g.tile_width} * g.tile_height;
    if (area > (std::int64_t{1} << 31))
        return "gpu: a CLAHE tile of " + std::to_string(g.tile_width) + "x" +
               std::to_string(g.tile_height) +
               " pixels is larger than its 32-bit counters allow (2^31 pixels)";
    return {};
}

std::unique_ptr<EqualizeEngine> make_gpu_equalize_engine() {
    return std::make_unique<GpuEqualizeEngine>();
}

}  // namespace hs::cuda::detail
