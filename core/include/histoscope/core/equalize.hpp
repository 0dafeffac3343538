#pragma once
// Contrast equalization: the exact CPU reference that every equalization engine must match.
// Every formula and every rounding is written down here; GPU engines replicate them exactly.
//
// Levels. An image of declared bit depth d has L = 2^d code values 0..L-1 (L = 256 for 8-bit,
// 65536 for 16-bit). Histograms have one bin per code value. All arithmetic below is integer
// arithmetic unless a `float` is named; float operations are single IEEE-754 binary32
// operations, evaluated in the order written, each rounded to nearest even, never fused
// (no FMA; hs_core is built with -ffp-contract=off). float(n) of an integer n is the nearest
// float (ties to even), as a C++ conversion or cvt instruction gives. round_even(x) is round
// to nearest, ties to even (what cvRound does on x86-64: _mm_cvtss_si32), clamp(x) limits to
// [0, L-1]. ">>" on a negative value is an arithmetic shift (floor division by a power of 2).
// Deeper than 8 bits, OpenCV only knows 16-bit (L = 65536); the formulas below with L = 2^d
// are our definition for 16-bit samples that declare a depth d of 9..15.
//
// 1. Global equalization LUT (equalize_lut). Identical to cv::equalizeHist for 8-bit images
//    (OpenCV 4.6), and the same formula over L bins for deeper images:
//      N = total count, i = the first value with h[i] > 0.
//      If h[i] == N (every sample has the same value) the LUT is the identity (OpenCV writes
//      the constant image unchanged).
//      Otherwise  scale = float(L - 1) / float(N - h[i])                      (float division)
//                 lut[v] = 0                                  for v <= i
//                 lut[v] = clamp(round_even(float(S(v)) * scale))   for v > i,
//      where S(v) = h[i+1] + ... + h[v] (the counts above the first non-empty bin). An empty
//      histogram also gives the identity.
//
// 2. Strength s in [0, 1] (also the proportion p of histogram matching). s is quantized to
//      w = llround(s * 65536)  (0..65536; s * 65536 is exact in double)
//    and a value v with target t = LUT(v) (or the CLAHE output at a pixel) becomes
//      blend(v, t) = v + (((t - v) * w + 32768) >> 16)            (64-bit signed integers)
//    i.e. v + s * (t - v) rounded half up (towards +infinity) with s in steps of 1/65536.
//    s = 0 gives v exactly, s = 1 gives t exactly, and the result lies between v and t.
//    A request with strength exactly 0 returns a copy of its input: in Luma space this skips
//    the YCrCb round trip, which is not lossless (up to about 1 per channel).
//
// 3. YCrCb (rgb_to_ycrcb, ycrcb_to_rgb): OpenCV's fixed-point COLOR_RGB2YCrCb and
//    COLOR_YCrCb2RGB (14 fractional bits), bit-exact with cv::cvtColor (tested on all 2^24
//    8-bit triples and 2^20 random 16-bit triples, both directions). With half = 2^(d-1) (128 for
//    8-bit, 32768 for 16-bit) and descale(x) = (x + 8192) >> 14:
//      Y  = descale(4899 R + 9617 G + 1868 B)                 (the weights sum to 16384)
//      Cr = clamp(descale((R - Y) * 11682 + half * 16384))
//      Cb = clamp(descale((B - Y) *  9241 + half * 16384))
//    and back:
//      R = clamp(Y + descale((Cr - half) * 22987))
//      G = clamp(Y + descale((Cb - half) * -5636 + (Cr - half) * -11698))
//      B = clamp(Y + descale((Cb - half) * 29049))
//    (the clamp of Y is a no-op). Every intermediate fits in 32-bit signed integers.
//
// 4. CLAHE (clahe_plane), as cv::createCLAHE(clip, Size(tx, ty))->apply (OpenCV 4.6) with
//    histSize = L (OpenCV's 256 for 8-bit and 65536 for 16-bit):
//    a. Padding: when W % tx != 0 or H % ty != 0, the image used for the tile histograms is
//       extended on the right by tx - W % tx columns and at the bottom by ty - H % ty rows
//       (both, even when only one side needs it: OpenCV's quirk), sampling the original at
//       reflect101(p, n): p < 0 -> -p; p >= n -> 2n - 2 - p, repeated until inside; n = 1 -> 0.
//       Tile size tw = (W + pad_right) / tx, th = (H + pad_bottom) / ty, area A = tw * th.
//    b. Clip limit: c = max(int(clip * double(A) / double(L)), 1)     (double, truncated
//       towards zero). A c at or above A clips nothing and is stored as A.
//    c. Per tile: histogram h of the tile's A samples; every bin above c is cut to c and the
//       excess E is summed; every bin gets E / L more (integer division); the residual
//       R = E % L is given one each to bins 0, k, 2k, ... (k = max(L / R, 1)) until R is
//       spent. Then lut[v] = clamp(round_even(float(h[0] + ... + h[v]) * lut_scale)) with
//       lut_scale = float(L - 1) / float(A)                           (float division).
//    d. Interpolation at output pixel (x, y) of the original image:
//       fx = float(x) * (1.0f / float(tw)) - 0.5f, x1 = floor(fx), ax = fx - float(x1),
//       bx = 1.0f - ax, then x1 is clamped to >= 0 and x2 = min(x1 + 1, tx - 1) (x1 + 1 taken
//       before the clamp); the same for y with th, ty giving y1, y2, ay, by. With
//       l(X, Y) = float(lut of tile (X, Y) at the pixel's value):
//         r = (l(x1,y1) * bx + l(x2,y1) * ax) * by + (l(x1,y2) * bx + l(x2,y2) * ax) * ay
//       (float, left to right) and the output is clamp(round_even(r)).
//    Strength then blends each output pixel with its input value as in 2.
//
// 5. Histogram matching (match_lut). Source histogram hs (Ns samples), reference hr (Nr),
//    cumulative counts Cs(v) = hs[0] + ... + hs[v], Cr(u) likewise. Each source value maps to
//    the smallest reference value whose normalized CDF reaches the source's:
//      lut[v] = min { u : Cr(u) / Nr >= Cs(v) / Ns }  =  min { u : Cr(u) * Ns >= Cs(v) * Nr }
//    compared exactly in 128-bit integers. Matching an image to itself is the identity on the
//    values it contains; matching to a constant reference maps every present value to that
//    constant; matching to any monotone remapping of the image reproduces that remapping.
//    The proportion p blends as in 2.
//
// 6. Colour. Space::Rgb: R, G and B are each processed independently. Space::Luma: the image
//    is converted to YCrCb (3), only Y is processed, and Y', Cr, Cb are converted back (3).
//    One-channel images are processed as they are in either space. Alpha is copied unchanged.
//    The output has the input's size, sample type, declared depth and channel count.
//    Match references: a one-plane target (gray image or Luma space) uses the reference's gray
//    samples, or the Y of its YCrCb when it is colour; an Rgb target uses the reference's R, G,
//    B (or its gray samples for all three when it is gray). The reference must have the same
//    declared depth as the image; its size may differ.

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "histoscope/core/image.hpp"

namespace hs {

enum class EqualizeMode : std::uint8_t { Global, Clahe, Match };
enum class EqualizeSpace : std::uint8_t { Luma, Rgb };

std::string_view mode_name(EqualizeMode mode);  // "global", "clahe", "match"
std::optional<EqualizeMode> parse_mode(std::string_view name);
std::string_view space_name(EqualizeSpace space);  // "luma", "rgb"
std::optional<EqualizeSpace> parse_space(std::string_view name);

using ValueHistogram = std::vector<std::uint64_t>;  // one bin per code value
using Lut = std::vector<std::uint16_t>;             // one entry per code value

// clamp(round_even(x)) to [0, max]: OpenCV's saturate_cast<uchar/ushort>(float) on x86-64.
// std::nearbyint rounds in the current mode, which is round-to-nearest-even unless a caller
// changed it.
inline std::uint16_t round_even_clamp(float x, std::uint32_t max) {
    const float r = std::nearbyint(x);
    if (!(r > 0.0f)) return 0;
    if (r >= static_cast<float>(max)) return static_cast<std::uint16_t>(max);
    return static_cast<std::uint16_t>(r);
}

// --- 1. global equalization
// LUT of histogram `h` (L = h.size() bins), see 1 above.
Lut equalize_lut(const ValueHistogram& h);

// --- 2. strength
inline constexpr int kStrengthShift = 16;
std::int64_t strength_weight(double strength);  // llround(strength * 65536)
constexpr std::uint32_t blend(std::uint32_t value, std::uint32_t target, std::int64_t weight) {
    const std::int64_t delta = static_cast<std::int64_t>(target) - static_cast<std::int64_t>(value);
    const std::int64_t step =
        (delta * weight + (std::int64_t{1} << (kStrengthShift - 1))) >> kStrengthShift;
    return static_cast<std::uint32_t>(static_cast<std::int64_t>(value) + step);
}
// blend(v, lut[v]) for every v.
Lut blend_lut(const Lut& lut, double strength);

// --- 3. YCrCb
inline constexpr int kYccShift = 14;
struct YccWeights {
    int r2y = 4899, g2y = 9617, b2y = 1868;                       // Y
    int cr = 11682, cb = 9241;                                    // (R - Y) -> Cr, (B - Y) -> Cb
    int cr2r = 22987, cr2g = -11698, cb2g = -5636, cb2b = 29049;  // back to RGB
};
inline constexpr YccWeights kYcc{};

struct Triple {
    std::uint32_t a, b, c;  // (R, G, B) or (Y, Cr, Cb)
    friend bool operator==(const Triple&, const Triple&) = default;
};

constexpr std::int32_t ycc_descale(std::int32_t x) {
    return (x + (1 << (kYccShift - 1))) >> kYccShift;
}
constexpr std::uint32_t ycc_clamp(std::int32_t x, int bit_depth) {
    const std::int32_t max = (std::int32_t{1} << bit_depth) - 1;
    return static_cast<std::uint32_t>(x < 0 ? 0 : (x > max ? max : x));
}
constexpr Triple rgb_to_ycrcb(std::uint32_t r, std::uint32_t g, std::uint32_t b, int bit_depth) {
    const auto R = static_cast<std::int32_t>(r), G = static_cast<std::int32_t>(g),
               B = static_cast<std::int32_t>(b);
    const std::int32_t half_scaled = std::int32_t{1} << (bit_depth - 1 + kYccShift);
    const std::int32_t y = ycc_descale(R * kYcc.r2y + G * kYcc.g2y + B * kYcc.b2y);
    const std::int32_t cr = ycc_descale((R - y) * kYcc.cr + half_scaled);
    const std::int32_t cb = ycc_descale((B - y) * kYcc.cb + half_scaled);
    return {ycc_clamp(y, bit_depth), ycc_clamp(cr, bit_depth), ycc_clamp(cb, bit_depth)};
}
constexpr Triple ycrcb_to_rgb(std::uint32_t y, std::uint32_t cr, std::uint32_t cb, int bit_depth) {
    const std::int32_t half = std::int32_t{1} << (bit_depth - 1);
    const auto Y = static_cast<std::int32_t>(y), Cr = static_cast<std::int32_t>(cr) - half,
               Cb = static_cast<std::int32_t>(cb) - half;
    const std::int32_t r = Y + ycc_descale(Cr * kYcc.cr2r);
    const std::int32_t g = Y + ycc_descale(Cb * kYcc.cb2g + Cr * kYcc.cr2g);
    const std::int32_t b = Y + ycc_descale(Cb * kYcc.cb2b);
    return {ycc_clamp(r, bit_depth), ycc_clamp(g, bit_depth), ycc_clamp(b, bit_depth)};
}

// --- planes: one channel of samples (any depth up to 16 bits), rows packed.
struct Plane {
    int width = 0;
    int height = 0;
    std::vector<std::uint16_t> samples;

    Plane() = default;
    Plane(int w, int h)
        : width(w), height(h), samples(static_cast<std::size_t>(w) * static_cast<std::size_t>(h)) {}
    std::uint16_t at(int x, int y) const {
        return samples[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                       static_cast<std::size_t>(x)];
    }
};
ValueHistogram plane_histogram(const Plane& plane, int bit_depth);
void apply_lut(Plane& plane, const Lut& lut);

// --- 4. CLAHE
struct ClaheGrid {
    int tiles_x = 0, tiles_y = 0;
    int pad_right = 0, pad_bottom = 0;
    int tile_width = 0, tile_height = 0;
    std::int64_t clip_limit = 0;  // c of 4b (stored as A when c >= A: nothing is clipped then)
    float lut_scale = 0.f;        // float(L - 1) / float(A)
};
ClaheGrid clahe_grid(int width, int height, int bit_depth, double clip, int tiles_x, int tiles_y);
// Index of padded coordinate p in a line of n samples (4a).
int reflect101(int p, int n);
// Per output column (or row) of a line of n samples: the two neighbouring tiles of 4d and their
// interpolation weights (ax and bx = 1 - ax), in single-precision floats.
struct ClaheAxis {
    std::vector<int> tile1, tile2;
    std::vector<float> weight2, weight1;
};
ClaheAxis clahe_axis(int n, int tile_size, int tiles);
// LUT of one tile from its histogram (4c); `h` is clipped and redistributed in place.
Lut clahe_tile_lut(std::vector<std::int64_t>& h, std::int64_t clip_limit, float lut_scale);
// The whole of 4 (without strength).
Plane clahe_plane(const Plane& in, int bit_depth, double clip, int tiles_x, int tiles_y);

// --- 5. matching
// Both histograms must have the same number of bins and non-zero totals.
Lut match_lut(const ValueHistogram& source, const ValueHistogram& reference);

// --- requests
struct EqualizeRequest {
    ImageView image;
    EqualizeMode mode = EqualizeMode::Global;
    EqualizeSpace space = EqualizeSpace::Luma;
    double strength = 1.0;  // strength (global, clahe) or proportion (match), in [0, 1]
    double clip = 2.0;      // clahe: OpenCV's clipLimit, in (0, 65536]
    int tiles_x = 8;        // clahe: tile grid, 1..64 each and at most the image's size
    int tiles_y = 8;
    // match: a reference image, or reference histograms of L bins each (one, used for every
    // processed plane, or one per processed plane: 1 for gray or Luma, 3 for Rgb colour).
    std::optional<ImageView> reference;
    std::vector<ValueHistogram> reference_histograms;

    // Throws UsageError with one sentence naming the first problem.
    void validate() const;
    // Number of planes the request processes: 1 (gray image or Luma space) or 3.
    int processed_planes() const;
};

// --- the pipeline (what equalize_reference() runs; engines may reuse the pieces)
struct WorkingPlanes {
    std::vector<Plane> planes;  // gray; or R, G, B (Rgb); or Y, Cr, Cb (Luma)
    int processed = 1;          // the first `processed` planes are equalized
    int bit_depth = 8;
};
// 6: the planes of `image` (converting to YCrCb in Luma space). Throws InputError when a
// 16-bit sample exceeds the image's declared depth.
WorkingPlanes split_planes(const ImageView& image, EqualizeSpace space);
// The InputError split_planes() throws: `row` is the first row holding a sample above the
// image's declared depth, `top` that row's largest sample.
[[noreturn]] void throw_sample_above_depth(const ImageView& image, int row, std::uint32_t top);
// The reference histogram of each processed plane (match mode; empty otherwise).
std::vector<ValueHistogram> match_references(const EqualizeRequest& request);
// Equalizes the processed planes in place (global, CLAHE or match, then strength).
void equalize_planes(WorkingPlanes& work, const EqualizeRequest& request,
                     const std::vector<ValueHistogram>& references);
// 6: the output image from the planes (back from YCrCb in Luma space), alpha from `source`.
Image compose_image(const ImageView& source, const WorkingPlanes& work, EqualizeSpace space);

// A tightly packed copy of `image` (what strength 0 returns).
Image copy_image(const ImageView& image);

// Validates the request and runs the whole pipeline (or copies the input at strength 0).
Image equalize_reference(const EqualizeRequest& request);

}  // namespace hs
