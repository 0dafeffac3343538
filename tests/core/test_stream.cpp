// The "cpu" stream engine and the stream configuration: every frame's histograms, equalization,
// equalized histograms and pictures equal the CPU reference, results come back in order while
// a pool of threads works on several frames, memory stays bounded; frames submitted without a
// copy, resubmission, reconfiguration, discarding and the ready callback.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/scopes.hpp"
#include "histoscope/core/stream.hpp"
#include "synthetic.hpp"

using namespace hs;

namespace {

struct Registry {
    Registry() { register_core_engines(registry); }
    EngineRegistry registry;
};

StreamConfig rgb_config(int w, int h) {
    StreamConfig c;
    c.format = {w, h, 3, SampleType::U8, 8};
    c.channels = {Channel::R, Channel::G, Channel::B, Channel::Luma601};
    c.spec = HistogramSpec::even(256, 0, 256);
    return c;
}

std::vector<Image> frames_of(int n, int w, int h, int channels, SampleType type, int depth) {
    std::vector<Image> out;
    for (int i = 0; i < n; ++i)
        out.push_back(
            i % 3 == 2 ? test::constant(w, h, channels, type, depth,
                                        (static_cast<unsigned>(i) * 37u) % 251u)
                       : test::uniform(w, h, channels, type, depth, static_cast<unsigned>(i + 1)));
    return out;
}

}  // namespace

TEST(Stream, TheRegistryHasTheCpuStreamEngine) {
    Registry r;
    ASSERT_NE(r.registry.find_stream_engine("cpu"), nullptr);
    EXPECT_EQ(&choose_stream_engine(r.registry, rgb_config(4, 4)),
              r.registry.find_stream_engine("cpu"));
    EXPECT_THROW(r.registry.add_stream_engine(make_cpu_stream_engine(r.registry)), UsageError);
}

TEST(Stream, EveryFrameEqualsTheReferenceInOrder) {
    Registry r;
    for (const auto& [w, h] : {std::pair{1, 1}, std::pair{17, 5}, std::pair{64, 33}}) {
        StreamConfig c = rgb_config(w, h);
        EqualizeRequest eq;
        eq.strength = 0.75;
        c.equalize = eq;
        const auto stream = r.registry.find_stream_engine("cpu")->open(c);
        EXPECT_EQ(stream->histogram_engine(), "cpu");
        EXPECT_EQ(stream->equalizer(), "cpu");
        const std::vector<Image> frames = frames_of(7, w, h, 3, SampleType::U8, 8);
        std::int64_t next = 0;
        const auto check = [&](const FrameResult& res) {
            ASSERT_LT(next, 7);
            const ImageView in = frames[static_cast<std::size_t>(next)].view();
            ASSERT_EQ(res.index, next);
            EXPECT_EQ(res.channels, reference_histogram(in, c.channels, c.spec));
            EqualizeRequest want = eq;
            want.image = in;
            const Image expected = equalize_reference(want);
            ASSERT_EQ(res.equalized.view().row_bytes(), expected.view().row_bytes());
            EXPECT_EQ(0, std::memcmp(res.equalized.view().data, expected.view().data,
                                     c.format.frame_bytes()));
            ASSERT_EQ(res.stages.size(), 2u);
            EXPECT_EQ(res.stages[0].name, "histogram");
            EXPECT_EQ(res.stages[1].name, "equalize");
            ++next;
        };
        // Frames run on the pool while later ones are submitted: some results are ready at
        // once, the rest come with wait(), every one in submission order.
        for (const Image& f : frames) {
            stream->submit(f.view());
            while (auto res = stream->poll()) check(*res);
        }
        while (auto res = stream->wait()) check(*res);
        EXPECT_EQ(stream->in_flight(), 0u);
        EXPECT_EQ(next, 7);
    }
}

TEST(Stream, SixteenBitFramesAndPaddedRows) {
    Registry r;
    StreamConfig c;
    c.format = {31, 9, 1, SampleType::U16, 12};
    c.channels = {Channel::Gray};
    c.spec = HistogramSpec::even(4096, 0, 4096);
    EqualizeRequest eq;
    eq.mode = EqualizeMode::Clahe;
    eq.tiles_x = 3;
    eq.tiles_y = 2;
    c.equalize = eq;
    const auto stream = r.registry.find_stream_engine("cpu")->open(c);
    const Image padded = test::uniform(31, 9, 1, SampleType::U16, 12, 5, 6);
    stream->submit(padded.view());
    const auto res = stream->wait();
    ASSERT_TRUE(res.has_value());
    EXPECT_EQ(res->channels, reference_histogram(padded.view(), c.channels, c.spec));
    EqualizeRequest want = eq;
    want.image = padded.view();
    const Image expected = equalize_reference(want);
    EXPECT_EQ(
        0, std::memcmp(res->equalized.view().data, expected.view().data, c.format.frame_bytes()));
}

TEST(Stream, ResultsNobodyTakesStopTheStream) {
    Registry r;
    StreamConfig c = rgb_config(8, 8);
    c.depth = 2;
    const auto stream = r.registry.find_stream_engine("cpu")->open(c);
    const Image f = test::uniform(8, 8, 3, SampleType::U8, 8);
    stream->submit(f.view());
    stream->submit(f.view());
    while (stream->in_flight() != 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_THROW(stream->submit(f.view()), std::logic_error);
    EXPECT_TRUE(stream->wait().has_value());
    stream->submit(f.view());  // room again
    EXPECT_TRUE(stream->wait().has_value());
    EXPECT_TRUE(stream->wait().has_value());
    EXPECT_FALSE(stream->poll().has_value());
}

TEST(Stream, FramesOfAnotherFormatAreRefused) {
    Registry r;
    const auto stream = r.registry.find_stream_engine("cpu")->open(rgb_config(8, 8));
    EXPECT_THROW(stream->submit(test::uniform(8, 9, 3, SampleType::U8, 8).view()), InputError);
    EXPECT_THROW(stream->submit(test::uniform(8, 8, 4, SampleType::U8, 8).view()), InputError);
    EXPECT_FALSE(stream->poll().has_value());
}

TEST(Stream, BadConfigsAreUsageErrors) {
    Registry r;
    StreamEngine& cpu = *r.registry.find_stream_engine("cpu");
    StreamConfig c = rgb_config(8, 8);
    c.depth = 1;
    EXPECT_THROW(cpu.open(c), UsageError);
    c.depth = 17;
    EXPECT_THROW(cpu.open(c), UsageError);
    c = rgb_config(0, 8);
    EXPECT_THROW(cpu.open(c), UsageError);
    c = rgb_config(8, 8);
    c.channels.clear();
    EXPECT_THROW(cpu.open(c), UsageError);  // nothing to do
    c = rgb_config(8, 8);
    c.channels = {Channel::A};  // no alpha in RGB frames
    EXPECT_THROW(cpu.open(c), UsageError);
    c = rgb_config(8, 8);
    EqualizeRequest eq;
    eq.strength = 2.0;
    c.equalize = eq;
    EXPECT_THROW(cpu.open(c), UsageError);
}

// Histograms and scopes of a region, of the original and of the equalized frame; the pictures
// and the equalization stay the whole frame's.
TEST(Stream, RegionsAndScopesEqualTheReference) {
    Registry r;
    for (const auto& [w, h, channels, type, depth, region] :
         {std::tuple{1, 1, 3, SampleType::U8, 8, Region{0, 0, 1, 1}},
          std::tuple{37, 21, 3, SampleType::U8, 8, Region{5, 3, 17, 11}},
          std::tuple{40, 9, 4, SampleType::U16, 12, Region{39, 0, 1, 9}},
          std::tuple{23, 30, 1, SampleType::U16, 16, Region{0, 29, 23, 1}}}) {
        StreamConfig c;
        c.format = {w, h, channels, type, depth};
        c.channels = channels == 1 ? std::vector<Channel>{Channel::Gray}
                                   : std::vector<Channel>{Channel::R, Channel::Luma709};
        c.spec = HistogramSpec::even(1 << depth, 0, std::int64_t{1} << depth);
        c.region = region;
        EqualizeRequest eq;
        eq.strength = 0.5;
        c.equalize = eq;
        c.equalized_histograms = true;
        c.display = DisplaySpec{};
        ScopeSpec waveform;
        waveform.channel = channels == 1 ? Channel::Gray : Channel::G;
        waveform.levels = 17;
        c.scopes.push_back(waveform);
        if (channels >= 3) {
            ScopeSpec parade{ScopeKind::Parade};
            parade.columns = (region.width + 1) / 2;
            ScopeSpec vector{ScopeKind::Vectorscope};
            vector.size = 33;
            vector.matrix = ChromaMatrix::Rec709;
            c.scopes.push_back(parade);
            c.scopes.push_back(vector);
        }
        const auto stream = r.registry.find_stream_engine("cpu")->open(c);
        const std::vector<Image> frames = frames_of(4, w, h, channels, type, depth);
        // Results are taken as they come: a ring whose every slot holds a ready result refuses
        // another frame, and small frames are ready at once.
        std::vector<FrameResult> results;
        for (const Image& f : frames) {
            stream->submit(f.view());
            while (auto res = stream->poll()) results.push_back(std::move(*res));
        }
        while (auto res = stream->wait()) results.push_back(std::move(*res));
        std::size_t next = 0;
        for (const FrameResult& result : results) {
            const FrameResult* res = &result;
            const ImageView in = frames[next++].view();
            const ImageView part = crop(in, region);
            EXPECT_EQ(res->channels, reference_histogram(part, c.channels, c.spec));
            ASSERT_EQ(res->scopes.size(), c.scopes.size());
            for (std::size_t i = 0; i < c.scopes.size(); ++i)
                EXPECT_EQ(res->scopes[i], reference_scope(part, c.scopes[i])) << i;
            EXPECT_EQ(res->scope_engine, "cpu");
            EqualizeRequest want = eq;
            want.image = in;
            const Image expected = equalize_reference(want);
            EXPECT_EQ(res->equalized_channels,
                      reference_histogram(crop(expected.view(), region), c.channels, c.spec));
            ASSERT_EQ(res->equalized.width(), w);
            ASSERT_TRUE(res->pictures.has_value());
            EXPECT_EQ(res->pictures->original.width(), w);
            bool timed = false;
            for (const auto& st : res->stages) timed = timed || st.name == "scopes";
            EXPECT_TRUE(timed);
        }
        EXPECT_EQ(next, frames.size());
    }
}

// Scopes alone are work enough; a region outside the frame and a scope the region cannot have
// are usage errors, an unknown scope engine is refused with its name.
TEST(Stream, ScopeAndRegionConfigs) {
    Registry r;
    StreamEngine& cpu = *r.registry.find_stream_engine("cpu");
    StreamConfig c = rgb_config(8, 6);
    c.channels.clear();
    c.scopes.push_back(ScopeSpec{ScopeKind::Vectorscope});
    EXPECT_NO_THROW(cpu.open(c));
    c.region = Region{4, 2, 5, 4};
    EXPECT_THROW(cpu.open(c), UsageError);
    c.region = Region{4, 2, 4, 4};
    EXPECT_NO_THROW(cpu.open(c));
    ScopeSpec wide;
    wide.columns = 5;  // more columns than the region is wide
    c.scopes = {wide};
    EXPECT_THROW(cpu.open(c), UsageError);
    c.scopes = {ScopeSpec{}};
    c.scope_engine = "no-such-scope";
    EXPECT_NE(cpu.unsupported_reason(c).find("no-such-scope"), std::string::npos);
    EXPECT_THROW(cpu.open(c), UnsupportedError);
    c.scope_engine = "auto";
    c.format.channels = 1;
    c.scopes = {ScopeSpec{ScopeKind::Vectorscope}};  // a gray frame has no chroma
    EXPECT_THROW(cpu.open(c), UsageError);
}

TEST(Stream, UnknownEnginesAreRefusedWithTheReason) {
    Registry r;
    StreamEngine& cpu = *r.registry.find_stream_engine("cpu");
    StreamConfig c = rgb_config(8, 8);
    c.engine = "no-such-kernel";
    EXPECT_NE(cpu.unsupported_reason(c).find("no-such-kernel"), std::string::npos);
    EXPECT_THROW(cpu.open(c), UnsupportedError);
    c = rgb_config(8, 8);
    c.equalize = EqualizeRequest{};
    c.equalizer = "no-such-equalizer";
    EXPECT_THROW(cpu.open(c), UnsupportedError);
    // "auto" without an "auto" engine in the registry: the CPU reference.
    c = rgb_config(8, 8);
    c.engine = "auto";
    EXPECT_EQ(cpu.open(c)->histogram_engine(), "cpu");
}

TEST(Stream, SteadyStateMeasurementDiscardsItsResults) {
    Registry r;
    const auto stream = r.registry.find_stream_engine("cpu")->open(rgb_config(64, 64));
    EXPECT_TRUE(stream->measure_upload_ms(3).empty());  // nothing to upload on the host
    EXPECT_GT(stream->measure_steady_state_ms(5), 0.0);
    EXPECT_FALSE(stream->poll().has_value());
    EXPECT_THROW(stream->measure_steady_state_ms(0), UsageError);
}

// What the desktop application asks of a CPU stream: the equalized frame's histograms and the
// pictures (make_pictures), frames submitted without a copy and handed back with the result.
TEST(Stream, PicturesAndEqualizedHistogramsOfFramesSubmittedWithoutACopy) {
    Registry r;
    for (const auto& [channels, type, depth] :
         {std::tuple{3, SampleType::U8, 8}, std::tuple{1, SampleType::U16, 12},
          std::tuple{4, SampleType::U16, 16}}) {
        StreamConfig c;
        c.format = {61, 35, channels, type, depth};
        c.channels = channels == 1 ? std::vector<Channel>{Channel::Gray}
                                   : std::vector<Channel>{Channel::R, Channel::Luma601};
        c.spec = HistogramSpec::even(1 << depth, 0, std::int64_t{1} << depth);
        EqualizeRequest eq;
        eq.strength = 0.5;
        c.equalize = eq;
        c.equalized_histograms = true;
        c.equalized_frame = false;
        c.display = DisplaySpec{3, true, 7};
        c.depth = 4;
        const auto stream = r.registry.find_stream_engine("cpu")->open(c);
        std::vector<std::shared_ptr<const Image>> frames;
        for (int i = 0; i < 9; ++i)
            frames.push_back(std::make_shared<const Image>(
                test::gaussian(61, 35, channels, type, depth, static_cast<double>(1 << depth) / 7.0,
                               static_cast<unsigned>(i))));
        std::size_t next = 0;
        const auto verify = [&](const FrameResult& res) {
            ASSERT_EQ(res.index, static_cast<std::int64_t>(next));
            ASSERT_EQ(res.source, frames[next]);
            const ImageView in = frames[next]->view();
            EXPECT_EQ(res.channels, reference_histogram(in, c.channels, c.spec));
            EqualizeRequest want = eq;
            want.image = in;
            const Image expected = equalize_reference(want);
            EXPECT_TRUE(res.equalized.empty());
            EXPECT_EQ(res.equalized_channels,
                      reference_histogram(expected.view(), c.channels, c.spec));
            ASSERT_TRUE(res.pictures.has_value());
            const ImageView ev = expected.view();
            const FramePictures p = make_pictures(in, &ev, *c.display);
            EXPECT_EQ(res.pictures->original_range, p.original_range);
            EXPECT_EQ(res.pictures->equalized_range, p.equalized_range);
            for (const auto& [a, b] :
                 {std::pair{&res.pictures->original, &p.original},
                  std::pair{&res.pictures->equalized, &p.equalized},
                  std::pair{&res.pictures->original_clipping, &p.original_clipping},
                  std::pair{&res.pictures->equalized_clipping, &p.equalized_clipping}}) {
                ASSERT_EQ(a->width(), b->width());
                ASSERT_EQ(a->height(), b->height());
                EXPECT_EQ(
                    0, std::memcmp(a->view().data, b->view().data,
                                   b->view().row_bytes() * static_cast<std::size_t>(b->height())));
            }
            ++next;
        };
        for (const auto& f : frames) {
            stream->submit(f);
            while (auto res = stream->poll()) verify(*res);
        }
        while (auto res = stream->wait()) verify(*res);
        EXPECT_EQ(next, frames.size());
    }
}

TEST(Stream, ResubmitReconfigureDiscardAndTheReadyCallback) {
    Registry r;
    StreamConfig c = rgb_config(80, 60);
    c.equalize = EqualizeRequest{};
    c.display = DisplaySpec{2, true, 0};
    const auto stream = r.registry.find_stream_engine("cpu")->open(c);
    std::atomic<int> called{0};
    stream->set_ready_callback([&] { ++called; });
    EXPECT_THROW(stream->resubmit(), std::logic_error);
    const auto frame =
        std::make_shared<const Image>(test::gaussian(80, 60, 3, SampleType::U8, 8, 30.0));
    stream->submit(frame);
    ASSERT_TRUE(stream->wait().has_value());
    for (const double strength : {0.2, 0.9}) {
        c.equalize->strength = strength;
        c.equalize->mode = strength < 0.5 ? EqualizeMode::Clahe : EqualizeMode::Global;
        stream->reconfigure(c);
        stream->resubmit();
        const auto res = stream->wait();
        ASSERT_TRUE(res.has_value());
        EXPECT_EQ(res->source, frame);
        EqualizeRequest want = *c.equalize;
        want.image = frame->view();
        const Image expected = equalize_reference(want);
        EXPECT_EQ(0, std::memcmp(res->equalized.view().data, expected.view().data,
                                 c.format.frame_bytes()));
    }
    // The callback runs on the worker after the result is ready: a waiter may see the result
    // first.
    for (int i = 0; i < 1000 && called.load() < 3; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(called.load(), 3);
    StreamConfig other = c;
    other.format.height = 61;
    EXPECT_THROW(stream->reconfigure(other), UsageError);
    other = c;
    other.engine = "no-such-kernel";
    EXPECT_THROW(stream->reconfigure(other), UnsupportedError);
    // A buffer written into next_input() is resubmitted as well.
    std::memcpy(stream->next_input(), frame->view().data, c.format.frame_bytes());
    stream->submit();
    stream->resubmit();
    EXPECT_THROW(stream->reconfigure(c), std::logic_error);
    const auto first = stream->wait();
    const auto second = stream->wait();
    ASSERT_TRUE(first && second);
    EXPECT_EQ(first->channels, second->channels);
    EXPECT_EQ(first->source, nullptr);
    for (int i = 0; i < 3; ++i) stream->resubmit();
    stream->discard();
    EXPECT_FALSE(stream->poll().has_value());
    EXPECT_EQ(stream->in_flight(), 0u);
    stream->reconfigure(c);
}
