#include "equalize/device_equalizer.hpp"

#include <algorithm>
#include <string>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"

namespace hs::cuda::detail {

namespace {

template <typename T>
std::vector<T> join(const std::vector<T>& a, const std::vector<T>& b) {
    std::vector<T> v = a;
    v.insert(v.end(), b.begin(), b.end());
    return v;
}

}  // namespace

void throw_depth_error(const ImageView& image, std::uint64_t pixel) {
    const auto y = static_cast<int>(pixel / static_cast<std::uint64_t>(image.width));
    std::uint32_t top = 0;
    for (int x = 0; x < image.width; ++x)
        for (int c = 0; c < image.channels; ++c) top = std::max(top, image.sample(x, y, c));
    throw InputError("sample value " + std::to_string(top) + " in row " + std::to_string(y) +
                     " exceeds the image's declared " + std::to_string(image.bit_depth) +
                     "-bit depth");
}

eq::AxisTables DeviceEqualizer::Axis::tables() const {
    const std::size_t n = tiles.size() / 2;
    return {tiles.data(), tiles.data() + n, weights.data(), weights.data() + n};
}

DeviceEqualizer::Axis DeviceEqualizer::axis(const ClaheAxis& a, const char* what,
                                            cudaStream_t stream) {
    return {DeviceTable<int>(join(a.tile1, a.tile2), what, stream),
            DeviceTable<float>(join(a.weight2, a.weight1), what, stream)};
}

DeviceEqualizer::DeviceEqualizer(const EqualizeRequest& r, const DeviceLimits& limits,
                                 cudaStream_t stream)
    : mode_(r.mode), limits_(limits) {
    const ImageView& img = r.image;
    planes_ = r.processed_planes();
    luma_ = img.channels >= 3 && r.space == EqualizeSpace::Luma;
    levels_ = 1 << img.bit_depth;
    weight_ = strength_weight(r.strength);
    select_.luma = luma_;
    const auto levels = static_cast<std::size_t>(levels_);
    const auto n_luts = static_cast<std::size_t>(planes_) * levels;

    if (mode_ == EqualizeMode::Clahe) {
        grid_ = clahe_grid(img.width, img.height, img.bit_depth, r.clip, r.tiles_x, r.tiles_y);
        tile_grid_ = {grid_.tiles_x, grid_.tiles_y, grid_.tile_width, grid_.tile_height};
        tiles_ = static_cast<std::size_t>(grid_.tiles_x) * static_cast<std::size_t>(grid_.tiles_y);
        tile_counts_ = DeviceBuffer<unsigned int>(n_luts * tiles_, "CLAHE tile histograms");
        luts_ = DeviceBuffer<std::uint16_t>(n_luts * tiles_, "CLAHE tile LUTs");
        x_axis_ = axis(clahe_axis(img.width, grid_.tile_width, grid_.tiles_x),
                       "CLAHE column tiles and weights upload", stream);
        y_axis_ = axis(clahe_axis(img.height, grid_.tile_height, grid_.tiles_y),
                       "CLAHE row tiles and weights upload", stream);
    } else {
        counts_ = DeviceBuffer<unsigned long long>(n_luts, "value histograms");
        luts_ = DeviceBuffer<std::uint16_t>(n_luts, "LUTs");
    }
    if (mode_ == EqualizeMode::Match) {
        ref_counts_ = DeviceBuffer<unsigned long long>(n_luts, "reference histograms");
        scratch_ = DeviceBuffer<unsigned long long>(n_luts, "cumulative reference counts");
        if (r.reference) {
            const ImageView& ref = *r.reference;
            DeviceBuffer<std::byte> ref_image(padded_bytes(ref), "reference upload buffer");
            DeviceBuffer<unsigned long long> bad(1, "reference depth check flag");
            // 6: a gray reference serves every plane; a colour one gives Y (one plane) or R, G, B.
            eq::PlaneSelect ref_select;
            if (ref.channels == 1)
                ref_select.channel[0] = ref_select.channel[1] = ref_select.channel[2] = 0;
            else
                ref_select.luma = planes_ == 1;
            upload_image(ref, ref_image.data(), stream);
            check(cudaMemsetAsync(ref_counts_.data(), 0, ref_counts_.bytes(), stream),
                  "reference histograms (cudaMemsetAsync)");
            check(cudaMemsetAsync(bad.data(), 0xFF, bad.bytes(), stream),
                  "reference depth check flag (cudaMemsetAsync)");
            const bool ref_check = ref.type == SampleType::U16 && ref.bit_depth < 16;
            eq::launch_value_histogram(device_image(ref, ref_image.data()), ref_select, planes_,
                                       ref_counts_.data(), ref_check ? bad.data() : nullptr,
                                       limits_, stream);
            check(cudaMemcpyAsync(&reference_bad_, bad.data(), bad.bytes(), cudaMemcpyDeviceToHost,
                                  stream),
                  "reference depth check download (cudaMemcpyAsync)");
            check(cudaStreamSynchronize(stream), "reference histogram");
            reference_ = ref;
        } else {
            std::vector<unsigned long long> host;
            for (int k = 0; k < planes_; ++k) {
                const ValueHistogram& h = r.reference_histograms[std::min(
                    static_cast<std::size_t>(k), r.reference_histograms.size() - 1)];
                host.insert(host.end(), h.begin(), h.end());
            }
            check(cudaMemcpyAsync(ref_counts_.data(), host.data(), ref_counts_.bytes(),
                                  cudaMemcpyHostToDevice, stream),
                  "reference histograms upload (cudaMemcpyAsync)");
            check(cudaStreamSynchronize(stream), "reference histograms upload");
        }
    }
    check(cudaStreamSynchronize(stream), "equalization setup");
}

void DeviceEqualizer::check_reference() const {
    if (reference_ && reference_bad_ != kNoBadPixel) throw_depth_error(*reference_, reference_bad_);
}

void DeviceEqualizer::enqueue(const DeviceImage& frame, void* out, unsigned long long* bad,
                              cudaStream_t stream, const EqualizeMarks& marks) {
    if (weight_ == 0) return;
    // Histogram.
    if (mode_ == EqualizeMode::Clahe) {
        check(cudaMemsetAsync(tile_counts_.data(), 0, tile_counts_.bytes(), stream),
              "tile histograms (cudaMemsetAsync)");
        eq::launch_tile_histogram(frame, select_, planes_, tile_grid_, tile_counts_.data(), limits_,
                                  stream);
    } else {
        check(cudaMemsetAsync(counts_.data(), 0, counts_.bytes(), stream),
              "value histograms (cudaMemsetAsync)");
        eq::launch_value_histogram(frame, select_, planes_, counts_.data(), nullptr, limits_,
                                   stream);
    }
    if (marks.histogram_done != nullptr)
        check(cudaEventRecord(marks.histogram_done, stream), "event record");
    // LUT.
    switch (mode_) {
        case EqualizeMode::Global:
            eq::launch_global_lut(counts_.data(), planes_, levels_, weight_, luts_.data(), stream);
            break;
        case EqualizeMode::Match:
            eq::launch_match_lut(counts_.data(), ref_counts_.data(), planes_, levels_, weight_,
                                 scratch_.data(), luts_.data(), stream);
            break;
        case EqualizeMode::Clahe:
            eq::launch_clahe_lut(tile_counts_.data(), planes_, static_cast<int>(tiles_), levels_,
                                 grid_.clip_limit, grid_.lut_scale, luts_.data(), stream);
            break;
    }
    if (marks.lut_done != nullptr) check(cudaEventRecord(marks.lut_done, stream), "event record");
    // Apply (which also checks the frame's samples against its declared depth).
    const bool check_depth = frame.type == SampleType::U16 && frame.bit_depth < 16;
    unsigned long long* frame_bad = check_depth ? bad : nullptr;
    if (mode_ == EqualizeMode::Clahe)
        eq::launch_apply_clahe(frame, luma_, planes_, tile_grid_, x_axis_.tables(),
                               y_axis_.tables(), luts_.data(), weight_, out, frame_bad, stream);
    else
        eq::launch_apply_lut(frame, luma_, planes_, luts_.data(), out, frame_bad, stream);
}

}  // namespace hs::cuda::detail
