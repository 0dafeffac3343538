#include "histoscope/core/channels.hpp"

#include <algorithm>
#include <array>

#include "histoscope/core/error.hpp"
#include "histoscope/core/name_list.hpp"

namespace hs {

namespace {
constexpr std::array<std::pair<Channel, std::string_view>, 8> kNames{{
    {Channel::Gray, "gray"},
    {Channel::R, "r"},
    {Channel::G, "g"},
    {Channel::B, "b"},
    {Channel::A, "a"},
    {Channel::Luma601, "luma"},
    {Channel::Luma709, "luma709"},
    {Channel::Joint, "rgb"},
}};
}  // namespace

std::string_view channel_name(Channel c) {
    for (const auto& [channel, name] : kNames)
        if (channel == c) return name;
    return "?";
}

std::optional<Channel> parse_channel(std::string_view name) {
    for (const auto& [channel, n] : kNames)
        if (n == name) return channel;
    return std::nullopt;
}

bool is_luma(Channel c) {
    return c == Channel::Luma601 || c == Channel::Luma709;
}

std::vector<Channel> all_channels(int image_channels) {
    switch (image_channels) {
        case 1:
            return {Channel::Gray};
        case 3:
            return {Channel::R, Channel::G, Channel::B};
        default:
            return {Channel::R, Channel::G, Channel::B, Channel::A};
    }
}

float luminance709(float r, float g, float b) {
    return (kLuminance709R * r + kLuminance709G * g) + kLuminance709B * b;
}

void check_channel(Channel c, int image_channels, SampleType type) {
    if (c == Channel::Joint && (image_channels < 3 || type != SampleType::U8))
        throw UsageError("the joint colour histogram 'rgb' needs an 8-bit colour image");
    if (c == Channel::Luma601 && is_float(type) && image_channels > 1)
        throw UsageError(
            "luma (Rec.601, of gamma-encoded code values) is not defined for float samples: "
            "their luminance is luma709 (Rec.709 weights on linear R, G, B)");
    if (c == Channel::A && image_channels != 4)
        throw UsageError("channel 'a' requested but the image has no alpha channel");
    if (c == Channel::Gray && image_channels != 1)
        throw UsageError("channel 'gray' requested but the image has " +
                         std::to_string(image_channels) + " channels (use r, g, b or " +
                         (is_float(type) ? "luma709" : "luma") + ")");
}

std::uint32_t channel_max_value(Channel c, SampleType type) {
    if (is_float(type)) throw UsageError("float samples have no largest code value");
    if (c == Channel::Joint) return (1u << 24) - 1;
    return type == SampleType::U8 ? 0xFFu : 0xFFFFu;
}

int channel_offset(Channel c, int image_channels) {
    if (image_channels == 1) return 0;
    switch (c) {
        case Channel::R:
            return 0;
        case Channel::G:
            return 1;
        case Channel::B:
            return 2;
        case Channel::A:
            return 3;
        default:
            return -1;
    }
}

std::vector<Channel> parse_channel_list(std::string_view list, int image_channels,
                                        SampleType type) {
    // "all" is the image's channels, alone or beside others ("all,luma"); of a float colour
    // image its luminance too (linear light has one, luma709, where code values have two lumas
    // and no "all" of them).
    std::vector<std::string_view> all;
    for (Channel c : all_channels(image_channels)) all.push_back(channel_name(c));
    if (is_float(type) && image_channels > 1) all.push_back(channel_name(Channel::Luma709));
    std::vector<Channel> out;
    for (const std::string& item : expand_all(list, all)) {
        const auto c = parse_channel(item);
        if (!c)
            throw UsageError("unknown channel '" + item +
                             "' (expected r, g, b, a, gray, luma, luma709, rgb or all)");
        check_channel(*c, image_channels, type);
        out.push_back(*c);
    }
    return out;
}

}  // namespace hs
