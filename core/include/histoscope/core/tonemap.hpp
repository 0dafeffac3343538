#pragma once
// Tone mapping of float (HDR) images to 8 or 16 bits: "equalization" of a float image, by
// histogram adjustment in log luminance after G. Ward Larson, H. Rushmeier and C. Piatko, "A
// Visibility Matching Tone Reproduction Operator for High Dynamic Range Scenes", IEEE TVCG 3(4),
// 1997, with its linear ceiling (section 4.3; not the human contrast-sensitivity ceiling of
// 4.4, which needs absolute luminances that files rarely carry, nor the foveal reduction of
// 4.1: the histogram counts every pixel). All arithmetic is in double precision.
//
// 1. World luminance Lw of each pixel: luma709 of linear R, G, B (channels.hpp: the Rec.709
//    luminance in fp32), the sample itself for gray images. Pixels whose Lw is not finite or
//    not above 0 have no log luminance: they are shown black (alpha kept) and counted.
// 2. Histogram of Bw = log10(Lw) over the other pixels: `bins` bins (default 100, as the
//    paper) over [Bmin, Bmax], the smallest and largest Bw; bin i = min(bins - 1,
//    floor((Bw - Bmin) / (Bmax - Bmin) * bins)). Bin width db = (Bmax - Bmin) / bins.
// 3. Linear ceiling, iterated as in the paper: with T the histogram's total, no bin may exceed
//      ceiling = T * db / (log10(Ldmax) - log10(Ldmin)),
//    the count at which the mapping's slope would exceed a linear mapping's (contrast
//    exaggerated). Repeat { T = sum of the counts; if T < 2.5% of the pixels counted: stop,
//    LINEAR; trim every bin above the ceiling to it, summing what was cut } until what was cut
//    is at most 2.5% of the pixels counted. A scene whose range fits the display's,
//    Bmax - Bmin <= log10(Ldmax / Ldmin) (one luminance included), is LINEAR at once: the loop
//    would mostly end there too (each pass cuts the total by the ratio of the ranges), but its
//    tolerance, a share of the first total, can let a histogram trimmed to almost nothing
//    through, and a linear mapping is what the ceiling asks for whenever it fits.
// 4. Mapping: with the adjusted counts f and their total T, the cumulative share of Bw,
//      P(Bw) = (f_0 + ... + f_(i-1) + (t - i) f_i) / T,   t = (Bw - Bmin) / db, i = min(floor(t),
//      bins - 1)
//    (linear within the bin), and the display luminance
//      Bd = log10(Ldmin) + (log10(Ldmax) - log10(Ldmin)) P(Bw),   Ld = 10^Bd.
//    LINEAR instead: Ld = Lw * Ldmax / Lwmax (the brightest pixel at the display's maximum).
//    The display's range Ldmax / Ldmin is `display_contrast` (default 100, the paper's
//    1..100 cd/m2); only the ratio matters.
// 5. Colour: every colour channel c (R, G, B, or gray) is scaled by the same factor, so that
//    its ratios to the others are kept: c_d = c * (Ld / Lw) / Ldmax, a share of the display's
//    maximum; then clamped to [0, 1] (a channel above 1, a colour brighter than the display in
//    one primary, or below 0, out of gamut, is counted as clipped).
// 6. Output: the sRGB encoding v = 12.92 c_d for c_d <= 0.0031308, else
//    1.055 c_d^(1/2.4) - 0.055, quantized to round(v * (2^depth - 1)) (half away from zero),
//    depth 8 or 16. Alpha (linear coverage) is clamped to [0, 1] and quantized alike, without
//    the encoding. The output has the input's size and channels.

#include <cstdint>
#include <string>
#include <vector>

#include "histoscope/core/image.hpp"

namespace hs {

struct ToneMapSpec {
    int bins = 100;                 // of the log-luminance histogram, 2..65536
    double display_contrast = 100;  // Ldmax / Ldmin, > 1 and at most 1e6
    int output_depth = 16;          // 8 or 16
    // Throws UsageError naming the first problem.
    void validate() const;
};

struct ToneMapResult {
    Image image;          // U8 (depth 8) or U16 (depth 16), the input's size and channels
    bool linear = false;  // the linear mapping of 4 (the scene fits the display)
    int iterations = 0;   // of the ceiling loop
    double log_min = 0.0, log_max = 0.0;  // Bmin, Bmax (0 when no pixel has a luminance)
    std::vector<double> histogram;        // the adjusted counts f of 3
    std::uint64_t black_pixels = 0;       // no finite luminance above 0 (shown black)
    std::uint64_t clipped_samples = 0;    // colour samples clamped by 5
    struct Stage {
        std::string name;
        double ms = 0.0;
    };
    std::vector<Stage> stages;  // "histogram", "ceiling", "apply" (host clock)
};

// The whole of 1..6 for a float image (UsageError for integer samples or a bad spec).
ToneMapResult tone_map(const ImageView& image, const ToneMapSpec& spec = {});

// The adjusted histogram and whether the mapping is linear (3), from the counts of 2 over bins
// of `bin_width` (their range counts.size() * bin_width): what tone_map() runs, for tests.
struct CeilingResult {
    std::vector<double> counts;
    bool linear = false;
    int iterations = 0;
};
CeilingResult histogram_ceiling(const std::vector<std::uint64_t>& counts, double bin_width,
                                double display_contrast);

// The sRGB encoding of 6 for a linear value in [0, 1].
double srgb_encode(double linear);

}  // namespace hs
