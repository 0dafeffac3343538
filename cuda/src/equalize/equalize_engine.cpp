// The "gpu" equalization engine: global equalization, CLAHE and histogram matching on the
// device, bit-exact with equalize_reference() (see equalize.hpp for every formula).
//
// The frame stays on the device: upload (packed, zero-padded to whole 16-byte groups per
// channel), histogram (shared-memory value histograms, or per-tile histograms over the
// reflect101-padded image for CLAHE), LUT (block-wide CUB scans: one block per plane or per
// tile), apply (16-byte vector loads and stores; YCrCb in and out in luma space), download.
// Each stage is timed with CUDA events. Samples above a 16-bit image's declared depth are
// reported as the CPU reference reports them (InputError naming the first such row).

#include "equalize/equalize_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "equalize/equalize_kernels.cuh"
#include "gpu_engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/device_table.hpp"

namespace hs::cuda::detail {

namespace {

// An axis of 4d on the device: core's clahe_axis() (tiles and weights per column or row), two
// int tables and two float tables of n entries each.
struct DeviceAxis {
    DeviceTable<int> tiles;      // tile1 then tile2
    DeviceTable<float> weights;  // weight2 then weight1
    DeviceAxis() = default;
    DeviceAxis(const ClaheAxis& a, const char* what, cudaStream_t stream)
        : tiles(join(a.tile1, a.tile2), what, stream),
          weights(join(a.weight2, a.weight1), what, stream) {}
    eq::AxisTables tables() const {
        const std::size_t n = tiles.size() / 2;
        return {tiles.data(), tiles.data() + n, weights.data(), weights.data() + n};
    }

  private:
    template <typename T>
    static std::vector<T> join(const std::vector<T>& a, const std::vector<T>& b) {
        std::vector<T> v = a;
        v.insert(v.end(), b.begin(), b.end());
        return v;
    }
};

// The InputError core's split_planes() throws for a sample above the declared depth: the first
// such row, with the largest sample of that row.
[[noreturn]] void throw_depth_error(const ImageView& image, std::uint64_t pixel) {
    const auto y = static_cast<int>(pixel / static_cast<std::uint64_t>(image.width));
    std::uint32_t top = 0;
    for (int x = 0; x < image.width; ++x)
        for (int c = 0; c < image.channels; ++c) top = std::max(top, image.sample(x, y, c));
    throw InputError("sample value " + std::to_string(top) + " in row " + std::to_string(y) +
                     " exceeds the image's declared " + std::to_string(image.bit_depth) +
                     "-bit depth");
}

constexpr unsigned long long kNoBadPixel = ~0ull;

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
        if (r.mode != EqualizeMode::Clahe) return {};
        // Tile histograms use 32-bit counters (and 4c's sums stay far below 2^53).
        const ClaheGrid g = clahe_grid(r.image.width, r.image.height, r.image.bit_depth, r.clip,
                                       r.tiles_x, r.tiles_y);
        const std::int64_t area = std::int64_t{g.tile_width} * g.tile_height;
        if (area > (std::int64_t{1} << 31))
            return "gpu: a CLAHE tile of " + std::to_string(g.tile_width) + "x" +
                   std::to_string(g.tile_height) +
                   " pixels is larger than its 32-bit counters allow (2^31 pixels)";
        return {};
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
    const DeviceLimits limits = s.limits();

    const ImageView& img = r.image;
    const int planes = r.processed_planes();
    const bool luma = img.channels >= 3 && r.space == EqualizeSpace::Luma;
    const auto levels = std::size_t{1} << img.bit_depth;
    const bool check_depth = img.type == SampleType::U16 && img.bit_depth < 16;
    const std::int64_t weight = strength_weight(r.strength);
    const auto n_luts = static_cast<std::size_t>(planes) * levels;

    eq::PlaneSelect select;
    select.luma = luma;

    // Every allocation and host table before the first event, so the stages time device work.
    Stream stream;
    Event t_upload, t_histogram, t_lut, t_apply, t_download, t_end;
    DeviceBuffer<std::byte> in(padded_bytes(img), "image upload buffer");
    DeviceBuffer<std::byte> out(padded_bytes(img), "equalized image buffer");
    DeviceBuffer<unsigned long long> bad(2, "depth check flags");  // image, reference
    const DeviceImage frame = device_image(img, in.data());
    result.image = Image(img.width, img.height, img.channels, img.type, img.bit_depth);

    // global / match
    DeviceBuffer<unsigned long long> counts, ref_counts, scratch;
    DeviceBuffer<std::uint16_t> luts;
    DeviceBuffer<std::byte> ref_image;
    std::vector<unsigned long long> ref_host;
    eq::PlaneSelect ref_select;
    // clahe
    ClaheGrid grid;
    eq::TileGrid tile_grid;
    DeviceBuffer<unsigned int> tile_counts;
    DeviceAxis x_axis, y_axis;
    std::size_t tiles = 0;

    if (r.mode == EqualizeMode::Clahe) {
        grid = clahe_grid(img.width, img.height, img.bit_depth, r.clip, r.tiles_x, r.tiles_y);
        tile_grid = {grid.tiles_x, grid.tiles_y, grid.tile_width, grid.tile_height};
        tiles = static_cast<std::size_t>(grid.tiles_x) * static_cast<std::size_t>(grid.tiles_y);
        tile_counts = DeviceBuffer<unsigned int>(static_cast<std::size_t>(planes) * tiles * levels,
                                                 "CLAHE tile histograms");
        luts = DeviceBuffer<std::uint16_t>(static_cast<std::size_t>(planes) * tiles * levels,
                                           "CLAHE tile LUTs");
        x_axis = DeviceAxis(clahe_axis(img.width, grid.tile_width, grid.tiles_x),
                            "CLAHE column tiles and weights upload", stream.get());
        y_axis = DeviceAxis(clahe_axis(img.height, grid.tile_height, grid.tiles_y),
                            "CLAHE row tiles and weights upload", stream.get());
    } else {
        counts = DeviceBuffer<unsigned long long>(n_luts, "value histograms");
        luts = DeviceBuffer<std::uint16_t>(n_luts, "LUTs");
    }
    if (r.mode == EqualizeMode::Match) {
        ref_counts = DeviceBuffer<unsigned long long>(n_luts, "reference histograms");
        scratch = DeviceBuffer<unsigned long long>(n_luts, "cumulative reference counts");
        if (r.reference) {
            ref_image =
                DeviceBuffer<std::byte>(padded_bytes(*r.reference), "reference upload buffer");
            // 6: a gray reference serves every plane; a colour one gives Y (one plane) or R, G, B.
            if (r.reference->channels == 1) {
                ref_select.channel[0] = ref_select.channel[1] = ref_select.channel[2] = 0;
            } else {
                ref_select.luma = planes == 1;
            }
        } else {
            for (int k = 0; k < planes; ++k) {
                const ValueHistogram& h = r.reference_histograms[std::min(
                    static_cast<std::size_t>(k), r.reference_histograms.size() - 1)];
                ref_host.insert(ref_host.end(), h.begin(), h.end());
            }
        }
    }

    // --- upload
    t_upload.record(stream);
    upload_image(img, in.data(), stream.get());
    check(cudaMemsetAsync(bad.data(), 0xFF, bad.bytes(), stream.get()),
          "depth check flags (cudaMemsetAsync)");
    if (r.mode == EqualizeMode::Match) {
        if (r.reference)
            upload_image(*r.reference, ref_image.data(), stream.get());
        else
            check(cudaMemcpyAsync(ref_counts.data(), ref_host.data(), ref_counts.bytes(),
                                  cudaMemcpyHostToDevice, stream.get()),
                  "reference histograms upload (cudaMemcpyAsync)");
    }

    // --- histogram
    t_histogram.record(stream);
    if (r.mode == EqualizeMode::Clahe) {
        check(cudaMemsetAsync(tile_counts.data(), 0, tile_counts.bytes(), stream.get()),
              "tile histograms (cudaMemsetAsync)");
        eq::launch_tile_histogram(frame, select, planes, tile_grid, tile_counts.data(), limits,
                                  stream.get());
    } else {
        check(cudaMemsetAsync(counts.data(), 0, counts.bytes(), stream.get()),
              "value histograms (cudaMemsetAsync)");
        eq::launch_value_histogram(frame, select, planes, counts.data(), nullptr, limits,
                                   stream.get());
        if (r.mode == EqualizeMode::Match && r.reference) {
            check(cudaMemsetAsync(ref_counts.data(), 0, ref_counts.bytes(), stream.get()),
                  "reference histograms (cudaMemsetAsync)");
            const ImageView& ref = *r.reference;
            const bool ref_check = ref.type == SampleType::U16 && ref.bit_depth < 16;
            eq::launch_value_histogram(device_image(ref, ref_image.data()), ref_select, planes,
                                       ref_counts.data(), ref_check ? bad.data() + 1 : nullptr,
                                       limits, stream.get());
        }
    }

    // --- LUT
    t_lut.record(stream);
    const int L = static_cast<int>(levels);
    switch (r.mode) {
        case EqualizeMode::Global:
            eq::launch_global_lut(counts.data(), planes, L, weight, luts.data(), stream.get());
            break;
        case EqualizeMode::Match:
            eq::launch_match_lut(counts.data(), ref_counts.data(), planes, L, weight,
                                 scratch.data(), luts.data(), stream.get());
            break;
        case EqualizeMode::Clahe:
            eq::launch_clahe_lut(tile_counts.data(), planes, static_cast<int>(tiles), L,
                                 grid.clip_limit, grid.lut_scale, luts.data(), stream.get());
            break;
    }

    // --- apply (also checks the image's samples against its declared depth)
    t_apply.record(stream);
    unsigned long long* image_bad = check_depth ? bad.data() : nullptr;
    if (r.mode == EqualizeMode::Clahe)
        eq::launch_apply_clahe(frame, luma, planes, tile_grid, x_axis.tables(), y_axis.tables(),
                               luts.data(), weight, out.data(), image_bad, stream.get());
    else
        eq::launch_apply_lut(frame, luma, planes, luts.data(), out.data(), image_bad, stream.get());

    // --- download
    t_download.record(stream);
    check(cudaMemcpy2DAsync(result.image.data(), result.image.stride(), out.data(), img.row_bytes(),
                            img.row_bytes(), static_cast<std::size_t>(img.height),
                            cudaMemcpyDeviceToHost, stream.get()),
          "image download (cudaMemcpy2DAsync)");
    unsigned long long bad_host[2] = {kNoBadPixel, kNoBadPixel};
    check(cudaMemcpyAsync(bad_host, bad.data(), bad.bytes(), cudaMemcpyDeviceToHost, stream.get()),
          "depth check download (cudaMemcpyAsync)");
    t_end.record(stream);
    stream.synchronize("equalization (kernel execution)");

    if (bad_host[0] != kNoBadPixel) throw_depth_error(img, bad_host[0]);
    if (bad_host[1] != kNoBadPixel) throw_depth_error(*r.reference, bad_host[1]);

    result.stages = {{"upload", static_cast<double>(t_histogram.ms_since(t_upload))},
                     {"histogram", static_cast<double>(t_lut.ms_since(t_histogram))},
                     {"lut", static_cast<double>(t_apply.ms_since(t_lut))},
                     {"apply", static_cast<double>(t_download.ms_since(t_apply))},
                     {"download", static_cast<double>(t_end.ms_since(t_download))}};
    return result;
}

}  // namespace

std::unique_ptr<EqualizeEngine> make_gpu_equalize_engine() {
    return std::make_unique<GpuEqualizeEngine>();
}

}  // namespace hs::cuda::detail
