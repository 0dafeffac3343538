#pragma once
// Which plane of an image a histogram counts.
//
// Luma uses OpenCV's fixed-point coefficients (15 fractional bits) with round-half-up, for
// 8-bit and 16-bit samples alike, so that Rec.601 equals cv::cvtColor(RGB2GRAY) exactly
// (checked on all 2^24 8-bit triples and on random 16-bit ones):
//   Rec.601: Y = (9798 R + 19235 G + 3735 B + 16384) >> 15   (0.299, 0.587, 0.114)
//   Rec.709: Y = (6966 R + 23436 G + 2366 B + 16384) >> 15   (0.2126, 0.7152, 0.0722)
// Both coefficient sets sum to 32768, so Y never exceeds the largest input sample, and the
// sum stays below 2^31 for 16-bit samples.
// On a one-channel image r, g, b, luma and luma709 all read the gray sample.
//
// Float images (SampleType::F32) hold linear light: luma709 is their Rec.709 luminance,
//   Y = (0.2126f * R + 0.7152f * G) + 0.0722f * B
// in IEEE binary32, each product and sum one operation rounded to nearest (the weights the
// floats nearest 0.2126, 0.7152, 0.0722), in that order, never fused into an FMA (hs_core is
// built with -ffp-contract=off; a GPU kernel would use __fmul_rn and __fadd_rn), so that every
// engine gets the same float. Rec.601 luma (of gamma-encoded code values) and the joint colour
// are not defined for them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "histoscope/core/image.hpp"

namespace hs {

// Joint: the joint colour histogram of 8-bit R, G, B: value (R << 16) | (G << 8) | B, so
// 2^24 bins over [0, 2^24) give one bin per colour. Only for 8-bit colour images.
enum class Channel : std::uint8_t { Gray, R, G, B, A, Luma601, Luma709, Joint };

inline constexpr std::uint32_t joint_value(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
    return (r << 16) | (g << 8) | b;
}

struct LumaWeights {
    std::uint32_t r, g, b;
};
inline constexpr int kLumaShift = 15;
inline constexpr LumaWeights kLuma601{9798, 19235, 3735};
inline constexpr LumaWeights kLuma709{6966, 23436, 2366};

constexpr std::uint32_t luma(LumaWeights w, std::uint32_t r, std::uint32_t g, std::uint32_t b) {
    return (w.r * r + w.g * g + w.b * b + (1u << (kLumaShift - 1))) >> kLumaShift;
}

// The Rec.709 luminance of linear float R, G, B (the formula above). Defined out of line, in a
// source built without contraction, so that no caller's flags can fuse its operations.
inline constexpr float kLuminance709R = 0.2126f, kLuminance709G = 0.7152f, kLuminance709B = 0.0722f;
float luminance709(float r, float g, float b);

// "gray", "r", "g", "b", "a", "luma", "luma709", "rgb" (joint).
std::string_view channel_name(Channel c);
std::optional<Channel> parse_channel(std::string_view name);
bool is_luma(Channel c);

// Parses "r,g,b,a,luma,luma709" or "all" against an image with `image_channels` channels
// ("all" = gray for 1 channel, r,g,b for 3, r,g,b,a for 4). Throws UsageError.
std::vector<Channel> parse_channel_list(std::string_view list, int image_channels,
                                        SampleType type = SampleType::U8);
std::vector<Channel> all_channels(int image_channels);

// Throws UsageError when the image cannot provide `c` (alpha on RGB, gray on colour, joint on
// gray, 16-bit or float, Rec.601 luma on float).
void check_channel(Channel c, int image_channels, SampleType type = SampleType::U8);
// Largest value channel `c` takes on an image with integer samples of `type` (UsageError for
// float samples, which have none).
std::uint32_t channel_max_value(Channel c, SampleType type);
// Offset of a plain channel inside a pixel (gray/r -> 0 on one-channel images).
int channel_offset(Channel c, int image_channels);

}  // namespace hs
