#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "json.hpp"

using hs::cli::Json;
using hs::cli::to_text;

TEST(Json, RoundTripsCountsExactly) {
    Json j = Json::object();
    j["big"] = std::uint64_t{18446744073709551615ull};
    j["neg"] = std::int64_t{-42};
    j["pi"] = 3.25;
    j["s"] = "a\"b\\c\n";
    j["list"] = Json::array({1, 2, nullptr});
    j["nested"] = Json::object({{"ok", true}});
    const Json back = Json::parse(to_text(j));
    EXPECT_EQ(back.at("big").get<std::uint64_t>(), 18446744073709551615ull);
    EXPECT_EQ(back.at("neg").get<std::int64_t>(), -42);
    EXPECT_EQ(back.at("pi").get<double>(), 3.25);
    EXPECT_EQ(back.at("s").get<std::string>(), "a\"b\\c\n");
    EXPECT_EQ(back.at("list").size(), 3u);
    EXPECT_TRUE(back.at("list")[2].is_null());
    EXPECT_TRUE(back.at("nested").at("ok").get<bool>());
}

TEST(Json, KeepsKeyOrderAndArraysOfNumbersOnOneLine) {
    Json j = Json::object();
    j["z"] = 1;
    j["a"] = Json::array({1, 2, 3});
    j["rows"] = Json::array({Json::object({{"k", 1}})});
    EXPECT_EQ(to_text(j),
              "{\n  \"z\": 1,\n  \"a\": [1, 2, 3],\n  \"rows\": [\n    {\n"
              "      \"k\": 1\n    }\n  ]\n}\n");
    EXPECT_EQ(to_text(j, -1), "{\"z\": 1, \"a\": [1, 2, 3], \"rows\": [{\"k\": 1}]}");
}

TEST(Json, WritesInvalidUtf8AsReplacementCharacters) {
    // "caf\xe9.png": a file name in Latin-1. The text must stay valid UTF-8 for any reader.
    Json j = Json::object();
    j["input"] = std::string("caf\xe9.png");
    const std::string text = to_text(j);
    const Json back = Json::parse(text);  // nlohmann refuses invalid UTF-8 when parsing
    EXPECT_EQ(back.at("input").get<std::string>(), "caf\xef\xbf\xbd.png");
}

TEST(Json, NonFiniteNumbersAreNull) {
    Json j = Json::array(
        {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()});
    EXPECT_EQ(to_text(j, -1), "[null, null]");
}
