#pragma once
// The clock playback shows frames by, shared by the stages of the frame path (the reader thread,
// the controller's thread, the presenter on the GUI thread), as a video player's master clock.
//
// Frames are numbered by their tick: their place in the order of presentation since playback
// started (it keeps counting across a loop's restart). Tick t is due `(t - t0 + 1) / fps`
// seconds after tick t0 was presented: the clock starts when the presenter shows the session's
// first frame, so that the time the first frame took to cross the pipeline is not counted
// against the frames after it, and it gives them a frame of headroom. Until then, and without
// pacing (frames shown as fast as they come), no frame is late. Each play starts a new session;
// stages drop what belongs to an older one.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>

namespace hs::ui {

class PlaybackClock {
  public:
    using Clock = std::chrono::steady_clock;

    // A new session at `fps` frames per second; `paced` false: as fast as the pipeline goes.
    void reset(std::uint64_t session, double fps, bool paced) {
        const std::lock_guard lock(mutex_);
        session_ = session;
        fps_ = fps > 0.0 ? fps : 25.0;
        paced_ = paced;
        started_ = false;
    }
    // No session plays (paused, stopped, a photo): nothing is due, nothing is late.
    void stop() { reset(0, fps_, false); }

    // The presenter shows `tick` of `session` now; the first call of a session starts its clock,
    // with the first frame shown for two frames' time: the frames behind it, still crossing the
    // pipeline, get a frame of headroom (a player's buffer), not a drop at their first delay.
    void presented(std::uint64_t session, std::int64_t tick, Clock::time_point now) {
        const std::lock_guard lock(mutex_);
        if (session != session_ || started_ || !paced_) return;
        started_ = true;
        origin_tick_ = tick;
        origin_ = now + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(1.0 / fps_));
    }

    // When `tick` of `session` is due; nullopt when it is not paced (now, as it comes).
    std::optional<Clock::time_point> due(std::uint64_t session, std::int64_t tick) const {
        const std::lock_guard lock(mutex_);
        if (session != session_ || !paced_ || !started_) return std::nullopt;
        const double seconds = static_cast<double>(tick - origin_tick_) / fps_;
        return origin_ +
               std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    }

    // Whether `tick` is more than a frame late at `now`: the frame after next is due already.
    // A stage may drop it then; a frame late by less is still shown, so that a passing hiccup
    // (a slow read, a late paint) is caught up by the frames queued behind it, not dropped.
    bool overtaken(std::uint64_t session, std::int64_t tick, Clock::time_point now) const {
        const std::optional<Clock::time_point> after_next = due(session, tick + 2);
        return after_next && *after_next <= now;
    }

    // Whether a stage may drop `tick` at `now`: it is overtaken, not the source's `last`, and a
    // frame passed that stage less than a quarter of a second ago (at `passed`), so that a
    // machine slower than the source still shows a frame four times a second, and the last one.
    bool droppable(std::uint64_t session, std::int64_t tick, bool last, Clock::time_point now,
                   Clock::time_point passed) const {
        return !last && now - passed < kAlwaysShowEvery && overtaken(session, tick, now);
    }

  private:
    static constexpr auto kAlwaysShowEvery = std::chrono::milliseconds(250);

    mutable std::mutex mutex_;
    std::uint64_t session_ = 0;
    double fps_ = 25.0;
    bool paced_ = false;
    bool started_ = false;
    std::int64_t origin_tick_ = 0;
    Clock::time_point origin_;
};

}  // namespace hs::ui
