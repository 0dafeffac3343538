#pragma once
// The presenter, on the GUI thread: results come ready from the controller (pictures made,
// histograms counted) and wait here until the playback clock says they are due; then the
// window shows the oldest one due that is not more than a frame late (present()), and the ones
// before it are dropped and counted as dropped at paint. Photos, paused frames and unpaced playback
// are shown as soon as they come, one after another. A result is presented only once the window has
// painted the one before (painted()), so every frame presented is a frame painted, and the time it
// took (the window's own update and the paint that followed) is the paint stage's. Nothing here
// waits: a timer wakes the presenter when the next result falls due.

#include <QElapsedTimer>
#include <QObject>
#include <cstdint>
#include <deque>
#include <memory>

#include "histoscope/ui/types.hpp"

class QTimer;

namespace hs::ui {

class PlaybackClock;

class Presenter : public QObject {
    Q_OBJECT

  public:
    explicit Presenter(std::shared_ptr<PlaybackClock> clock, QObject* parent = nullptr);

    // Results of sessions before `session` are not shown any more (a seek, a pause).
    void setSession(std::uint64_t session);

  public slots:
    void push(const hs::ui::PresentedFrame& result);
    // The window painted the result last presented.
    void painted();

  signals:
    // Show this result now (connected directly to the window).
    void present(const hs::ui::PresentedFrame& result);
    // `count` results left the queue: the last of them presented (frame `index` of `session`;
    // -1 when none was), `dropped` of them overtaken by it on the clock; the others belonged to
    // an older session.
    void consumed(std::uint64_t session, std::int64_t index, int count, int dropped);
    // The paint of a presented result ended: the window's update and paint took `paint_ms`.
    void framePainted(const hs::ui::FrameTiming& timing, double paint_ms);

  private:
    void pump();
    void dropStale();              // the results of older sessions leave unshown
    void show(std::size_t index);  // presents queue_[index], dropping the ones before it
    void paintDone();

    std::shared_ptr<PlaybackClock> clock_;
    QTimer* timer_;
    QTimer* paint_timeout_;
    std::deque<PresentedFrame> queue_;
    std::uint64_t session_ = 0;
    bool awaiting_paint_ = false;
    bool pump_posted_ = false;
    QElapsedTimer paint_clock_;
    FrameTiming painting_;  // the timing of the result being painted
};

}  // namespace hs::ui
