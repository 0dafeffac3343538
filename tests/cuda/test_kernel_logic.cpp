// Host-side logic of the kernels, run on any machine (CudaHost.*, label cpu): the packed
// counters' wrap accounting (the per-sample functions the kernels call, here with sequential
// host operations, one valid linearization of the shared-memory atomics), the direct path's
// layout and what it serves, and the "auto"
// engine's features of a request.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "auto/auto_select.hpp"
#include "kernels/packed.cuh"
#include "synthetic.hpp"

using namespace hs;
using namespace hs::cuda::detail;

namespace {

struct HostOps {
    static std::uint32_t add(std::uint32_t* p, std::uint32_t v) {
        const std::uint32_t old = *p;
        *p += v;
        return old;
    }
    static std::uint32_t cas(std::uint32_t* p, std::uint32_t expected, std::uint32_t desired) {
        const std::uint32_t old = *p;
        if (old == expected) *p = desired;
        return old;
    }
    static void add_global(unsigned long long* p, unsigned long long v) { *p += v; }
};

// Counts `adds` (bin, n) into a tile of `tile_bins` bins with W-bit packed counters, as one
// block does, folds the words and returns the global counts.
template <int W>
std::vector<unsigned long long> count_packed(
    std::uint32_t tile_bins, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& adds) {
    constexpr std::uint32_t fields = 32 / W;
    const std::uint32_t words = (tile_bins + fields - 1) / fields;
    std::vector<std::uint32_t> hist(words, 0);
    std::vector<unsigned long long> counts(tile_bins, 0);
    for (const auto& [bin, n] : adds) {
        std::uint32_t word = 0, shift = 0;
        packed_slot<W>(bin, words, word, shift);
        packed_count<W, HostOps>(hist.data(), word, shift, words, tile_bins, counts.data(), n);
    }
    for (std::uint32_t i = 0; i < words; ++i)
        packed_fold_word<W, HostOps>(hist[i], i, words, tile_bins, counts.data());
    return counts;
}

template <int W>
void check_random_adds(std::uint32_t tile_bins, std::uint32_t max_n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> adds;
    std::vector<unsigned long long> expected(tile_bins, 0);
    // Few bins, many counts: every field wraps many times, carries run through whole words.
    for (int i = 0; i < 200000; ++i) {
        const auto bin = static_cast<std::uint32_t>(rng() % tile_bins);
        const auto n = static_cast<std::uint32_t>(1 + rng() % max_n);
        adds.emplace_back(bin, n);
        expected[bin] += n;
    }
    EXPECT_EQ(count_packed<W>(tile_bins, adds), expected)
        << "W " << W << " tile_bins " << tile_bins << " max_n " << max_n;
}

}  // namespace

TEST(CudaHost, PackedCountsOfOneAreExact) {
    for (const std::uint32_t bins : {1u, 2u, 3u, 4u, 5u, 7u, 8u}) {
        check_random_adds<8>(bins, 1, bins);
        check_random_adds<16>(bins, 1, bins);
    }
}

TEST(CudaHost, PackedCountsOfManyAtOnceAreExact) {
    for (const std::uint32_t bins : {1u, 2u, 3u, 4u, 6u, 9u}) {
        check_random_adds<8>(bins, 255, 100 + bins);
        check_random_adds<16>(bins, 65535, 200 + bins);
        check_random_adds<16>(bins, 256, 300 + bins);
    }
}

TEST(CudaHost, PackedCarryThroughAllFieldsOfAWord) {
    // One word of four 8-bit fields: fill fields 1..3 to all ones, then wrap field 0 with a
    // large add: the carry runs through every field and leaves the word.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> adds;
    std::vector<unsigned long long> expected(4, 0);
    for (std::uint32_t bin = 1; bin < 4; ++bin) {
        adds.emplace_back(bin, 255);
        expected[bin] += 255;
    }
    adds.emplace_back(0, 200);
    adds.emplace_back(0, 100);  // 300 > 255: wraps field 0 and carries through 1, 2, 3
    expected[0] += 300;
    EXPECT_EQ(count_packed<8>(4, adds), expected);
}

TEST(CudaHost, PackedDirectSlotIsTheGenericLayoutOfItsBin) {
    // Every value of every power-of-two span up to 2^16 and every shift leaving >= 2 bins: the
    // direct path's word and field are packed_slot<16>'s for bin v >> shift.
    for (int span_bits = 1; span_bits <= 16; ++span_bits)
        for (int shift = 0; shift < span_bits; ++shift) {
            const std::uint32_t bins = (1u << span_bits) >> shift;
            for (std::uint32_t v = 0; v < (1u << span_bits); ++v) {
                std::uint32_t word = 0, shift_out = 0, want_word = 0, want_shift = 0;
                packed_direct_slot(v, span_bits, shift, word, shift_out);
                packed_slot<16>(v >> shift, bins / 2, want_word, want_shift);
                ASSERT_EQ(word, want_word) << span_bits << " " << shift << " " << v;
                ASSERT_EQ(shift_out, want_shift) << span_bits << " " << shift << " " << v;
            }
        }
}

TEST(CudaHost, PackedDirectServesWholePowerOfTwoRanges) {
    const auto serves = [](const HistogramSpec& spec, std::uint32_t values) {
        PackedArgs a;
        a.u16 = true;
        a.bins = bin_rule(spec, values, kWideModes, "test");
        return packed_direct_serves(a);
    };
    EXPECT_TRUE(serves(HistogramSpec::even(65536, 0, 65536), 65536));
    EXPECT_TRUE(serves(HistogramSpec::even(4096, 0, 65536), 65536));
    EXPECT_TRUE(serves(HistogramSpec::even(4096, 0, 4096), 65536));  // 12-bit range
    EXPECT_TRUE(serves(HistogramSpec::even(2, 0, 2), 65536));
    EXPECT_FALSE(serves(HistogramSpec::even(1, 0, 65536), 65536));       // one bin
    EXPECT_FALSE(serves(HistogramSpec::even(4096, 4096, 8192), 65536));  // lower bound
    EXPECT_FALSE(serves(HistogramSpec::even(4096, 0, 131072), 65536));   // past the values
    EXPECT_FALSE(serves(HistogramSpec::even(1000, 0, 1000), 65536));     // not a power of two
    EXPECT_FALSE(serves(HistogramSpec::even(3, 0, 65536), 65536));
}

TEST(CudaHost, AutoRaceFactorSpansOneToThirtyTwo) {
    const Image one =
        test::make_image(301, 17, 1, SampleType::U8, 8, [](int, int, int) { return 7u; });
    const Image ramp = test::make_image(256, 64, 1, SampleType::U8, 8, [](int x, int, int) {
        return static_cast<std::uint32_t>(x);
    });
    const HistogramSpec spec = HistogramSpec::even(256, 0, 256);
    const auto factor = [&](const Image& image) {
        return auto_race_factor(HistogramRequest{image.view(), {Channel::Gray}, spec});
    };
    EXPECT_DOUBLE_EQ(factor(one), 32.0);
    EXPECT_DOUBLE_EQ(factor(ramp), 1.0);
    // One bin for everything: every window is one run again.
    EXPECT_DOUBLE_EQ(auto_race_factor(HistogramRequest{
                         ramp.view(), {Channel::Gray}, HistogramSpec::even(1, 0, 256)}),
                     32.0);
    const AutoKey k = auto_key(HistogramRequest{one.view(), {Channel::Gray}, spec});
    EXPECT_EQ(k.race, 5);
    EXPECT_EQ(k.bins_log2, 8);
    EXPECT_EQ(k.u16, 0);
}
