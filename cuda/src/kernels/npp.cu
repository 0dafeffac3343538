// Strategy "npp": see npp.cuh.

#include "kernels/npp.cuh"

#include <nppcore.h>
#include <nppi_statistics_functions.h>

#include <algorithm>
#include <string>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/dispatch.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/common/planes.cuh"
#include "kernels/common/samples.cuh"

namespace hs::cuda::detail {

namespace {

void check_npp(NppStatus status, const char* what) {
    if (status == NPP_SUCCESS) return;
    static_cast<void>(cudaGetLastError());
    throw DeviceError(std::string("NPP error in ") + what + ": status " +
                      std::to_string(static_cast<int>(status)));
}

// The primitives of one sample type and layout (the names differ only in those).
template <typename T, int C>
struct NppFns;
#define HS_NPP_FNS(T, S, C)                                                                    \
    template <>                                                                                \
    struct NppFns<T, C> {                                                                      \
        static constexpr auto even_size = &nppiHistogramEvenGetBufferSize_##S##_C##C##R_Ctx;   \
        static constexpr auto range_size = &nppiHistogramRangeGetBufferSize_##S##_C##C##R_Ctx; \
        static constexpr auto even = &nppiHistogramEven_##S##_C##C##R_Ctx;                     \
        static constexpr auto range = &nppiHistogramRange_##S##_C##C##R_Ctx;                   \
    };
HS_NPP_FNS(Npp8u, 8u, 1)
HS_NPP_FNS(Npp8u, 8u, 3)
HS_NPP_FNS(Npp8u, 8u, 4)
HS_NPP_FNS(Npp16u, 16u, 1)
HS_NPP_FNS(Npp16u, 16u, 3)
HS_NPP_FNS(Npp16u, 16u, 4)
#undef HS_NPP_FNS

// The calls of one layout: C1R takes its arguments as scalars, C3R and C4R as C-element arrays
// (every channel gets the same levels). `hist` holds C histogram pointers.
template <typename T, int C>
struct NppOps {
    using F = NppFns<T, C>;
    static std::array<int, C> all(int n) {
        std::array<int, C> a;
        a.fill(n);
        return a;
    }
    static NppStatus buffer_size(bool even, NppiSize roi, int n, std::size_t* bytes,
                                 NppStreamContext ctx) {
        if constexpr (C == 1)
            return even ? F::even_size(roi, n, bytes, ctx) : F::range_size(roi, n, bytes, ctx);
        else
            return even ? F::even_size(roi, all(n).data(), bytes, ctx)
                        : F::range_size(roi, all(n).data(), bytes, ctx);
    }
    static NppStatus even(const T* src, int step, NppiSize roi, Npp32s* const* hist, int n,
                          Npp32s lower, Npp32s upper, Npp8u* buffer, NppStreamContext ctx) {
        if constexpr (C == 1) {
            return F::even(src, step, roi, hist[0], n, lower, upper, buffer, ctx);
        } else {
            std::array<Npp32s*, C> h;
            std::copy_n(hist, C, h.begin());
            std::array<Npp32s, C> lo, up;
            lo.fill(lower);
            up.fill(upper);
            return F::even(src, step, roi, h.data(), all(n).data(), lo.data(), up.data(), buffer,
                           ctx);
        }
    }
    static NppStatus range(const T* src, int step, NppiSize roi, Npp32s* const* hist,
                           const Npp32s* levels, int n, Npp8u* buffer, NppStreamContext ctx) {
        if constexpr (C == 1) {
            return F::range(src, step, roi, hist[0], levels, n, buffer, ctx);
        } else {
            std::array<Npp32s*, C> h;
            std::copy_n(hist, C, h.begin());
            std::array<const Npp32s*, C> lv;
            lv.fill(levels);
            return F::range(src, step, roi, h.data(), lv.data(), all(n).data(), buffer, ctx);
        }
    }
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

// counts[map[j]] += hist[j] for the `n` NPP bins of one piece (map is injective).
__global__ void npp_add_mapped(unsigned long long* counts, const Npp32s* hist,
                               const std::int32_t* map, int n) {
    for (int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); j < n;
         j += static_cast<int>(gridDim.x * blockDim.x))
        if (const Npp32s c = hist[j]; c != 0)
            counts[map[j]] += static_cast<unsigned long long>(static_cast<std::uint32_t>(c));
}

// The scratch bytes NPP asks for over every call the plan makes with C channels.
template <typename T, int C>
std::size_t buffer_bytes(const NppPlan& p, NppStreamContext ctx) {
    std::vector<int> rows{std::min(p.rows_per_chunk, p.height)};
    if (const int rest = p.height % p.rows_per_chunk; rest != 0) rows.push_back(rest);
    std::size_t most = 0;
    for (const int h : rows)
        for (const auto& [a, b] : p.levels.pieces) {
            std::size_t bytes = 0;
            check_npp(NppOps<T, C>::buffer_size(p.levels.even, NppiSize{p.width, h}, b - a + 1,
                                                &bytes, ctx),
                      "nppiHistogram*GetBufferSize");
            most = std::max(most, bytes);
        }
    return most;
}

std::size_t buffer_bytes(const NppPlan& p, NppStreamContext ctx) {
    std::size_t most = 0;
    if (p.plain)
        visit_samples_of<IntegerSamples>("engine 'npp'", p.type, p.channels, [&](auto layout) {
            using L = decltype(layout);
            most = buffer_bytes<typename L::Sample, L::kChannels>(p, ctx);
        });
    if (p.has_luma())
        visit_samples_of<IntegerSamples>("engine 'npp'", p.type, 1, [&](auto layout) {
            most = std::max(most, buffer_bytes<typename decltype(layout)::Sample, 1>(p, ctx));
        });
    return most;
}

// NPP calls for every piece of levels over `rows` rows at `src` (C channels into slots
// first_slot..first_slot + C - 1), each followed by the accumulation of the requested
// channels this call serves: the plain ones (value -1) or one luma plane (value 0 or 1).
template <typename T, int C>
void pieces(const NppPlan& p, const NppBuffers& b, const T* src, int step, int rows, int first_slot,
            int value, unsigned long long* counts, const DeviceLimits& limits, NppStreamContext ctx,
            cudaStream_t stream) {
    const auto bins = static_cast<std::size_t>(p.bins);
    const auto piece_bins = static_cast<std::size_t>(p.max_piece_bins());
    std::array<Npp32s*, C> hist{};
    for (std::size_t c = 0; c < static_cast<std::size_t>(C); ++c)
        hist[c] = b.scratch + (static_cast<std::size_t>(first_slot) + c) * piece_bins;
    const NppiSize roi{p.width, rows};
    for (const auto& [first, last] : p.levels.pieces) {
        const int n = last - first + 1;  // levels of this piece
        if (p.levels.even)
            check_npp(NppOps<T, C>::even(src, step, roi, hist.data(), n, p.levels.lower,
                                         p.levels.upper, b.buffer, ctx),
                      "nppiHistogramEven");
        else
            check_npp(NppOps<T, C>::range(src, step, roi, hist.data(), b.levels + first, n,
                                          b.buffer, ctx),
                      "nppiHistogramRange");
        for (std::size_t i = 0; i < p.slot_of.size(); ++i) {
            if (p.luma_of[i] != value) continue;
            npp_add_mapped<<<plane_blocks(static_cast<std::uint64_t>(last - first),
                                          limits.sm_count),
                             kPlaneThreads, 0, stream>>>(
                counts + i * bins, b.scratch + static_cast<std::size_t>(p.slot_of[i]) * piece_bins,
                b.map + first, last - first);
            check(cudaGetLastError(), "npp accumulation kernel launch");
        }
    }
}

template <typename T>
void run(const NppPlan& p, const NppBuffers& b, const DeviceImage& image,
         unsigned long long* counts, const DeviceLimits& limits, NppStreamContext ctx,
         cudaStream_t stream) {
    const auto row_bytes = static_cast<std::size_t>(p.row_bytes());
    for (int y0 = 0; y0 < p.height; y0 += p.rows_per_chunk) {
        const int rows = std::min(p.rows_per_chunk, p.height - y0);
        const auto* chunk =
            reinterpret_cast<const T*>(image.data + static_cast<std::size_t>(y0) * row_bytes);
        if (p.plain)
            visit_samples_of<IntegerSamples>("engine 'npp'", p.type, p.channels, [&](auto layout) {
                pieces<T, decltype(layout)::kChannels>(p, b, chunk, p.row_bytes(), rows, 0, -1,
                                                       counts, limits, ctx, stream);
            });
        for (int v = 0; v < 2; ++v) {
            const int slot = p.luma_slot[static_cast<std::size_t>(v)];
            if (slot < 0) continue;
            const std::uint64_t n =
                static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(p.width);
            const ValueRule luma{ValueKind::Luma, v == 1 ? kLuma709 : kLuma601, 0};
            auto* plane = reinterpret_cast<T*>(b.plane);
            launch_value_plane(chunk, p.channels, n, luma, plane, limits.sm_count, stream);
            pieces<T, 1>(p, b, plane, p.plane_row_bytes(), rows, slot, v, counts, limits, ctx,
                         stream);
        }
    }
}

}  // namespace

int NppPlan::max_piece_bins() const {
    int most = 0;
    for (const auto& [a, b] : levels.pieces) most = std::max(most, b - a);
    return most;
}

std::string NppPlan::describe() const {
    return std::string(levels.even ? "nppiHistogramEven" : "nppiHistogramRange") + " in " +
           std::to_string(levels.pieces.size()) + " piece(s) of levels, chunks of " +
           std::to_string(rows_per_chunk) + " rows, " + std::to_string(buffer_bytes) +
           " B of NPP scratch" + (has_luma() ? ", luma through a plane" : "");
}

NppStreamContext npp_context(const DeviceInfo& device, cudaStream_t stream) {
    NppStreamContext ctx{};
    unsigned flags = 0;
    check(cudaStreamGetFlags(stream, &flags), "cudaStreamGetFlags (NPP stream context)");
    ctx.hStream = stream;
    ctx.nCudaDeviceId = device.index;
    ctx.nMultiProcessorCount = device.sm_count;
    ctx.nMaxThreadsPerMultiProcessor = device.max_threads_per_sm;
    ctx.nMaxThreadsPerBlock = device.max_threads_per_block;
    ctx.nSharedMemPerBlock = device.shared_per_block;
    ctx.nCudaDevAttrComputeCapabilityMajor = device.cc_major;
    ctx.nCudaDevAttrComputeCapabilityMinor = device.cc_minor;
    ctx.nStreamFlags = flags;
    return ctx;
}

NppPlan plan_npp(const HistogramRequest& r, NppStreamContext ctx) {
    NppPlan p;
    p.type = r.image.type;
    p.channels = r.image.channels;
    p.width = r.image.width;
    p.height = r.image.height;
    p.bins = r.spec.bins;
    p.luma_of.assign(r.channels.size(), -1);
    for (std::size_t i = 0; i < r.channels.size(); ++i) {
        const ValueRule v = value_rule(r.channels[i], p.channels);
        if (v.kind == ValueKind::Joint)
            throw UnsupportedError("engine 'npp' does not compute joint colour histograms");
        if (v.kind == ValueKind::Luma)
            p.luma_of[i] = r.channels[i] == Channel::Luma709 ? 1 : 0;
        else
            p.plain = true;
    }
    p.slots = p.plain ? p.channels : 0;
    for (std::size_t i = 0; i < r.channels.size(); ++i) {
        if (p.luma_of[i] < 0) continue;
        int& slot = p.luma_slot[static_cast<std::size_t>(p.luma_of[i])];
        if (slot < 0) slot = p.slots++;
    }
    for (std::size_t i = 0; i < r.channels.size(); ++i)
        p.slot_of.push_back(p.luma_of[i] >= 0
                                ? p.luma_slot[static_cast<std::size_t>(p.luma_of[i])]
                                : std::max(0, channel_offset(r.channels[i], p.channels)));
    const auto row_bytes = static_cast<std::uint64_t>(r.image.row_bytes());
    if (row_bytes > kNppChunkBytes)
        throw UnsupportedError("engine 'npp' takes rows of at most " +
                               std::to_string(kNppChunkBytes) + " bytes (NPP's row step is int)");
    p.rows_per_chunk = static_cast<int>(std::clamp<std::uint64_t>(
        kNppChunkBytes / row_bytes, 1, static_cast<std::uint64_t>(p.height)));
    p.levels = make_levels(r.spec, r.image.type);
    p.buffer_bytes = std::max<std::size_t>(1, buffer_bytes(p, ctx));
    return p;
}

void launch_npp(const NppPlan& p, const NppBuffers& b, const DeviceImage& image,
                unsigned long long* counts, const DeviceLimits& limits, NppStreamContext ctx,
                cudaStream_t stream) {
    if (p.levels.pieces.empty()) return;  // no sample can fall into any bin
    ctx.hStream = stream;
    check(cudaStreamGetFlags(stream, &ctx.nStreamFlags), "cudaStreamGetFlags (NPP)");
    visit_samples_of<IntegerSamples>("engine 'npp'", p.type, 1, [&](auto layout) {
        run<typename decltype(layout)::Sample>(p, b, image, counts, limits, ctx, stream);
    });
}

std::string npp_probe() {
    if (std::string why = probe_kernel(&npp_add_mapped, "the npp engine's kernels"); !why.empty())
        return why;
    if (nppGetLibVersion() == nullptr) return "the NPP library reports no version";
    return {};
}

}  // namespace hs::cuda::detail
