// The GPU frame pipeline (the "gpu" stream engine) against the CPU reference: every frame's
// histograms bin for bin, its equalization (global, CLAHE, matching) sample for sample, the
// histograms of the equalized frame, and the pictures made on the device (reduced, display
// range, clipping masks) byte for byte against core's make_pictures(), with every GPU engine
// whose kernels it can run, at every ring depth, on odd shapes, 16-bit and 4-channel frames and
// on every frame of the bundled clips; frames straight from pinned memory, resubmission,
// reconfiguration, discarding, the ready callback; results in order, back-pressure, flat
// device memory.
//
// Clips: decoded with hs::media when the build has OpenCV; on a GPU host without OpenCV, from
// the raw dumps of bundled_media.hpp.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "bundled_media.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/scopes.hpp"
#include "histoscope/core/stream.hpp"
#include "histoscope/cuda/register.hpp"
#include "histoscope/media/media.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

void expect_same_image(const Image& got, const Image& want, const std::string& what) {
    ASSERT_EQ(got.empty(), want.empty()) << what;
    if (want.empty()) return;
    ASSERT_TRUE(FrameFormat::of(got.view()) == FrameFormat::of(want.view())) << what;
    for (int y = 0; y < want.height(); ++y)
        ASSERT_EQ(0, std::memcmp(got.view().row(y), want.view().row(y), want.view().row_bytes()))
            << what << " row " << y;
}

// One result against the CPU reference: histograms and scopes (of the region), the equalized
// frame and its histograms, the pictures.
void verify_result(const StreamConfig& config, const ImageView& in, const FrameResult& r,
                   const std::string& what) {
    std::vector<ChannelHistogram> reference;
    if (!config.channels.empty()) {
        reference = reference_histogram(config.counted(in), config.channels, config.spec);
        apply_saturation(config.spec, reference);
        ASSERT_EQ(r.channels, reference) << what << " engine " << r.histogram_engine;
    }
    ASSERT_EQ(r.scopes.size(), config.scopes.size()) << what;
    for (std::size_t i = 0; i < config.scopes.size(); ++i)
        ASSERT_EQ(r.scopes[i], reference_scope(config.counted(in), config.scopes[i]))
            << what << " scope " << config.scopes[i].describe(config.counted(in).width);
    Image expected;
    if (config.equalize) {
        EqualizeRequest request = *config.equalize;
        request.image = in;
        expected = equalize_reference(request);
        if (config.equalized_frame) {
            ASSERT_EQ(r.equalized.width(), in.width) << what;
            ASSERT_EQ(0, std::memcmp(r.equalized.view().data, expected.view().data,
                                     config.format.frame_bytes()))
                << what;
        } else {
            EXPECT_TRUE(r.equalized.empty()) << what;
        }
        if (config.equalized_histograms && !config.channels.empty()) {
            auto eq =
                reference_histogram(config.counted(expected.view()), config.channels, config.spec);
            apply_saturation(config.spec, eq);
            ASSERT_EQ(r.equalized_channels, eq) << what << " (equalized)";
        }
    }
    if (config.display) {
        ASSERT_TRUE(r.pictures.has_value()) << what;
        const ImageView eq_view = expected.view();
        const FramePictures want =
            make_pictures(in, config.equalize ? &eq_view : nullptr, *config.display);
        EXPECT_EQ(r.pictures->original_range, want.original_range) << what;
        EXPECT_EQ(r.pictures->equalized_range, want.equalized_range) << what;
        expect_same_image(r.pictures->original, want.original, what + " picture");
        expect_same_image(r.pictures->equalized, want.equalized, what + " equalized picture");
        expect_same_image(r.pictures->original_clipping, want.original_clipping,
                          what + " clipping");
        expect_same_image(r.pictures->equalized_clipping, want.equalized_clipping,
                          what + " equalized clipping");
    } else {
        EXPECT_FALSE(r.pictures.has_value()) << what;
    }
    bool has_total = false;
    for (const auto& s : r.stages) has_total = has_total || s.name == "gpu_total";
    EXPECT_TRUE(has_total) << what;
}

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
    // reference, in order; `shared`: the frames are submitted without a copy, from the engine's
    // pinned frame memory.
    void check(const StreamConfig& config, const std::vector<Image>& frames,
               const std::string& what, bool shared = false) {
        const auto stream = gpu_->open(config);
        std::size_t next = 0;
        const auto verify = [&](const FrameResult& r) {
            ASSERT_LT(next, frames.size()) << what;
            ASSERT_EQ(r.index, static_cast<std::int64_t>(next)) << what;
            verify_result(config, frames[next].view(), r, what + " frame " + std::to_string(next));
            ++next;
        };
        for (const Image& f : frames) {
            if (shared) {
                auto pinned = std::make_shared<Image>(config.format, gpu_->frame_memory());
                ASSERT_EQ(pinned->memory(), gpu_->frame_memory().get());
                std::memcpy(pinned->data(), f.view().data, config.format.frame_bytes());
                stream->submit(std::shared_ptr<const Image>(std::move(pinned)));
            } else {
                stream->submit(f.view());
            }
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

// Histograms and scopes of a region (copied on the device) and of the whole frame, with
// equalization and pictures of the whole frame; odd shapes, 16 bits, the last column and row.
TEST_F(GpuPipeline, RegionsAndScopes) {
    for (const auto& [w, h, channels, type, depth, region] :
         {std::tuple{1, 1, 3, SampleType::U8, 8, std::optional<Region>(Region{0, 0, 1, 1})},
          std::tuple{333, 97, 3, SampleType::U8, 8, std::optional<Region>(Region{17, 5, 301, 91})},
          std::tuple{64, 48, 3, SampleType::U8, 8, std::optional<Region>()},
          std::tuple{131, 29, 4, SampleType::U16, 12, std::optional<Region>(Region{130, 0, 1, 29})},
          std::tuple{45, 70, 3, SampleType::U16, 16, std::optional<Region>(Region{0, 69, 45, 1})},
          std::tuple{77, 33, 1, SampleType::U16, 10,
                     std::optional<Region>(Region{3, 4, 70, 20})}}) {
        const std::vector<Image> frames = sequence(6, w, h, channels, type, depth);
        StreamConfig c = config_for(
            frames[0],
            channels == 1 ? std::vector<Channel>{Channel::Gray}
                          : std::vector<Channel>{Channel::R, Channel::G, Channel::Luma601},
            depth == 8 ? 256 : 1024);
        c.region = region;
        EqualizeRequest eq;
        eq.strength = 0.75;
        c.equalize = eq;
        c.equalized_histograms = true;
        DisplaySpec display;
        display.clipping = 7;
        c.display = display;
        ScopeSpec waveform;
        waveform.channel = channels == 1 ? Channel::Gray : Channel::Luma709;
        waveform.levels = depth == 8 ? 256 : 1024;
        c.scopes.push_back(waveform);
        if (channels >= 3) {
            ScopeSpec parade{ScopeKind::Parade};
            parade.columns = (c.counted_shape().width + 2) / 3;
            ScopeSpec vector{ScopeKind::Vectorscope};
            vector.size = depth == 8 ? 256 : 1024;
            c.scopes.push_back(parade);
            c.scopes.push_back(vector);
        }
        const std::string what = std::to_string(w) + "x" + std::to_string(h) + "x" +
                                 std::to_string(channels) + " " + std::to_string(depth) +
                                 "-bit region " + (region ? region->describe() : "none");
        check(c, frames, what);
        // Scopes alone are work enough.
        StreamConfig alone = c;
        alone.channels.clear();
        alone.equalize.reset();
        alone.display.reset();
        check(alone, frames, what + " (scopes alone)", true);
    }
    // Scope engines other than the GPU's are the CPU stream's.
    const Image frame = test::uniform(16, 16, 3, SampleType::U8, 8, 9);
    StreamConfig c = config_for(frame, {Channel::R}, 256);
    c.scopes.push_back(ScopeSpec{});
    c.scope_engine = "cpu";
    EXPECT_NE(gpu_->unsupported_reason(c), "");
    EXPECT_EQ(&choose_stream_engine(registry_, c), registry_.find_stream_engine("cpu"));
    c.scope_engine = "auto";
    EXPECT_EQ(gpu_->unsupported_reason(c), "");
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
    c.equalizer = "cpu";
    EXPECT_NE(gpu_->unsupported_reason(c).find("'gpu' equalizer"), std::string::npos);
    EXPECT_THROW(gpu_->open(c), UnsupportedError);
    EXPECT_EQ(choose_stream_engine(registry_, c).name(), "cpu");
    c.equalizer = "auto";
    c.equalize->mode = EqualizeMode::Clahe;
    EXPECT_EQ(gpu_->unsupported_reason(c), "");
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
    const std::vector<double> floor = stream->measure_copy_floor_ms(5);
    ASSERT_EQ(floor.size(), 5u);
    for (double ms : floor) EXPECT_GT(ms, 0.0);
    EXPECT_THROW(stream->measure_copy_floor_ms(0), UsageError);
    EXPECT_GT(stream->measure_steady_state_ms(20), 0.0);
    EXPECT_FALSE(stream->poll().has_value());
    // The measurements leave the stream as they found it: a frame still comes out exact.
    stream->submit(frames[1].view());
    const std::optional<FrameResult> r = stream->wait();
    ASSERT_TRUE(r.has_value());
    verify_result(c, frames[1].view(), *r, "after the measurements");
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

// What the desktop application asks of the stream: histograms of the original and of the
// equalized frame, the pictures reduced for the view with their display ranges and clipping
// masks, no full-resolution equalized frame; every equalization mode, 8 and 16 bits, odd sizes
// and factors, frames straight from pinned memory.
TEST_F(GpuPipeline, PicturesAndEqualizedHistogramsEqualTheReference) {
    struct Case {
        int w, h, channels;
        SampleType type;
        int depth, bins, factor;
        EqualizeMode mode;
        EqualizeSpace space;
        unsigned clipping;
        bool stretch;
    };
    const std::vector<Case> cases = {
        {1, 1, 3, SampleType::U8, 8, 256, 1, EqualizeMode::Global, EqualizeSpace::Luma, 7, true},
        {17, 5, 3, SampleType::U8, 8, 256, 2, EqualizeMode::Global, EqualizeSpace::Luma, 7, true},
        {333, 101, 4, SampleType::U8, 8, 64, 3, EqualizeMode::Clahe, EqualizeSpace::Rgb, 5, true},
        {640, 360, 1, SampleType::U8, 8, 256, 4, EqualizeMode::Clahe, EqualizeSpace::Luma, 1, true},
        {1023, 77, 3, SampleType::U16, 16, 65536, 3, EqualizeMode::Global, EqualizeSpace::Luma, 7,
         true},
        {257, 129, 1, SampleType::U16, 12, 4096, 5, EqualizeMode::Global, EqualizeSpace::Luma, 1,
         true},
        {300, 200, 3, SampleType::U16, 10, 1024, 7, EqualizeMode::Clahe, EqualizeSpace::Rgb, 2,
         false},
        {3840, 2160, 3, SampleType::U8, 8, 256, 3, EqualizeMode::Global, EqualizeSpace::Luma, 0,
         true},
    };
    for (const Case& k : cases) {
        const std::vector<Image> frames = sequence(4, k.w, k.h, k.channels, k.type, k.depth);
        std::vector<Channel> channels;
        if (k.channels == 1) {
            channels = {Channel::Gray};
        } else {
            channels = {Channel::R, Channel::G, Channel::B, Channel::Luma601};
            if (k.channels == 4) channels.push_back(Channel::A);
        }
        StreamConfig c = config_for(frames[0], channels, k.bins);
        EqualizeRequest eq;
        eq.mode = k.mode;
        eq.space = k.space;
        eq.tiles_x = std::min(4, k.w);
        eq.tiles_y = std::min(3, k.h);
        c.equalize = eq;
        c.equalized_histograms = true;
        c.equalized_frame = false;
        c.display = DisplaySpec{k.factor, k.stretch, k.clipping};
        const std::string what = std::to_string(k.w) + "x" + std::to_string(k.h) + "x" +
                                 std::to_string(k.channels) + " " + to_string(k.type) + "/" +
                                 std::to_string(k.depth) + " " + std::string(mode_name(k.mode)) +
                                 " factor " + std::to_string(k.factor);
        check(c, frames, what, true);
    }
}

TEST_F(GpuPipeline, MatchingAndStrengthZeroWithPictures) {
    const std::vector<Image> frames = sequence(4, 200, 150, 3, SampleType::U8, 8);
    const Image reference = test::gaussian(90, 70, 3, SampleType::U8, 8, 2.0, 9);
    StreamConfig c = config_for(frames[0], {Channel::R, Channel::Luma601}, 256);
    EqualizeRequest eq;
    eq.mode = EqualizeMode::Match;
    eq.reference = reference.view();
    c.equalize = eq;
    c.equalized_histograms = true;
    c.display = DisplaySpec{2, true, 7};
    check(c, frames, "match");
    c.equalize->mode = EqualizeMode::Global;
    c.equalize->reference.reset();
    c.equalize->strength = 0.0;
    check(c, frames, "strength 0 with pictures");
}

// A photo's path: the frame submitted once, then every change of a control re-runs the stream's
// work on the device copy it holds (no upload), each result exact for its settings.
TEST_F(GpuPipeline, ReconfigureAndResubmitTheFrameOnTheDevice) {
    const Image frame = test::gaussian(500, 300, 3, SampleType::U8, 8, 4.0, 5);
    StreamConfig c = config_for(frame, {Channel::R, Channel::G, Channel::B, Channel::Luma601}, 256);
    c.equalize = EqualizeRequest{};
    c.equalized_histograms = true;
    c.display = DisplaySpec{4, true, 7};
    const auto stream = gpu_->open(c);
    EXPECT_THROW(stream->resubmit(), std::logic_error);
    auto shared = std::make_shared<const Image>(frame);
    stream->submit(shared);
    std::optional<FrameResult> r = stream->wait();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->source, shared);
    verify_result(c, frame.view(), *r, "first");
    std::int64_t index = 1;
    for (const double strength : {0.25, 0.0, 1.0}) {
        for (const EqualizeMode mode :
             {EqualizeMode::Global, EqualizeMode::Clahe, EqualizeMode::Global}) {
            c.equalize->strength = strength;
            c.equalize->mode = mode;
            c.display->factor = mode == EqualizeMode::Clahe ? 1 : 3;
            c.spec = HistogramSpec::even(mode == EqualizeMode::Clahe ? 64 : 256, 0, 256);
            stream->reconfigure(c);
            stream->resubmit();
            r = stream->wait();
            ASSERT_TRUE(r.has_value());
            EXPECT_EQ(r->index, index++);
            verify_result(c, frame.view(), *r,
                          "resubmitted, strength " + std::to_string(strength) + " " +
                              std::string(mode_name(mode)));
            double upload_ms = -1.0;
            for (const auto& s : r->stages)
                if (s.name == "upload") upload_ms = s.ms;
            EXPECT_EQ(upload_ms, 0.0) << "a resubmitted frame is not uploaded again";
        }
    }
    // Another format is refused, and so is reconfiguring with a frame in flight.
    StreamConfig other = c;
    other.format.width = 499;
    EXPECT_THROW(stream->reconfigure(other), UsageError);
    stream->resubmit();
    EXPECT_THROW(stream->reconfigure(c), std::logic_error);
    stream->discard();
    EXPECT_FALSE(stream->poll().has_value());
    EXPECT_EQ(stream->in_flight(), 0u);
    stream->reconfigure(c);
}

TEST_F(GpuPipeline, TheReadyCallbackSaysEachResultIsReady) {
    const std::vector<Image> frames = sequence(9, 320, 240, 3, SampleType::U8, 8);
    StreamConfig c = config_for(frames[0], {Channel::R, Channel::G, Channel::B}, 256);
    c.display = DisplaySpec{2, true, 0};
    const auto stream = gpu_->open(c);
    std::atomic<int> called{0};
    stream->set_ready_callback([&] { ++called; });
    int taken = 0;
    for (const Image& f : frames) {
        stream->submit(f.view());
        while (stream->poll()) ++taken;
    }
    while (stream->wait()) ++taken;
    EXPECT_EQ(taken, 9);
    EXPECT_EQ(called.load(), 9);
}
