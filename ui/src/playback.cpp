#include "playback.hpp"

#include <QTimer>
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include "frame_source.hpp"

namespace hs::ui {

namespace {
constexpr qint64 kMaxSkipMs = 250;  // decoding frames to drop before one is shown anyway
}

Playback::Playback(Sink sink, QObject* parent)
    : QObject(parent), sink_(std::move(sink)), timer_(new QTimer(this)) {
    timer_->setSingleShot(true);
    timer_->setTimerType(Qt::PreciseTimer);
    connect(timer_, &QTimer::timeout, this, &Playback::tick);
}

Playback::~Playback() = default;

void Playback::open(std::unique_ptr<FrameSource> source) {
    pause();
    source_ = std::move(source);
    index_ = 0;
    frames_ = source_->frameCount();
    fps_ = source_->fps() > 0.0 && std::isfinite(source_->fps()) ? source_->fps() : 25.0;
    dropped_ = 0;
    at_end_ = false;
    emitState();
}

void Playback::close() {
    pause();
    source_.reset();
    frame_ = hs::Image();
    index_ = 0;
    frames_ = 0;
    dropped_ = 0;
}

PlaybackState Playback::state() const {
    PlaybackState s;
    s.video = isOpen();
    s.playing = playing_;
    s.loop = loop_;
    s.frame = index_;
    s.frames = std::max(frames_, isOpen() ? index_ + 1 : 0);
    s.fps = fps_;
    s.dropped = dropped_;
    return s;
}

void Playback::setLoop(bool on) {
    loop_ = on;
    emitState();
}

void Playback::emitState() {
    emit stateChanged(state());
}

std::int64_t Playback::lastIndex() const {
    return frames_ > 0 ? frames_ - 1 : std::numeric_limits<std::int64_t>::max();
}

void Playback::play() {
    if (!source_ || playing_) return;
    if ((at_end_ || index_ >= lastIndex()) && !seek(0)) return;
    playing_ = true;
    at_end_ = false;
    start_frame_ = index_;
    clock_.start();
    schedule();
    emitState();
}

void Playback::pause() {
    if (!playing_) return;
    playing_ = false;
    timer_->stop();
    emitState();
    emit stopped();
}

void Playback::toggle() {
    if (playing_)
        pause();
    else
        play();
}

void Playback::seekLater(std::int64_t index) {
    const bool posted = pending_seek_.has_value();
    pending_seek_ = index;
    if (!posted)
        QMetaObject::invokeMethod(
            this,
            [this] {
                const std::int64_t target = *pending_seek_;
                pending_seek_.reset();
                seek(target);
            },
            Qt::QueuedConnection);
}

bool Playback::seek(std::int64_t index) {
    dropped_ = 0;
    return source_ && showAt(index);
}

bool Playback::showAt(std::int64_t index) {
    index = std::clamp<std::int64_t>(index, 0, lastIndex());
    if (!decodeAt(index)) return false;
    at_end_ = false;
    if (playing_) {
        start_frame_ = index_;
        clock_.start();
        schedule();
    }
    deliver();
    return true;
}

bool Playback::step(std::int64_t delta) {
    pause();
    // A frame that fails to decode is stepped over (said by problem()), as playback drops it.
    constexpr int kMaxStepOver = 64;
    const std::int64_t direction = delta < 0 ? -1 : 1;
    std::int64_t i = std::clamp<std::int64_t>(index_ + delta, 0, lastIndex());
    for (int tries = 0; tries < kMaxStepOver && i >= 0 && i <= lastIndex(); ++tries, i += direction)
        if (seek(i)) return true;
    return false;
}

bool Playback::decodeAt(std::int64_t index) {
    // A container that reports more frames than it holds ends early: the clip's real last
    // frame is the one before, learned here.
    for (; index >= 0; --index) {
        try {
            if (index != source_->position()) source_->seek(index);
            switch (source_->read(frame_)) {
                case FrameSource::Status::Ok:
                    index_ = index;
                    frames_ = std::max(frames_, index + 1);
                    return true;
                case FrameSource::Status::Failed:
                    emit problem(unreadable(index));
                    return false;
                case FrameSource::Status::End:
                    frames_ = index;
                    break;
            }
        } catch (const std::exception& e) {
            emit problem(QString::fromUtf8(e.what()));
            return false;
        }
    }
    return false;
}

QString Playback::unreadable(std::int64_t index) const {
    const std::string why = source_->failure();
    const QString frame = tr("Frame %1 could not be decoded").arg(index + 1);
    return why.empty() ? frame : tr("%1 (%2)").arg(frame, QString::fromStdString(why));
}

void Playback::deliver() {
    sink_(index_, frame_);
    emitState();
}

void Playback::schedule() {
    if (!playing_) return;
    const double next_ms = static_cast<double>(index_ + 1 - start_frame_) * 1000.0 / fps_;
    const double wait = next_ms - static_cast<double>(clock_.nsecsElapsed()) / 1e6;
    timer_->start(std::max(0, static_cast<int>(std::ceil(wait))));
}

void Playback::tick() {
    if (!playing_ || !source_) return;
    const auto due = start_frame_ + static_cast<std::int64_t>(std::floor(
                                        static_cast<double>(clock_.nsecsElapsed()) / 1e9 * fps_));
    if (due <= index_) {
        schedule();
        return;
    }
    if (ready_ && !ready_()) {  // the UI still draws: look again shortly
        timer_->start(2);
        return;
    }
    if (index_ >= lastIndex()) {
        finish();
        return;
    }
    const std::int64_t target = std::min(due, lastIndex());
    QElapsedTimer skipping;
    skipping.start();
    std::int64_t decoded = -1;  // the latest frame decoded into frame_
    bool ended = false;
    while (source_->position() <= target) {
        const std::int64_t at = source_->position();
        const auto status = source_->read(frame_);
        if (status == FrameSource::Status::End) {
            frames_ = (decoded >= 0 ? decoded : index_) + 1;  // the clip ends here
            ended = true;
            break;
        }
        if (status == FrameSource::Status::Ok)
            decoded = at;
        else
            emit problem(tr("%1: dropped").arg(unreadable(at)));
        if (skipping.elapsed() > kMaxSkipMs) break;
    }
    if (decoded < 0) {
        // Only frames that failed to decode: playback goes on (the next frame shown counts
        // them as dropped), unless the clip ended.
        if (ended)
            finish();
        else
            schedule();
        return;
    }
    dropped_ += std::max<std::int64_t>(0, decoded - index_ - 1);
    index_ = decoded;
    deliver();
    schedule();
}

void Playback::finish() {
    if (loop_ && showAt(0)) return;  // which restarts the clock
    playing_ = false;
    at_end_ = true;
    timer_->stop();
    emitState();
    emit stopped();
}

}  // namespace hs::ui
