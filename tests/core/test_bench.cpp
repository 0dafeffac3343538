// core's benchmark: the rows histoscope-cli bench and Compare Kernels both report.

#include <gtest/gtest.h>

#include <atomic>

#include "histoscope/core/bench.hpp"
#include "histoscope/core/error.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

// Counts one sample too many in bin 0 (a wrong engine must not be verified), or fails.
class WrongEngine final : public HistogramEngine {
  public:
    explicit WrongEngine(bool fail) : fail_(fail) {}
    std::string_view name() const override { return "wrong"; }
    std::string_view description() const override { return "off by one"; }
    Capabilities capabilities() const override { return {}; }

  protected:
    HistogramResult run(const HistogramRequest& r) override {
        if (fail_) throw DeviceError("out of device memory");
        HistogramResult out;
        out.channels = reference_histogram(r.image, r.channels, r.spec);
        ++out.channels.front().counts.front();
        return out;
    }

  private:
    bool fail_;
};

HistogramRequest request_of(const Image& img) {
    return {img.view(), {Channel::R, Channel::G}, HistogramSpec::even(64, 0, 256)};
}

}  // namespace

TEST(Timing, MedianOfOddAndEvenCounts) {
    EXPECT_EQ(median({}), 0.0);
    EXPECT_EQ(median({3.0, 1.0, 2.0}), 2.0);
    EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
}

TEST(Bench, RulesAreThreeWarmUpsAndFourTimesTheL2) {
    const BenchOptions o = bench_options(20, std::size_t{50} << 20);
    EXPECT_EQ(o.warmup_runs, 3);
    EXPECT_EQ(o.timed_runs, 20);
    EXPECT_EQ(o.rotate_bytes, std::size_t{200} << 20);
    EXPECT_EQ(bench_options(20, 0).rotate_bytes, 0u);
}

TEST(Bench, TheCpuReferenceIsTimedAndVerified) {
    EngineRegistry reg;
    register_core_engines(reg);
    const Image img = hs::test::uniform(301, 77, 3, SampleType::U8, 8);
    const HistogramRequest req = request_of(img);
    const auto reference = reference_histogram(req.image, req.channels, req.spec);
    BenchRow row;
    ASSERT_TRUE(bench_engine(*reg.find("cpu"), req, reference, bench_options(20, 0), 10.0, row));
    EXPECT_EQ(row.kernel, "cpu");
    EXPECT_EQ(row.status, "ok");
    EXPECT_TRUE(row.verified);
    EXPECT_EQ(row.runs, 20);
    EXPECT_EQ(row.width, 301);
    EXPECT_EQ(row.height, 77);
    EXPECT_EQ(row.image_channels, 3);
    EXPECT_EQ(row.bytes, 301u * 77u * 3u);
    EXPECT_EQ(row.channels, "r,g");
    EXPECT_EQ(row.bins, 64);
    EXPECT_GT(row.median_ms, 0.0);
    EXPECT_LE(row.min_ms, row.median_ms);
    EXPECT_NEAR(row.gb_s, static_cast<double>(row.bytes) / (row.median_ms * 1e6), 1e-9);
    EXPECT_NEAR(row.pct_read_bw, 100.0 * row.gb_s / 10.0, 1e-9);
}

TEST(Bench, ScopesAreTimedAndVerifiedLikeHistograms) {
    EngineRegistry reg;
    register_core_engines(reg);
    const Image img = hs::test::uniform(301, 77, 3, SampleType::U8, 8);
    ScopeSpec spec;
    spec.kind = ScopeKind::Parade;
    spec.levels = 128;
    const ScopeRequest req{img.view(), spec};
    const auto reference = reference_scope(req.image, spec);
    BenchRow row;
    ASSERT_TRUE(bench_scope_engine(*reg.find_scope_engine("cpu"), req, reference,
                                   bench_options(5, 0), 10.0, row));
    EXPECT_EQ(row.kernel, "cpu");
    EXPECT_EQ(row.status, "ok");
    EXPECT_TRUE(row.verified);
    EXPECT_EQ(row.runs, 5);
    EXPECT_EQ(row.channels, "r,g,b");
    EXPECT_EQ(row.spec, "parade r,g,b, 128 levels x 301 columns");
    EXPECT_EQ(row.bins, 128 * 301);
    EXPECT_GT(row.median_ms, 0.0);
    // Counts that differ are not verified.
    auto wrong = reference;
    ++wrong.back().counts.back();
    ASSERT_TRUE(bench_scope_engine(*reg.find_scope_engine("cpu"), req, wrong, bench_options(2, 0),
                                   10.0, row));
    EXPECT_FALSE(row.verified);
}

TEST(Bench, WrongCountsAreNotVerifiedAndFailuresAreRows) {
    const Image img = hs::test::uniform(64, 32, 3, SampleType::U8, 8);
    const HistogramRequest req = request_of(img);
    const auto reference = reference_histogram(req.image, req.channels, req.spec);
    WrongEngine wrong(false);
    BenchRow row;
    ASSERT_TRUE(bench_engine(wrong, req, reference, bench_options(20, 0), 0.0, row));
    EXPECT_EQ(row.status, "ok");
    EXPECT_FALSE(row.verified);
    EXPECT_EQ(row.reason, "counts differ from the CPU reference");
    EXPECT_EQ(row.pct_read_bw, 0.0);  // unknown bandwidth: no percentage
    WrongEngine failing(true);
    ASSERT_TRUE(bench_engine(failing, req, reference, bench_options(20, 0), 0.0, row));
    EXPECT_EQ(row.status, "error");
    EXPECT_EQ(row.reason, "out of device memory");
}

TEST(Bench, InteractiveRunsReportProgressAndStopWhenCancelled) {
    EngineRegistry reg;
    register_core_engines(reg);
    const Image img = hs::test::uniform(64, 32, 1, SampleType::U8, 8);
    const HistogramRequest req{img.view(), {Channel::Gray}, HistogramSpec::even(256, 0, 256)};
    const auto reference = reference_histogram(req.image, req.channels, req.spec);
    std::atomic<bool> cancel{false};
    int last = 0, calls = 0;
    BenchControl control;
    control.cancel = &cancel;
    control.progress = [&](int done) {
        EXPECT_GT(done, last);
        last = done;
        ++calls;
    };
    BenchRow row;
    ASSERT_TRUE(
        bench_engine(*reg.find("cpu"), req, reference, bench_options(50, 0), 0.0, row, control));
    EXPECT_EQ(last, 50);
    EXPECT_EQ(row.runs, 50);
    EXPECT_TRUE(row.verified);
    EXPECT_GE(calls, 2);  // one run first, then the rest in chunks
    cancel = true;
    EXPECT_FALSE(
        bench_engine(*reg.find("cpu"), req, reference, bench_options(50, 0), 0.0, row, control));
}

TEST(Bench, HostBandwidthAndCpuAreDescribed) {
    EXPECT_GT(measure_host_read_bandwidth_gbs(1), 0.0);
    EXPECT_NE(cpu_description().find("threads"), std::string::npos);
}
