// The "opencv" engine: cv::calcHist on the CPU, held to the same exactness as every engine.
//
// Counts. calcHist counts in int and returns float, which is exact only up to 2^24. The image
// is processed in tiles of at most 2^24 pixels (calcHist with accumulate=false per tile), so
// every float count is at most 2^24 and exact, and the tiles are summed in 64-bit integers:
// the counts are exact for any image size.
//
// Even bins. OpenCV 4.x (modules/imgproc/src/histogram.cpp: histPrepareImages, calcHist_ and
// calcHistLookupTables_8u) receives the range as floats lo, hi and, in double precision,
//     a = bins / (hi - lo),   b = -a * lo,   bin = clamp(floor(v * a + b), 0, bins - 1)
// for each sample with lo <= v < hi (that range test compares v with lo and hi exactly). The
// reference bin is floor((v - lo) * bins / (hi - lo)) in integers. Rounding can move a sample
// only where the exact quotient is an integer k (v on an inner bin edge) and the computed value
// lands just below k: with 2 bins over [0, 98), a = fl(1/49) is rounded down and v = 49 lands
// in bin 0 instead of 1. An even-bin request is accepted only when one of these holds, with
// W = hi - lo, g = gcd(bins, W), bins <= 65536 and |lo|, |hi| <= 2^31:
//  (A) W / g is a power of two, 2^s. Then a = (bins / g) / 2^s with a numerator below 2^17;
//      a, a * lo, v * a and v * a + b are all multiples of 2^-s smaller than 2^53 * 2^-s, so
//      every operation is exact (with or without FMA contraction) and floor is the exact bin.
//  (B) lo == 0 and the double a = fl(bins / W) is not below bins / W (it was rounded up or is
//      exact; tested exactly with fma(a, W, -bins) >= 0). Then b = -0, v * a >= k and
//      round-to-nearest is monotone with k representable, so the computed value never falls
//      below k; nor does it reach k + 1: a non-integer quotient v * bins / W lies at least
//      1/W >= 2^-31 below k + 1, while two roundings move it by less than 2^-52 * bins <= 2^-36.
// Both also need lo and hi to be exact floats (always true for |x| <= 2^24). Other requests on
// 8-bit images are passed as explicit edges instead: their integer thresholds
// lo + ceil(i * W / bins), which are exactly the reference's bins; calcHist bins 8-bit samples
// through a 256-entry table in either mode, so this costs nothing. That needs strictly
// increasing thresholds (bins <= W) that are exact floats (|lo|, |hi| <= 2^24). On 16-bit
// images edges would mean a linear search per sample, so the remaining requests are refused
// through extra_unsupported_reason(). tests/media/test_opencv_engine.cpp checks all this
// against cv::calcHist on ramps holding every 8-bit and many 16-bit values: no accepted
// request may differ from the reference, and the refused ones include requests where
// calcHist's uniform mode really differs.
//
// Explicit edges use calcHist's non-uniform mode with float edges: 16-bit samples are compared
// with the edges (v >= e, exact for integer v), 8-bit samples go through a table built from
// cvCeil(e), which returns int. Both equal the reference's rule (e_i <= v < e_i+1) when every
// edge converts to float exactly and |e| < 2^31; other edges are refused.
//
// Channels: calcHist reads the requested channel in place (its `channels` argument), so no
// plane is copied. Luma on a colour image is cv::cvtColor(RGB2GRAY / RGBA2GRAY), whose
// fixed-point Rec.601 equals hs::luma(kLuma601, ...); OpenCV has no Rec.709 conversion, so
// luma709 on colour images is refused. On a one-channel image every channel is the gray plane.

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <numeric>
#include <sstream>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/timing.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media {

namespace {

constexpr int kOpenCvMaxBins = 1 << 16;
constexpr std::int64_t kTilePixels = std::int64_t{1} << 24;  // float counts stay exact
constexpr double kEdgeLimit = 2147483648.0;                  // cvCeil returns int

bool exact_float(double x) {
    return static_cast<double>(static_cast<float>(x)) == x;
}

std::string number(double x) {
    std::ostringstream os;
    os.precision(17);
    os << x;
    return os.str();
}

// How cv::calcHist is called for a spec: uniform with [lower, upper), or non-uniform with
// float edges; `refusal` is set instead when no exact call exists.
struct Plan {
    std::string refusal;
    bool uniform = true;
    std::vector<float> ranges;
};

// Rules (A) and (B) above.
bool uniform_is_exact(const HistogramSpec& s) {
    const std::int64_t width = s.upper - s.lower;
    const std::int64_t reduced = width / std::gcd(std::int64_t{s.bins}, width);
    if (std::has_single_bit(static_cast<std::uint64_t>(reduced))) return true;  // (A)
    if (s.lower != 0) return false;
    const auto w = static_cast<double>(width);  // (B)
    const auto bins = static_cast<double>(s.bins);
    return std::fma(bins / w, w, -bins) >= 0.0;
}

Plan plan(const HistogramSpec& s, SampleType type) {
    const std::string who = "engine 'opencv' ";
    Plan p;
    if (s.has_edges()) {
        for (std::size_t i = 0; i < s.edges.size(); ++i) {
            const double e = s.edges[i];
            if (!(std::fabs(e) < kEdgeLimit)) {
                p.refusal = who + "cannot use bin edge " + std::to_string(i) + " (" + number(e) +
                            "): cv::calcHist needs edges within +-2^31";
                return p;
            }
            if (!exact_float(e)) {
                p.refusal = who + "cannot use bin edge " + std::to_string(i) + " (" + number(e) +
                            "): cv::calcHist takes float edges and this value is not exactly a "
                            "float";
                return p;
            }
            p.ranges.push_back(static_cast<float>(e));
        }
        p.uniform = false;
        return p;
    }
    if (s.bins < 1 || s.upper <= s.lower) return p;  // invalid: compute() reports it
    const bool exact_bounds =
        exact_float(static_cast<double>(s.lower)) && exact_float(static_cast<double>(s.upper));
    if (exact_bounds && uniform_is_exact(s)) {
        p.ranges = {static_cast<float>(s.lower), static_cast<float>(s.upper)};
        return p;
    }
    // 8-bit samples: calcHist builds a 256-entry table in both modes, so the even bins can be
    // handed over, at no cost, as their integer thresholds lower + ceil(i * width / bins)
    // (exactly the reference's bins). They must be strictly increasing (bins <= width) and
    // exact floats (|bounds| <= 2^24).
    constexpr std::int64_t kExactInt = std::int64_t{1} << 24;
    if (type == SampleType::U8 && s.bins <= s.upper - s.lower && s.lower >= -kExactInt &&
        s.upper <= kExactInt) {
        for (std::int64_t t : s.thresholds()) p.ranges.push_back(static_cast<float>(t));
        p.uniform = false;
        return p;
    }
    p.refusal = who + "cannot bin [" + std::to_string(s.lower) + ", " + std::to_string(s.upper) +
                ") into " + std::to_string(s.bins) +
                " even bins exactly: cv::calcHist computes bins in double precision, exact "
                "only when (upper - lower) / gcd(bins, upper - lower) is a power of two, or when "
                "lower is 0 and bins / upper rounds up, with both bounds exact floats (use "
                "another engine or explicit edges)";
    return p;
}

class OpenCvEngine final : public HistogramEngine {
  public:
    std::string_view name() const override { return "opencv"; }
    std::string_view description() const override { return "OpenCV cv::calcHist (CPU)"; }
    Capabilities capabilities() const override {
        Capabilities caps;
        caps.joint = false;
        caps.max_bins = kOpenCvMaxBins;
        return caps;
    }

  protected:
    std::string extra_unsupported_reason(const HistogramRequest& r) const override {
        for (Channel c : r.channels)
            if (c == Channel::Luma709 && r.image.channels > 1)
                return "engine 'opencv' has no Rec.709 luma: cv::cvtColor(RGB2GRAY) computes "
                       "Rec.601 only (use channel luma, or another engine)";
        return plan(r.spec, r.image.type).refusal;
    }

    HistogramResult run(const HistogramRequest& r) override {
        const ImageView& im = r.image;
        const int depth = im.type == SampleType::U8 ? CV_8U : CV_16U;
        const cv::Mat whole(im.height, im.width, CV_MAKETYPE(depth, im.channels),
                            const_cast<std::byte*>(im.data), im.stride);

        const HistogramSpec& s = r.spec;
        const Plan p = plan(s, im.type);
        const float* ranges[] = {p.ranges.data()};
        const bool uniform = p.uniform;
        const int bins = s.bins;

        const int tile_w = static_cast<int>(std::min<std::int64_t>(im.width, kTilePixels));
        const int tile_h =
            static_cast<int>(std::clamp<std::int64_t>(kTilePixels / tile_w, 1, im.height));

        HistogramResult result;
        double luma_ms = 0.0, hist_ms = 0.0;
        cv::Mat gray, hist;
        for (Channel c : r.channels) {
            const bool convert = is_luma(c) && im.channels > 1;
            const int channel = convert ? 0 : channel_offset(c, im.channels);
            ChannelHistogram h{c, std::vector<std::uint64_t>(static_cast<std::size_t>(bins))};
            for (int y = 0; y < im.height; y += tile_h) {
                for (int x = 0; x < im.width; x += tile_w) {
                    cv::Mat tile = whole(cv::Rect(x, y, std::min(tile_w, im.width - x),
                                                  std::min(tile_h, im.height - y)));
                    if (convert) {
                        const auto start = std::chrono::steady_clock::now();
                        cv::cvtColor(tile, gray,
                                     im.channels == 4 ? cv::COLOR_RGBA2GRAY : cv::COLOR_RGB2GRAY);
                        tile = gray;
                        luma_ms += ms_since(start);
                    }
                    const auto start = std::chrono::steady_clock::now();
                    cv::calcHist(&tile, 1, &channel, cv::noArray(), hist, 1, &bins, ranges, uniform,
                                 false);
                    const float* counts = hist.ptr<float>();
                    for (std::size_t b = 0; b < h.counts.size(); ++b)
                        h.counts[b] += static_cast<std::uint64_t>(counts[b]);
                    hist_ms += ms_since(start);
                }
            }
            result.channels.push_back(std::move(h));
        }
        if (luma_ms > 0.0) result.stages.push_back({"luma", luma_ms});
        result.stages.push_back({"histogram", hist_ms});
        return result;
    }
};

}  // namespace

void register_engines(EngineRegistry& registry) {
    registry.add(std::make_unique<OpenCvEngine>());
}

}  // namespace hs::media
