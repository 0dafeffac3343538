#pragma once
// Strategy "npp": NVIDIA Performance Primitives' histograms (nppiHistogramEven_*_Ctx and
// nppiHistogramRange_*_Ctx from the nppist library). Built only when CMake finds NPP
// (HS_HAVE_NPP).
//
// Plain channels of an interleaved image are counted by one C1R/C3R/C4R call over all its
// channels; the histograms of channels nobody asked for are dropped. Luma is not an NPP
// feature here: a small kernel writes a luma plane (in the sample type) that NPP histograms
// with C1R. Joint colour histograms are refused (2^24 bins are beyond NPP's level arrays).
//
// Exactness:
//  - NPP documents both primitives by their levels: a sample v falls into bin k when
//    levels[k] <= v < levels[k + 1]. HistogramRange gets the spec's integer thresholds
//    (HistogramSpec::thresholds()), clamped to [0, max sample + 1] (which changes no
//    comparison with a sample) and without repeats: NPP bin j then holds exactly the values of
//    our bin map[j] (the last bin whose clamped threshold is that level; bins between repeated
//    thresholds hold nothing), and a kernel adds NPP bin j to counter map[j].
//  - HistogramEven is used only for bins of one integer width whose documented levels
//    (nppiEvenLevelsHost_32s, computed on the host for the request) equal our thresholds one
//    for one, within the sample range: then its bins are our bins (see make_levels()).
//  - At most kNppMaxLevelsPerCall levels go into one call; more levels are split into pieces
//    (consecutive pieces share their boundary level, so every bin is counted by one piece).
//  - NPP's counters are Npp32s: the image is histogrammed in chunks of rows of at most 2^31 - 1
//    bytes (so no count can pass 2^31 - 1, and NPP's 32-bit offsets hold), each chunk into
//    32-bit scratch histograms that the map kernel adds to the 64-bit counts.
//
// Files: this header (the plan of a request and the launch), npp.cu (the NPP calls and the
// small kernels around them), npp_engine.cpp (the run's buffers and the engine).

#include <cuda_runtime_api.h>
#include <nppdefs.h>

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gpu_engine.hpp"

namespace hs::cuda::detail {

// Levels per NPP call (1024 bins): every 8-bit histogram fits into one call.
inline constexpr int kNppMaxLevelsPerCall = 1025;
// Bytes of one chunk of rows (NPP's offsets and counters are 32-bit).
inline constexpr std::uint64_t kNppChunkBytes = INT_MAX;

// How the spec's bins map onto NPP calls.
struct NppLevels {
    bool even = false;              // one HistogramEven call with bins + 1 levels
    Npp32s lower = 0, upper = 0;    // even
    std::vector<Npp32s> levels;     // range: strictly increasing levels within the sample range
    std::vector<std::int32_t> map;  // NPP bin j (of all levels) -> our bin
    // Pieces: [first level, last level] index pairs, consecutive pieces share a level.
    std::vector<std::pair<int, int>> pieces;
};

// How one request maps onto NPP calls; describe() prints it.
struct NppPlan {
    SampleType type = SampleType::U8;
    int channels = 1, width = 0, height = 0;
    int rows_per_chunk = 1;
    int bins = 1;
    bool plain = false;
    std::array<int, 2> luma_slot{-1, -1};  // Rec.601, Rec.709
    int slots = 0;
    std::vector<int> slot_of;  // per requested channel
    std::vector<int> luma_of;  // per requested channel: 0 (601), 1 (709), or -1 for a plain one
    NppLevels levels;
    std::size_t buffer_bytes = 0;  // NPP's scratch, the most any call of the plan needs

    int row_bytes() const { return width * channels * bytes_per_sample(type); }
    int plane_row_bytes() const { return width * bytes_per_sample(type); }
    int max_piece_bins() const;
    bool has_luma() const { return luma_slot[0] >= 0 || luma_slot[1] >= 0; }
    std::string describe() const;
};

// The stream context NPP's _Ctx primitives take, for `device` and `stream`.
NppStreamContext npp_context(const DeviceInfo& device, cudaStream_t stream);
// The plan of `request` (NPP's scratch size asked with `context`). Throws hs::UnsupportedError
// for joint colours and rows NPP cannot step over.
NppPlan plan_npp(const HistogramRequest& request, NppStreamContext context);

struct NppBuffers {
    Npp8u* buffer = nullptr;            // plan.buffer_bytes
    Npp32s* scratch = nullptr;          // plan.slots * plan.max_piece_bins()
    std::byte* plane = nullptr;         // luma: plan.plane_row_bytes() * plan.rows_per_chunk
    const std::int32_t* map = nullptr;  // plan.levels.map
    const Npp32s* levels = nullptr;     // range: plan.levels.levels
};

// Adds the histograms of the plan's channels of `image` (of the planned shape: KernelRun::launch()
// checks it) to `counts`.
void launch_npp(const NppPlan& plan, const NppBuffers& buffers, const DeviceImage& image,
                unsigned long long* counts, const DeviceLimits& limits, NppStreamContext context,
                cudaStream_t stream);

std::string npp_probe();

}  // namespace hs::cuda::detail
