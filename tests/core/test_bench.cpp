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

TEST(Bench, TheFloorIsARowAndEveryRowOfItsInputSaysHowFarFromIt) {
    const Image img = hs::test::uniform(301, 77, 3, SampleType::U8, 8);
    // A floor as a device would time it: 2 ms a run alone, 1.5 back to back.
    int calls = 0;
    bool reads_all = true;
    const FloorTimer timer = [&](const ImageView& image, const BenchOptions& options) {
        EXPECT_EQ(image.width, 301);
        ++calls;
        FloorTiming t;
        t.timing.histogram_ms.assign(static_cast<std::size_t>(options.timed_runs), 2.0);
        t.timing.back_to_back_ms = {1.5};
        t.timing.end_to_end_ms.assign(static_cast<std::size_t>(options.timed_runs), 3.0);
        t.timing.input_copies = 7;
        t.read_every_byte = reads_all;
        return t;
    };
    std::vector<BenchRow> rows(3);
    ASSERT_TRUE(bench_floor(timer, img.view(), bench_options(20, 0), 100.0, rows[0]));
    EXPECT_EQ(calls, 1);  // without a listener, all runs in one call
    EXPECT_TRUE(rows[0].floor);
    EXPECT_EQ(rows[0].kernel, "floor");
    EXPECT_EQ(rows[0].status, "ok");
    EXPECT_TRUE(rows[0].verified);
    EXPECT_EQ(rows[0].median_ms, 2.0);
    EXPECT_EQ(rows[0].back_to_back_ms, 1.5);
    EXPECT_EQ(rows[0].end_to_end_median_ms, 3.0);
    EXPECT_EQ(rows[0].input_copies, 7);
    EXPECT_EQ(rows[0].bytes, 301u * 77u * 3u);
    EXPECT_TRUE(rows[0].channels.empty() && rows[0].spec.empty());
    EXPECT_NEAR(rows[0].pct_read_bw, 100.0 * rows[0].gb_s / 100.0, 1e-9);

    // Engines of the same input get ratios, of another input none; an engine that does not
    // run back to back gets the single-run ratio alone.
    rows[0].input = rows[1].input = "a.png";
    rows[2].input = "b.png";
    for (int i : {1, 2}) {
        rows[static_cast<std::size_t>(i)].median_ms = 3.0;
        rows[static_cast<std::size_t>(i)].back_to_back_ms = 2.25;
    }
    relate_to_floor(rows);
    EXPECT_DOUBLE_EQ(rows[1].floor_ratio, 1.5);
    EXPECT_DOUBLE_EQ(rows[1].back_to_back_floor_ratio, 1.5);
    EXPECT_EQ(rows[2].floor_ratio, 0.0);
    EXPECT_EQ(rows[0].floor_ratio, 0.0);
    BenchRow cpu;
    cpu.median_ms = 8.0;
    relate_to_floor(rows[0], cpu);
    EXPECT_DOUBLE_EQ(cpu.floor_ratio, 4.0);
    EXPECT_EQ(cpu.back_to_back_floor_ratio, 0.0);

    // A read that missed bytes is not verified, and says so.
    reads_all = false;
    ASSERT_TRUE(bench_floor(timer, img.view(), bench_options(5, 0), 100.0, rows[0]));
    EXPECT_FALSE(rows[0].verified);
    EXPECT_EQ(rows[0].reason, "the read-only kernel did not read every byte");
    // A failing device is a row saying why.
    const FloorTimer failing = [](const ImageView&, const BenchOptions&) -> FloorTiming {
        throw DeviceError("out of device memory");
    };
    ASSERT_TRUE(bench_floor(failing, img.view(), bench_options(5, 0), 100.0, rows[0]));
    EXPECT_EQ(rows[0].status, "error");
    EXPECT_EQ(rows[0].reason, "out of device memory");
}
