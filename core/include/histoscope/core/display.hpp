#pragma once
// Pictures for viewing a frame, the exact reference every engine that makes them must match
// (the GPU frame pipeline makes them on the device): a copy reduced by a whole factor, 8 bits
// per sample over a display range, and the clipping mask. None of them feeds a histogram, a
// statistic or a saved file.
//
// Reduction by factor f: output pixel (X, Y) stands for the block of input pixels
// [X*f, min(W, X*f+f)) x [Y*f, min(H, Y*f+f)) (blocks at the right and bottom edges may be
// smaller); each of its samples is the rounded mean (sum + n/2) / n of the block's n samples
// (integer division), alpha included. The output is ceil(W/f) x ceil(H/f).
//
// Display range [lo, hi]: a colour sample v (clamped to the depth's largest code value first)
// is shown as (clamp(v, lo, hi) - lo) * 255 + span/2) / span with span = max(hi - lo, 1)
// (integer division); alpha a is shown as (min(a, M) * 255 + M/2) / M with M the largest code
// value. 8-bit frames over the full range are shown as they are.
//
// Stretched range (ImageJ's auto contrast), for deep frames (16-bit samples): from the
// nearest-rank percentile 0.1 to percentile 99.9 (stats.hpp) of the colour samples (R, G, B or
// gray; alpha aside) of the full-resolution frame; when that is narrower than 256 code values,
// hi = min(M, lo + 255) and then lo = hi - 255 (or 0 when hi < 255). 8-bit frames: the full
// range.
//
// Clipping mask at factor f: one byte per output pixel: kClippedHigh where a pixel of its
// block has a counted channel at the largest code value M, else kClippedLow where one is at 0,
// else 0. `channels` bit c counts channel c (0 = R or gray, 1 = G, 2 = B); alpha never counts
// and gray frames count bit 0 only.
//
// Float frames (linear light, for viewing only) are shown at an exposure of E stops: each
// sample of the block mean (in double, a NaN or infinity in the block making the mean so;
// float_downscale() keeps such means as floats) becomes c = clamp(2^E * mean, 0, 1) (NaN: 0),
// then the sRGB encoding 12.92 c (c <= 0.0031308) or 1.055 c^(1/2.4) - 0.055, rounded to
// 8 bits; alpha (linear coverage) is clamp(a, 0, 1) rounded to 8 bits without the encoding.
// Their clipping mask marks kClippedHigh where a counted channel is shown at white (2^E v >= 1,
// +infinity too), else kClippedLow where one is at or below 0 or NaN.

#include <cstdint>
#include <vector>

#include "histoscope/core/image.hpp"

namespace hs {

struct DisplayRange {
    std::uint32_t lo = 0;
    std::uint32_t hi = 255;
    friend bool operator==(const DisplayRange&, const DisplayRange&) = default;
};

// How a frame is shown: the pictures reduced by `factor`, deep frames over their stretched
// range (else the full range), the clipping masks of `clipping`'s channels (0: none).
struct DisplaySpec {
    int factor = 1;
    bool stretch = true;
    unsigned clipping = 0;
    double exposure = 0.0;  // float frames: stops (EV) of exposure for viewing
    friend bool operator==(const DisplaySpec&, const DisplaySpec&) = default;
};

inline constexpr std::uint8_t kClippedLow = 1;
inline constexpr std::uint8_t kClippedHigh = 2;

// 0 .. the largest code value of the frame's declared depth.
DisplayRange full_display_range(const ImageView& image);
// The stretched range from the value histogram of the colour samples (one bin per code value,
// `max_value` + 1 bins, summed over the colour channels), for 16-bit samples.
DisplayRange stretched_display_range(const std::vector<std::uint64_t>& colour_values,
                                     std::uint32_t max_value);
// The stretched range of `image` (the full range for 8-bit samples).
DisplayRange stretched_display_range(const ImageView& image);
// The range `spec` shows `image` over.
DisplayRange display_range(const ImageView& image, const DisplaySpec& spec);
// The 8-bit value a colour sample `v` is shown as over `range`, and an alpha sample `a` of a
// depth whose largest code value is `max_value` (the rules above; what the pictures hold).
std::uint8_t displayed_colour(std::uint32_t v, DisplayRange range);
std::uint8_t displayed_alpha(std::uint32_t a, std::uint32_t max_value);
// The 8-bit value a float colour sample `v` is shown as at `exposure` stops, and a float alpha
// sample (the float rules above).
std::uint8_t displayed_float(double v, double exposure);
std::uint8_t displayed_float_alpha(double a);

// `image` reduced by `factor` (at least 1), same channels, type and depth (float samples:
// block means in double, rounded to float).
Image downscale(const ImageView& image, int factor);
// The 8-bit picture of a float frame reduced by `factor`, shown at `exposure` stops, and its
// clipping mask (the rules above). UsageError for integer samples.
Image float_display_picture(const ImageView& image, int factor, double exposure);
Image float_clipping_mask(const ImageView& image, int factor, unsigned channels, double exposure);
// The 8-bit picture of `image` reduced by `factor` and shown over `range` (same channels).
Image display_picture(const ImageView& image, int factor, DisplayRange range);
// The clipping mask of `image` reduced by `factor` (one 8-bit channel).
Image clipping_mask(const ImageView& image, int factor, unsigned channels);

}  // namespace hs
