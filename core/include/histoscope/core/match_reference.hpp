#pragma once
// Histogram matching to a reference of any depth: an 8-bit photo, a 16-bit PNG or a 12-bit
// frame for a 10-bit clip. equalize.hpp's matching (5) compares the two normalized CDFs, each
// over its own side's code values, and writes the reference value found at the image's depth:
//
//   The image has depth d (L = 2^d code values), the reference depth r (R = 2^r). With Cs(v),
//   Ns the image plane's cumulative counts and total, Cr(u), Nr the reference plane's, over
//   their own code values,
//     u(v)   = min { u in 0..R-1 : Cr(u) / Nr >= Cs(v) / Ns }
//            = min { u : Cr(u) * Ns >= Cs(v) * Nr }                  (exact, 128-bit integers)
//     lut[v] = at_depth(u(v)),
//     at_depth(u) = floor((2 u (L - 1) + (R - 1)) / (2 (R - 1)))     (64-bit integers)
//   at_depth(u) is the code value of depth d nearest to u's fraction of full scale,
//   u (L - 1) / (R - 1); R - 1 is odd, so there is never a tie. It is the identity when r = d,
//   maps 0 to 0 and R - 1 to L - 1 (8-bit 255 -> 10-bit 1023, 16-bit 65535 -> 1023), and an
//   8-bit u to 257 u at 16 bits. The proportion p then blends as in equalize.hpp's 2.
//
// Because at_depth() never decreases, that lut is exactly match_lut() of the image's histogram
// and the reference's histogram carried to depth d (each count of u moved to at_depth(u)): a
// reference of another depth travels as EqualizeRequest::reference_histograms, which every
// equalizer, the GPU's included, takes as it is. The planes are those of equalize.hpp's 6, read
// at the reference's own depth: its gray samples or the Y of its YCrCb for a one-plane target,
// its R, G, B (or gray three times) for an Rgb one.

#include <cstdint>
#include <memory>
#include <vector>

#include "histoscope/core/equalize.hpp"
#include "histoscope/core/image.hpp"

namespace hs {

// at_depth() above: code value `u` of depth `from_depth` at depth `to_depth` (both 1..16).
std::uint32_t code_value_at_depth(std::uint32_t u, int from_depth, int to_depth);
// A value histogram of 2^from_depth bins carried to 2^to_depth bins: each count of u moved to
// code_value_at_depth(u). UsageError when `h` does not have 2^from_depth bins.
ValueHistogram histogram_at_depth(const ValueHistogram& h, int from_depth, int to_depth);

// A match reference, its value histograms taken once (at its own depth, for one-plane and for
// Rgb targets), so that every request it serves (each frame of a clip, each change of a
// setting) costs no pass over it.
class MatchReference {
  public:
    // InputError for a sample above the reference's declared depth, UsageError for a malformed
    // or a float image (no code values to match).
    explicit MatchReference(std::shared_ptr<const Image> reference);

    const Image& image() const { return *image_; }
    int bit_depth() const { return image_->bit_depth(); }

    // Points `request` (its image set) at the reference: the reference image itself when it has
    // the request image's sample type and declared depth (equalize.hpp's 5 as it stands; the
    // request then views this reference's image), else the reference's histograms carried to
    // the image's depth (reference_histograms). Any reference set before is replaced.
    void apply(EqualizeRequest& request) const;

  private:
    std::shared_ptr<const Image> image_;
    ValueHistogram one_;                 // gray, or the Y of its YCrCb
    std::vector<ValueHistogram> three_;  // R, G, B, or gray three times
};

}  // namespace hs
