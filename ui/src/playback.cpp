#include "playback.hpp"

#include <QMetaObject>
#include <algorithm>
#include <cmath>
#include <limits>

#include "histoscope/media/frame_source.hpp"

namespace hs::ui {

namespace {
constexpr int kMaxStepOver = 64;  // frames that cannot be read, stepped over in a row
}  // namespace

Playback::Playback(QObject* parent) : QObject(parent), clock_(std::make_shared<PlaybackClock>()) {}

Playback::~Playback() = default;

void Playback::open(std::unique_ptr<hs::media::FrameSource> source, std::int64_t shown) {
    close();
    live_ = !source->seekable();
    frames_ = source->frame_count();
    const double rate = source->fps();
    fps_ = rate > 0.0 && std::isfinite(rate) ? rate : (live_ ? 0.0 : 25.0);
    reader_ = std::make_unique<FrameReader>(std::move(source), clock_, [this] {
        QMetaObject::invokeMethod(this, &Playback::frameAvailable, Qt::QueuedConnection);
    });
    reader_->setMemory(memory_, format_);
    shown_ = shown;
    at_end_ = false;
    dropped_read_ = dropped_process_ = dropped_paint_ = failed_ = 0;
    emitState();
}

void Playback::failedBeforeShown(const std::vector<std::string>& reasons) {
    for (std::size_t i = 0; i < reasons.size(); ++i) {
        ++failed_;
        emit problem(failedFrameMessage(static_cast<std::int64_t>(i), reasons[i]));
    }
    emitState();
}

void Playback::close() {
    pause();
    reader_.reset();
    memory_.reset();
    format_.reset();
    clock_->stop();
    shown_ = 0;
    frames_ = 0;
    live_ = false;
    wanted_.reset();
    ++session_;
    stopped_session_ = 0;
}

void Playback::setFrameMemory(std::shared_ptr<hs::HostMemory> memory,
                              const hs::FrameFormat& format) {
    memory_ = std::move(memory);
    format_ = format;
    if (reader_) reader_->setMemory(memory_, format_);
}

std::int64_t Playback::dropped() const {
    return dropped_read_ + dropped_process_ + dropped_paint_;
}

PlaybackState Playback::state() const {
    PlaybackState s;
    s.video = isOpen();
    s.playing = playing_;
    s.loop = loop_;
    s.live = live_;
    s.paced = paced_ && fps_ > 0.0;
    s.session = session_;
    s.frame = shown_;
    s.frames = std::max(frames_, isOpen() ? shown_ + 1 : 0);
    s.fps = fps_;
    s.dropped = dropped();
    s.dropped_read = dropped_read_;
    s.dropped_process = dropped_process_;
    s.dropped_paint = dropped_paint_;
    s.failed = failed_;
    return s;
}

void Playback::setLoop(bool on) {
    loop_ = on;
    if (reader_) reader_->setLoop(on);
    emitState();
}

void Playback::setPaced(bool paced) {
    paced_ = paced;
    emitState();
}

void Playback::emitState() {
    emit stateChanged(state());
}

std::int64_t Playback::lastIndex() const {
    return frames_ > 0 ? frames_ - 1 : std::numeric_limits<std::int64_t>::max();
}

void Playback::startSession(std::int64_t from, bool continuous) {
    ++session_;
    stopped_session_ = 0;
    handed_ = done_ = 0;
    ended_ = false;
    if (continuous)
        clock_->reset(session_, fps_, paced_ && fps_ > 0.0);
    else
        clock_->stop();
    last_handed_ = std::chrono::steady_clock::now();
    reader_->start({session_, from, 0, continuous, continuous && loop_});
}

void Playback::play() {
    if (!reader_ || playing_) return;
    std::int64_t from = shown_ + 1;
    if (!live_ && (at_end_ || shown_ >= lastIndex())) {
        // Played again from the start: a new run, whose drops are counted afresh (as after
        // a seek); a pause and play in the middle keeps counting.
        from = 0;
        dropped_read_ = dropped_process_ = dropped_paint_ = failed_ = 0;
    }
    playing_ = true;
    at_end_ = false;
    wanted_.reset();
    startSession(std::max<std::int64_t>(from, 0), true);
    emitState();
}

void Playback::pause() {
    if (!playing_) return;
    playing_ = false;
    reader_->stop();
    stopped_session_ = session_;
    ++session_;  // what is on its way is not shown: the frame shown stays
    clock_->stop();
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

void Playback::seek(std::int64_t index) {
    if (!reader_ || live_) return;
    dropped_read_ = dropped_process_ = dropped_paint_ = failed_ = 0;
    index = std::clamp<std::int64_t>(index, 0, lastIndex());
    at_end_ = false;
    step_direction_ = 0;
    if (playing_) {
        wanted_.reset();
        startSession(index, true);
    } else {
        wanted_ = index;
        startSession(index, false);
    }
    emitState();
}

void Playback::step(std::int64_t delta) {
    if (!reader_ || live_) return;
    pause();
    step_direction_ = delta < 0 ? -1 : 1;
    step_tries_ = 0;
    const std::int64_t index = std::clamp<std::int64_t>(shown_ + delta, 0, lastIndex());
    wanted_ = index;
    startSession(index, false);
}

QString Playback::failedFrameMessage(std::int64_t index, const std::string& problem) {
    // The readers' reasons name their frame ("frame 47 of 'clip.mkv' could not be decoded
    // (...)", "frame 3 is truncated: ..."): said as they are, once. Any other (an exception's)
    // is said as the frame's.
    const std::string frame = "frame " + std::to_string(index);
    const bool named = problem.compare(0, frame.size(), frame) == 0 &&
                       (problem.size() == frame.size() || problem[frame.size()] == ' ' ||
                        problem[frame.size()] == ':');
    if (named) {
        QString said = QString::fromStdString(problem);
        said[0] = said[0].toUpper();
        return tr("%1: dropped").arg(said);
    }
    const QString what = tr("Frame %1 could not be decoded").arg(index);
    return problem.empty() ? tr("%1: dropped").arg(what)
                           : tr("%1 (%2): dropped").arg(what, QString::fromStdString(problem));
}

std::optional<ReadFrame> Playback::next() {
    while (reader_) {
        std::optional<ReadFrame> f = reader_->pop();
        if (!f) return std::nullopt;
        if (f->session != session_) continue;
        dropped_read_ += f->dropped_before;
        frames_ = reader_->frameCount();
        switch (f->kind) {
            case ReadFrame::Kind::End:
                if (!playing_ && wanted_) {
                    // Past the real end of a clip that reports more frames than it holds: its
                    // last frame.
                    if (frames_ > 0 && *wanted_ >= frames_) {
                        wanted_ = frames_ - 1;
                        startSession(*wanted_, false);
                    } else {
                        wanted_.reset();
                    }
                    emitState();
                    continue;
                }
                ended_ = true;
                emitState();
                finishIfDone();
                continue;
            case ReadFrame::Kind::Failed: {
                ++failed_;
                emit problem(failedFrameMessage(f->index, f->problem));
                if (!playing_ && wanted_) {
                    const std::int64_t i = f->index + step_direction_;
                    if (step_direction_ != 0 && ++step_tries_ < kMaxStepOver && i >= 0 &&
                        i <= lastIndex()) {
                        wanted_ = i;
                        startSession(i, false);
                    } else {
                        wanted_.reset();
                    }
                }
                emitState();
                continue;
            }
            case ReadFrame::Kind::Frame:
                break;
        }
        const auto now = std::chrono::steady_clock::now();
        if (playing_ && clock_->droppable(session_, f->tick, f->last, now, last_handed_)) {
            ++dropped_process_;
            continue;
        }
        ++handed_;
        last_handed_ = now;
        return f;
    }
    return std::nullopt;
}

void Playback::presented(std::uint64_t session, std::int64_t index, std::int64_t dropped) {
    if (!onScreen(session)) return;
    shown_ = index;
    if (session != session_) {  // the last of a stopped session: its counts are closed
        emitState();
        return;
    }
    dropped_paint_ += dropped;
    done_ += 1 + dropped;
    if (!playing_) wanted_.reset();
    emitState();
    finishIfDone();
}

void Playback::lost(std::uint64_t session, std::int64_t count, bool failed) {
    if (session != session_) return;
    done_ += count;
    if (failed) failed_ += count;
    emitState();
    finishIfDone();
}

void Playback::finishIfDone() {
    if (!playing_ || !ended_ || done_ < handed_) return;
    if (loop_ && !live_ && frames_ > 0) {  // turned on since the reader started
        startSession(0, true);
        return;
    }
    playing_ = false;
    at_end_ = true;
    stopped_session_ = session_;
    ++session_;
    clock_->stop();
    emitState();
    emit stopped();
}

}  // namespace hs::ui
