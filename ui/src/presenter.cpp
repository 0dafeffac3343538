#include "presenter.hpp"

#include <QTimer>
#include <chrono>

#include "playback_clock.hpp"

namespace hs::ui {

namespace {
// A window that paints nothing (hidden, minimized) does not hold frames back for longer.
constexpr int kPaintTimeoutMs = 100;
}  // namespace

Presenter::Presenter(std::shared_ptr<PlaybackClock> clock, QObject* parent)
    : QObject(parent),
      clock_(std::move(clock)),
      timer_(new QTimer(this)),
      paint_timeout_(new QTimer(this)) {
    timer_->setSingleShot(true);
    timer_->setTimerType(Qt::PreciseTimer);
    connect(timer_, &QTimer::timeout, this, &Presenter::pump);
    paint_timeout_->setSingleShot(true);
    paint_timeout_->setInterval(kPaintTimeoutMs);
    connect(paint_timeout_, &QTimer::timeout, this, &Presenter::paintDone);
}

void Presenter::setSession(std::uint64_t session) {
    if (session <= session_) return;
    session_ = session;
    pump();
}

void Presenter::dropStale() {
    // A photo or paused frame (tick -1) is always shown.
    int stale = 0;
    std::uint64_t of = 0;
    while (!queue_.empty() && queue_.front().tick >= 0 && queue_.front().session < session_) {
        of = queue_.front().session;
        queue_.pop_front();
        ++stale;
    }
    if (stale > 0) emit consumed(of, -1, stale, 0);
}

void Presenter::push(const PresentedFrame& result) {
    queue_.push_back(result);
    pump();
}

void Presenter::painted() {
    if (!awaiting_paint_ || pump_posted_) return;
    // The other widgets updated with this result paint in the same pass, right after.
    pump_posted_ = true;
    QTimer::singleShot(0, this, &Presenter::paintDone);
}

void Presenter::paintDone() {
    pump_posted_ = false;
    if (!awaiting_paint_) return;
    awaiting_paint_ = false;
    paint_timeout_->stop();
    emit framePainted(painting_, static_cast<double>(paint_clock_.nsecsElapsed()) / 1e6);
    pump();
}

void Presenter::pump() {
    dropStale();
    if (awaiting_paint_ || queue_.empty()) return;
    const PresentedFrame& front = queue_.front();
    if (front.tick < 0) return show(0);
    if (front.session > session_) session_ = front.session;
    if (!clock_->due(front.session, front.tick)) return show(0);  // unpaced, or a first frame
    // The oldest result not overtaken (more than a frame late); the ones before it are dropped,
    // unless none is queued behind them.
    const auto now = PlaybackClock::Clock::now();
    std::size_t first = 0;
    while (first + 1 < queue_.size() && queue_[first + 1].tick >= 0 &&
           queue_[first + 1].session == front.session &&
           clock_->overtaken(front.session, queue_[first].tick, now))
        ++first;
    const auto due = clock_->due(front.session, queue_[first].tick);
    if (!due || *due <= now) return show(first);
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(*due - now).count();
    timer_->start(static_cast<int>(std::max<long long>(wait, 0)));
}

void Presenter::show(std::size_t index) {
    timer_->stop();
    const int dropped = static_cast<int>(index);
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(index));
    const PresentedFrame result = std::move(queue_.front());
    queue_.pop_front();
    if (result.tick >= 0)
        clock_->presented(result.session, result.tick, PlaybackClock::Clock::now());
    paint_clock_.start();
    painting_ = result.timing;
    awaiting_paint_ = true;
    paint_timeout_->start();
    emit present(result);
    emit consumed(result.session, result.timing.frame, dropped + 1, dropped);
}

}  // namespace hs::ui
