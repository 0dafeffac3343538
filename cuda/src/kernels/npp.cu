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

#include <nppcore.h>
#include <nppdefs.h>
#include <nppi_statistics_functions.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "gpu_engine.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/strategies.hpp"

namespace hs::cuda::detail {

namespace {

// Levels per NPP call (1024 bins): every 8-bit histogram fits into one call.
constexpr int kNppMaxLevelsPerCall = 1025;
// Bytes of one chunk of rows (NPP's offsets and counters are 32-bit).
constexpr std::uint64_t kNppChunkBytes = INT_MAX;

void check_npp(NppStatus status, const char* what) {
    if (status == NPP_SUCCESS) return;
    static_cast<void>(cudaGetLastError());
    throw DeviceError(std::string("NPP error in ") + what + ": status " +
                      std::to_string(static_cast<int>(status)));
}

// The C1R/C3R/C4R primitives of one sample type behind one interface: `hist` holds C
// histogram pointers, every channel gets the same levels.
template <typename T, int C>
struct NppOps;

template <int C>
struct Fill {
    std::array<int, C> levels;
    std::array<Npp32s, C> lower, upper;
    std::array<Npp32s*, C> hist;
    std::array<const Npp32s*, C> level_ptrs;

    Fill(Npp32s* const* h, int n, Npp32s lo, Npp32s up, const Npp32s* lv) {
        for (std::size_t c = 0; c < static_cast<std::size_t>(C); ++c) {
            levels[c] = n;
            lower[c] = lo;
            upper[c] = up;
            hist[c] = h == nullptr ? nullptr : h[c];
            level_ptrs[c] = lv;
        }
    }
};

template <>
struct NppOps<Npp8u, 1> {
    static NppStatus even_size(NppiSize roi, int n, std::size_t* bytes, NppStreamContext ctx) {
        return nppiHistogramEvenGetBufferSize_8u_C1R_Ctx(roi, n, bytes, ctx);
    }
    static NppStatus range_size(NppiSize roi, int n, std::size_t* bytes, NppStreamContext ctx) {
        return nppiHistogramRangeGetBufferSize_8u_C1R_Ctx(roi, n, bytes, ctx);
    }
    static NppStatus even(const Npp8u* src, int step, NppiSize roi, Npp32s* const* hist, int n,
                          Npp32s lower, Npp32s upper, Npp8u* buffer, NppStreamContext ctx) {
        return nppiHistogramEven_8u_C1R_Ctx(src, step, roi, hist[0], n, lower, upper, buffer, ctx);
    }
    static NppStatus range(const Npp8u* src, int step, NppiSize roi, Npp32s* const* hist,
                           const Npp32s* levels, int n, Npp8u* buffer, NppStreamContext ctx) {
        return nppiHistogramRange_8u_C1R_Ctx(src, step, roi, hist[0], levels, n, buffer, ctx);
    }
};

template <>
struct NppOps<Npp16u, 1> {
    static NppStatus even_size(NppiSize roi, int n, std::size_t* bytes, NppStreamContext ctx) {
        return nppiHistogramEvenGetBufferSize_16u_C1R_Ctx(roi, n, bytes, ctx);
    }
    static NppStatus range_size(NppiSize roi, int n, std::size_t* bytes, NppStreamContext ctx) {
        return nppiHistogramRangeGetBufferSize_16u_C1R_Ctx(roi, n, bytes, ctx);
    }
    static NppStatus even(const Npp16u* src, int step, NppiSize roi, Npp32s* const* hist, int n,
                          Npp32s lower, Npp32s upper, Npp8u* buffer, NppStreamContext ctx) {
        return nppiHistogramEven_16u_C1R_Ctx(src, step, roi, hist[0], n, lower, upper, buffer, ctx);
    }
    static NppStatus range(const Npp16u* src, int step, NppiSize roi, Npp32s* const* hist,
                           const Npp32s* levels, int n, Npp8u* buffer, NppStreamContext ctx) {
        return nppiHistogramRange_16u_C1R_Ctx(src, step, roi, hist[0], levels, n, buffer, ctx);
    }
};

template <>
struct NppOps<Npp8u, 3> {
    static NppStatus even_size(NppiSize roi, int n, std::size_t* bytes, NppStreamContext ctx) {
        Fill<3> f(nullptr, n, 0, 0, nullptr);
        return nppiHistogramEvenGetBufferSize_8u_C3R_Ctx(roi, f.levels.data(), bytes, ctx);
    }
    static NppStatus range_size(NppiSize roi, int n, std::size_t* bytes, NppStreamContext ctx) {
        Fill<3> f(nullptr, n, 0, 0, nullptr);
        return nppiHistogramRangeGetBufferSize_8u_C3R_Ctx(roi, f.levels.data(), bytes, ctx);
    }
    static NppStatus even(const Npp8u* src, int step, NppiSize roi, Npp32s* const* hist, int n,
                          Npp32s lower, Npp32s upper, Npp8u* buffer, NppStreamContext ctx) {
        Fill<3> f(hist, n, lower, upper, nullptr);
        return nppiHistogramEven_8u_C3R_Ctx(src, step, roi, f.hist.data(), f.levels.data(),
                                            f.lower.data(), f.upper.data(), buffer, ctx);
    }
    static NppStatus range(const Npp8u* src, int step, NppiSize roi, Npp32s* const* hist,
                           const Npp32s* levels, int n, Npp8u* buffer, NppStreamContext ctx) {
        Fill<3> f(hist, n, 0, 0, levels);
        return nppiHistogramRange_8u_C3R_Ctx(src, step, roi, f.hist.data(), f.level_ptrs.data(),
                                             f.levels.data(), buffer, ctx);
    }
};

template <>
struct NppOps<Npp16u, 3> {
    static NppStatus even_size(NppiSize roi, int n, std::size_t* bytes, NppStreamContext ctx) {
        Fill<3> f(nullptr, n, 0, 0, nullptr);
        return nppiHistogramEvenGetBufferSize_16u_C3R_Ctx(roi, f.levels.data(), bytes, ctx);
    }
    static NppStatus range_size(NppiSize roi, int n, std::size_t* bytes, NppStreamContext ctx) {
        Fill<3> f(nullptr, n, 0, 0, nullptr);
        return nppiHistogramRangeGetBufferSize_16u_C3R_Ctx(roi, f.levels.data(), bytes, ctx);
    }
    static NppStatus even(const Npp16u* src, int step, NppiSize roi, Npp32s* const* hist, int n,
                          Npp32s lower, Npp32s upper, Npp8u* buffer, NppStreamContext ctx) {
        Fill<3> f(hist, n, lower, upper, nullptr);
        return nppiHistogramEven_16u_C3R_Ctx(src, step, roi, f.hist.data(), f.levels.data(),
                                             f.lower.data(), f.upper.data(), buffer, ctx);
    }
    static NppStatus range(const Npp16u* src, int step, NppiSize roi, Npp32s* const* hist,
                           const Npp32s* levels, int n, Npp8u* buffer, NppStreamContext ctx) {
        Fill<3> f(hist, n, 0, 0, levels);
        return nppiHistogramRange_16u_C3R_Ctx(src, step, roi, f.hist.data(), f.level_ptrs.data(),
                                              f.levels.data(), buffer, ctx);
    }
};

template <>
struct NppOps<Npp8u, 4> {
    static NppStatus even_size(NppiSize roi, int n, std::size_t* bytes, NppStreamContext ctx) {
        Fill<4> f(nullptr, n, 0, 0, nullptr);
        return nppiHistogramEvenGetBufferSize_8u_C4R_Ctx(roi, f.levels.data(), bytes, ctx);
    }
    static NppStatus range_size(NppiSize roi, int n, std::size_t* bytes, NppStreamContext ctx) {
        Fill<4> f(nullptr, n, 0, 0, nullptr);
        return nppiHistogramRangeGetBufferSize_8u_C4R_Ctx(roi, f.levels.data(), bytes, ctx);
    }
    static NppStatus even(const Npp8u* src, int step, NppiSize roi, Npp32s* const* hist, int n,
                          Npp32s lower, Npp32s upper, Npp8u* buffer, NppStreamContext ctx) {
        Fill<4> f(hist, n, lower, upper, nullptr);
        return nppiHistogramEven_8u_C4R_Ctx(src, step, roi, f.hist.data(), f.levels.data(),
                                            f.lower.data(), f.upper.data(), buffer, ctx);
    }
    static NppStatus range(const Npp8u* src, int step, NppiSize roi, Npp32s* const* hist,
                           const Npp32s* levels, int n, Npp8u* buffer, NppStreamContext ctx) {
        Fill<4> f(hist, n, 0, 0, levels);
        return nppiHistogramRange_8u_C4R_Ctx(src, step, roi, f.hist.data(), f.level_ptrs.data(),
                                             f.levels.data(), buffer, ctx);
    }
};

template <>
struct NppOps<Npp16u, 4> {
    static NppStatus even_size(NppiSize roi, int n, std::size_t* bytes, NppStreamContext ctx) {
        Fill<4> f(nullptr, n, 0, 0, nullptr);
        return nppiHistogramEvenGetBufferSize_16u_C4R_Ctx(roi, f.levels.data(), bytes, ctx);
    }
    static NppStatus range_size(NppiSize roi, int n, std::size_t* bytes, NppStreamContext ctx) {
        Fill<4> f(nullptr, n, 0, 0, nullptr);
        return nppiHistogramRangeGetBufferSize_16u_C4R_Ctx(roi, f.levels.data(), bytes, ctx);
    }
    static NppStatus even(const Npp16u* src, int step, NppiSize roi, Npp32s* const* hist, int n,
                          Npp32s lower, Npp32s upper, Npp8u* buffer, NppStreamContext ctx) {
        Fill<4> f(hist, n, lower, upper, nullptr);
        return nppiHistogramEven_16u_C4R_Ctx(src, step, roi, f.hist.data(), f.levels.data(),
                                             f.lower.data(), f.upper.data(), buffer, ctx);
    }
    static NppStatus range(const Npp16u* src, int step, NppiSize roi, Npp32s* const* hist,
                           const Npp32s* levels, int n, Npp8u* buffer, NppStreamContext ctx) {
        Fill<4> f(hist, n, 0, 0, levels);
        return nppiHistogramRange_16u_C4R_Ctx(src, step, roi, f.hist.data(), f.level_ptrs.data(),
                                              f.levels.data(), buffer, ctx);
    }
};

// How the spec's bins map onto NPP calls.
struct NppLevels {
    bool even = false;              // one HistogramEven call with bins + 1 levels
    Npp32s lower = 0, upper = 0;    // even
    std::vector<Npp32s> levels;     // range: strictly increasing levels within the sample range
    std::vector<std::int32_t> map;  // NPP bin j (of all levels) -> our bin
    // Pieces: [first level, last level] index pairs, consecutive pieces share a level.
    std::vector<std::pair<int, int>> pieces;
};

NppLevels make_levels(const HistogramSpec& spec, SampleType type) {
    NppLevels l;
    const std::vector<std::int64_t> t = spec.thresholds();
    const std::int64_t top = type == SampleType::U8 ? 256 : 65536;  // max sample + 1
    // Even bins only when every bin has the same integer width: measured on the H100 (CUDA 13
    // NPP), nppiHistogramEven_16u with 1024 bins over [0, 65535) lost the samples 65534 of its
    // last bin although nppiEvenLevelsHost_32s returned exactly our thresholds (and
    // nppiHistogramRange with those levels counted them); scripts/experiments/npp_probe.cu.
    if (!spec.has_edges() && spec.lower >= 0 && spec.upper <= top &&
        (spec.upper - spec.lower) % spec.bins == 0 && spec.bins + 1 <= kNppMaxLevelsPerCall &&
        std::adjacent_find(t.begin(), t.end()) == t.end()) {
        // NPP's documented even levels for this request; HistogramEven only where they are ours.
        std::vector<Npp32s> even(t.size());
        const NppStatus s = nppiEvenLevelsHost_32s(even.data(), static_cast<int>(even.size()),
                                                   static_cast<Npp32s>(spec.lower),
                                                   static_cast<Npp32s>(spec.upper));
        if (s == NPP_SUCCESS && std::equal(t.begin(), t.end(), even.begin(), even.end(),
                                           [](std::int64_t a, Npp32s b) { return a == b; })) {
            l.even = true;
            l.lower = static_cast<Npp32s>(spec.lower);
            l.upper = static_cast<Npp32s>(spec.upper);
            for (int b = 0; b < spec.bins; ++b) l.map.push_back(b);
            l.pieces.push_back({0, spec.bins});
            return l;
        }
    }
    // Range: clamped thresholds without repeats; level j starts our bin map[j] (the last bin
    // whose clamped threshold equals it).
    for (std::size_t i = 0; i < t.size(); ++i) {
        const auto c = static_cast<Npp32s>(std::clamp<std::int64_t>(t[i], 0, top));
        if (l.levels.empty() || c != l.levels.back()) {
            l.levels.push_back(c);
            l.map.push_back(static_cast<std::int32_t>(i));
        } else {
            l.map.back() = static_cast<std::int32_t>(i);
        }
    }
    l.map.pop_back();  // the last level starts no bin
    const int last = static_cast<int>(l.levels.size()) - 1;
    for (int first = 0; first < last; first += kNppMaxLevelsPerCall - 1)
        l.pieces.push_back({first, std::min(last, first + kNppMaxLevelsPerCall - 1)});
    return l;
}

// The luma of pixels [0, n) of `samples` (C interleaved samples each), in the sample type.
template <typename T, int C>
__global__ void npp_luma_plane(const T* samples, std::uint64_t n, LumaWeights w, T* plane) {
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += step) {
        const T* px = samples + i * C;
        plane[i] = static_cast<T>(hs::luma(w, px[0], px[1], px[2]));
    }
}

// counts[map[j]] += hist[j] for the `n` NPP bins of one piece (map is injective).
__global__ void npp_add_mapped(unsigned long long* counts, const Npp32s* hist,
                               const std::int32_t* map, int n) {
    for (int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); j < n;
         j += static_cast<int>(gridDim.x * blockDim.x))
        if (const Npp32s c = hist[j]; c != 0)
            counts[map[j]] += static_cast<unsigned long long>(static_cast<std::uint32_t>(c));
}

constexpr int kThreads = 256;

unsigned grid_for(std::uint64_t items, const DeviceLimits& limits) {
    const std::uint64_t useful = (items + kThreads - 1) / kThreads;
    const std::uint64_t cap = static_cast<std::uint64_t>(std::max(1, limits.sm_count)) * 8;
    return static_cast<unsigned>(std::clamp<std::uint64_t>(useful, 1, cap));
}

enum class NppValue : int { Luma601 = 0, Luma709 = 1 };

// How one request maps onto NPP calls.
struct NppPlan {
    SampleType type = SampleType::U8;
    int channels = 1, width = 0, height = 0;
    int rows_per_chunk = 1;
    int bins = 1;
    bool plain = false;
    std::array<int, 2> luma_slot{-1, -1};
    int slots = 0;
    std::vector<int> slot_of;  // per requested channel
    std::vector<int> luma_of;  // per requested channel: NppValue, or -1 for a plain channel
    NppLevels levels;

    int row_bytes() const { return width * channels * bytes_per_sample(type); }
    int plane_row_bytes() const { return width * bytes_per_sample(type); }
    int max_piece_bins() const {
        int most = 0;
        for (const auto& [a, b] : levels.pieces) most = std::max(most, b - a);
        return most;
    }
};

NppPlan make_plan(const HistogramRequest& r) {
    NppPlan p;
    p.type = r.image.type;
    p.channels = r.image.channels;
    p.width = r.image.width;
    p.height = r.image.height;
    p.bins = r.spec.bins;
    std::vector<int>& luma_of = p.luma_of;
    luma_of.assign(r.channels.size(), -1);
    for (std::size_t i = 0; i < r.channels.size(); ++i) {
        const Channel c = r.channels[i];
        if (c == Channel::Joint)
            throw UnsupportedError("engine 'npp' does not compute joint colour histograms");
        if (is_luma(c) && p.channels > 1)
            luma_of[i] =
                static_cast<int>(c == Channel::Luma709 ? NppValue::Luma709 : NppValue::Luma601);
        else
            p.plain = true;
    }
    p.slots = p.plain ? p.channels : 0;
    for (std::size_t i = 0; i < r.channels.size(); ++i) {
        if (luma_of[i] < 0) continue;
        int& slot = p.luma_slot[static_cast<std::size_t>(luma_of[i])];
        if (slot < 0) slot = p.slots++;
    }
    for (std::size_t i = 0; i < r.channels.size(); ++i)
        p.slot_of.push_back(luma_of[i] >= 0
                                ? p.luma_slot[static_cast<std::size_t>(luma_of[i])]
                                : std::max(0, channel_offset(r.channels[i], p.channels)));
    const auto row_bytes = static_cast<std::uint64_t>(r.image.row_bytes());
    if (row_bytes > kNppChunkBytes)
        throw UnsupportedError("engine 'npp' takes rows of at most " +
                               std::to_string(kNppChunkBytes) + " bytes (NPP's row step is int)");
    p.rows_per_chunk = static_cast<int>(std::clamp<std::uint64_t>(
        kNppChunkBytes / row_bytes, 1, static_cast<std::uint64_t>(p.height)));
    p.levels = make_levels(r.spec, r.image.type);
    return p;
}

NppStreamContext make_context(cudaStream_t stream) {
    NppStreamContext ctx{};
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice (NPP stream context)");
    cudaDeviceProp props{};
    check(cudaGetDeviceProperties(&props, device), "cudaGetDeviceProperties (NPP stream context)");
    unsigned flags = 0;
    check(cudaStreamGetFlags(stream, &flags), "cudaStreamGetFlags (NPP stream context)");
    ctx.hStream = stream;
    ctx.nCudaDeviceId = device;
    ctx.nMultiProcessorCount = props.multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = props.maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = props.maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = props.sharedMemPerBlock;
    ctx.nCudaDevAttrComputeCapabilityMajor = props.major;
    ctx.nCudaDevAttrComputeCapabilityMinor = props.minor;
    ctx.nStreamFlags = flags;
    return ctx;
}

// The scratch bytes NPP asks for, over every call the plan makes.
template <typename T, int C>
std::size_t buffer_bytes(const NppPlan& p, NppStreamContext ctx) {
    std::vector<int> rows{std::min(p.rows_per_chunk, p.height)};
    if (const int rest = p.height % p.rows_per_chunk; rest != 0) rows.push_back(rest);
    std::size_t most = 0;
    for (const int h : rows) {
        const NppiSize roi{p.width, h};
        for (const auto& [a, b] : p.levels.pieces) {
            std::size_t bytes = 0;
            if (p.levels.even)
                check_npp(NppOps<T, C>::even_size(roi, b - a + 1, &bytes, ctx),
                          "nppiHistogramEvenGetBufferSize");
            else
                check_npp(NppOps<T, C>::range_size(roi, b - a + 1, &bytes, ctx),
                          "nppiHistogramRangeGetBufferSize");
            most = std::max(most, bytes);
        }
    }
    return most;
}

template <typename T>
std::size_t buffer_bytes(const NppPlan& p, NppStreamContext ctx) {
    std::size_t most = 0;
    if (p.plain) {
        switch (p.channels) {
            case 1:
                most = buffer_bytes<T, 1>(p, ctx);
                break;
            case 3:
                most = buffer_bytes<T, 3>(p, ctx);
                break;
            case 4:
                most = buffer_bytes<T, 4>(p, ctx);
                break;
            default:
                throw UnsupportedError("engine 'npp': images must have 1, 3 or 4 channels");
        }
    }
    if (p.luma_slot[0] >= 0 || p.luma_slot[1] >= 0)
        most = std::max(most, buffer_bytes<T, 1>(p, ctx));
    return most;
}

class NppRun final : public KernelRun {
  public:
    NppRun(const HistogramRequest& r, const DeviceLimits& limits, cudaStream_t stream)
        : plan_(make_plan(r)), limits_(limits), ctx_(make_context(stream)) {
        const std::size_t bytes = plan_.type == SampleType::U8 ? buffer_bytes<Npp8u>(plan_, ctx_)
                                                               : buffer_bytes<Npp16u>(plan_, ctx_);
        buffer_ = DeviceBuffer<Npp8u>(std::max<std::size_t>(bytes, 1), "NPP scratch buffer");
        scratch_ = DeviceBuffer<Npp32s>(static_cast<std::size_t>(plan_.slots) *
                                            static_cast<std::size_t>(plan_.max_piece_bins()),
                                        "NPP 32-bit histograms");
        if (plan_.luma_slot[0] >= 0 || plan_.luma_slot[1] >= 0)
            plane_ = DeviceBuffer<std::byte>(static_cast<std::size_t>(plan_.plane_row_bytes()) *
                                                 static_cast<std::size_t>(plan_.rows_per_chunk),
                                             "NPP luma plane");
        // Host copies live as long as this run, i.e. until the engine has synchronized.
        if (plan_.levels.pieces.empty()) return;  // every threshold clamps to one level
        map_ = DeviceBuffer<std::int32_t>(plan_.levels.map.size(), "NPP bin map");
        check(cudaMemcpyAsync(map_.data(), plan_.levels.map.data(), map_.bytes(),
                              cudaMemcpyHostToDevice, stream),
              "NPP bin map upload (cudaMemcpyAsync)");
        if (!plan_.levels.even) {
            levels_ = DeviceBuffer<Npp32s>(plan_.levels.levels.size(), "NPP levels");
            check(cudaMemcpyAsync(levels_.data(), plan_.levels.levels.data(), levels_.bytes(),
                                  cudaMemcpyHostToDevice, stream),
                  "NPP levels upload (cudaMemcpyAsync)");
        }
    }

    void launch(const DeviceImage& image, const std::vector<Channel>& channels,
                unsigned long long* counts, cudaStream_t stream) override {
        if (channels.size() != plan_.slot_of.size() || image.width != plan_.width ||
            image.height != plan_.height || image.channels != plan_.channels ||
            image.type != plan_.type)
            throw UsageError("npp: launch() does not match the prepared request");
        if (plan_.levels.pieces.empty()) return;  // no sample can fall into any bin
        NppStreamContext ctx = ctx_;
        ctx.hStream = stream;
        check(cudaStreamGetFlags(stream, &ctx.nStreamFlags), "cudaStreamGetFlags (NPP)");
        if (plan_.type == SampleType::U8)
            run<Npp8u>(image, channels, counts, stream, ctx);
        else
            run<Npp16u>(image, channels, counts, stream, ctx);
    }

  private:
    template <typename T>
    void run(const DeviceImage& image, const std::vector<Channel>& channels,
             unsigned long long* counts, cudaStream_t stream, NppStreamContext ctx) {
        const auto row_bytes = static_cast<std::size_t>(plan_.row_bytes());
        for (int y0 = 0; y0 < plan_.height; y0 += plan_.rows_per_chunk) {
            const int rows = std::min(plan_.rows_per_chunk, plan_.height - y0);
            const auto* chunk =
                reinterpret_cast<const T*>(image.data + static_cast<std::size_t>(y0) * row_bytes);
            if (plan_.plain) {
                switch (plan_.channels) {
                    case 1:
                        pieces<T, 1>(chunk, plan_.row_bytes(), rows, 0, -1, channels, counts,
                                     stream, ctx);
                        break;
                    case 3:
                        pieces<T, 3>(chunk, plan_.row_bytes(), rows, 0, -1, channels, counts,
                                     stream, ctx);
                        break;
                    case 4:
                        pieces<T, 4>(chunk, plan_.row_bytes(), rows, 0, -1, channels, counts,
                                     stream, ctx);
                        break;
                    default:
                        throw UnsupportedError("engine 'npp': images must have 1, 3 or 4 channels");
                }
            }
            for (int v = 0; v < 2; ++v) {
                const int slot = plan_.luma_slot[static_cast<std::size_t>(v)];
                if (slot < 0) continue;
                const std::uint64_t n =
                    static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(plan_.width);
                const LumaWeights w =
                    v == static_cast<int>(NppValue::Luma709) ? kLuma709 : kLuma601;
                auto* plane = reinterpret_cast<T*>(plane_.data());
                if (plan_.channels == 3)
                    npp_luma_plane<T, 3>
                        <<<grid_for(n, limits_), kThreads, 0, stream>>>(chunk, n, w, plane);
                else
                    npp_luma_plane<T, 4>
                        <<<grid_for(n, limits_), kThreads, 0, stream>>>(chunk, n, w, plane);
                check(cudaGetLastError(), "npp luma plane kernel launch");
                pieces<T, 1>(plane, plan_.plane_row_bytes(), rows, slot, v, channels, counts,
                             stream, ctx);
            }
        }
    }

    // NPP calls for every piece of levels over `rows` rows at `src` (C channels into slots
    // first_slot..first_slot + C - 1), each followed by the accumulation of the requested
    // channels this call serves: the plain ones (value -1) or one luma plane (value NppValue).
    template <typename T, int C>
    void pieces(const T* src, int step, int rows, int first_slot, int value,
                const std::vector<Channel>& channels, unsigned long long* counts,
                cudaStream_t stream, NppStreamContext ctx) {
        const auto bins = static_cast<std::size_t>(plan_.bins);
        const auto piece_bins = static_cast<std::size_t>(plan_.max_piece_bins());
        std::array<Npp32s*, C> hist{};
        for (std::size_t c = 0; c < static_cast<std::size_t>(C); ++c)
            hist[c] = scratch_.data() + (static_cast<std::size_t>(first_slot) + c) * piece_bins;
        const NppiSize roi{plan_.width, rows};
        for (const auto& [a, b] : plan_.levels.pieces) {
            const int n = b - a + 1;  // levels of this piece
            if (plan_.levels.even)
                check_npp(NppOps<T, C>::even(src, step, roi, hist.data(), n, plan_.levels.lower,
                                             plan_.levels.upper, buffer_.data(), ctx),
                          "nppiHistogramEven");
            else
                check_npp(NppOps<T, C>::range(src, step, roi, hist.data(), levels_.data() + a, n,
                                              buffer_.data(), ctx),
                          "nppiHistogramRange");
            for (std::size_t i = 0; i < channels.size(); ++i) {
                if (plan_.luma_of[i] != value) continue;
                const int slot = plan_.slot_of[i];
                npp_add_mapped<<<grid_for(static_cast<std::uint64_t>(b - a), limits_), kThreads, 0,
                                 stream>>>(
                    counts + i * bins,
                    scratch_.data() + static_cast<std::size_t>(slot) * piece_bins, map_.data() + a,
                    b - a);
                check(cudaGetLastError(), "npp accumulation kernel launch");
            }
        }
    }

    NppPlan plan_;
    DeviceLimits limits_;
    NppStreamContext ctx_;
    DeviceBuffer<Npp8u> buffer_;
    DeviceBuffer<Npp32s> scratch_;
    DeviceBuffer<std::byte> plane_;
    DeviceBuffer<std::int32_t> map_;
    DeviceBuffer<Npp32s> levels_;
};

class NppEngine final : public GpuEngine {
  public:
    std::string_view name() const override { return "npp"; }
    std::string_view description() const override {
        return "GPU: NPP nppiHistogramEven/nppiHistogramRange (_Ctx, C1R/C3R/C4R) over the "
               "integer bin thresholds, at most 1024 bins per call and 2^31-1 bytes of rows per "
               "chunk, 32-bit counts added to 64-bit totals; luma through a transform kernel "
               "that writes a plane NPP then histograms; no joint colour";
    }
    Capabilities capabilities() const override {
        Capabilities caps;
        caps.joint = false;
        return caps;
    }

  protected:
    std::string extra_unsupported_reason(const HistogramRequest& r) const override {
        if (static_cast<std::uint64_t>(r.image.row_bytes()) > kNppChunkBytes)
            return "engine 'npp' takes rows of at most " + std::to_string(kNppChunkBytes) +
                   " bytes (NPP's row step is an int)";
        const State& s = state();
        if (!s.error.empty()) return {};  // compute() reports the unavailability itself
        if (cudaSetDevice(s.device.index) != cudaSuccess) {
            static_cast<void>(cudaGetLastError());
            return {};
        }
        std::size_t free_bytes = 0, total_bytes = 0;
        if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
            static_cast<void>(cudaGetLastError());
            return {};
        }
        // The luma plane of one chunk of rows, the scratch histograms, map and levels (NPP's
        // own scratch buffer is small next to them), the image and the counters.
        const auto row_px = static_cast<std::size_t>(r.image.width);
        const std::size_t rows = std::min<std::size_t>(
            static_cast<std::size_t>(r.image.height),
            std::max<std::size_t>(1,
                                  kNppChunkBytes / std::max<std::size_t>(1, r.image.row_bytes())));
        const auto bins = static_cast<std::size_t>(r.spec.bins);
        const std::size_t need = rows * row_px * 2 + 6 * 4 * kNppMaxLevelsPerCall + bins * 8 +
                                 padded_bytes(r.image) + bins * r.channels.size() * 8 +
                                 (std::size_t{16} << 20);
        if (need <= free_bytes / 2) return {};
        return "engine 'npp' needs about " + std::to_string(need >> 20) +
               " MiB of device memory for this request, more than half of the " +
               std::to_string(free_bytes >> 20) + " MiB free on " + s.device.name;
    }
    std::string probe() const override {
        cudaFuncAttributes attr{};
        const cudaError_t e =
            cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(&npp_add_mapped));
        if (e != cudaSuccess) {
            static_cast<void>(cudaGetLastError());
            if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
                e == cudaErrorUnsupportedPtxVersion)
                return "this build has no kernel code for the device (" + describe(e) +
                       "); rebuild with its architecture in CMAKE_CUDA_ARCHITECTURES";
            return "cannot load the npp engine's kernels: " + describe(e);
        }
        if (nppGetLibVersion() == nullptr) return "the NPP library reports no version";
        return {};
    }
    std::unique_ptr<KernelRun> prepare(const HistogramRequest& r,
                                       cudaStream_t stream) const override {
        return std::make_unique<NppRun>(r, limits(), stream);
    }
};

}  // namespace

std::unique_ptr<HistogramEngine> make_npp_engine() {
    return std::make_unique<NppEngine>();
}

}  // namespace hs::cuda::detail
