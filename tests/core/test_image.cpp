#include <gtest/gtest.h>

#include "histoscope/core/channels.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/image.hpp"

using namespace hs;

TEST(Image, PackedAndPaddedStrides) {
    Image a(5, 3, 3, SampleType::U8);
    EXPECT_EQ(a.stride(), 15u);
    Image b(5, 3, 4, SampleType::U16, 12, 6);
    EXPECT_EQ(b.stride(), 5u * 4 * 2 + 6);
    EXPECT_EQ(b.view().bit_depth, 12);
    EXPECT_EQ(b.view().max_value(), 4095u);
    b.set_sample(4, 2, 3, 4095);
    EXPECT_EQ(b.view().sample(4, 2, 3), 4095u);
    EXPECT_EQ(b.view().sample(3, 2, 3), 0u);
}

TEST(Image, ValidateNamesTheProblem) {
    Image img(4, 4, 3, SampleType::U8);
    ImageView v = img.view();
    v.channels = 2;
    EXPECT_THROW(validate(v), UsageError);
    v = img.view();
    v.stride = 11;
    EXPECT_THROW(validate(v), UsageError);
    v = img.view();
    v.width = 0;
    EXPECT_THROW(validate(v), UsageError);
    v = img.view();
    v.bit_depth = 10;  // u8 must be depth 8
    EXPECT_THROW(validate(v), UsageError);
    Image w(4, 4, 1, SampleType::U16, 16);
    v = w.view();
    v.bit_depth = 17;
    EXPECT_THROW(validate(v), UsageError);
    v.bit_depth = 7;
    EXPECT_THROW(validate(v), UsageError);
    EXPECT_THROW(Image(0, 4, 1, SampleType::U8), UsageError);
    EXPECT_THROW(Image(4, 4, 2, SampleType::U8), UsageError);
}

TEST(Channels, ParseLists) {
    EXPECT_EQ(parse_channel_list("all", 1), std::vector<Channel>{Channel::Gray});
    EXPECT_EQ(parse_channel_list("all", 3),
              (std::vector<Channel>{Channel::R, Channel::G, Channel::B}));
    EXPECT_EQ(parse_channel_list("all", 4).size(), 4u);
    EXPECT_EQ(parse_channel_list("luma,luma709,b", 3),
              (std::vector<Channel>{Channel::Luma601, Channel::Luma709, Channel::B}));
    EXPECT_THROW(parse_channel_list("a", 3), UsageError);
    EXPECT_THROW(parse_channel_list("gray", 3), UsageError);
    EXPECT_THROW(parse_channel_list("x", 3), UsageError);
    EXPECT_THROW(parse_channel_list("r,,g", 3), UsageError);
    EXPECT_THROW(parse_channel_list("", 3), UsageError);
    // "all" beside other channels: the image's channels and the others, each once, in the
    // order of their first place.
    EXPECT_EQ(parse_channel_list("all,luma", 3),
              (std::vector<Channel>{Channel::R, Channel::G, Channel::B, Channel::Luma601}));
    EXPECT_EQ(
        parse_channel_list("luma709,all", 4),
        (std::vector<Channel>{Channel::Luma709, Channel::R, Channel::G, Channel::B, Channel::A}));
    EXPECT_EQ(parse_channel_list("r,all", 3),
              (std::vector<Channel>{Channel::R, Channel::G, Channel::B}));
    EXPECT_EQ(parse_channel_list("b,all,r", 3),
              (std::vector<Channel>{Channel::B, Channel::R, Channel::G}));
    EXPECT_EQ(parse_channel_list("all,luma", 1),
              (std::vector<Channel>{Channel::Gray, Channel::Luma601}));
    EXPECT_THROW(parse_channel_list("all,all", 3), UsageError);
    EXPECT_THROW(parse_channel_list("r,all,r", 3), UsageError);
    EXPECT_THROW(parse_channel_list("all,a", 3), UsageError);
    // One-channel images: r, g, b and luma all read the gray sample.
    EXPECT_EQ(channel_offset(Channel::B, 1), 0);
    EXPECT_NO_THROW(parse_channel_list("r,luma", 1));
}

TEST(Channels, LumaRoundingIsWrittenDown) {
    // Coefficients sum to 2^15, so white stays white at every depth and black stays black.
    EXPECT_EQ(kLuma601.r + kLuma601.g + kLuma601.b, 1u << kLumaShift);
    EXPECT_EQ(kLuma709.r + kLuma709.g + kLuma709.b, 1u << kLumaShift);
    EXPECT_EQ(luma(kLuma601, 255, 255, 255), 255u);
    EXPECT_EQ(luma(kLuma709, 65535, 65535, 65535), 65535u);
    EXPECT_EQ(luma(kLuma601, 0, 0, 0), 0u);
    // Round half up: R alone = 9798 * 255 / 32768 = 76.25 -> 76; G alone 149.68 -> 150.
    EXPECT_EQ(luma(kLuma601, 255, 0, 0), 76u);
    EXPECT_EQ(luma(kLuma601, 0, 255, 0), 150u);
    EXPECT_EQ(luma(kLuma601, 0, 0, 255), 29u);
    EXPECT_EQ(luma(kLuma709, 255, 0, 0), 54u);   // 54.21
    EXPECT_EQ(luma(kLuma709, 0, 255, 0), 182u);  // 182.39
    EXPECT_EQ(luma(kLuma709, 0, 0, 255), 18u);   // 18.41
    // Against the real-valued definition, integer luma is within half a step everywhere.
    for (std::uint32_t v = 0; v < 65536; v += 97) {
        const double exact = 0.2126 * v + 0.7152 * ((v * 7) % 65536) + 0.0722 * ((v * 13) % 65536);
        const auto y = luma(kLuma709, v, (v * 7) % 65536, (v * 13) % 65536);
        EXPECT_LE(std::abs(static_cast<double>(y) - exact), 0.5 + 65535 * 3.1e-5) << v;
    }
}
