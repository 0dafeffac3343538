#include "histoscope/core/histogram.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <numeric>
#include <sstream>
#include <thread>

#include "histoscope/core/error.hpp"

namespace hs {

namespace {

constexpr std::int64_t kRangeLimit = std::int64_t{1} << 31;
constexpr double kEdgeLimit = static_cast<double>(std::int64_t{1} << 40);

// Reads the value of `channel` for every pixel of rows [y0, y1) and hands it to `sink`.
template <typename T, typename Sink>
void for_each_value(const ImageView& image, Channel channel, int y0, int y1, Sink&& sink) {
    const auto n = static_cast<std::size_t>(image.channels);
    const auto w = static_cast<std::size_t>(image.width);
    if (channel == Channel::Joint) {
        for (int y = y0; y < y1; ++y) {
            const T* p = reinterpret_cast<const T*>(image.row(y));
            for (std::size_t x = 0; x < w; ++x, p += n) sink(joint_value(p[0], p[1], p[2]));
        }
        return;
    }
    if (is_luma(channel) && image.channels > 1) {
        const LumaWeights wt = channel == Channel::Luma601 ? kLuma601 : kLuma709;
        for (int y = y0; y < y1; ++y) {
            const T* p = reinterpret_cast<const T*>(image.row(y));
            for (std::size_t x = 0; x < w; ++x, p += n) sink(luma(wt, p[0], p[1], p[2]));
        }
        return;
    }
    const auto offset = static_cast<std::size_t>(
        channel_offset(channel, image.channels) < 0 ? 0 : channel_offset(channel, image.channels));
    for (int y = y0; y < y1; ++y) {
        const T* p = reinterpret_cast<const T*>(image.row(y)) + offset;
        for (std::size_t x = 0; x < w; ++x, p += n) sink(static_cast<std::uint32_t>(*p));
    }
}

// Counts the plain channels `channels[plain[i]]` of rows [y0, y1) in one pass over the pixels:
// channel k's sample of an even column in its table at `base + 2 * slots * k`, of an odd column
// in the one after it, each at its bin + 1 by `lut` (slot 0: outside the histogram).
template <typename T, std::size_t K>
void count_plain(const ImageView& image, const std::size_t* offsets, std::uint64_t* const* even,
                 std::uint64_t* const* odd, int y0, int y1, const std::int32_t* lut) {
    const auto n = static_cast<std::size_t>(image.channels);
    const auto w = static_cast<std::size_t>(image.width);
    for (int y = y0; y < y1; ++y) {
        const T* p = reinterpret_cast<const T*>(image.row(y));
        std::size_t x = 0;
        for (; x + 1 < w; x += 2, p += 2 * n)
            for (std::size_t i = 0; i < K; ++i) {
                ++even[i][lut[p[offsets[i]]]];
                ++odd[i][lut[p[n + offsets[i]]]];
            }
        if (x < w)
            for (std::size_t i = 0; i < K; ++i) ++even[i][lut[p[offsets[i]]]];
    }
}

template <typename T>
void count_plain(const ImageView& image, const std::vector<Channel>& channels,
                 const std::vector<std::size_t>& plain, int y0, int y1, const std::int32_t* lut,
                 std::uint64_t* base, const std::vector<std::size_t>& first_table,
                 std::size_t slots) {
    // In groups of at most four (a pixel's samples), each group one pass.
    for (std::size_t first = 0; first < plain.size(); first += 4) {
        const std::size_t count = std::min<std::size_t>(4, plain.size() - first);
        std::size_t offsets[4];
        std::uint64_t* even[4];
        std::uint64_t* odd[4];
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t k = plain[first + i];
            offsets[i] =
                static_cast<std::size_t>(std::max(0, channel_offset(channels[k], image.channels)));
            even[i] = base + first_table[k];
            odd[i] = even[i] + slots;
        }
        switch (count) {
            case 1:
                count_plain<T, 1>(image, offsets, even, odd, y0, y1, lut);
                break;
            case 2:
                count_plain<T, 2>(image, offsets, even, odd, y0, y1, lut);
                break;
            case 3:
                count_plain<T, 3>(image, offsets, even, odd, y0, y1, lut);
                break;
            default:
                count_plain<T, 4>(image, offsets, even, odd, y0, y1, lut);
                break;
        }
    }
}

template <typename Sink>
void for_each_value(const ImageView& image, Channel channel, int y0, int y1, Sink&& sink) {
    require_integer_samples(image, "an integer channel value");
    if (image.type == SampleType::U8)
        for_each_value<std::uint8_t>(image, channel, y0, y1, sink);
    else
        for_each_value<std::uint16_t>(image, channel, y0, y1, sink);
}

// --- float samples

// The float value of `channel` for every pixel of rows [y0, y1), handed to `sink`. Luminance
// is luminance709()'s formula, written here so that the loop inlines it: this source is built
// without contraction, as channels.cpp is, so both give the same float.
template <typename Sink>
void for_each_float(const ImageView& image, Channel channel, int y0, int y1, Sink&& sink) {
    const auto n = static_cast<std::size_t>(image.channels);
    const auto w = static_cast<std::size_t>(image.width);
    if (is_luma(channel) && image.channels > 1) {
        for (int y = y0; y < y1; ++y) {
            const auto* p = reinterpret_cast<const float*>(image.row(y));
            for (std::size_t x = 0; x < w; ++x, p += n)
                sink((kLuminance709R * p[0] + kLuminance709G * p[1]) + kLuminance709B * p[2]);
        }
        return;
    }
    const auto offset =
        static_cast<std::size_t>(std::max(0, channel_offset(channel, image.channels)));
    for (int y = y0; y < y1; ++y) {
        const auto* p = reinterpret_cast<const float*>(image.row(y)) + offset;
        for (std::size_t x = 0; x < w; ++x, p += n) sink(*p);
    }
}

// log2(1 + i/256): with a float's exponent and the top 8 bits of its mantissa, log2 of the
// float less at most log2(1 + 1/256) = 0.0057.
const std::array<double, 256>& log2_of_mantissas() {
    static const std::array<double, 256> table = [] {
        std::array<double, 256> t{};
        for (std::size_t i = 0; i < t.size(); ++i)
            t[i] = std::log2(1.0 + static_cast<double>(i) / 256.0);
        return t;
    }();
    return table;
}

// The slot of a float value: 0 below range, 1 above, 2 non-finite, 3 + k bin k. FloatBins'
// edges decide (the definition is its bin_of()); a guess from the value (linear: its offset
// times bins per unit; stops: log2 read off the float's exponent and the top of its mantissa,
// within 0.006 of the truth) only says where the comparisons start, so that they rarely move.
class FloatSlots {
  public:
    explicit FloatSlots(const FloatBins& bins)
        : edges_(bins.edges().data()),
          last_(bins.bins() - 1),
          stops_(bins.scale() == FloatScale::Stops),
          first_(bins.edges().front()),
          end_(bins.edges().back()),
          log2_(log2_of_mantissas().data()) {
        if (stops_) {
            origin_ = bins.lo().value();
            per_unit_ = 1.0 / bins.step().value();
        } else {
            origin_ = static_cast<double>(first_);
            per_unit_ = static_cast<double>(bins.bins()) /
                        (static_cast<double>(end_) - static_cast<double>(first_));
        }
    }

    std::size_t operator()(float v) const {
        if (!std::isfinite(v)) return 2;
        if (v < first_) return 0;
        if (!(v < end_)) return 1;
        double position;
        if (stops_) {
            // v >= e_0 > 0: a positive float (a subnormal's guess is poor, and corrected).
            const std::uint32_t bits = std::bit_cast<std::uint32_t>(v);
            position = static_cast<double>(static_cast<int>(bits >> 23) - 127) +
                       log2_[(bits >> 15) & 0xFFu];
        } else {
            position = static_cast<double>(v);
        }
        const double guess = (position - origin_) * per_unit_;
        int k = guess <= 0.0 ? 0 : guess >= last_ ? last_ : static_cast<int>(guess);
        while (v < edges_[k]) --k;
        while (!(v < edges_[k + 1])) ++k;
        return static_cast<std::size_t>(k) + 3;
    }

  private:
    const float* edges_;
    int last_;
    bool stops_;
    float first_, end_;
    const double* log2_;
    double origin_ = 0.0, per_unit_ = 1.0;
};

// work(t, y0, y1) for bands t of the image's rows, one thread each (none beside the caller's
// for one band): the counting passes' split of an image among `threads`.
template <typename Work>
void run_row_bands(int height, unsigned threads, Work&& work) {
    const auto band = [&](unsigned t) {
        work(t, static_cast<int>(static_cast<std::int64_t>(height) * t / threads),
             static_cast<int>(static_cast<std::int64_t>(height) * (t + 1) / threads));
    };
    if (threads == 1) {
        band(0);
        return;
    }
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(band, t);
}

// Counts of every channel of float image rows [y0, y1) into `slots`-wide tables from `base`.
void count_floats(const ImageView& image, const std::vector<Channel>& channels,
                  const FloatSlots& slot, int y0, int y1, std::uint64_t* base, std::size_t slots) {
    for (std::size_t k = 0; k < channels.size(); ++k) {
        std::uint64_t* counts = base + k * slots;
        for_each_float(image, channels[k], y0, y1, [&](float v) { ++counts[slot(v)]; });
    }
}

std::vector<ChannelHistogram> float_histogram(const ImageView& image,
                                              const std::vector<Channel>& channels,
                                              const HistogramSpec& spec, unsigned threads) {
    const FloatSlots slot(*spec.float_bins);
    const auto slots = static_cast<std::size_t>(spec.bins) + 3;
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t per_thread = std::max<std::size_t>(std::size_t{1} << 16, 2 * slots);
    threads = static_cast<unsigned>(std::clamp<std::size_t>(
        image.pixel_count() / per_thread, 1,
        std::min<std::size_t>(threads, static_cast<std::size_t>(image.height))));
    std::vector<std::vector<std::uint64_t>> partial(
        threads, std::vector<std::uint64_t>(channels.size() * slots));
    run_row_bands(image.height, threads, [&](unsigned t, int y0, int y1) {
        count_floats(image, channels, slot, y0, y1, partial[t].data(), slots);
    });
    std::vector<ChannelHistogram> out;
    for (std::size_t k = 0; k < channels.size(); ++k) {
        ChannelHistogram h{channels[k],
                           std::vector<std::uint64_t>(static_cast<std::size_t>(spec.bins))};
        for (const auto& p : partial) {
            const std::uint64_t* c = p.data() + k * slots;
            h.below_range += c[0];
            h.above_range += c[1];
            h.non_finite += c[2];
            for (std::size_t b = 0; b < h.counts.size(); ++b) h.counts[b] += c[b + 3];
        }
        out.push_back(std::move(h));
    }
    apply_saturation(spec, out);
    return out;
}

}  // namespace

HistogramSpec HistogramSpec::even(int bins, std::int64_t lower, std::int64_t upper) {
    HistogramSpec s;
    s.bins = bins;
    s.lower = lower;
    s.upper = upper;
    return s;
}

HistogramSpec HistogramSpec::with_edges(std::vector<double> edges) {
    HistogramSpec s;
    s.bins = static_cast<int>(edges.size()) - 1;
    s.edges = std::move(edges);
    s.lower = 0;
    s.upper = 0;
    return s;
}

HistogramSpec HistogramSpec::floating(FloatBins bins) {
    HistogramSpec s;
    s.bins = bins.bins();
    s.lower = 0;
    s.upper = 0;
    s.float_bins = std::move(bins);
    return s;
}

HistogramSpec HistogramSpec::full_range(const ImageView& image, int bins) {
    require_integer_samples(image, "a histogram over the range of a bit depth");
    return even(bins, 0, std::int64_t{1} << image.bit_depth);
}

void HistogramSpec::validate_for(const ImageView& image) const {
    validate();
    if (is_float() && !hs::is_float(image.type))
        throw UsageError(
            "float bins (--stops, or a range of fractions) count float samples; "
            "this image has " +
            to_string(image.type) + " samples: give its bins as whole numbers");
    if (!is_float() && hs::is_float(image.type))
        throw UsageError(
            "float samples take float bins (--range LO:HI with --bins, or --stops "
            "LO:HI:STEP), not " +
            describe());
}

void HistogramSpec::validate() const {
    if (is_float()) {
        if (has_edges() || lower != 0 || upper != 0)
            throw UsageError("float bins take neither integer edges nor an integer range");
        if (bins != float_bins->bins())
            throw UsageError("bin count does not match the float bins' edges");
    } else if (has_edges()) {
        if (edges.size() < 2) throw UsageError("explicit bin edges need at least two values");
        if (edges.size() - 1 > static_cast<std::size_t>(kMaxBins))
            throw UsageError("too many bin edges (at most 2^24 bins)");
        for (std::size_t i = 0; i < edges.size(); ++i) {
            if (!std::isfinite(edges[i]) || std::fabs(edges[i]) > kEdgeLimit)
                throw UsageError("bin edge " + std::to_string(i) + " is not a finite number");
            if (i > 0 && !(edges[i] > edges[i - 1]))
                throw UsageError("bin edges must be strictly increasing (edge " +
                                 std::to_string(i) + ")");
        }
        if (bins != static_cast<int>(edges.size()) - 1)
            throw UsageError("bin count does not match the number of edges");
    } else {
        if (bins < 1 || bins > kMaxBins)
            throw UsageError("bins must be between 1 and 16777216, not " + std::to_string(bins));
        if (lower >= upper)
            throw UsageError("range lower bound must be below the upper bound (" +
                             std::to_string(lower) + ":" + std::to_string(upper) + ")");
        if (lower < -kRangeLimit || upper > kRangeLimit)
            throw UsageError("range bounds must lie within +-2^31");
    }
    if (saturate && *saturate == 0) throw UsageError("saturation cap must be at least 1");
}

std::vector<std::int64_t> HistogramSpec::thresholds() const {
    if (is_float()) throw UsageError("float bins have no integer thresholds");
    std::vector<std::int64_t> t(static_cast<std::size_t>(bins) + 1);
    if (has_edges()) {
        for (std::size_t i = 0; i < edges.size(); ++i)
            t[i] =
                static_cast<std::int64_t>(std::ceil(std::clamp(edges[i], -kEdgeLimit, kEdgeLimit)));
    } else {
        const std::int64_t width = upper - lower;
        for (std::size_t i = 0; i < t.size(); ++i) {
            const std::int64_t num = static_cast<std::int64_t>(i) * width;
            t[i] = lower + (num + bins - 1) / bins;
        }
    }
    return t;
}

std::string HistogramSpec::describe() const {
    std::ostringstream os;
    if (is_float())
        os << float_bins->describe();
    else if (has_edges())
        os << bins << " bins over " << edges.size() << " explicit edges [" << edges.front() << ", "
           << edges.back() << ")";
    else
        os << bins << " bins over [" << lower << ", " << upper << ")";
    if (saturate) os << ", saturating at " << *saturate;
    return os.str();
}

std::int32_t bin_of(const HistogramSpec& spec, std::int64_t value) {
    if (spec.is_float()) throw UsageError("float bins bin floats, not integer values");
    if (spec.has_edges()) {
        // Binary search on the edges themselves: v >= e_i <=> v >= ceil(e_i) for integer v.
        const auto v = static_cast<double>(value);
        if (v < spec.edges.front() || v >= spec.edges.back()) return -1;
        const auto it = std::upper_bound(spec.edges.begin(), spec.edges.end(), v);
        return static_cast<std::int32_t>(it - spec.edges.begin() - 1);
    }
    if (value < spec.lower || value >= spec.upper) return -1;
    return static_cast<std::int32_t>((value - spec.lower) * spec.bins / (spec.upper - spec.lower));
}

std::vector<std::int32_t> bin_table(const HistogramSpec& spec, std::uint32_t max_value) {
    std::vector<std::int32_t> table(static_cast<std::size_t>(max_value) + 1);
    for (std::uint32_t v = 0; v <= max_value; ++v) table[v] = bin_of(spec, v);
    return table;
}

std::optional<ShiftBins> shift_bins(const HistogramSpec& spec, std::uint32_t values) {
    if (spec.has_edges() || spec.is_float() || spec.bins < 1) return std::nullopt;
    const std::int64_t width = spec.upper - spec.lower;
    const std::int64_t bins = spec.bins;
    if (width <= 0 || width % bins != 0) return std::nullopt;
    const auto quot = static_cast<std::uint64_t>(width / bins);
    if (!std::has_single_bit(quot)) return std::nullopt;
    const std::int64_t lo = std::clamp<std::int64_t>(spec.lower, 0, values);
    const std::int64_t hi = std::clamp<std::int64_t>(spec.upper, 0, values);
    if (lo >= hi) return std::nullopt;
    // Engines compute v - lower in 32 bits: the largest counted one, hi - 1 - lower, must fit.
    if (hi - 1 - spec.lower > 0xFFFFFFFFll) return std::nullopt;
    ShiftBins s;
    s.lo = static_cast<std::uint32_t>(lo);
    s.hi = static_cast<std::uint32_t>(hi);
    s.base = static_cast<std::uint32_t>(lo - spec.lower);
    s.shift = std::countr_zero(quot);
    return s;
}

std::uint64_t ChannelHistogram::total() const {
    return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
}

void apply_saturation(const HistogramSpec& spec, std::vector<ChannelHistogram>& histograms) {
    if (!spec.saturate) return;
    for (auto& h : histograms)
        for (auto& c : h.counts) c = std::min(c, *spec.saturate);
}

std::vector<ChannelHistogram> reference_histogram(const ImageView& image,
                                                  const std::vector<Channel>& channels,
                                                  const HistogramSpec& spec, unsigned threads) {
    validate(image);
    spec.validate_for(image);
    if (channels.empty()) throw UsageError("no channel requested");
    for (Channel c : channels) check_channel(c, image.channels, image.type);
    if (is_float(image.type)) return float_histogram(image, channels, spec, threads);
    std::uint32_t max_value = 0;
    for (Channel c : channels) max_value = std::max(max_value, channel_max_value(c, image.type));

    // The table maps each possible value to its bin + 1; slot 0 collects the outside.
    std::vector<std::int32_t> table = bin_table(spec, max_value);
    for (auto& b : table) ++b;
    const auto slots = static_cast<std::size_t>(spec.bins) + 1;

    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t per_thread = std::max<std::size_t>(std::size_t{1} << 18, 2 * slots);
    threads = static_cast<unsigned>(std::clamp<std::size_t>(
        image.pixel_count() / per_thread, 1,
        std::min<std::size_t>(threads, static_cast<std::size_t>(image.height))));

    // The plain channels (a sample of each pixel) are counted in one pass over the pixels, so
    // that an interleaved image is read once for all of them, not once per channel: a frame
    // too large for the caches then costs one trip through memory. Every channel counts into
    // two tables, even columns in one and odd in the other, so that runs of equal values (flat
    // areas, clipped ends) do not wait on one counter's last increment. Luma and the joint
    // colour, computed from several samples, are counted a channel at a time, in one table.
    const std::size_t k_count = channels.size();
    std::vector<std::size_t> plain, computed;  // indices into `channels`
    for (std::size_t k = 0; k < k_count; ++k) {
        const Channel c = channels[k];
        (c != Channel::Joint && !(is_luma(c) && image.channels > 1) ? plain : computed)
            .push_back(k);
    }
    // partial[t]: for each plain channel its even table then its odd one, for each computed
    // channel one table (the joint colour's is 128 MiB: one is enough), from first_table[k].
    std::vector<std::size_t> first_table(k_count + 1, 0);
    for (std::size_t k = 0; k < k_count; ++k) {
        const bool two = std::find(plain.begin(), plain.end(), k) != plain.end();
        first_table[k + 1] = first_table[k] + (two ? 2 : 1) * slots;
    }
    std::vector<std::vector<std::uint64_t>> partial(
        threads, std::vector<std::uint64_t>(first_table[k_count]));
    run_row_bands(image.height, threads, [&](unsigned t, int y0, int y1) {
        std::uint64_t* base = partial[t].data();
        const std::int32_t* lut = table.data();
        if (!plain.empty()) {
            if (image.type == SampleType::U8)
                count_plain<std::uint8_t>(image, channels, plain, y0, y1, lut, base, first_table,
                                          slots);
            else
                count_plain<std::uint16_t>(image, channels, plain, y0, y1, lut, base, first_table,
                                           slots);
        }
        for (const std::size_t k : computed) {
            std::uint64_t* counts = base + first_table[k];
            for_each_value(image, channels[k], y0, y1, [&](std::uint32_t v) { ++counts[lut[v]]; });
        }
    });
    std::vector<ChannelHistogram> out;
    for (std::size_t k = 0; k < k_count; ++k) {
        ChannelHistogram h{channels[k],
                           std::vector<std::uint64_t>(static_cast<std::size_t>(spec.bins))};
        for (const auto& p : partial)
            for (std::size_t at = first_table[k]; at < first_table[k + 1]; at += slots)
                for (std::size_t b = 0; b < h.counts.size(); ++b) h.counts[b] += p[at + b + 1];
        out.push_back(std::move(h));
    }
    apply_saturation(spec, out);
    return out;
}

std::vector<std::uint32_t> channel_values(const ImageView& image, Channel channel) {
    validate(image);
    check_channel(channel, image.channels, image.type);
    std::vector<std::uint32_t> values;
    values.reserve(image.pixel_count());
    for_each_value(image, channel, 0, image.height, [&](std::uint32_t v) { values.push_back(v); });
    return values;
}

std::vector<float> float_channel_values(const ImageView& image, Channel channel) {
    validate(image);
    if (!is_float(image.type))
        throw UsageError("float values are read from float samples, not " + to_string(image.type) +
                         " ones");
    check_channel(channel, image.channels, image.type);
    std::vector<float> values;
    values.reserve(image.pixel_count());
    for_each_float(image, channel, 0, image.height, [&](float v) { values.push_back(v); });
    return values;
}

float float_channel_value(const ImageView& image, Channel channel, int x, int y) {
    if (!is_float(image.type))
        throw UsageError("float values are read from float samples, not " + to_string(image.type) +
                         " ones");
    check_channel(channel, image.channels, image.type);
    if (is_luma(channel) && image.channels > 1)
        return luminance709(image.sample_f32(x, y, 0), image.sample_f32(x, y, 1),
                            image.sample_f32(x, y, 2));
    return image.sample_f32(x, y, std::max(0, channel_offset(channel, image.channels)));
}

std::uint32_t channel_value(const ImageView& image, Channel channel, int x, int y) {
    if (channel == Channel::Joint)
        return joint_value(image.sample(x, y, 0), image.sample(x, y, 1), image.sample(x, y, 2));
    if (is_luma(channel) && image.channels > 1)
        return luma(channel == Channel::Luma709 ? kLuma709 : kLuma601, image.sample(x, y, 0),
                    image.sample(x, y, 1), image.sample(x, y, 2));
    return image.sample(x, y, std::max(0, channel_offset(channel, image.channels)));
}

}  // namespace hs
