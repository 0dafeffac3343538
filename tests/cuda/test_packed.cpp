// The "packed" and "packed-sat" GPU engines against the exact CPU reference, on data that
// wraps every packed counter many times (one-value and few-value images, all fields of one
// word hit at once, 2^16+ samples per bin in a single block), with forced counter widths,
// tiny tiles and single-block grids (PackedTuning), joint RGB histograms up to 2^24 bins, and
// saturation caps 1, 200, 255, 1000 and 65535 on counts crossing them; the direct 16-bit path
// on 1-, 3- and 4-channel images.
// PackedGpu.* skip without a device; CudaHost.* run on any machine.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/cuda/register.hpp"
#include "synthetic.hpp"
// The tuning overrides of the engines: a test-only view of the library.
#include "kernels/packed.cuh"

using namespace hs;
using hs::cuda::detail::PackedTuning;

namespace {

const std::vector<Channel> kGray{Channel::Gray};
const std::vector<Channel> kRgbLuma{Channel::R, Channel::G, Channel::B, Channel::Luma601,
                                    Channel::Luma709};
const std::vector<Channel> kRgbaAll{Channel::R,       Channel::G,       Channel::B,    Channel::A,
                                    Channel::Luma601, Channel::Luma709, Channel::Joint};

std::string describe(const PackedTuning& t) {
    return "tuning bits " + std::to_string(t.counter_bits) + " tile " +
           std::to_string(t.max_tile_bins) + " blocks " + std::to_string(t.blocks_per_tile) +
           " threads " + std::to_string(t.threads) + (t.direct ? "" : " generic") + " cluster " +
           std::to_string(t.cluster_blocks);
}

// An image whose samples (all channels alike) take value values[i] counts[i] times, in an
// interleaved order, `width` pixels per row (the last row padded with values[0]).
Image with_counts(const std::vector<std::uint32_t>& values,
                  const std::vector<std::uint64_t>& counts, int width, int channels,
                  SampleType type) {
    std::vector<std::uint32_t> seq;
    std::vector<std::uint64_t> left = counts;
    for (bool any = true; any;) {
        any = false;
        for (std::size_t i = 0; i < values.size(); ++i)
            if (left[i] > 0) {
                seq.push_back(values[i]);
                --left[i];
                any = true;
            }
    }
    const int height = static_cast<int>((seq.size() + static_cast<std::size_t>(width) - 1) /
                                        static_cast<std::size_t>(width));
    return test::make_image(
        width, height, channels, type, type == SampleType::U8 ? 8 : 16, [&](int x, int y, int) {
            const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                                  static_cast<std::size_t>(x);
            return i < seq.size() ? seq[i] : values[0];
        });
}

std::vector<HistogramSpec> u8_specs() {
    return {HistogramSpec::even(256, 0, 256), HistogramSpec::even(4, 0, 256),
            HistogramSpec::even(1, 0, 256), HistogramSpec::even(1000, -3, 256),
            HistogramSpec::with_edges({0, 1, 7.5, 64, 128, 192, 200, 254.5, 256})};
}

std::vector<HistogramSpec> u16_specs() {
    // Bin widths 1 and 16 (a shift), 100 (a division), 65536 / 3 (multiply and divide).
    return {HistogramSpec::even(65536, 0, 65536),
            HistogramSpec::even(4096, 0, 65536),
            HistogramSpec::even(640, -5, 63995),
            HistogramSpec::even(3, 0, 65536),
            HistogramSpec::even(1000, 17, 65533),
            HistogramSpec::even(4096, 0, 4096),  // 12-bit: larger values are not counted
            HistogramSpec::even(2, 0, 2),
            HistogramSpec::with_edges({0, 0.5, 255, 256, 1023.25, 4096, 40000, 65535, 65536})};
}

class PackedGpu : public ::testing::Test {
  protected:
    void SetUp() override {
        if (const std::string why = test::no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
        packed_ = test::gpu_engine(registry_, "packed");
        sat_ = test::gpu_engine(registry_, "packed-sat");
        ASSERT_NE(packed_, nullptr);
        ASSERT_NE(sat_, nullptr);
    }

    // The engine must serve the request and match the reference in every bin.
    void expect_exact(HistogramEngine& engine, const ImageView& image,
                      const std::vector<Channel>& channels, const HistogramSpec& spec,
                      const std::string& what = {}) {
        SCOPED_TRACE(what);
        test::expect_exact(engine, {image, channels, spec});
    }

    static std::vector<PackedTuning> tunings() {
        return {
            PackedTuning{},                // as registered
            PackedTuning{8, 0, 1, 256},    // 8-bit, one block per tile
            PackedTuning{16, 0, 1, 1024},  // 16-bit, one block per tile
            PackedTuning{8, 0, 3, 0},      // 8-bit, three blocks
            PackedTuning{16, 100, 2, 0},   // 16-bit, tiles of at most 100 bins
            PackedTuning{8, 7, 0, 0},      // 8-bit, tiles of 7 bins (2 words)
            // 16-bit, the generic kernel where the direct one would count
            PackedTuning{16, 0, 2, 512, false},
        };
    }

    EngineRegistry registry_;
    HistogramEngine* packed_ = nullptr;
    HistogramEngine* sat_ = nullptr;
};

TEST_F(PackedGpu, Small) {
    // A quick cover of both kernels (the input of the compute-sanitizer runs): 8-bit wraps,
    // tiles, 16-bit samples, joint colour, saturation.
    const Image one = test::constant(200, 100, 1, SampleType::U8, 8, 77);
    const Image rgba = test::uniform(123, 45, 4, SampleType::U8, 8, 3);
    const Image deep = test::uniform(97, 31, 3, SampleType::U16, 12, 4);
    for (const PackedTuning& t : {PackedTuning{}, PackedTuning{8, 5, 2, 128}}) {
        SCOPED_TRACE(describe(t));
        const auto engine = cuda::detail::make_packed_engine(t);
        expect_exact(*engine, one.view(), kGray, HistogramSpec::even(256, 0, 256));
        expect_exact(*engine, rgba.view(), kRgbaAll, HistogramSpec::even(4096, 0, 1 << 24));
        expect_exact(*engine, deep.view(), kRgbLuma, HistogramSpec::even(1000, 17, 4000));
        HistogramSpec sat = HistogramSpec::even(64, 0, 256);
        sat.saturate = 100;
        const auto saturating = cuda::detail::make_packed_sat_engine(t);
        expect_exact(*saturating, one.view(), kGray, sat);
        expect_exact(*saturating, rgba.view(), kRgbaAll, sat);
    }
}

TEST_F(PackedGpu, OneValueImagesWrapEveryCounter) {
    // 90000 and 2252800 samples in one bin: 8-bit fields wrap hundreds of times per block,
    // 16-bit ones (one block per tile) dozens of times.
    const Image small0 = test::constant(300, 300, 1, SampleType::U8, 8, 0);
    const Image small255 = test::constant(300, 300, 1, SampleType::U8, 8, 255);
    const Image big = test::constant(2048, 1100, 1, SampleType::U8, 8, 200);
    const Image rgba = test::constant(1024, 1024, 4, SampleType::U8, 8, 130);
    const Image deep = test::constant(1024, 1100, 1, SampleType::U16, 16, 65535);
    const Image deep0 = test::constant(700, 300, 3, SampleType::U16, 16, 0);
    for (const PackedTuning& t : tunings()) {
        SCOPED_TRACE(describe(t));
        const auto engine = cuda::detail::make_packed_engine(t);
        for (const HistogramSpec& spec : u8_specs()) {
            expect_exact(*engine, small0.view(), kGray, spec, "one value 0");
            expect_exact(*engine, small255.view(), kGray, spec, "one value 255");
            expect_exact(*engine, big.view(), kGray, spec, "one value, 2M");
        }
        expect_exact(*engine, rgba.view(), kRgbaAll, HistogramSpec::even(256, 0, 256), "rgba");
        if (t.max_tile_bins == 0)  // small tiles: far more than 65535 tiles, refused
            expect_exact(*engine, rgba.view(), {Channel::Joint},
                         HistogramSpec::even(1 << 24, 0, 1 << 24), "rgba joint");
        for (const HistogramSpec& spec : u16_specs()) {
            expect_exact(*engine, deep.view(), kGray, spec, "one value u16");
            expect_exact(*engine, deep0.view(), kRgbLuma, spec, "zero u16");
        }
    }
}

TEST_F(PackedGpu, OneValueWarpsBesideMixedOnes) {
    // Runs of one value (warps that count 32 groups with one addition of up to 2^W - 1 at a
    // time) beside noise and runs that change within a warp's or a lane's group, odd sizes so
    // that the last group is partial and runs straddle rows.
    const auto sample = [](int w, std::uint32_t mask) {
        return [w, mask](int x, int y, int) {
            const std::uint64_t i = static_cast<std::uint64_t>(y) * static_cast<std::uint64_t>(w) +
                                    static_cast<std::uint64_t>(x);
            const std::uint64_t region = i / 5000;
            if (region % 3 == 0) return static_cast<std::uint32_t>(region * 37) & mask;
            if (region % 3 == 1) return static_cast<std::uint32_t>(i * 2654435761u >> 7) & mask;
            return static_cast<std::uint32_t>(i / 200) & mask;  // changes inside a warp's span
        };
    };
    const Image u8 = test::make_image(1001, 777, 1, SampleType::U8, 8, sample(1001, 0xFF));
    const Image u16 = test::make_image(999, 555, 1, SampleType::U16, 16, sample(999, 0xFFFF));
    const Image tiny = test::constant(1, 1, 1, SampleType::U16, 16, 65535);
    for (const PackedTuning& t : tunings()) {
        SCOPED_TRACE(describe(t));
        const auto engine = cuda::detail::make_packed_engine(t);
        for (const HistogramSpec& spec : u8_specs())
            expect_exact(*engine, u8.view(), kGray, spec, "runs u8");
        for (const HistogramSpec& spec : u16_specs()) {
            expect_exact(*engine, u16.view(), kGray, spec, "runs u16");
            expect_exact(*engine, tiny.view(), kGray, spec, "1x1");
        }
    }
}

TEST_F(PackedGpu, DirectPathOnEveryLayout) {
    // The direct kernels (1, 3 and 4 samples per pixel, 65536 bins by constants, other
    // power-of-two ranges by shifts) on every plain channel: odd sizes (a partial last group),
    // flat groups beside noise, and in one block counts crossing 65535 / 65536 per bin (one
    // value: whole-warp additions of 256; two values alternating: additions of one).
    const auto mixed = [](int w) {
        return [w](int x, int y, int c) {
            const std::uint64_t i = static_cast<std::uint64_t>(y) * static_cast<std::uint64_t>(w) +
                                    static_cast<std::uint64_t>(x);
            if ((i / 700) % 2 == 0) return static_cast<std::uint32_t>(40000 + c);
            return static_cast<std::uint32_t>((i * 2654435761u) >> 9) & 0xFFFFu;
        };
    };
    const std::vector<HistogramSpec> specs{
        HistogramSpec::even(65536, 0, 65536), HistogramSpec::even(16384, 0, 65536),
        HistogramSpec::even(4096, 0, 4096), HistogramSpec::even(2, 0, 2)};
    // As registered (clusters of two blocks folding their tiles together where the device has
    // them: one or three blocks then become whole clusters), and each block folding its own.
    const std::vector<PackedTuning> tunings{
        PackedTuning{}, PackedTuning{16, 0, 1, 1024}, PackedTuning{0, 0, 3, 96},
        PackedTuning{16, 0, 0, 0, true, 1}, PackedTuning{0, 0, 3, 96, true, 1}};
    for (const int channels : {1, 3, 4}) {
        const std::vector<Channel> plain =
            channels == 1   ? kGray
            : channels == 3 ? std::vector<Channel>{Channel::R, Channel::G, Channel::B}
                            : std::vector<Channel>{Channel::R, Channel::G, Channel::B, Channel::A};
        const std::vector<Image> images{
            test::constant(1, 1, channels, SampleType::U16, 16, 65535),
            test::make_image(7, 3, channels, SampleType::U16, 16, mixed(7)),
            test::make_image(1001, 333, channels, SampleType::U16, 16, mixed(1001)),
            test::constant(517, 300, channels, SampleType::U16, 16, 32768),  // 155100 per bin
            with_counts({1, 40000}, {140001, 70000}, 999, channels, SampleType::U16),
            with_counts({65535, 0, 32767}, {65536, 65535, 65537}, 640, channels, SampleType::U16)};
        for (const PackedTuning& t : tunings) {
            SCOPED_TRACE(describe(t) + " channels " + std::to_string(channels));
            const auto engine = cuda::detail::make_packed_engine(t);
            for (const Image& image : images)
                for (const HistogramSpec& spec : specs)
                    expect_exact(*engine, image.view(), plain, spec,
                                 std::to_string(image.width()) + "x" +
                                     std::to_string(image.height()) + " " + spec.describe());
        }
    }
}

TEST_F(PackedGpu, DirectPathRunsInClustersWhereTheDeviceHasThem) {
    // The engine says which fold it planned: clusters of two on a device that launches
    // thread-block clusters (compute capability 9.0 and later), each block alone elsewhere;
    // forcing clusters where there are none is refused, not ignored.
    const cuda::DeviceQuery q = cuda::query_devices();
    ASSERT_FALSE(q.devices.empty());
    const bool clusters = q.devices.front().cc_major >= 9;
    const Image image = with_counts({7, 65535}, {70000, 3}, 641, 1, SampleType::U16);
    const HistogramSpec spec = HistogramSpec::even(65536, 0, 65536);
    const auto registered = cuda::detail::make_packed_engine(PackedTuning{});
    expect_exact(*registered, image.view(), kGray, spec);
    EXPECT_EQ(std::string(registered->description()).find("clusters of 2") != std::string::npos,
              clusters)
        << registered->description();
    const auto forced = cuda::detail::make_packed_engine(PackedTuning{0, 0, 0, 0, true, 2});
    if (clusters) {
        expect_exact(*forced, image.view(), kGray, spec);
    } else {
        EXPECT_THROW(forced->compute({image.view(), kGray, spec}), UnsupportedError);
    }
    EXPECT_THROW(cuda::detail::make_packed_engine(PackedTuning{0, 0, 0, 0, true, 3})
                     ->compute({image.view(), kGray, spec}),
                 UnsupportedError);
}

TEST_F(PackedGpu, AllFieldsOfOneWordAtOnce) {
    // With 256 bins the 8-bit layout puts 0, 64, 128, 192 into the four fields of word 0 and
    // the 16-bit layout 0 and 128 into word 0, 64 and 192 into word 64: carries out of one
    // field meet increments of the next one all the time. With 4 bins all four share a word.
    const std::vector<std::uint32_t> values{0, 64, 128, 192, 255, 63, 127, 191};
    const std::vector<std::uint64_t> counts{700001, 650000, 600003, 555555,
                                            70000,  65535,  65536,  65537};
    const Image img = with_counts(values, counts, 1500, 1, SampleType::U8);
    const Image rgb = with_counts(values, counts, 1001, 3, SampleType::U8);
    const std::vector<std::uint32_t> deep_values{0, 16384, 32768, 49152, 65535, 1};
    const std::vector<std::uint64_t> deep_counts{400000, 300007, 200000, 131073, 65536, 65535};
    const Image deep = with_counts(deep_values, deep_counts, 1024, 1, SampleType::U16);
    for (const PackedTuning& t : tunings()) {
        SCOPED_TRACE(describe(t));
        const auto engine = cuda::detail::make_packed_engine(t);
        for (const HistogramSpec& spec : u8_specs()) {
            expect_exact(*engine, img.view(), kGray, spec, "few values");
            expect_exact(*engine, rgb.view(), kRgbLuma, spec, "few values rgb");
        }
        for (const HistogramSpec& spec : u16_specs())
            expect_exact(*engine, deep.view(), kGray, spec, "few values u16");
        expect_exact(*engine, deep.view(), kGray, HistogramSpec::even(4, 0, 65536), "4 bins");
    }
}

TEST_F(PackedGpu, TilesOfEverySize) {
    const Image rgb = test::uniform(640, 480, 3, SampleType::U8, 8, 21);
    const Image g8 = test::gaussian(777, 333, 4, SampleType::U8, 8, 4.0);
    const Image u16 = test::uniform(800, 600, 1, SampleType::U16, 16, 22);
    std::vector<double> squares;
    for (int i = 0; i * i <= 70000; ++i) squares.push_back(static_cast<double>(i) * i + 0.25);
    std::vector<double> many;  // 70000 edges: thresholds of a tile only in shared memory
    for (int i = 0; i <= 70000; ++i) many.push_back(i - 2000.5);
    for (const int tile : {1, 2, 7, 64, 1000, 30000}) {
        for (const int bits : {8, 16}) {
            const PackedTuning t{bits, tile, 0, 0};
            SCOPED_TRACE(describe(t));
            const auto engine = cuda::detail::make_packed_engine(t);
            for (const HistogramSpec& spec : u8_specs()) {
                expect_exact(*engine, rgb.view(), kRgbLuma, spec, "uniform rgb");
                expect_exact(*engine, g8.view(), kRgbaAll, spec, "gaussian rgba");
            }
            if (tile < 64) continue;  // thousands of tiles: slow, and covered below
            for (const HistogramSpec& spec : u16_specs())
                expect_exact(*engine, u16.view(), kGray, spec, "uniform u16");
            expect_exact(*engine, u16.view(), kGray, HistogramSpec::with_edges(squares), "squares");
            expect_exact(*engine, u16.view(), kGray, HistogramSpec::with_edges(many), "many");
            expect_exact(*engine, rgb.view(), {Channel::Joint},
                         HistogramSpec::even(4096, 0, 1 << 24), "joint 4096");
        }
    }
}

TEST_F(PackedGpu, JointColourUpTo2To24Bins) {
    const Image one = test::constant(1024, 1024, 3, SampleType::U8, 8, 99);
    const std::vector<std::uint32_t> values{0, 255, 1, 128};
    const Image few = with_counts(values, {300000, 200000, 65537, 70000}, 999, 4, SampleType::U8);
    const Image rgba = test::uniform(1280, 720, 4, SampleType::U8, 8, 9);
    const Image photo_like = test::gaussian(1000, 800, 3, SampleType::U8, 8, 20.0);
    std::vector<double> edges;
    for (int i = 0; i <= 1000; ++i) edges.push_back(i * 16777.216 - 3.5);
    const std::vector<HistogramSpec> specs{
        HistogramSpec::even(1 << 24, 0, 1 << 24), HistogramSpec::even(4096, 0, 1 << 24),
        HistogramSpec::even(1000, 0, 1 << 24),  // (v - lower) * bins needs 64 bits
        HistogramSpec::even(3, 5, (1 << 24) - 7), HistogramSpec::with_edges(edges)};
    for (const PackedTuning& t :
         {PackedTuning{}, PackedTuning{16, 0, 0, 0}, PackedTuning{8, 0, 2, 512}}) {
        SCOPED_TRACE(describe(t));
        const auto engine = cuda::detail::make_packed_engine(t);
        for (const HistogramSpec& spec : specs) {
            expect_exact(*engine, one.view(), {Channel::Joint}, spec, "one colour");
            expect_exact(*engine, few.view(), {Channel::Joint}, spec, "four colours");
            expect_exact(*engine, rgba.view(), {Channel::Joint, Channel::G}, spec, "uniform");
            expect_exact(*engine, photo_like.view(), {Channel::Joint}, spec, "gaussian");
        }
    }
}

TEST_F(PackedGpu, RegisteredEngineServesEverySize) {
    const Image u16 = test::uniform(2000, 1000, 1, SampleType::U16, 16, 61);
    const Image flat = test::constant(2000, 1000, 1, SampleType::U16, 16, 12345);
    for (const int bins : {256, 4096, 65536}) {
        expect_exact(*packed_, u16.view(), kGray, HistogramSpec::even(bins, 0, 65536));
        expect_exact(*packed_, flat.view(), kGray, HistogramSpec::even(bins, 0, 65536));
    }
    const Image big = test::uniform(3840, 2160, 4, SampleType::U8, 8, 81);
    expect_exact(*packed_, big.view(), kRgbaAll, HistogramSpec::even(256, 0, 256));
    // "packed" serves caps too (the base class applies them to its exact counts).
    HistogramSpec capped = HistogramSpec::even(256, 0, 256);
    capped.saturate = 1000000;
    expect_exact(*packed_, big.view(), kRgbaAll, capped);
}

TEST_F(PackedGpu, SaturationCapsOnCountsCrossingThem) {
    for (const std::uint64_t cap : {1u, 200u, 255u, 1000u, 65535u}) {
        // Bins with cap - 1, cap, cap + 1 and 3 cap + 7 samples (and a few with one), at
        // both depths and for every channel kind.
        const std::vector<std::uint64_t> counts{cap > 1 ? cap - 1 : 1, cap, cap + 1,
                                                3 * cap + 7,           1,   2};
        const Image u8 = with_counts({10, 11, 74, 138, 202, 255}, counts, 513, 4, SampleType::U8);
        const Image u16 =
            with_counts({0, 1, 4096, 40000, 65534, 65535}, counts, 517, 3, SampleType::U16);
        const Image one = test::constant(300, 300, 1, SampleType::U8, 8, 9);
        const Image uniform = test::uniform(640, 480, 3, SampleType::U16, 16, 51);
        std::vector<PackedTuning> tunings{PackedTuning{}, PackedTuning{16, 0, 1, 0},
                                          PackedTuning{16, 5, 3, 256}};
        if (cap <= 255) {
            tunings.push_back(PackedTuning{8, 0, 1, 1024});
            tunings.push_back(PackedTuning{8, 9, 0, 0});
        }
        for (const PackedTuning& t : tunings) {
            SCOPED_TRACE("cap " + std::to_string(cap) + ", " + describe(t));
            const auto engine = cuda::detail::make_packed_sat_engine(t);
            std::vector<HistogramSpec> specs{
                HistogramSpec::even(256, 0, 256), HistogramSpec::even(1 << 24, 0, 1 << 24),
                HistogramSpec::even(64, 0, 65536), HistogramSpec::even(65536, 0, 65536),
                HistogramSpec::with_edges({0, 10.5, 11, 75, 4096, 40001, 65535})};
            for (HistogramSpec& spec : specs) spec.saturate = cap;
            expect_exact(*engine, u8.view(), kRgbaAll, specs[0], "counts");
            if (t.max_tile_bins == 0)  // small tiles: far more than 65535 tiles, refused
                expect_exact(*engine, u8.view(), {Channel::Joint}, specs[1], "counts joint");
            expect_exact(*engine, u8.view(), kRgbaAll, specs[4], "counts edges");
            expect_exact(*engine, one.view(), kGray, specs[0], "one value");
            for (const std::size_t s : {2u, 3u, 4u}) {
                expect_exact(*engine, u16.view(), kRgbLuma, specs[s], "counts u16");
                expect_exact(*engine, uniform.view(), kRgbLuma, specs[s], "uniform u16");
            }
        }
        // The counts themselves: min(count, cap) (value 10 also pads the last row).
        HistogramSpec spec = HistogramSpec::even(256, 0, 256);
        spec.saturate = cap;
        const HistogramResult r = sat_->compute({u8.view(), {Channel::R}, spec});
        ASSERT_EQ(r.channels.size(), 1u);
        const std::vector<std::uint64_t>& c = r.channels[0].counts;
        EXPECT_LE(c[10], cap);
        EXPECT_EQ(c[11], cap);
        EXPECT_EQ(c[74], cap);
        EXPECT_EQ(c[138], cap);
    }
}

TEST_F(PackedGpu, SaturatingEngineRefusesWhatItCannotCap) {
    const Image img = test::uniform(256, 256, 1, SampleType::U8, 8, 71);
    const auto refused = [&](HistogramEngine& engine, const HistogramSpec& spec,
                             const std::string& words) {
        const HistogramRequest request{img.view(), kGray, spec};
        const std::string why = engine.unsupported_reason(request);
        EXPECT_NE(why.find(words), std::string::npos) << why;
        EXPECT_NE(why.find("packed-sat"), std::string::npos) << why;
        EXPECT_THROW(engine.compute(request), UnsupportedError);
    };
    refused(*sat_, HistogramSpec::even(256, 0, 256), "saturation cap");
    HistogramSpec big = HistogramSpec::even(256, 0, 256);
    big.saturate = 65536;
    refused(*sat_, big, "65535");
    HistogramSpec over8 = HistogramSpec::even(256, 0, 256);
    over8.saturate = 256;
    const auto eight = cuda::detail::make_packed_sat_engine(PackedTuning{8, 0, 0, 0});
    refused(*eight, over8, "255");
    over8.saturate = 255;
    expect_exact(*eight, img.view(), kGray, over8);
    // "packed" takes any cap, and none.
    expect_exact(*packed_, img.view(), kGray, big);
    expect_exact(*packed_, img.view(), kGray, HistogramSpec::even(256, 0, 256));
}

// ---------------------------------------------------------------------------------------------
// Host-side behaviour: runs on every machine.

TEST(CudaHost, RegistersPackedEngines) {
    EngineRegistry reg;
    cuda::register_engines(reg);
    for (const char* name : {"packed", "packed-sat"}) {
        HistogramEngine* e = reg.find(name);
        ASSERT_NE(e, nullptr) << name;
        EXPECT_FALSE(e->description().empty());
        EXPECT_EQ(e->capabilities().max_bins, kMaxBins);
        if (!cuda::device_available()) {
            EXPECT_FALSE(e->availability().available);
        }
    }
    // Without a cap "packed-sat" has nothing to do, device or not.
    HistogramEngine* sat = reg.find("packed-sat");
    const Image img = test::uniform(16, 16, 1, SampleType::U8, 8, 1);
    EXPECT_NE(sat->unsupported_reason({img.view(), kGray, HistogramSpec::even(256, 0, 256)}), "");
}

}  // namespace
