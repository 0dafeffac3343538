#pragma once
// Bins of float samples (SampleType::F32, IEEE binary32): one definition that a CPU and a GPU
// compute bit for bit.
//
// A float spec has N bins and N + 1 edges e_0 < e_1 < ... < e_N, fp32 values computed once on
// the host. Edge k is the smallest float whose value is >= the exact real edge
//   linear (--range LO:HI, N bins):   LO + k (HI - LO) / N
//   stops  (--stops LO:HI:STEP):      2^(LO + k STEP),   N = (HI - LO) / STEP
// with LO, HI and STEP the exact numbers given (a decimal is read exactly: 0.1 is 1/10; 1/3 may
// be given as a fraction). Stops are log2 of the value, 0 EV at 1.0; their default is
// -16:16:1/8, 256 bins of an eighth of a stop. A value v (a channel's sample; luma709 of a
// float image is its Rec.709 luminance, channels.hpp) is
//   non-finite    when v is NaN or +-infinity,
//   below range   when v < e_0 (in stops every v <= 0 as well: zero and negative values),
//   above range   when v >= e_N,
//   in bin k      when e_k <= v < e_(k+1),
// comparing IEEE floats as they are (-0 equals +0; subnormals are not flushed to zero). Only
// comparisons with the table decide: no log2, division or rounding is evaluated per sample, so
// any search (binary, or a guess from the float's bits corrected by comparisons, as the CPU
// reference does) finds the same k. The samples outside the bins are counted apart
// (ChannelHistogram::below_range, above_range, non_finite), never put into an end bin.
//
// The edges are exact, not approximately so: a linear edge is placed by comparing the float
// with the rational LO + k (HI - LO) / N in integers of any size; a stop's edge 2^(p/q) by
// 80-bit arithmetic where it lies more than 2^-40 (relative) from a float, else by comparing
// f^q with 2^p in integers. Bins narrower than the floats' spacing (two equal edges) are a
// UsageError, so every bin holds at least one float.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hs {

// An exact rational number: num / den, den > 0, in lowest terms.
struct Rational {
    std::int64_t num = 0;
    std::int64_t den = 1;

    double value() const { return static_cast<double>(num) / static_cast<double>(den); }
    // "-16", "0.125" (a decimal where one is exact), else "1/3".
    std::string describe() const;
    friend bool operator==(const Rational&, const Rational&) = default;
};
// A decimal ("-16", "0.125", "2.5e-3") or a fraction ("1/8") read exactly, its reduced
// numerator and denominator within 63 bits. UsageError naming `what` otherwise.
Rational parse_rational(std::string_view text, std::string_view what);

enum class FloatScale : std::uint8_t { Linear, Stops };

inline constexpr int kMaxFloatBins = 1 << 20;
// The slots of values outside the bins (FloatBins::bin_of()).
inline constexpr std::int32_t kBelowRange = -1;
inline constexpr std::int32_t kAboveRange = -2;
inline constexpr std::int32_t kNonFinite = -3;

class FloatBins {
  public:
    // `bins` even bins over [lo, hi): UsageError for an empty range, bins out of
    // 1..kMaxFloatBins, an edge beyond the largest float or bins narrower than the floats.
    static FloatBins linear(Rational lo, Rational hi, int bins);
    // Stops of `step` over [lo, hi) EV: UsageError unless step > 0 divides hi - lo into
    // 1..kMaxFloatBins bins whose edges are distinct positive floats (lo >= -149, hi < 128).
    static FloatBins stops(Rational lo, Rational hi, Rational step);
    static FloatBins default_stops();  // -16:16:1/8, 256 bins

    FloatScale scale() const { return scale_; }
    int bins() const { return static_cast<int>(edges_.size()) - 1; }
    Rational lo() const { return lo_; }
    Rational hi() const { return hi_; }
    Rational step() const { return step_; }  // stops only (1 for linear bins)
    // The bins + 1 fp32 edges, strictly increasing.
    const std::vector<float>& edges() const { return edges_; }

    // The bin of `v` (0..bins-1), or kBelowRange, kAboveRange, kNonFinite: the definition,
    // by binary search over the edges.
    std::int32_t bin_of(float v) const;
    // "256 bins of 1/8 stop over [-16, 16) EV", "100 bins over [0, 1)".
    std::string describe() const;
    friend bool operator==(const FloatBins&, const FloatBins&) = default;

  private:
    FloatScale scale_ = FloatScale::Linear;
    Rational lo_, hi_, step_;
    std::vector<float> edges_{0.0f, 1.0f};
};

}  // namespace hs
