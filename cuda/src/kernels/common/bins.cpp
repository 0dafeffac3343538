#include "kernels/common/bins.cuh"

#include <algorithm>
#include <bit>
#include <string>

#include "histoscope/core/error.hpp"

namespace hs::cuda::detail {

BinRule bin_rule(const HistogramSpec& spec, std::uint32_t values, BinModes modes, const char* who) {
    const auto has = [&](BinMode m) { return (modes & bin_mode_bit(m)) != 0; };
    BinRule r;
    r.bins = spec.bins;
    if (values <= 256 && has(BinMode::Table)) {
        r.mode = BinMode::Table;
        return r;
    }
    if (spec.has_edges()) {
        if (!has(BinMode::Edges))
            throw UnsupportedError(std::string(who) + " does not count explicit bin edges");
        r.mode = BinMode::Edges;
        return r;
    }
    const std::int64_t lo = std::clamp<std::int64_t>(spec.lower, 0, values);
    const std::int64_t hi = std::clamp<std::int64_t>(spec.upper, 0, values);
    r.lo = static_cast<std::uint32_t>(lo);
    r.span = static_cast<std::uint32_t>(std::max<std::int64_t>(0, hi - lo));
    // lower >= -2^31 (validate()) and lo < 2^24: base and every d + base fit in 32 bits.
    r.base = static_cast<std::uint32_t>(lo - spec.lower);
    r.lower = spec.lower;
    r.width = static_cast<std::uint64_t>(spec.upper - spec.lower);
    const auto bins = static_cast<std::uint64_t>(spec.bins);
    const std::uint64_t quot = r.width / bins;
    if (r.width % bins == 0 && quot <= 0xFFFFFFFFull) {
        if (std::has_single_bit(quot) && has(BinMode::EvenShift)) {
            r.mode = BinMode::EvenShift;
            r.shift = std::countr_zero(quot);
            return r;
        }
        if (has(BinMode::EvenDiv)) {
            r.mode = BinMode::EvenDiv;
            r.quot = static_cast<std::uint32_t>(quot);
            return r;
        }
    }
    // The largest product (d + base) * bins is (hi - 1 - lower) * bins; nothing is counted when
    // span is 0.
    const std::uint64_t max_off = r.span == 0 ? 0 : static_cast<std::uint64_t>(hi - 1 - spec.lower);
    if (has(BinMode::Even32) && r.width <= 0xFFFFFFFFull && max_off * bins <= 0xFFFFFFFFull) {
        r.mode = BinMode::Even32;
        return r;
    }
    if (has(BinMode::Even64)) {
        r.mode = BinMode::Even64;
        return r;
    }
    throw UnsupportedError(std::string(who) + " cannot count " + spec.describe() +
                           " exactly with its bin arithmetic");
}

std::vector<std::int32_t> edge_thresholds(const HistogramSpec& spec) {
    constexpr std::int64_t kTop = std::int64_t{1} << 24;
    std::vector<std::int32_t> t;
    for (const std::int64_t x : spec.thresholds())
        t.push_back(static_cast<std::int32_t>(std::clamp<std::int64_t>(x, -1, kTop)));
    return t;
}

}  // namespace hs::cuda::detail
