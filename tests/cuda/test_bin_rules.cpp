// The bin rules every GPU strategy shares (kernels/common/bins.cuh), run on the host (CudaHost.*,
// label cpu): for each set of modes a strategy serves, the rule bin_rule() picks bins every value
// a channel can take exactly as core's hs::bin_of does.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "histoscope/core/error.hpp"
#include "histoscope/core/histogram.hpp"
#include "kernels/common/bins.cuh"
#include "kernels/global_atomic.cuh"
#include "kernels/lane_private.cuh"

using namespace hs;
using namespace hs::cuda::detail;

namespace {

int rule_bin(const BinRule& r, std::uint32_t v, const std::vector<std::int32_t>& aux) {
    switch (r.mode) {
        case BinMode::Identity:
            return bin_of<BinMode::Identity>(v, r, aux.data());
        case BinMode::Table:
            return bin_of<BinMode::Table>(v, r, aux.data());
        case BinMode::EvenShift:
            return bin_of<BinMode::EvenShift>(v, r, aux.data());
        case BinMode::EvenDiv:
            return bin_of<BinMode::EvenDiv>(v, r, aux.data());
        case BinMode::Even32:
            return bin_of<BinMode::Even32>(v, r, aux.data());
        case BinMode::Even64:
            return bin_of<BinMode::Even64>(v, r, aux.data());
        case BinMode::Edges:
            return bin_of<BinMode::Edges>(v, r, aux.data());
    }
    return -2;
}

// Every value below `values` (or a spread of them above 2^16), under every mode set that serves
// the spec, against hs::bin_of. Returns the modes seen.
BinModes expect_exact(const HistogramSpec& spec, std::uint32_t values) {
    const BinModes sets[] = {kTableModes,
                             kWideModes,
                             kGlobalAtomicBinModes,
                             kLanePrivateModes8,
                             kLanePrivateModesWide,
                             kAllBinModes,
                             bin_mode_bit(BinMode::EvenDiv) | bin_mode_bit(BinMode::Edges),
                             bin_mode_bit(BinMode::Even32) | bin_mode_bit(BinMode::Edges)};
    BinModes seen = 0;
    for (const BinModes modes : sets) {
        BinRule r;
        try {
            r = bin_rule(spec, values, modes, "test");
        } catch (const UnsupportedError&) {
            continue;  // e.g. lane-private's shift for a width that is no power of two
        }
        seen |= bin_mode_bit(r.mode);
        const std::vector<std::int32_t> aux = r.mode == BinMode::Table ? bin_table(spec, 255)
                                              : r.mode == BinMode::Edges
                                                  ? edge_thresholds(spec)
                                                  : std::vector<std::int32_t>{};
        const std::uint32_t step = values > 65536 ? 4099 : 1;
        for (std::uint32_t v = 0; v < values; v += step) {
            const int got = rule_bin(r, v, aux);
            const int want = bin_of(spec, v);
            if (got != want) {
                ADD_FAILURE() << spec.describe() << " value " << v << ": mode "
                              << static_cast<int>(r.mode) << " gives " << got << ", core " << want;
                return seen;
            }
        }
    }
    return seen;
}

TEST(CudaHost, BinRulesAreCoresRuleForEveryValue) {
    BinModes seen = 0;
    // Full ranges, powers of two and odd widths, shifted and clipped ranges, negative lower
    // bounds, ranges beyond the values, one bin, many bins.
    for (const std::uint32_t values : {256u, 65536u}) {
        for (const int bins : {1, 2, 3, 7, 64, 100, 256, 1000, 1024, 4096, 65536}) {
            for (const auto& [lo, hi] : std::vector<std::pair<std::int64_t, std::int64_t>>{
                     {0, 256},
                     {0, 65536},
                     {10, 250},
                     {-100, 300},
                     {0, 65535},
                     {-(std::int64_t{1} << 31), std::int64_t{1} << 31},
                     {1000, 1001 + 4 * 4096},
                     {300, 5000},
                     {70000, 80000}}) {
                if (hi - lo < bins) continue;
                seen |= expect_exact(HistogramSpec::even(bins, lo, hi), values);
            }
        }
        seen |= expect_exact(HistogramSpec::with_edges({0, 1, 1.5, 7, 200, 255.5, 256}), values);
        seen |= expect_exact(HistogramSpec::with_edges({-5, 3, 9000, 60000, 65535}), values);
    }
    // Joint colours: values below 2^24.
    seen |= expect_exact(HistogramSpec::even(1 << 24, 0, 1 << 24), 1u << 24);
    seen |= expect_exact(HistogramSpec::even(1000, 0, 1 << 24), 1u << 24);
    seen |= expect_exact(HistogramSpec::even(3, -7, 1 << 24), 1u << 24);
    // Every mode but Identity (which lane-private picks itself) came up.
    EXPECT_EQ(seen, kAllBinModes);
}

TEST(CudaHost, BinRuleRefusesWhatItsModesCannotCount) {
    EXPECT_THROW(bin_rule(HistogramSpec::even(1000, 0, 65536), 65536, kLanePrivateModesWide,
                          "engine 'lane-private'"),
                 UnsupportedError);
    EXPECT_THROW(bin_rule(HistogramSpec::with_edges({0, 10, 20}), 65536, kLanePrivateModesWide,
                          "engine 'lane-private'"),
                 UnsupportedError);
    EXPECT_EQ(
        bin_rule(HistogramSpec::even(1024, 0, 65536), 65536, kLanePrivateModesWide, "x").shift, 6);
}

}  // namespace
