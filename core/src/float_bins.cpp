// The fp32 edges of float bins, placed exactly (float_bins.hpp): rationals read from decimals,
// and the few integer operations of any size that compare a float with a rational edge or with
// a power of two.

#include "histoscope/core/float_bins.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>

#include "big_integer.hpp"
#include "histoscope/core/error.hpp"

namespace hs {

namespace {

using detail::Big;
using detail::Signed;
using detail::UWide;
using detail::Wide;

// A finite float as m * 2^e with m a whole number (0 for zero).
struct Split {
    bool negative = false;
    std::uint32_t m = 0;
    int e = 0;
};

Split split(float f) {
    const auto bits = std::bit_cast<std::uint32_t>(f);
    Split s;
    s.negative = (bits >> 31) != 0;
    const std::uint32_t exponent = (bits >> 23) & 0xFFu;
    const std::uint32_t fraction = bits & 0x7FFFFFu;
    if (exponent == 0) {
        s.m = fraction;
        s.e = -149;
    } else {
        s.m = fraction | 0x800000u;
        s.e = static_cast<int>(exponent) - 150;
    }
    if (s.m == 0) s.negative = false;
    return s;
}

// The sign of f - p / q (q > 0), exactly.
int compare(float f, const Signed& p, const Big& q) {
    const Split s = split(f);
    const int fs = s.m == 0 ? 0 : s.negative ? -1 : 1;
    const int ps = p.magnitude.zero() ? 0 : p.negative ? -1 : 1;
    if (fs != ps) return fs < ps ? -1 : 1;
    if (fs == 0) return 0;
    // |f| q against |p|, both scaled to whole numbers.
    Big lhs = multiply(Big::of(s.m), q);
    Big rhs = p.magnitude;
    if (s.e >= 0)
        lhs = shift_left(lhs, static_cast<std::uint64_t>(s.e));
    else
        rhs = shift_left(rhs, static_cast<std::uint64_t>(-s.e));
    const int c = compare(lhs, rhs);
    return fs > 0 ? c : -c;
}

float next_up(float f) {
    return std::nextafter(f, std::numeric_limits<float>::infinity());
}
float next_down(float f) {
    return std::nextafter(f, -std::numeric_limits<float>::infinity());
}

// The smallest float whose value is >= p / q (q > 0); +infinity when none is.
float smallest_float_at_least(const Signed& p, const Big& q) {
    const long double approx =
        (p.negative ? -1.0L : 1.0L) * approximate(p.magnitude) / approximate(q);
    constexpr float kMax = std::numeric_limits<float>::max();
    float f = approx > kMax ? kMax : approx < -kMax ? -kMax : static_cast<float>(approx);
    while (compare(f, p, q) < 0) {
        f = next_up(f);
        if (std::isinf(f)) return f;
    }
    for (;;) {
        const float below = next_down(f);
        if (std::isinf(below) || compare(below, p, q) < 0) break;
        f = below;
    }
    return f == 0.0f ? 0.0f : f;  // +0 for a zero edge
}

// Whether f >= 2^(p / q) (f > 0, q > 0), exactly: f^q >= 2^p.
bool at_least_power_of_two(float f, std::int64_t p, std::int64_t q) {
    const Split s = split(f);
    // (m 2^e)^q >= 2^p  <=>  m^q >= 2^(p - e q)  (or, when p - e q < 0, always: m >= 1).
    const Wide shift = static_cast<Wide>(p) - static_cast<Wide>(s.e) * q;
    if (shift < 0) return true;
    return compare(power(Big::of(s.m), static_cast<std::uint64_t>(q)),
                   shift_left(Big::of(1), static_cast<std::uint64_t>(shift))) >= 0;
}

// The smallest float >= 2^(p / q) (p / q in lowest terms, q > 0); +infinity when none is.
float smallest_float_at_least_power(std::int64_t p, std::int64_t q) {
    if (q == 1) {
        if (p > 127) return std::numeric_limits<float>::infinity();
        // Below 2^-149 the smallest float above it is the smallest subnormal.
        return std::ldexp(1.0f, static_cast<int>(std::max<std::int64_t>(p, -149)));
    }
    // 2^(p/q) is irrational here: no float equals it. 80-bit arithmetic places it within a few
    // parts in 2^60; where that leaves the answer in doubt, integers decide.
    const long double r = std::exp2(static_cast<long double>(p) / static_cast<long double>(q));
    constexpr long double kMax = std::numeric_limits<float>::max();
    if (r > kMax) return std::numeric_limits<float>::infinity();
    float f = static_cast<float>(r);
    if (static_cast<long double>(f) < r) f = next_up(f);
    while (f > 0.0f && static_cast<long double>(next_down(f)) >= r) f = next_down(f);
    const float below = next_down(f);
    constexpr long double kMargin = 0x1p-40L;
    const bool clear = (static_cast<long double>(f) - r) > kMargin * r &&
                       (r - static_cast<long double>(below)) > kMargin * r;
    if (clear) return f;
    if (q > 4096)
        throw UsageError("a stop's edge 2^(" + std::to_string(p) + "/" + std::to_string(q) +
                         ") lies too close to a float to place with a denominator above 4096");
    while (!at_least_power_of_two(f, p, q)) f = next_up(f);
    while (f > 0.0f && next_down(f) > 0.0f && at_least_power_of_two(next_down(f), p, q))
        f = next_down(f);
    return f;
}

Wide gcd(Wide a, Wide b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b != 0) {
        const Wide t = a % b;
        a = b;
        b = t;
    }
    return a;
}

// num / den reduced; UsageError unless both fit in 63 bits.
Rational reduced(Wide num, Wide den, std::string_view what, std::string_view text) {
    if (den < 0) {
        num = -num;
        den = -den;
    }
    const Wide g = gcd(num, den);
    if (g > 1) {
        num /= g;
        den /= g;
    }
    constexpr Wide kLimit = std::numeric_limits<std::int64_t>::max();
    if (num > kLimit || num < -kLimit || den > kLimit)
        throw UsageError(std::string(what) + " '" + std::string(text.substr(0, 64)) +
                         "' needs more digits than 63 bits hold");
    return {static_cast<std::int64_t>(num), static_cast<std::int64_t>(den)};
}

std::string edge_text(float f) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
    return buf;
}

// UsageError unless the edges are finite and strictly increasing (and positive for stops).
void check_edges(const std::vector<float>& edges, const std::string& what) {
    for (std::size_t k = 0; k < edges.size(); ++k) {
        if (!std::isfinite(edges[k]))
            throw UsageError(what + ": edge " + std::to_string(k) +
                             " lies beyond the largest float (3.4e38)");
        if (k > 0 && !(edges[k] > edges[k - 1]))
            throw UsageError(what + ": bins " + std::to_string(k - 1) + " and " +
                             std::to_string(k) + " meet at the same float, " + edge_text(edges[k]) +
                             " (bins narrower than the spacing of floats there hold nothing)");
    }
}

}  // namespace

std::string Rational::describe() const {
    // A terminating decimal when den is 2^a 5^b: printed exactly.
    std::int64_t d = den;
    int twos = 0, fives = 0;
    while (d % 2 == 0) d /= 2, ++twos;
    while (d % 5 == 0) d /= 5, ++fives;
    if (d != 1 || std::max(twos, fives) > 18)
        return std::to_string(num) + "/" + std::to_string(den);
    const int places = std::max(twos, fives);
    Wide scaled = num;
    for (int i = 0; i < places; ++i) scaled *= 10;
    scaled /= den;
    const bool negative = scaled < 0;
    UWide magnitude = negative ? static_cast<UWide>(-scaled) : static_cast<UWide>(scaled);
    std::string digits;
    do {
        digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
        magnitude /= 10;
    } while (magnitude != 0);
    if (places > 0) {
        while (static_cast<int>(digits.size()) <= places) digits.insert(digits.begin(), '0');
        digits.insert(digits.end() - places, '.');
    }
    return (negative ? "-" : "") + digits;
}

Rational parse_rational(std::string_view text, std::string_view what) {
    const auto bad = [&](const std::string& why) {
        return UsageError(std::string(what) + " '" + std::string(text.substr(0, 64)) + "' " + why);
    };
    std::size_t at = 0;
    bool negative = false;
    if (at < text.size() && (text[at] == '-' || text[at] == '+')) negative = text[at++] == '-';
    constexpr Wide kDigitLimit = Wide{1} << 100;
    const auto digits = [&](Wide& value, int& count) {
        count = 0;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
            if (value < kDigitLimit)
                value = value * 10 + (text[at] - '0');
            else
                throw bad("has too many digits");
            ++at;
            ++count;
        }
    };
    Wide num = 0, den = 1;
    int whole = 0;
    digits(num, whole);
    if (at < text.size() && text[at] == '/') {
        ++at;
        int count = 0;
        den = 0;
        digits(den, count);
        if (whole == 0 || count == 0 || at != text.size())
            throw bad(
                "is not a number (expected a decimal such as 0.125 or a fraction such as 1/8)");
        if (den == 0) throw bad("divides by zero");
    } else {
        int fraction = 0;
        if (at < text.size() && text[at] == '.') {
            ++at;
            Wide f = num;
            digits(f, fraction);
            num = f;
            for (int i = 0; i < fraction; ++i) den *= 10;
        }
        if (whole == 0 && fraction == 0)
            throw bad(
                "is not a number (expected a decimal such as 0.125 or a fraction such as 1/8)");
        if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
            ++at;
            bool down = false;
            if (at < text.size() && (text[at] == '-' || text[at] == '+')) down = text[at++] == '-';
            Wide e = 0;
            int count = 0;
            digits(e, count);
            if (count == 0) throw bad("has an exponent without digits");
            if (e > 30) throw bad("has an exponent beyond +-30");
            for (Wide i = 0; i < e; ++i) {
                if (down) {
                    if (den > kDigitLimit) throw bad("needs more digits than 63 bits hold");
                    den *= 10;
                } else {
                    if (num > kDigitLimit) throw bad("needs more digits than 63 bits hold");
                    num *= 10;
                }
            }
        }
        if (at != text.size())
            throw bad(
                "is not a number (expected a decimal such as 0.125 or a fraction such as 1/8)");
    }
    return reduced(negative ? -num : num, den, what, text);
}

FloatBins FloatBins::linear(Rational lo, Rational hi, int bins) {
    const std::string what = "the float range " + lo.describe() + ":" + hi.describe();
    if (bins < 1 || bins > kMaxFloatBins)
        throw UsageError("float bins must be between 1 and " + std::to_string(kMaxFloatBins) +
                         ", not " + std::to_string(bins));
    // lo < hi, compared as a * d' < b * d in 128 bits.
    const Wide a = static_cast<Wide>(lo.num) * hi.den;
    const Wide b = static_cast<Wide>(hi.num) * lo.den;
    if (!(a < b)) throw UsageError(what + " is empty: its lower bound must be below its upper");
    FloatBins f;
    f.scale_ = FloatScale::Linear;
    f.lo_ = lo;
    f.hi_ = hi;
    f.step_ = {1, 1};
    f.edges_.assign(static_cast<std::size_t>(bins) + 1, 0.0f);
    // Edge k = (a N + k (b - a)) / (lo.den hi.den N).
    const Signed aN = multiply(Signed::of(a), Signed::of(bins));
    const Signed width = Signed::of(b - a);
    const Big q = multiply(Big::of(static_cast<UWide>(lo.den) * static_cast<UWide>(hi.den)),
                           Big::of(static_cast<UWide>(bins)));
    for (int k = 0; k <= bins; ++k)
        f.edges_[static_cast<std::size_t>(k)] =
            smallest_float_at_least(add(aN, multiply(width, Signed::of(k))), q);
    check_edges(f.edges_, what);
    return f;
}

FloatBins FloatBins::stops(Rational lo, Rational hi, Rational step) {
    const std::string what =
        "the stops " + lo.describe() + ":" + hi.describe() + ":" + step.describe();
    if (step.num <= 0) throw UsageError(what + ": the step must be above 0");
    const Wide a = static_cast<Wide>(lo.num) * hi.den;
    const Wide b = static_cast<Wide>(hi.num) * lo.den;
    if (!(a < b)) throw UsageError(what + " are empty: the lower bound must be below the upper");
    if (lo.value() < -149.0)
        throw UsageError(what + ": below -149 EV (2^-149, the smallest float) nothing is counted");
    if (hi.value() > 128.0)
        throw UsageError(what + ": 2^128 lies beyond the largest float (3.4e38)");
    // bins = (hi - lo) / step, a whole number: (b - a) step.den / (lo.den hi.den step.num).
    const UWide span = static_cast<UWide>(b - a);  // < 2^127 since |lo|, |hi| are bounded
    const Big n = multiply(Big::of(span), Big::of(static_cast<UWide>(step.den)));
    const Big d = multiply(Big::of(static_cast<UWide>(lo.den) * static_cast<UWide>(hi.den)),
                           Big::of(static_cast<UWide>(step.num)));
    // Whole when n = bins * d for the bins n / d rounds to.
    const long double ratio = approximate(n) / approximate(d);
    if (!(ratio >= 0.5L) || ratio > static_cast<long double>(kMaxFloatBins) + 0.5L)
        throw UsageError(what + ": a step of " + step.describe() +
                         " makes no whole number of bins from 1 to " +
                         std::to_string(kMaxFloatBins));
    const auto bins = static_cast<int>(std::llround(ratio));
    if (compare(multiply(d, Big::of(static_cast<UWide>(bins))), n) != 0)
        throw UsageError(what + ": the step " + step.describe() + " does not divide " +
                         hi.describe() + " - " + lo.describe() + " into whole bins");
    FloatBins f;
    f.scale_ = FloatScale::Stops;
    f.lo_ = lo;
    f.hi_ = hi;
    f.step_ = step;
    f.edges_.assign(static_cast<std::size_t>(bins) + 1, 0.0f);
    for (int k = 0; k <= bins; ++k) {
        // lo + k step = (lo.num step.den + k step.num lo.den) / (lo.den step.den), reduced.
        Wide p = static_cast<Wide>(lo.num) * step.den + static_cast<Wide>(k) * step.num * lo.den;
        Wide q = static_cast<Wide>(lo.den) * step.den;
        const Wide g = gcd(p, q);
        if (g > 1) {
            p /= g;
            q /= g;
        }
        if (q > std::numeric_limits<std::int64_t>::max())
            throw UsageError(what + ": the denominators of lo and step are too large");
        f.edges_[static_cast<std::size_t>(k)] = smallest_float_at_least_power(
            static_cast<std::int64_t>(p), static_cast<std::int64_t>(q));
    }
    check_edges(f.edges_, what);
    return f;
}

FloatBins FloatBins::default_stops() {
    return stops({-16, 1}, {16, 1}, {1, 8});
}

std::int32_t FloatBins::bin_of(float v) const {
    if (!std::isfinite(v)) return kNonFinite;
    if (v < edges_.front()) return kBelowRange;
    if (!(v < edges_.back())) return kAboveRange;
    const auto it = std::upper_bound(edges_.begin(), edges_.end(), v);
    return static_cast<std::int32_t>(it - edges_.begin() - 1);
}

std::string FloatBins::describe() const {
    const std::string n = std::to_string(bins()) + (bins() == 1 ? " bin" : " bins");
    if (scale_ == FloatScale::Stops)
        return n + " of " + step_.describe() + (step_.num > step_.den ? " stops" : " stop") +
               " over [" + lo_.describe() + ", " + hi_.describe() + ") EV";
    return n + " over [" + lo_.describe() + ", " + hi_.describe() + ")";
}

}  // namespace hs
