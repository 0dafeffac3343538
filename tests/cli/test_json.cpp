#include <gtest/gtest.h>

#include "json.hpp"

using hs::cli::Json;

TEST(Json, RoundTripsCountsExactly) {
    Json j = Json::object();
    j.set("big", std::uint64_t{18446744073709551615ull});
    j.set("neg", std::int64_t{-42});
    j.set("pi", 3.25);
    j.set("s", "a\"b\\c\n");
    j.set("list", Json(Json::Array{Json(1), Json(2), Json()}));
    Json nested = Json::object();
    nested.set("ok", true);
    j.set("nested", nested);
    const Json back = Json::parse(j.dump());
    EXPECT_EQ(back.at("big").as_uint(), 18446744073709551615ull);
    EXPECT_EQ(back.at("neg").as_int(), -42);
    EXPECT_EQ(back.at("pi").as_double(), 3.25);
    EXPECT_EQ(back.at("s").as_string(), "a\"b\\c\n");
    EXPECT_EQ(back.at("list").size(), 3u);
    EXPECT_TRUE(back.at("list")[2].is_null());
    EXPECT_TRUE(back.at("nested").at("ok").as_bool());
}

TEST(Json, RejectsMalformedText) {
    EXPECT_THROW(Json::parse("{"), std::runtime_error);
    EXPECT_THROW(Json::parse("[1,]"), std::runtime_error);
    EXPECT_THROW(Json::parse("{\"a\":1} x"), std::runtime_error);
    EXPECT_THROW(Json::parse("\"open"), std::runtime_error);
}
