#pragma once
// The scope kernels (scope_kernels.cu): waveforms and parades in column tiles whose histograms
// live in shared memory, each written once to global memory (no global atomics; 8-bit rows read
// four pixels at a time in 32-bit words), and
// vectorscopes in 16-bit shared counters per chunk of at most 65535 pixels (no counter can
// overflow; 8-bit pixels read as whole 16-byte vectors), runs of pixels with the same bin adding
// once, flushed by global atomics of the bins hit; vectorscopes too large for shared memory count
// in global memory. Counts are 32-bit: the engine refuses images of 2^32 pixels or more.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu_engine.hpp"
#include "histoscope/core/scopes.hpp"

namespace hs::cuda::detail {

// What a launch chose, in words for the engine's description.
struct ScopePlan {
    int tile_columns = 0;  // waveform: output columns per block
    int blocks = 0;
    int threads = 0;
    std::size_t smem = 0;
    bool shared_counts = false;      // vectorscope: 16-bit counters in shared memory
    std::uint32_t chunk_pixels = 0;  // vectorscope: pixels a block counts (shared counters)
    std::string describe(const ScopeSpec& spec) const;
};

// The plan for `spec` on `image` with the device's `limits`; throws UnsupportedError when even
// one column's histograms do not fit into shared memory.
ScopePlan plan_scope(const DeviceImage& image, const ScopeSpec& spec, const DeviceLimits& limits);

// Zeroes what needs it and queues the scope's kernels on `stream`: the planes one after the
// other into `counts` (counts[x * height + y] per plane, as ScopePlane).
void launch_scope(const DeviceImage& image, const ScopeSpec& spec, const ScopePlan& plan,
                  std::uint32_t* counts, std::size_t n_counts, cudaStream_t stream);

// Empty when the scope kernels load on the current device.
std::string scope_probe();

}  // namespace hs::cuda::detail
