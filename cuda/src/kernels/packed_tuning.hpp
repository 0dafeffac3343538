#pragma once
// Tuning overrides of the "packed" and "packed-sat" engines (see packed.cuh). The registered
// engines use the defaults (everything chosen from the device and the request); the tests
// build engines with forced choices, so that 16-bit wraps, tiny tiles and single-block grids
// are exercised on any device. No CUDA types: the tests include this header directly.

#include <memory>

#include "histoscope/core/engine.hpp"

namespace hs::cuda::detail {

struct PackedTuning {
    // Bits per packed counter, 8 or 16; 0 = chosen from the device's shared memory and the
    // bin count ("packed") or from the saturation cap ("packed-sat").
    int counter_bits = 0;
    // At most this many bins per tile (0 = as many as fit into the shared memory of a block).
    int max_tile_bins = 0;
    // Blocks per tile (0 = from the occupancy API and the image size).
    int blocks_per_tile = 0;
    // Threads per block, a multiple of 32 up to 1024 (0 = from the occupancy API).
    int threads = 0;
};

std::unique_ptr<HistogramEngine> make_packed_engine(const PackedTuning& tuning);
std::unique_ptr<HistogramEngine> make_packed_sat_engine(const PackedTuning& tuning);

}  // namespace hs::cuda::detail
