#pragma once
// Equalization of device-resident frames of one shape, bit-exact with equalize_reference(): the
// buffers, tables and match reference of one request prepared once, then every frame queued
// on a stream (histogram, LUT, apply). The "gpu" equalizer runs it on one image, the frame
// pipeline on every frame of a stream.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "device_buffer.hpp"
#include "equalize/equalize_kernels.cuh"
#include "gpu_engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "kernels/common/device_table.hpp"

namespace hs::cuda::detail {

// The InputError core's split_planes() throws for a sample above the declared depth: the first
// such row (of the pixel index `pixel`), with the largest sample of that row.
[[noreturn]] void throw_depth_error(const ImageView& image, std::uint64_t pixel);

inline constexpr unsigned long long kNoBadPixel = ~0ull;

// Events DeviceEqualizer::enqueue() records between its stages, when given.
struct EqualizeMarks {
    cudaEvent_t histogram_done = nullptr;
    cudaEvent_t lut_done = nullptr;
};

class DeviceEqualizer {
  public:
    // For frames shaped as `request.image` (which need not hold pixels) with its settings. A
    // match reference image is uploaded, histogrammed and checked against its declared depth
    // here (check_reference() reports it), a reference histogram uploaded; the stream is
    // synchronized.
    DeviceEqualizer(const EqualizeRequest& request, const DeviceLimits& limits,
                    cudaStream_t stream);
    DeviceEqualizer(const DeviceEqualizer&) = delete;
    DeviceEqualizer& operator=(const DeviceEqualizer&) = delete;

    // Throws the InputError of a match reference image with a sample above its declared depth
    // (after the frame's own, as the CPU reference checks the image first).
    void check_reference() const;

    // The strength's weight (0: the frame is its own result; enqueue() does nothing then).
    std::int64_t weight() const { return weight_; }

    // Queues the equalization of `frame` into `out` (frame.padded_bytes bytes). `bad`, when
    // given, receives the index of the first pixel with a sample above a 16-bit frame's
    // declared depth (the caller sets it to kNoBadPixel first).
    void enqueue(const DeviceImage& frame, void* out, unsigned long long* bad, cudaStream_t stream,
                 const EqualizeMarks& marks = {});

  private:
    // An axis of 4d: core's clahe_axis() (tiles and weights per column or row), two int tables
    // and two float tables of n entries each.
    struct Axis {
        DeviceTable<int> tiles;      // tile1 then tile2
        DeviceTable<float> weights;  // weight2 then weight1
        eq::AxisTables tables() const;
    };
    static Axis axis(const ClaheAxis& a, const char* what, cudaStream_t stream);

    EqualizeMode mode_;
    DeviceLimits limits_;
    int planes_ = 1;
    int levels_ = 256;
    bool luma_ = false;
    std::int64_t weight_ = 0;
    eq::PlaneSelect select_;
    // global / match
    DeviceBuffer<unsigned long long> counts_, ref_counts_, scratch_;
    DeviceBuffer<std::uint16_t> luts_;
    std::optional<ImageView> reference_;
    unsigned long long reference_bad_ = kNoBadPixel;
    // clahe
    ClaheGrid grid_;
    eq::TileGrid tile_grid_;
    std::size_t tiles_ = 0;
    DeviceBuffer<unsigned int> tile_counts_;
    Axis x_axis_, y_axis_;
};

}  // namespace hs::cuda::detail
