#pragma once
// Playback on the controller's thread, as a video player runs it: the clip's frame source read
// on a reader thread (FrameReader) into a bounded queue, a clock (PlaybackClock) that the
// presenter shows frames by, seeking, stepping and looping. The controller takes the frames to
// process from next() when its frame stream has room, and the presenter reports each frame it
// shows (presented()), which is what playback calls the frame shown.
//
// A frame is dropped only when the whole frame path is slower than the source, and counted by
// the stage that dropped it: the reader (it was read more than a frame late), next() (the stream
// took it more than a frame late) and the presenter (it was more than a frame late to be
// painted, with a later one ready); a frame late by less is shown, and the path catches up. None of
// them drops the clip's last frame, or a frame when none has passed for a quarter of a second. At
// the end playback stops on the last frame shown, or starts over when looping. Frames that cannot
// be read are reported through problem() and skipped, never by stopping playback. Each play, seek
// or step starts a new session: what is still on its way of the one before is dropped by every
// stage without being counted.

#include <QObject>
#include <QString>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frame_reader.hpp"
#include "histoscope/ui/types.hpp"
#include "playback_clock.hpp"

namespace hs::media {
class FrameSource;
}

namespace hs::ui {

class Playback : public QObject {
    Q_OBJECT

  public:
    explicit Playback(QObject* parent = nullptr);
    ~Playback() override;

    // Takes over `source`. `shown`: the frame the caller has already read and shown (-1 for
    // live input, whose frames all come through the reader). A source without a rate of its
    // own plays at 25 fps, live input as frames come unless it has one.
    void open(std::unique_ptr<hs::media::FrameSource> source, std::int64_t shown);
    // The frames from 0 up to the one shown at open() could not be read, for `reasons` (one
    // each, in order): counted and said as a failed frame is during playback.
    void failedBeforeShown(const std::vector<std::string>& reasons);
    void close();
    bool isOpen() const { return reader_ != nullptr; }
    bool playing() const { return playing_; }
    std::int64_t frame() const { return shown_; }
    std::int64_t dropped() const;
    std::uint64_t session() const { return session_; }
    // Whether a frame of `session` presented now is the frame on screen: a frame of the session
    // playing, or of the one a pause or the end just stopped (its last results can reach the
    // screen after the stop, and the position is then theirs).
    bool onScreen(std::uint64_t session) const {
        return session == session_ || (session != 0 && session == stopped_session_);
    }
    PlaybackState state() const;
    // The clock of the session playing; the presenter shows frames by it and starts it.
    const std::shared_ptr<PlaybackClock>& clock() const { return clock_; }

    // Where the reader allocates frames of `format`: the memory the frame stream reads fastest
    // from.
    void setFrameMemory(std::shared_ptr<hs::HostMemory> memory, const hs::FrameFormat& format);
    void setLoop(bool on);
    // false: every frame is processed and shown, as fast as the frame path goes (a benchmark
    // of the path); true (default): frames are shown by the clock at the source's rate.
    void setPaced(bool paced);

    void play();  // from the start when stopped at the end
    void pause();
    void toggle();  // plays or pauses
    // Shows frame `index` (clamped to the clip) and starts counting dropped frames anew; a
    // playing clip goes on from there.
    void seek(std::int64_t index);
    // seek() once the event loop runs; requests made meanwhile coalesce (a dragged slider sends
    // many: the latest wins).
    void seekLater(std::int64_t index);
    // Pauses and shows the frame `delta` frames away (frames that cannot be read are stepped
    // over).
    void step(std::int64_t delta);

    // The next frame for the frame stream, if one is ready: what the reader queued, less what
    // belongs to an older session and what came too late (dropped here).
    std::optional<ReadFrame> next();
    // The presenter showed frame `index` of `session`, after dropping `dropped` results of it
    // that fell due earlier.
    void presented(std::uint64_t session, std::int64_t index, std::int64_t dropped);
    // `count` frames of `session` handed out by next() will not be presented: they `failed`,
    // or were given up (new settings, new media).
    void lost(std::uint64_t session, std::int64_t count, bool failed);
    // What the status bar says of frame `index` that could not be read for `problem`.
    static QString failedFrameMessage(std::int64_t index, const std::string& problem);

  signals:
    void stateChanged(const hs::ui::PlaybackState& state);
    void stopped();  // paused, or stopped at the end
    void problem(const QString& message);
    // The reader queued something for next() (emitted on this object's thread).
    void frameAvailable();

  private:
    void startSession(std::int64_t from, bool continuous);
    void finishIfDone();  // ended, and everything handed out is shown or lost: stop or loop
    std::int64_t lastIndex() const;
    void emitState();

    std::shared_ptr<PlaybackClock> clock_;
    std::unique_ptr<FrameReader> reader_;
    std::shared_ptr<hs::HostMemory> memory_;
    std::optional<hs::FrameFormat> format_;
    std::int64_t shown_ = 0;   // the frame last presented
    std::int64_t frames_ = 0;  // as the source reports it, corrected when the clip ends early
    double fps_ = 25.0;
    bool live_ = false;
    bool playing_ = false;
    bool paced_ = true;
    bool loop_ = false;
    bool at_end_ = false;
    std::uint64_t session_ = 0;
    std::uint64_t stopped_session_ = 0;  // the one a pause or the end stopped, until the next
    // The session's frames: handed out by next(), shown or lost since; the reader reached the
    // end; the latest tick handed out.
    std::int64_t handed_ = 0;
    std::int64_t done_ = 0;
    bool ended_ = false;
    // A seek or step while paused: the frame asked for, the direction to step over frames that
    // cannot be read, and how many were tried.
    std::optional<std::int64_t> wanted_;
    std::int64_t step_direction_ = 0;
    int step_tries_ = 0;
    std::int64_t dropped_read_ = 0, dropped_process_ = 0, dropped_paint_ = 0, failed_ = 0;
    std::chrono::steady_clock::time_point last_handed_{};
    std::optional<std::int64_t> pending_seek_;
};

}  // namespace hs::ui
