#pragma once
// The frame stream of playback, on the controller's thread: while a clip plays, its frames go
// through a frame stream of the registry (the GPU frame pipeline when it can run the settings:
// the upload of one frame overlaps the kernels of another), several in flight. The stream is
// opened for one set of settings (its key) and reopened when they change, after the frames in
// flight have been shown with the settings they ran with.

#include <QString>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/stream.hpp"
#include "histoscope/ui/types.hpp"

namespace hs::ui {

// What a stream was opened with; another key reopens it.
struct StreamKey {
    std::string format, engine, spec, equalizer;
    bool equalizing = false;
    EqualizeSettings equalize;
    std::uint64_t reference = 0;  // which reference image (match mode)
    bool operator==(const StreamKey&) const = default;
};

class EngineChoice;
struct FrameSettings;

// What the stream of frames like `view` computed with `settings` is opened with, and its key;
// `status` says which histogram engine. Throws when the equalizer cannot serve the settings.
struct StreamPlan {
    hs::StreamConfig config;
    StreamKey key;
};
StreamPlan plan_stream(const hs::ImageView& view, const FrameSettings& settings,
                       const EngineChoice& choice, const hs::Image* reference,
                       std::uint64_t reference_generation, EngineStatus& status);

// A frame back from the stream: its index, the decoded image it was computed from, the result.
struct StreamedFrame {
    std::int64_t index = 0;
    std::shared_ptr<const hs::Image> image;
    hs::FrameResult result;
};

class StreamSession {
  public:
    using Show = std::function<void(StreamedFrame&)>;

    explicit StreamSession(hs::EngineRegistry& registry) : registry_(registry) {}

    // Queues frame `index` (the stream reads `image`) on the stream of `plan`,
    // opening it first; shows, in frame order, every result that is ready. Throws when no
    // stream can run the settings (the caller then computes the frame alone).
    void submit(const StreamPlan& plan, std::int64_t index, std::shared_ptr<const hs::Image> image,
                const Show& show);
    // Shows every frame still in flight.
    void drain(const Show& show);
    void close();

    bool isOpen() const { return stream_ != nullptr; }
    const QString& engineName() const { return engine_name_; }  // the stream engine
    // The stream's equalizer (hs::FrameStream::equalizer() returns a new string each time).
    std::string equalizer() const { return stream_ ? stream_->equalizer() : std::string(); }

  private:
    void showReady(StreamedFrame frame, const Show& show);

    hs::EngineRegistry& registry_;
    std::unique_ptr<hs::FrameStream> stream_;
    StreamKey key_;
    QString engine_name_;
    // The frames in flight, oldest first.
    std::deque<std::pair<std::int64_t, std::shared_ptr<const hs::Image>>> in_flight_;
};

}  // namespace hs::ui
