#pragma once
// The reader stage of playback: a thread of its own that reads (decodes) the frames of a
// hs::media::FrameSource into a bounded queue of pooled buffers, as a video player's reader thread
// feeds its decoder queue. Nothing else touches the source while the reader has it.
//
// A job reads continuously from a frame (playing, looping at the end when asked and the source
// can seek) or one frame (a seek or a step while paused). When the queue is full the thread
// waits (back-pressure: memory stays flat however fast it reads). Frames come from a pool that
// reuses the buffers of frames no stage holds any more, allocated in the memory the frame
// stream reads fastest (pinned host memory for the GPU frame pipeline). A frame more than a
// frame late on the clock (PlaybackClock::overtaken) is dropped here, unless it is the source's
// last or no frame has left the reader for a quarter of a second: so a machine that reads
// slower than the source still shows a frame four times a second, and always the last one.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "histoscope/core/image.hpp"
#include "histoscope/media/media.hpp"
#include "playback_clock.hpp"

namespace hs::media {
class FrameSource;
}

namespace hs::ui {

class FramePool;

struct ReadFrame {
    enum class Kind { Frame, Failed, End };
    Kind kind = Kind::Frame;
    std::uint64_t session = 0;
    std::int64_t index = 0;                  // the frame's number in the source (Frame, Failed)
    std::int64_t tick = 0;                   // its place in the session's order of presentation
    std::shared_ptr<const hs::Image> image;  // Frame
    // Frame: its coded Y' outside a limited range's span (see hs::media::LumaExcursions).
    std::optional<hs::media::LumaExcursions> excursions;
    std::string problem;              // Failed: why it could not be read
    double read_ms = 0.0;             // reading and decoding it
    bool last = false;                // the source's last frame, as far as it knows
    std::int64_t dropped_before = 0;  // frames dropped here since the one before
};

class FrameReader {
  public:
    struct Job {
        std::uint64_t session = 0;
        std::int64_t from = 0;   // the first frame
        std::int64_t tick = 0;   // its tick
        bool continuous = true;  // false: that frame alone
        bool loop = false;       // continuous: from frame 0 again after the last
    };

    // `notify` is called on the reader's thread after each item it queues.
    FrameReader(std::unique_ptr<hs::media::FrameSource> source,
                std::shared_ptr<const PlaybackClock> clock, std::function<void()> notify,
                std::size_t capacity = 3);
    ~FrameReader();  // stops and joins the thread
    FrameReader(const FrameReader&) = delete;
    FrameReader& operator=(const FrameReader&) = delete;

    // Where frame buffers are allocated (null: ordinary memory), for frames of `format` when
    // known (the buffers are then made before they are needed).
    void setMemory(std::shared_ptr<hs::HostMemory> memory,
                   const std::optional<hs::FrameFormat>& format = std::nullopt);
    // Replaces the job (and empties the queue of the one before).
    void start(const Job& job);
    void stop();                     // no job: the thread idles
    void setLoop(bool on);           // for the continuous job under way too
    std::optional<ReadFrame> pop();  // never blocks

    // As the source knows it: its frame count (corrected when it ends early; 0 if unknown).
    std::int64_t frameCount() const;

  private:
    void run();
    // Reads frame `index` into a pooled buffer, outside the lock; `fatal` when no frame can be
    // read any more (no memory for one).
    ReadFrame readOne(std::int64_t index, bool& fatal);

    std::unique_ptr<hs::media::FrameSource> source_;
    std::shared_ptr<const PlaybackClock> clock_;
    std::function<void()> notify_;
    std::shared_ptr<FramePool> pool_;
    const std::size_t capacity_;
    const bool seekable_;

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<ReadFrame> queue_;
    std::optional<Job> job_;
    std::uint64_t job_serial_ = 0;  // counts jobs, so that a read started for an old one is dropped
    std::int64_t frames_ = 0;
    bool quit_ = false;
    std::thread thread_;
};

}  // namespace hs::ui
