#pragma once
// Histogram specifications and the exact CPU reference.
//
// Even bins: `bins` equal bins over the integer range [lower, upper) (upper excluded, as in
// CUB). A sample v with lower <= v < upper falls into bin floor((v - lower) * bins /
// (upper - lower)), computed in 64-bit integers, so no rounding can move a sample.
// Explicit edges e0 < e1 < ... < eN (any widths, N = bins): v falls into bin i when
// e_i <= v < e_{i+1}. Samples are integers, so each edge acts as the integer threshold
// ceil(e_i); the bin is found by binary search over those thresholds.
// Saturation: with a cap, every count is min(count, cap).
// Float samples (SampleType::F32) take float bins instead (float_bins.hpp): a linear range or
// stops, whose fp32 edges decide every bin; the samples outside them are counted apart, as
// below range, above range or non-finite. Integer samples never take float bins, nor float
// samples integer ones.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "histoscope/core/channels.hpp"
#include "histoscope/core/float_bins.hpp"
#include "histoscope/core/image.hpp"

namespace hs {

inline constexpr int kMaxBins = 1 << 24;

struct HistogramSpec {
    int bins = 256;
    std::int64_t lower = 0;
    std::int64_t upper = 256;
    std::vector<double> edges;  // when not empty: explicit edges, bins == edges.size() - 1
    std::optional<std::uint64_t> saturate;
    // Float bins (of float samples only): bins == float_bins->bins(); lower, upper and edges
    // unused.
    std::optional<FloatBins> float_bins;

    static HistogramSpec even(int bins, std::int64_t lower, std::int64_t upper);
    static HistogramSpec with_edges(std::vector<double> edges);
    static HistogramSpec floating(FloatBins bins);
    // `bins` even bins over the full range of the image's declared depth, [0, 2^depth);
    // UsageError for float samples, which have no such range.
    static HistogramSpec full_range(const ImageView& image, int bins = 256);

    bool has_edges() const { return !edges.empty(); }
    bool is_float() const { return float_bins.has_value(); }
    // Throws UsageError naming the problem (bins out of 1..2^24, empty range, edges not
    // strictly increasing or fewer than two, cap of zero, float bins with integer fields).
    void validate() const;
    // validate(), and UsageError unless the spec's kind fits the image's samples: float bins
    // for float samples, integer bins for integer samples.
    void validate_for(const ImageView& image) const;
    // Integer thresholds t_i = ceil(e_i) clamped to [-2^40, 2^40]; for even bins, the
    // thresholds lower + ceil(i * (upper - lower) / bins). UsageError for float bins.
    std::vector<std::int64_t> thresholds() const;
    std::string describe() const;
    friend bool operator==(const HistogramSpec&, const HistogramSpec&) = default;
};

// Bin of `value` under `spec`, or -1 when the value is outside the histogram. UsageError for
// float bins (FloatBins::bin_of() bins a float).
std::int32_t bin_of(const HistogramSpec& spec, std::int64_t value);

// Bin of every value 0..max_value (-1 = outside). Engines use it as a lookup table.
std::vector<std::int32_t> bin_table(const HistogramSpec& spec, std::uint32_t max_value);

// Even bins whose width (upper - lower) / bins is a power of two, as the integer rule engines
// can use without a division: over values in [0, values), v falls into bin (v - lo + base) >>
// shift when lo <= v < hi (the range clipped to the values, base = lo - lower), as bin_of()
// says. None for explicit edges, float bins, other widths, or a range that misses [0, values)
// entirely.
struct ShiftBins {
    std::uint32_t lo = 0, hi = 0;
    std::uint32_t base = 0;
    int shift = 0;
};
std::optional<ShiftBins> shift_bins(const HistogramSpec& spec, std::uint32_t values);

struct ChannelHistogram {
    Channel channel = Channel::Gray;
    std::vector<std::uint64_t> counts;
    // Float bins only (0 for integer samples, whose statistics count what lies outside): the
    // samples in no bin, below e_0, at or above e_N, and NaN or infinite. Never capped by
    // saturation.
    std::uint64_t below_range = 0;
    std::uint64_t above_range = 0;
    std::uint64_t non_finite = 0;

    std::uint64_t total() const;  // of the bins
    friend bool operator==(const ChannelHistogram&, const ChannelHistogram&) = default;
};

// Exact reference: 64-bit counts, rows split over `threads` threads (0 = hardware
// concurrency; small images run on one thread). Validates the image, channels and spec (float
// bins for float samples, integer bins for integer ones).
std::vector<ChannelHistogram> reference_histogram(const ImageView& image,
                                                  const std::vector<Channel>& channels,
                                                  const HistogramSpec& spec, unsigned threads = 0);

// Applies the spec's saturation cap in place.
void apply_saturation(const HistogramSpec& spec, std::vector<ChannelHistogram>& histograms);

// Values of one channel (luma computed per pixel) for every pixel, in row order. UsageError for
// float samples (float_channel_values()).
std::vector<std::uint32_t> channel_values(const ImageView& image, Channel channel);
// The value of one channel of pixel (x, y), as channel_values() gives it (no checks: for
// engines that sample a validated request's image of integer samples).
std::uint32_t channel_value(const ImageView& image, Channel channel, int x, int y);
// The float values of one channel of a float image (luma709: the luminance of channels.hpp)
// for every pixel, in row order, and of pixel (x, y). UsageError for integer samples or a
// channel a float image does not have.
std::vector<float> float_channel_values(const ImageView& image, Channel channel);
float float_channel_value(const ImageView& image, Channel channel, int x, int y);

}  // namespace hs
