// The GPU frame pipeline (the "gpu" stream engine) against the CPU reference: every frame's
// histograms bin for bin and its global equalization sample for sample, with every GPU engine
// whose kernels it can run, at every ring depth, on odd shapes, 16-bit and 4-channel frames and
// on every frame of the bundled clips; results in order, back-pressure, flat device memory.
//
// Clips: decoded with hs::media when the build has OpenCV; on a GPU host without OpenCV, from
// the raw dumps of bundled_media.hpp.

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "bundled_media.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/stream.hpp"
#include "histoscope/cuda/register.hpp"
#include "histoscope/media/media.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

class GpuPipeline : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!cuda::device_available())
            GTEST_SKIP() << "no CUDA device: " << cuda::query_devices().error;
        register_core_engines(registry_);
        cuda::register_engines(registry_);
        gpu_ = registry_.find_stream_engine("gpu");
        ASSERT_NE(gpu_, nullptr);
        ASSERT_TRUE(gpu_->availability().available);
    }

    // Streams `frames` through a pipeline of `config` and checks every result against the
    // reference, in order.
    void check(const StreamConfig& config, const std::vector<Image>& frames,
               const std::string& what) {
        const auto stream = gpu_->open(config);
        std::size_t next = 0;
        const auto verify = [&](const FrameResult& r) {
            ASSERT_LT(next, frames.size()) << what;
            ASSERT_EQ(r.index, static_cast<std::int64_t>(next)) << what;
            const ImageView in = frames[next].view();
            if (!config.channels.empty()) {
                auto reference = reference_histogram(in, config.channels, config.spec);
                apply_saturation(config.spec, reference);
                ASSERT_EQ(r.channels, reference)
                    << what << " frame " << next << " engine " << r.histogram_engine;
            }
            if (config.equalize) {
                EqualizeRequest request = *config.equalize;
                request.image = in;
                const Image expected = equalize_reference(request);
                ASSERT_EQ(r.equalized.width(), in.width);
                ASSERT_EQ(0, std::memcmp(r.equalized.view().data, expected.view().data,
                                         config.format.frame_bytes()))
                    << what << " frame " << next;
            }
            bool has_total = false;
            for (const auto& s : r.stages) has_total = has_total || s.name == "gpu_total";
            EXPECT_TRUE(has_total);
            ++next;
        };
        for (const Image& f : frames) {
            stream->submit(f.view());
            EXPECT_LE(stream->in_flight(), static_cast<std::size_t>(config.depth));
            while (auto r = stream->poll()) verify(*r);
        }
        while (auto r = stream->wait()) verify(*r);
        EXPECT_EQ(next, frames.size()) << what;
    }

    EngineRegistry registry_;
    StreamEngine* gpu_ = nullptr;
};

std::vector<Image> sequence(int n, int w, int h, int channels, SampleType type, int depth) {
    std::vector<Image> out;
    for (int i = 0; i < n; ++i) {
        const auto seed = static_cast<unsigned>(i + 3);
        switch (i % 4) {
            case 0:
                out.push_back(test::uniform(w, h, channels, type, depth, seed));
                break;
            case 1:
                out.push_back(test::constant(w, h, channels, type, depth,
                                             (1u << depth) - 1u - static_cast<unsigned>(i)));
                break;
            case 2:
                out.push_back(test::gaussian(w, h, channels, type, depth, 3.0, seed));
                break;
            default:
                out.push_back(test::ramp(w, h, channels, type, depth));
                break;
        }
    }
    return out;
}

StreamConfig config_for(const Image& frame, std::vector<Channel> channels, int bins) {
    StreamConfig c;
    c.format = FrameFormat::of(frame.view());
    c.channels = std::move(channels);
    c.spec = HistogramSpec::even(bins, 0, std::int64_t{1} << frame.bit_depth());
    return c;
}

}  // namespace

TEST_F(GpuPipeline, HistogramsAndEqualizationOfRgbFramesAtEveryDepth) {
    const std::vector<Image> frames = sequence(11, 640, 360, 3, SampleType::U8, 8);
    for (const int depth : {2, 3, 5, 16}) {
        StreamConfig c = config_for(frames[0], {Channel::R, Channel::G, Channel::B}, 256);
        c.equalize = EqualizeRequest{};
        c.depth = depth;
        check(c, frames, "rgb depth " + std::to_string(depth));
    }
}

TEST_F(GpuPipeline, OddShapesSixteenBitAndFourChannels) {
    for (const auto& [w, h] : {std::pair{1, 1}, std::pair{1, 7}, std::pair{13, 1}, std::pair{17, 5},
                               std::pair{1023, 77}}) {
        const std::vector<Image> rgb = sequence(5, w, h, 3, SampleType::U8, 8);
        StreamConfig c =
            config_for(rgb[0], {Channel::R, Channel::G, Channel::B, Channel::Luma601}, 256);
        c.equalize = EqualizeRequest{};
        check(c, rgb, "rgb " + std::to_string(w) + "x" + std::to_string(h));

        const std::vector<Image> deep = sequence(5, w, h, 1, SampleType::U16, 12);
        StreamConfig d = config_for(deep[0], {Channel::Gray}, 4096);
        d.equalize = EqualizeRequest{};
        check(d, deep, "u16/12 " + std::to_string(w) + "x" + std::to_string(h));
    }
    const std::vector<Image> rgba = sequence(6, 333, 100, 4, SampleType::U8, 8);
    StreamConfig c = config_for(rgba[0], {Channel::R, Channel::G, Channel::B, Channel::A}, 64);
    EqualizeRequest eq;
    eq.space = EqualizeSpace::Rgb;
    eq.strength = 0.5;
    c.equalize = eq;
    check(c, rgba, "rgba");

    const std::vector<Image> deep16 = sequence(6, 640, 480, 3, SampleType::U16, 16);
    StreamConfig d = config_for(deep16[0], {Channel::R, Channel::Luma709}, 65536);
    d.equalize = EqualizeRequest{};
    check(d, deep16, "u16/16 rgb 65536 bins");
}

TEST_F(GpuPipeline, EveryGpuEngineItCanRun) {
    const std::vector<Image> frames = sequence(6, 257, 129, 3, SampleType::U8, 8);
    int ran = 0;
    for (const auto& e : registry_.engines()) {
        StreamConfig c = config_for(frames[0], {Channel::R, Channel::G, Channel::B}, 256);
        c.engine = std::string(e->name());
        c.spec.saturate = 20000;  // packed-sat counts only with a cap
        const std::string why = gpu_->unsupported_reason(c);
        if (e->name() == "cpu") {
            EXPECT_FALSE(why.empty());  // not a GPU kernel it can run
            continue;
        }
        // "auto" runs the engine the registry's auto engine would try first for the shape.
        if (e->name() == "auto") {
            EXPECT_EQ(why, "");
        }
        if (!why.empty()) continue;  // a capability the engine lacks (it says so)
        check(c, frames, "engine " + std::string(e->name()));
        ++ran;
    }
    EXPECT_GE(ran, 9);
}

TEST_F(GpuPipeline, EqualizationAloneAndStrengthZero) {
    const std::vector<Image> frames = sequence(5, 320, 240, 3, SampleType::U8, 8);
    StreamConfig c;
    c.format = FrameFormat::of(frames[0].view());
    EqualizeRequest eq;
    eq.strength = 0.0;
    c.equalize = eq;
    check(c, frames, "strength 0");
    c.equalize->strength = 1.0;
    c.equalize->space = EqualizeSpace::Rgb;
    check(c, frames, "rgb space");
}

TEST_F(GpuPipeline, RefusesWhatItCannotRunAndTheCpuStreamTakesOver) {
    const Image frame = test::uniform(64, 64, 3, SampleType::U8, 8);
    StreamConfig c = config_for(frame, {Channel::R}, 256);
    c.equalize = EqualizeRequest{};
    c.equalize->mode = EqualizeMode::Clahe;
    EXPECT_NE(gpu_->unsupported_reason(c).find("globally"), std::string::npos);
    EXPECT_THROW(gpu_->open(c), UnsupportedError);
    EXPECT_EQ(choose_stream_engine(registry_, c).name(), "cpu");
    c.equalize.reset();
    c.engine = "cpu";
    EXPECT_FALSE(gpu_->unsupported_reason(c).empty());
    c.engine = "no-such-kernel";
    EXPECT_NE(gpu_->unsupported_reason(c).find("no-such-kernel"), std::string::npos);
    c.engine = "auto";
    EXPECT_EQ(gpu_->unsupported_reason(c), "");
    EXPECT_EQ(&choose_stream_engine(registry_, c), gpu_);
}

TEST_F(GpuPipeline, BackPressureAndFlatDeviceMemory) {
    const std::vector<Image> frames = sequence(4, 1920, 1080, 3, SampleType::U8, 8);
    StreamConfig c = config_for(frames[0], {Channel::R, Channel::G, Channel::B}, 256);
    c.equalize = EqualizeRequest{};
    c.depth = 3;
    const auto stream = gpu_->open(c);
    // Nobody takes the results: after `depth` ready results the stream refuses more frames.
    EXPECT_THROW(
        {
            for (int i = 0; i < 10; ++i)
                stream->submit(frames[static_cast<std::size_t>(i % 4)].view());
        },
        std::logic_error);
    while (stream->wait()) {
    }
    const std::size_t before = stream->device_memory_used().value();
    for (int i = 0; i < 300; ++i) {
        stream->submit(frames[static_cast<std::size_t>(i % 4)].view());
        while (stream->poll()) {
        }
    }
    while (stream->wait()) {
    }
    EXPECT_EQ(stream->device_memory_used().value(), before);
    const std::vector<double> upload = stream->measure_upload_ms(5);
    ASSERT_EQ(upload.size(), 5u);
    for (double ms : upload) EXPECT_GT(ms, 0.0);
    EXPECT_GT(stream->measure_steady_state_ms(20), 0.0);
    EXPECT_FALSE(stream->poll().has_value());
}

TEST_F(GpuPipeline, EveryFrameOfTheBundledClips) {
    const auto all = test::bundled_clips();
    if (all.empty()) GTEST_SKIP() << "no decoder for the clips (no OpenCV, no HS_RAW_CLIPS)";
    for (const auto& [name, frames] : all) {
        ASSERT_FALSE(frames.empty()) << name;
        StreamConfig c =
            config_for(frames[0], {Channel::R, Channel::G, Channel::B, Channel::Luma601}, 256);
        c.equalize = EqualizeRequest{};
        check(c, frames, name);
    }
}
