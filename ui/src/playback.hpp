#pragma once
// Playback on the controller's thread: the clip's frame source (a video or a raw stream: see
// frame_source.hpp), the clock, the frames dropped to stay on it, seeking, stepping and looping.
// Every frame to show goes to the sink, which processes it before the next one is decoded.
//
// The frame due is the one the clock has reached since play started. A frame still being drawn
// by the UI, or processing slower than the clip's rate, lets several fall due; they are decoded
// and dropped (decoding goes on sequentially: a codec cannot skip to a frame without decoding
// from a keyframe, which may be the clip's first). The frame due is never past the clip's last,
// so the last frame is always shown; at the end playback stops there, or starts over when
// looping. A machine that decodes slower than the clip's rate still shows a frame at least
// every quarter second. Frames that fail to decode are dropped and reported once each through
// problem(), never by stopping playback.

#include <QElapsedTimer>
#include <QObject>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "histoscope/core/image.hpp"
#include "histoscope/ui/types.hpp"

class QTimer;

namespace hs::ui {

class FrameSource;

class Playback : public QObject {
    Q_OBJECT

  public:
    // Receives each frame to show and its index; it may swap the frame's storage with its own.
    using Sink = std::function<void(std::int64_t index, hs::Image& frame)>;

    explicit Playback(Sink sink, QObject* parent = nullptr);
    ~Playback() override;

    // Takes over `source`, whose first frame the caller has already read and shown. A source
    // without a rate of its own plays at 25 fps.
    void open(std::unique_ptr<FrameSource> source);
    void close();
    bool isOpen() const { return source_ != nullptr; }
    bool playing() const { return playing_; }
    std::int64_t frame() const { return index_; }
    std::int64_t dropped() const { return dropped_; }
    PlaybackState state() const;

    // Whether the owner can take a frame now: false while the last one is still being drawn.
    void setReady(std::function<bool()> ready) { ready_ = std::move(ready); }
    void setLoop(bool on);

    void play();  // from the start when stopped at the end
    void pause();
    void toggle();  // plays or pauses
    // Shows frame `index` (clamped to the clip) and starts counting dropped frames anew; a
    // playing clip goes on from there. False when the frame cannot be decoded (reported).
    bool seek(std::int64_t index);
    // seek() once the event loop runs; requests made meanwhile coalesce (a dragged slider sends
    // many: the latest wins).
    void seekLater(std::int64_t index);
    // Pauses and shows the frame `delta` frames away.
    bool step(std::int64_t delta);

  signals:
    void stateChanged(const hs::ui::PlaybackState& state);
    void stopped();  // paused, or stopped at the end
    void problem(const QString& message);

  private:
    void tick();
    void schedule();  // the timer for the next frame due
    void finish();    // the clock passed the last frame: loop or stop
    std::int64_t lastIndex() const;
    bool decodeAt(std::int64_t index);  // into frame_, index_ on success
    bool showAt(std::int64_t index);    // decodes, restarts the clock when playing, delivers
    void deliver();
    QString unreadable(std::int64_t index) const;  // what problem() says of a frame
    void emitState();

    Sink sink_;
    std::function<bool()> ready_;
    QTimer* timer_;
    std::unique_ptr<FrameSource> source_;
    hs::Image frame_;          // the frame last decoded (its storage reused from frame to frame)
    std::int64_t index_ = 0;   // the frame last shown
    std::int64_t frames_ = 0;  // as the container reports it, corrected when the clip ends early
    double fps_ = 25.0;
    bool playing_ = false;
    bool at_end_ = false;
    bool loop_ = false;
    std::int64_t dropped_ = 0;
    QElapsedTimer clock_;
    std::int64_t start_frame_ = 0;  // the frame shown when the clock started
    std::optional<std::int64_t> pending_seek_;
};

}  // namespace hs::ui
