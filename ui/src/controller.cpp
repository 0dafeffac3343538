#include "histoscope/ui/controller.hpp"

#include <QElapsedTimer>
#include <QFileInfo>
#include <algorithm>
#include <exception>
#include <utility>

#include "background.hpp"
#include "benchmark_runner.hpp"
#include "engine_choice.hpp"
#include "frame_work.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/media/atomic_file.hpp"
#include "histoscope/media/media.hpp"
#include "histoscope/ui/photo_reader.hpp"
#include "media_open.hpp"
#include "playback.hpp"
#include "stream_session.hpp"

namespace hs::ui {

Controller::Controller(std::unique_ptr<hs::EngineRegistry> registry, ControllerOptions options,
                       QObject* parent)
    : QObject(parent),
      registry_(std::move(registry)),
      options_(std::move(options)),
      choice_(std::make_unique<EngineChoice>(
          *registry_, options_, [this](double gbs) { emit hostBandwidthMeasured(gbs); })),
      playback_(new Playback([this](std::int64_t, hs::Image& frame) { showFrame(frame); }, this)),
      background_(new Background(this)),
      stream_(std::make_unique<StreamSession>(*registry_)) {
    // Frames fall due (and are dropped) while the UI still draws the last result.
    playback_->setReady([this] { return unshown_.load() == 0; });
    connect(playback_, &Playback::stateChanged, this, &Controller::playbackChanged);
    connect(playback_, &Playback::stopped, this, &Controller::drainStream);
    connect(playback_, &Playback::problem, this, &Controller::notice);
    connect(background_, &Background::busyChanged, this, &Controller::updateBusy);
}

Controller::~Controller() {
    // A job still running would post its result to this object.
    background_->cancelAndWait();
}

void Controller::listEngines() {
    emit enginesListed(list_engines(*registry_), list_equalizers(*registry_));
}

void Controller::updateBusy() {
    QString what;
    if (!opening_.isEmpty())
        what = tr("Opening %1...").arg(opening_);
    else if (background_->busy())
        what = tr("Computing the full resolution...");
    if (what == busy_) return;
    busy_ = what;
    emit busyChanged(!what.isEmpty(), what);
}

// --- media

void Controller::openFile(const QString& path) {
    open(path, {});
}

void Controller::openRaw(const QString& path, const QString& format) {
    open(path, format);
}

void Controller::open(const QString& path, const QString& raw_format) {
    background_->cancel();  // the last photo's full resolution is not needed any more
    opening_ = QFileInfo(path).fileName();
    updateBusy();
    OpenedMedia opened;
    try {
        opened = open_media(path, raw_format);
    } catch (const std::exception& e) {
        opening_.clear();
        updateBusy();
        emit loadFailed(path, describe(e));
        return;  // the previous media stays loaded
    }
    pause();  // shows the frames in flight of the clip playing
    closeStream();
    if (opened.frames)
        playback_->open(std::move(opened.frames));
    else
        playback_->close();
    const MediaInfo info = opened.info;
    source_ = std::make_shared<hs::Image>(std::move(opened.first));
    path_ = path;
    // A large photo's reduced copy for previews, made once.
    PreviewCopy preview = info.video ? PreviewCopy{} : preview_copy(*source_);
    proxy_ = std::move(preview.image);
    proxy_factor_ = preview.factor;
    equalized_.reset();
    full_original_dirty_ = true;
    last_error_.clear();
    emit mediaLoaded(info);
    emit playbackChanged(playback_->state());
    original_dirty_ = true;
    scheduleProcess();
}

void Controller::setReference(const QString& path) {
    std::shared_ptr<hs::Image> reference;
    try {
        reference = std::make_shared<hs::Image>(read_photo(path).image);
    } catch (const std::exception& e) {
        emit errorOccurred(tr("Reference image: %1").arg(describe(e)));
        return;
    }
    // One that cannot serve this image does not replace the last good one.
    if (const QString problem = source_ ? reference_problem(*source_, *reference) : QString();
        !problem.isEmpty()) {
        emit errorOccurred(tr("Reference image %1: %2").arg(QFileInfo(path).fileName(), problem));
        return;
    }
    drainStream();  // frames in flight may still read the old reference
    closeStream();
    reference_ = std::move(reference);
    ++reference_generation_;
    emit referenceLoaded(path);
    scheduleProcess();
}

void Controller::saveImage(const QString& path) {
    if (!exact_ || process_posted_) {
        // What is saved is the result of the settings sent before: saved once it is there (a
        // large photo's full resolution may take seconds).
        pending_save_ = path;
        if (proxy_) emit notice(tr("Saving %1 when the full resolution is ready...").arg(path));
        return;
    }
    const std::shared_ptr<const hs::Image> image =
        settings_.equalize.mode != EqualizeSettings::Mode::Off && equalized_ ? equalized_ : source_;
    if (!image || image->empty()) {
        emit errorOccurred(tr("No image to save"));
        return;
    }
    if (hs::media::same_file(path.toStdString(), path_.toStdString())) {
        emit errorOccurred(
            tr("%1 is the opened file: save the result under another name").arg(path));
        return;
    }
    try {
        hs::media::write_image(path.toStdString(), image->view());
        emit imageSaved(path);
    } catch (const std::exception& e) {
        emit errorOccurred(describe(e));
    }
}

// --- settings

void Controller::setEngine(const QString& name) {
    settings_.engine = name;
    scheduleProcess();
}

void Controller::setEqualizer(const QString& name) {
    settings_.equalizer = name;
    scheduleProcess();
}

void Controller::setBins(int bins) {
    settings_.bins = std::max(bins, 1);
    scheduleProcess();
}

void Controller::setEqualize(const hs::ui::EqualizeSettings& settings) {
    if (settings == settings_.equalize) return;
    settings_.equalize = settings;
    scheduleProcess();
}

void Controller::setDisplay(bool stretch_deep, unsigned clipping) {
    if (stretch_deep == settings_.stretch_deep && clipping == settings_.clipping) return;
    settings_.stretch_deep = stretch_deep;
    settings_.clipping = clipping;
    original_dirty_ = true;
    full_original_dirty_ = true;
    scheduleProcess();
}

// --- playback

void Controller::showFrame(hs::Image& frame) {
    // The decoded frame's storage is swapped with the last one's, unless a frame in flight
    // still holds that.
    if (!source_ || source_.use_count() > 1) source_ = std::make_shared<hs::Image>();
    std::swap(*source_, frame);
    original_dirty_ = true;
    if (!playback_->playing() || !submitToStream()) process();
}

void Controller::play() {
    playback_->play();
}

void Controller::pause() {
    playback_->pause();
}

void Controller::togglePlay() {
    playback_->toggle();
}

void Controller::setLoop(bool on) {
    playback_->setLoop(on);
}

void Controller::step(int frames) {
    playback_->step(frames);
}

void Controller::seek(qint64 frame) {
    playback_->seekLater(frame);
}

void Controller::setHostBandwidth(double gbs) {
    if (gbs > 0.0) choice_->setHostBandwidth(gbs);
}

void Controller::remeasureHostBandwidth() {
    const bool had = choice_->hasHostBandwidth();
    choice_->remeasureHostBandwidth();
    if (had) scheduleProcess();  // the percentages shown follow
}

// --- the pipeline

void Controller::scheduleProcess() {
    if (process_posted_ || !source_) return;
    process_posted_ = true;
    QMetaObject::invokeMethod(this, &Controller::process, Qt::QueuedConnection);
}

void Controller::reportError(const QString& message) {
    if (message == last_error_) return;  // a moving slider repeats the same failure
    last_error_ = message;
    // Never a dialog while a clip plays.
    if (playback_->playing())
        emit notice(message);
    else
        emit errorOccurred(message);
}

void Controller::process() {
    process_posted_ = false;
    if (!source_) return;
    drainStream();  // the frames in flight come first, so results stay in frame order
    QElapsedTimer clock;
    clock.start();
    const bool preview = proxy_ != nullptr;
    // Engines are used by one thread at a time: on this one, none while a job runs, except
    // the CPU reference (it keeps no state), which previews use.
    if (!preview || !options_.gpu_engines.isEmpty()) background_->cancelAndWait();
    EngineStatus status;
    FrameSpec spec = choice_->frameSpec(source_, settings_, reference_, status);
    spec.original_picture = original_dirty_;
    emit engineStatusChanged(status);
    if (!preview) {
        FrameOutcome outcome = compute_frame(spec);
        finishFrame(outcome, status, ms_of(clock), false);
        original_dirty_ = false;
        return;
    }

    // A large photo: its reduced copy by the CPU reference at once, the full resolution by the
    // chosen engines in the background, shown when it is done unless settings changed.
    exact_ = false;  // a save waits for the full resolution
    FrameSpec quick = spec;
    quick.image = proxy_;
    quick.engine = spec.fallback;
    quick.engine_name = QStringLiteral("cpu");
    if (quick.equalizer != nullptr) quick.equalizer = registry_->find_equalizer("cpu");
    FrameOutcome outcome = compute_frame(quick);
    EngineStatus quick_status = status;
    quick_status.resolved = QStringLiteral("cpu");
    finishFrame(outcome, quick_status, ms_of(clock), true);
    original_dirty_ = false;

    spec.picture_factor = proxy_factor_;
    spec.full_pictures = true;
    // The original's pictures (an 8K one is 100 MB) until a full result has brought them.
    spec.original_picture = full_original_dirty_;
    const std::uint64_t generation = ++generation_;
    background_->submit([this, spec, status, generation](const std::atomic<bool>& cancelled) {
        QElapsedTimer job_clock;
        job_clock.start();
        FrameOutcome full = compute_frame(spec, &cancelled);
        if (full.cancelled) return;
        const double ms = ms_of(job_clock);
        QMetaObject::invokeMethod(
            this,
            [this, full, status, generation, ms]() mutable {
                if (generation == generation_) finishFrame(full, status, ms, false);
            },
            Qt::QueuedConnection);
    });
}

void Controller::finishFrame(FrameOutcome& outcome, EngineStatus status, double total_ms,
                             bool preview) {
    if (!outcome.histogram_error.isEmpty()) {
        if (outcome.histogram_failed) {
            reportError(tr("Histogram (%1): %2").arg(status.resolved, outcome.histogram_error));
            return;  // the previous result stays on screen
        }
        // A GPU failure (no device, out of memory, ...) falls back to the CPU reference.
        reportError(tr("Kernel %1 failed: %2. Using the CPU reference for this frame.")
                        .arg(status.resolved, outcome.histogram_error));
        status.message = tr("Kernel: cpu (%1 failed)").arg(status.resolved);
        status.detail = outcome.histogram_error;
        status.resolved = QStringLiteral("cpu");
        emit engineStatusChanged(status);
    }
    FrameResult& out = outcome.result;
    out.preview = preview;
    out.timing.preview = preview;
    out.timing.frame = playback_->isOpen() ? playback_->frame() : -1;
    out.source = source_;
    out.result_factor = preview ? proxy_factor_ : 1;
    if (!preview) {
        equalized_ = outcome.equalized;
        exact_ = true;
        if (!out.original_full.isNull()) full_original_dirty_ = false;
    }
    // Equalization that cannot run for want of a reference is said in the plot and the status
    // bar; a real failure is an error.
    if (!outcome.equalize_error.isEmpty()) {
        reportError(out.equalize_note);
    } else {
        last_error_.clear();
        if (settings_.equalize.mode != EqualizeSettings::Mode::Off && !out.equalize_note.isEmpty())
            emit notice(out.equalize_note);
    }
    emitFrame(out, total_ms);
    if (exact_ && !pending_save_.isEmpty()) saveImage(std::exchange(pending_save_, QString()));
}

void Controller::emitFrame(FrameResult& out, double total_ms) {
    choice_->addThroughput(out.timing, out.original_histogram);
    out.timing.dropped = playback_->dropped();
    out.timing.total_ms = total_ms;
    out.sequence = ++sequence_;
    unshown_.fetch_add(1);
    emit frameReady(out);
    if (!opening_.isEmpty()) {
        opening_.clear();
        updateBusy();
    }
}

// --- playback on the frame stream

bool Controller::submitToStream() {
    EngineStatus status;
    try {
        const StreamPlan plan = plan_stream(source_->view(), settings_, *choice_, reference_.get(),
                                            reference_generation_, status);
        stream_->submit(plan, playback_->frame(), source_,
                        [this](StreamedFrame& frame) { showStreamed(frame); });
        status.message =
            tr("%1, playing on the '%2' frame stream").arg(status.message, stream_->engineName());
        emit engineStatusChanged(status);
        return true;
    } catch (const std::exception& e) {
        reportError(tr("Playback stream: %1. Processing frame by frame.").arg(describe(e)));
        closeStream();
        return false;
    }
}

void Controller::showStreamed(StreamedFrame& frame) {
    double total_ms = 0.0;
    FrameOutcome outcome =
        streamed_frame(frame.image, frame.result, settings_.bins, settings_.clipping,
                       registry_->find(frame.result.histogram_engine), total_ms);
    if (!outcome.equalize_error.isEmpty())
        reportError(tr("Histogram of the equalized frame: %1").arg(outcome.equalize_error));
    FrameResult& out = outcome.result;
    out.timing.equalizer = qstr(stream_->equalizer());
    out.timing.stream = stream_->engineName();
    out.timing.frame = frame.index;
    equalized_ = outcome.equalized;
    emitFrame(out, total_ms);
}

void Controller::drainStream() {
    try {
        stream_->drain([this](StreamedFrame& frame) { showStreamed(frame); });
    } catch (const std::exception& e) {
        reportError(tr("Playback stream: %1").arg(describe(e)));
        closeStream();
    }
}

void Controller::closeStream() {
    stream_->close();
}

// --- kernel comparison

void Controller::runBenchmark(int runs) {
    pause();
    background_->cancelAndWait();
    if (!source_) {
        emit errorOccurred(tr("Open an image before comparing kernels"));
        emit benchmarkFinished(false);
        return;
    }
    BenchHooks hooks;
    hooks.cancel = &cancel_;
    hooks.started = [this](const BenchContext& context, int total) {
        emit benchmarkStarted(context, total);
    };
    hooks.progress = [this](int done, int total, const QString& engine) {
        emit benchmarkProgress(done, total, engine);
    };
    hooks.row = [this](const BenchRow& row) { emit benchmarkRow(row); };
    try {
        const bool finished = compare_engines(
            *registry_, histogram_request(source_->view(), settings_.bins),
            QFileInfo(path_).fileName(), std::max(runs, 1), options_, *choice_, hooks);
        emit benchmarkFinished(!finished);
    } catch (const std::exception& e) {
        emit errorOccurred(describe(e));
        emit benchmarkFinished(false);
    }
}

}  // namespace hs::ui
