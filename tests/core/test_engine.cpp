#include <gtest/gtest.h>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/error.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

// An engine with narrow capabilities, to check that compute() refuses before run().
class NarrowEngine final : public HistogramEngine {
  public:
    int runs = 0;
    std::string_view name() const override { return "narrow"; }
    std::string_view description() const override { return "8-bit, 256 bins, no luma"; }
    Capabilities capabilities() const override {
        Capabilities c;
        c.u16 = false;
        c.luma = false;
        c.edges = false;
        c.max_bins = 256;
        return c;
    }

  protected:
    HistogramResult run(const HistogramRequest& r) override {
        ++runs;
        HistogramResult out;
        out.channels = reference_histogram(r.image, r.channels, r.spec);
        return out;
    }
};

class OfflineEngine final : public HistogramEngine {
  public:
    std::string_view name() const override { return "offline"; }
    std::string_view description() const override { return "never available"; }
    Availability availability() const override { return {false, "no device in this test"}; }
    Capabilities capabilities() const override { return {}; }

  protected:
    HistogramResult run(const HistogramRequest&) override { throw std::logic_error("ran"); }
};

}  // namespace

TEST(Registry, CpuEngineIsTheReference) {
    EngineRegistry reg;
    register_core_engines(reg);
    HistogramEngine* cpu = reg.find("cpu");
    ASSERT_NE(cpu, nullptr);
    EXPECT_EQ(reg.find("nope"), nullptr);
    EXPECT_THROW(register_core_engines(reg), UsageError);  // duplicate name

    const Image img = hs::test::uniform(640, 480, 4, SampleType::U8, 8);
    HistogramRequest req{
        img.view(), {Channel::R, Channel::A, Channel::Luma709}, HistogramSpec::even(64, 0, 256)};
    req.spec.saturate = 4000;
    const HistogramResult r = cpu->compute(req);
    EXPECT_EQ(r.channels, reference_histogram(req.image, req.channels, req.spec));
    EXPECT_GE(r.total_ms, 0.0);
    ASSERT_FALSE(r.stages.empty());
}

TEST(Registry, CapabilitiesAreEnforced) {
    NarrowEngine e;
    const Image u8 = hs::test::uniform(16, 16, 3, SampleType::U8, 8);
    const Image u16 = hs::test::uniform(16, 16, 3, SampleType::U16, 12);
    HistogramRequest ok{u8.view(), {Channel::G}, HistogramSpec::even(256, 0, 256)};
    EXPECT_EQ(e.unsupported_reason(ok), "");
    EXPECT_NO_THROW(e.compute(ok));

    HistogramRequest deep{u16.view(), {Channel::G}, HistogramSpec::even(256, 0, 4096)};
    HistogramRequest luma{u8.view(), {Channel::Luma601}, HistogramSpec::even(256, 0, 256)};
    HistogramRequest bins{u8.view(), {Channel::G}, HistogramSpec::even(257, 0, 257)};
    HistogramRequest edges{u8.view(), {Channel::G}, HistogramSpec::with_edges({0, 3, 256})};
    for (const auto* r : {&deep, &luma, &bins, &edges}) {
        EXPECT_NE(e.unsupported_reason(*r), "");
        EXPECT_THROW(e.compute(*r), UnsupportedError);
    }
    EXPECT_EQ(e.runs, 1);

    OfflineEngine off;
    EXPECT_THROW(off.compute(ok), UnsupportedError);
}
