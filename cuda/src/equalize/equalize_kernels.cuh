#pragma once
// The kernels of the "gpu" equalization engine (equalize_engine.cpp) and their launches. Every
// formula is the one written down in histoscope/core/equalize.hpp; the float operations use
// the round-to-nearest intrinsics (__fmul_rn, __fadd_rn, __fdiv_rn, __ll2float_rn), which the
// compiler never fuses, so CLAHE and the global LUT are bit-exact with the CPU reference.
//
// Data on the device:
//  - images packed (rows back to back), the allocation padded with zeros to whole groups of
//    16 bytes per channel (kGroupBytesPerChannel, as the histogram engines keep them), so the
//    histogram and apply kernels read and write whole groups with aligned 16-byte vectors;
//  - value histograms: `planes` x L 64-bit counters, plane-major;
//  - CLAHE tile histograms: `planes` x tiles x L 32-bit counters (plane, tile row, tile column);
//  - LUTs: 16-bit, L entries per plane (global, match) or per plane and tile (CLAHE).
// A plane is one sample of the pixel (channel[k]) or, with `luma`, the Y of its YCrCb.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu_engine.hpp"

namespace hs::cuda::detail::eq {

// Images are DeviceImages (gpu_engine.hpp): L = 2^bit_depth levels. Files by stage:
// histogram.cu, lut.cu, apply.cu (which holds the probe), their device helpers in
// equalize_device.cuh.

// Which value of a pixel each plane holds.
struct PlaneSelect {
    bool luma = false;           // plane 0 is Y of (sample 0, 1, 2) (channels >= 3)
    int channel[3] = {0, 1, 2};  // otherwise plane k is sample channel[k]
};

// The CLAHE grid (core's ClaheGrid) on the device side.
struct TileGrid {
    int tiles_x = 1, tiles_y = 1;
    int tile_width = 1, tile_height = 1;
};

// Per output column (or row): the two neighbouring tiles and the weights of 4d. Device memory.
struct AxisTables {
    const int* tile1 = nullptr;
    const int* tile2 = nullptr;
    const float* weight2 = nullptr;  // ax (or ay)
    const float* weight1 = nullptr;  // bx = 1 - ax (or by)
};

// Empty when the kernels load on the current device, else why not.
std::string probe();

// Samples of 16-bit images are checked against the declared depth where `bad` is given: the
// smallest index of a pixel with a sample (any channel) above 2^depth - 1 is kept there
// (atomicMin; the caller sets it to ~0 first). Such samples are not counted, and LUT lookups
// clamp them, so no kernel reads outside its tables.

// Adds the value histograms of `planes` planes of `frame` to `counts` (zeroed by the caller).
void launch_value_histogram(const DeviceImage& frame, const PlaneSelect& select, int planes,
                            unsigned long long* counts, unsigned long long* bad,
                            const DeviceLimits& limits, cudaStream_t stream);

// Adds the tile histograms of the CLAHE grid (over the image padded with reflect101 on the
// right and at the bottom, 4a) to `counts` (planes x tiles x L, zeroed by the caller).
void launch_tile_histogram(const DeviceImage& frame, const PlaneSelect& select, int planes,
                           const TileGrid& grid, unsigned int* counts, const DeviceLimits& limits,
                           cudaStream_t stream);

// Global equalization LUT of each plane (1), blended with `weight` (2).
void launch_global_lut(const unsigned long long* counts, int planes, int levels,
                       std::int64_t weight, std::uint16_t* luts, cudaStream_t stream);

// Histogram matching LUT of each plane (5), blended with `weight`. `scratch` holds planes x L
// 64-bit cumulative reference counts.
void launch_match_lut(const unsigned long long* source, const unsigned long long* reference,
                      int planes, int levels, std::int64_t weight, unsigned long long* scratch,
                      std::uint16_t* luts, cudaStream_t stream);

// CLAHE tile LUTs (4c) of planes x tiles histograms.
void launch_clahe_lut(const unsigned int* counts, int planes, int tiles, int levels,
                      std::int64_t clip_limit, float lut_scale, std::uint16_t* luts,
                      cudaStream_t stream);

// out = the image with each processed plane through its LUT (in luma space: Y through the
// LUT, back from YCrCb); other samples (alpha) copied. `out` is padded like the input.
void launch_apply_lut(const DeviceImage& frame, bool luma, int planes, const std::uint16_t* luts,
                      void* out, unsigned long long* bad, cudaStream_t stream);

// out = CLAHE interpolation (4d) of each processed plane, blended with `weight` (2).
void launch_apply_clahe(const DeviceImage& frame, bool luma, int planes, const TileGrid& grid,
                        const AxisTables& x_axis, const AxisTables& y_axis,
                        const std::uint16_t* luts, std::int64_t weight, void* out,
                        unsigned long long* bad, cudaStream_t stream);

}  // namespace hs::cuda::detail::eq
