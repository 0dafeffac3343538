#pragma once
// How every strategy turns a value into a bin, exactly as hs::bin_of (core) says.
//
// The host picks one rule per request (bin_rule()) among the modes a strategy's kernels serve;
// each mode is integer arithmetic that equals the spec's rule for every value the channel can
// take, which the host tests check against hs::bin_of value by value:
//  - Identity: 256 bins over [0, 256) of 8-bit values: the value is the bin.
//  - Table: 8-bit values through core's bin_table() (-1 = outside): exact by construction.
//  - Even modes count v when lo <= v < lo + span (the spec's [lower, upper) clipped to the
//    values) and compute d = v - lo. The spec's rule is floor((v - lower) * bins / width) with
//    width = upper - lower; v - lower = d + base (base = lo - lower) lies below 2^32, because
//    validate() keeps lower >= -2^31 and values lie below 2^24:
//      EvenShift: width = bins * 2^shift, so the bin is (d + base) >> shift;
//      EvenDiv:   width = bins * quot, so the bin is (d + base) / quot;
//      Even32:    (d + base) * bins < 2^32 (host-checked), computed in 32 bits;
//      Even64:    the same product in 64 bits.
//  - Edges: the integer thresholds t_0 <= ... <= t_bins (HistogramSpec::thresholds()), clamped
//    to [-1, 2^24], which changes no comparison with a value; v falls into the i with
//    t_i <= v < t_(i+1), found by binary search.

#include <cstdint>
#include <vector>

#include "histoscope/core/histogram.hpp"
#include "kernels/common/samples.cuh"

namespace hs::cuda::detail {

enum class BinMode : std::uint8_t { Identity, Table, EvenShift, EvenDiv, Even32, Even64, Edges };

// The modes a strategy's kernels serve, as a bit set.
using BinModes = unsigned;
constexpr BinModes bin_mode_bit(BinMode m) {
    return 1u << static_cast<unsigned>(m);
}
inline constexpr BinModes kEvenModes =
    bin_mode_bit(BinMode::EvenShift) | bin_mode_bit(BinMode::EvenDiv) |
    bin_mode_bit(BinMode::Even32) | bin_mode_bit(BinMode::Even64);
// What the shared-memory strategies serve: 8-bit plain samples and luma through core's table,
// 16-bit samples and joint colours by any exact integer rule or the edges.
inline constexpr BinModes kTableModes = bin_mode_bit(BinMode::Table);
inline constexpr BinModes kWideModes = kEvenModes | bin_mode_bit(BinMode::Edges);
inline constexpr BinModes kAllBinModes = kTableModes | kWideModes;

struct BinRule {
    BinMode mode = BinMode::Table;
    int bins = 256;
    std::uint32_t lo = 0, span = 0;  // even modes: lo <= v < lo + span is counted
    std::uint32_t base = 0;          // even modes: lo - lower
    int shift = 0;                   // EvenShift
    std::uint32_t quot = 1;          // EvenDiv
    std::int64_t lower = 0;          // Even64
    std::uint64_t width = 1;         // Even32, Even64
};

// The first of Table (8-bit values that are not joint colours, when `modes` has it), Edges,
// EvenShift, EvenDiv, Even32 and Even64 that `modes` holds and that is exact for `spec` over
// values below `values` (256, 65536 or 2^24). Throws hs::UnsupportedError naming `who` when
// none is.
BinRule bin_rule(const HistogramSpec& spec, std::uint32_t values, BinModes modes, const char* who);

// The thresholds of Edges: HistogramSpec::thresholds() clamped to [-1, 2^24].
std::vector<std::int32_t> edge_thresholds(const HistogramSpec& spec);

// The bin of `x` among the `n` bins of thresholds t[0..n], or -1 outside them.
HS_HD int edge_bin(std::int32_t x, const std::int32_t* t, int n) {
    if (x < t[0] || x >= t[n]) return -1;
    int lo = 0, hi = n;  // invariant: t[lo] <= x < t[hi]
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (t[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// The bin of value `v` under `r` (-1: outside the histogram). `aux`: the 256-entry table
// (Table) or the bins + 1 thresholds (Edges).
template <BinMode M>
HS_HD int bin_of(std::uint32_t v, const BinRule& r, const std::int32_t* aux) {
    if constexpr (M == BinMode::Identity) {
        return static_cast<int>(v);
    } else if constexpr (M == BinMode::Table) {
        return aux[v];
    } else if constexpr (M == BinMode::Edges) {
        return edge_bin(static_cast<std::int32_t>(v), aux, r.bins);
    } else {
        const std::uint32_t d = v - r.lo;  // wraps above span below lo
        if (d >= r.span) return -1;
        if constexpr (M == BinMode::EvenShift) {
            return static_cast<int>((d + r.base) >> r.shift);
        } else if constexpr (M == BinMode::EvenDiv) {
            return static_cast<int>((d + r.base) / r.quot);
        } else if constexpr (M == BinMode::Even32) {
            return static_cast<int>((d + r.base) * static_cast<std::uint32_t>(r.bins) /
                                    static_cast<std::uint32_t>(r.width));
        } else {
            const auto off = static_cast<std::uint64_t>(static_cast<std::int64_t>(v) - r.lower);
            return static_cast<int>(off * static_cast<std::uint64_t>(r.bins) / r.width);
        }
    }
}

// Entries of the table the kernels of `mode` read (Table: 256, Edges: bins + 1, else none).
constexpr int bin_aux_entries(BinMode mode, int bins) {
    return mode == BinMode::Table ? 256 : mode == BinMode::Edges ? bins + 1 : 0;
}

}  // namespace hs::cuda::detail
