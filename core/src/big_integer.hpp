#pragma once
// Integers of any size, for the few exact comparisons and sums that floats need (the edges of
// float bins, the sums of float statistics): a handful of operations, no division.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace hs::detail {

__extension__ typedef __int128 Wide;
__extension__ typedef unsigned __int128 UWide;

// Unsigned: little-endian 32-bit limbs, no leading zero limb.
struct Big {
    std::vector<std::uint32_t> w;

    static Big of(UWide v) {
        Big b;
        for (; v != 0; v >>= 32) b.w.push_back(static_cast<std::uint32_t>(v));
        return b;
    }
    bool zero() const { return w.empty(); }
    void trim() {
        while (!w.empty() && w.back() == 0) w.pop_back();
    }
};

inline int compare(const Big& a, const Big& b) {
    if (a.w.size() != b.w.size()) return a.w.size() < b.w.size() ? -1 : 1;
    for (std::size_t i = a.w.size(); i-- > 0;)
        if (a.w[i] != b.w[i]) return a.w[i] < b.w[i] ? -1 : 1;
    return 0;
}

inline Big add(const Big& a, const Big& b) {
    Big r;
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < std::max(a.w.size(), b.w.size()); ++i) {
        const std::uint64_t s =
            carry + (i < a.w.size() ? a.w[i] : 0u) + (i < b.w.size() ? b.w[i] : 0u);
        r.w.push_back(static_cast<std::uint32_t>(s));
        carry = s >> 32;
    }
    if (carry != 0) r.w.push_back(static_cast<std::uint32_t>(carry));
    return r;
}

// a - b for a >= b.
inline Big subtract(const Big& a, const Big& b) {
    Big r;
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < a.w.size(); ++i) {
        std::int64_t d = static_cast<std::int64_t>(a.w[i]) - borrow -
                         static_cast<std::int64_t>(i < b.w.size() ? b.w[i] : 0u);
        borrow = d < 0 ? 1 : 0;
        if (d < 0) d += std::int64_t{1} << 32;
        r.w.push_back(static_cast<std::uint32_t>(d));
    }
    r.trim();
    return r;
}

inline Big multiply(const Big& a, const Big& b) {
    if (a.zero() || b.zero()) return {};
    Big r;
    r.w.assign(a.w.size() + b.w.size(), 0);
    for (std::size_t i = 0; i < a.w.size(); ++i) {
        std::uint64_t carry = 0;
        for (std::size_t j = 0; j < b.w.size(); ++j) {
            const std::uint64_t t =
                static_cast<std::uint64_t>(a.w[i]) * b.w[j] + r.w[i + j] + carry;
            r.w[i + j] = static_cast<std::uint32_t>(t);
            carry = t >> 32;
        }
        r.w[i + b.w.size()] = static_cast<std::uint32_t>(carry);
    }
    r.trim();
    return r;
}

inline Big shift_left(const Big& a, std::uint64_t bits) {
    if (a.zero()) return {};
    Big r;
    r.w.assign(bits / 32, 0);
    const unsigned s = static_cast<unsigned>(bits % 32);
    std::uint32_t carry = 0;
    for (const std::uint32_t x : a.w) {
        r.w.push_back(s == 0 ? x : (x << s) | carry);
        carry = s == 0 ? 0 : x >> (32 - s);
    }
    if (carry != 0) r.w.push_back(carry);
    return r;
}

inline Big power(Big base, std::uint64_t e) {
    Big r = Big::of(1);
    for (; e != 0; e >>= 1) {
        if (e & 1) r = multiply(r, base);
        if (e > 1) base = multiply(base, base);
    }
    return r;
}

inline long double approximate(const Big& a) {
    long double v = 0.0L;
    for (std::size_t i = a.w.size(); i-- > 0;) v = v * 4294967296.0L + a.w[i];
    return v;
}

// A signed integer of any size.
struct Signed {
    bool negative = false;
    Big magnitude;

    static Signed of(Wide v) {
        Signed s;
        s.negative = v < 0;
        s.magnitude = Big::of(v < 0 ? static_cast<UWide>(-(v + 1)) + 1 : static_cast<UWide>(v));
        return s;
    }
};

inline Signed add(const Signed& a, const Signed& b) {
    if (a.negative == b.negative) return {a.negative, add(a.magnitude, b.magnitude)};
    const int c = compare(a.magnitude, b.magnitude);
    if (c == 0) return {};
    if (c > 0) return {a.negative, subtract(a.magnitude, b.magnitude)};
    return {b.negative, subtract(b.magnitude, a.magnitude)};
}

inline Signed multiply(const Signed& a, const Signed& b) {
    Signed r{a.negative != b.negative, multiply(a.magnitude, b.magnitude)};
    if (r.magnitude.zero()) r.negative = false;
    return r;
}

}  // namespace hs::detail
