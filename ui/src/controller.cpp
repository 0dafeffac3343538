#include "histoscope/ui/controller.hpp"

#include <QFileInfo>
#include <algorithm>
#include <exception>
#include <utility>

#include "benchmark_runner.hpp"
#include "engine_choice.hpp"
#include "frame_work.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/atomic_file.hpp"
#include "histoscope/media/media.hpp"
#include "media_open.hpp"
#include "playback.hpp"
#include "stream_session.hpp"

namespace hs::ui {

namespace {
// Results the presenter may hold beyond the frames in flight: enough to ride out a late frame
// at 60 fps, few enough that memory stays flat (each holds its frame for the pixel picker).
constexpr std::size_t kPresenterAhead = 3;
}  // namespace

Controller::Controller(std::unique_ptr<hs::EngineRegistry> registry, ControllerOptions options,
                       QObject* parent)
    : QObject(parent),
      registry_(std::move(registry)),
      options_(std::move(options)),
      choice_(std::make_unique<EngineChoice>(
          *registry_, options_, [this](double gbs) { emit hostBandwidthMeasured(gbs); })),
      playback_(new Playback(this)) {
    // Streams say from their own threads that a result is ready: it is taken on this one.
    const auto ready = [this] {
        QMetaObject::invokeMethod(this, &Controller::schedulePump, Qt::QueuedConnection);
    };
    stream_ = std::make_unique<StreamSession>(*registry_, ready);
    preview_ = std::make_unique<StreamSession>(*registry_, ready);
    connect(playback_, &Playback::stateChanged, this, &Controller::playbackChanged);
    connect(playback_, &Playback::stateChanged, this, [this](const PlaybackState& state) {
        if (state.playing != announced_playing_ && stream_->isOpen()) announceEngines();
    });
    connect(playback_, &Playback::frameAvailable, this, &Controller::schedulePump);
    // What a paused clip still had on its way is not shown.
    connect(playback_, &Playback::stopped, this, &Controller::discardStreams);
    connect(playback_, &Playback::problem, this, &Controller::notice);
}

Controller::~Controller() {
    // The streams' threads call back into this object: they go first.
    stream_.reset();
    preview_.reset();
}

std::shared_ptr<PlaybackClock> Controller::playbackClock() const {
    return playback_->clock();
}

void Controller::listEngines() {
    emit enginesListed(list_engines(*registry_), list_equalizers(*registry_));
}

void Controller::updateBusy() {
    QString what;
    if (!opening_.isEmpty())
        what = tr("Opening %1...").arg(opening_);
    else if (proxy_ && stream_->inFlight() > 0)
        what = tr("Computing the full resolution...");
    if (what == busy_) return;
    busy_ = what;
    emit busyChanged(!what.isEmpty(), what);
}

// --- media

void Controller::openFile(const QString& path) {
    open(path, {}, 0.0);
}

void Controller::openRaw(const QString& path, const QString& format, double fps) {
    open(path, format, fps);
}

void Controller::setCameraRawView(const QString& view) {
    hs::media::CameraRawView wanted = camera_raw_view_;
    try {
        wanted = hs::media::parse_camera_raw_view(view.toStdString());
    } catch (const std::exception& e) {
        emit errorOccurred(describe(e));
        return;
    }
    if (wanted == camera_raw_view_) return;
    camera_raw_view_ = wanted;
    if (!camera_raw_ || path_.isEmpty()) return;
    // Read once: standard input has nothing more to give.
    if (path_ == QLatin1String("-"))
        return emit notice(
            tr("Standard input cannot be read again: the next camera raw file "
               "opens in the other view"));
    open(path_, {}, 0.0);
}

void Controller::open(const QString& path, const QString& raw_format, double fps) {
    opening_ = path == QLatin1String("-") ? tr("standard input") : QFileInfo(path).fileName();
    updateBusy();
    OpenedMedia opened;
    try {
        opened = open_media(path, raw_format, fps, camera_raw_view_);
    } catch (const std::exception& e) {
        opening_.clear();
        updateBusy();
        emit loadFailed(path, describe(e));
        return;  // the previous media stays loaded
    }
    playback_->close();
    discardStreams();
    stream_->close();
    preview_->close();
    sent_.clear();
    const bool live = opened.info.live;
    if (opened.frames) playback_->open(std::move(opened.frames), live ? -1 : opened.first_index);
    source_ = live ? nullptr : std::make_shared<const hs::Image>(std::move(opened.first));
    source_excursions_ = opened.first_excursions;
    path_ = path;
    frame_kind_ = live                                ? QStringLiteral("live")
                  : !opened.info.raw_format.isEmpty() ? QStringLiteral("raw")
                                                      : QStringLiteral("video");
    camera_raw_ = !opened.info.camera_raw_view.isEmpty();
    cfa_ = std::move(opened.cfa);
    // A large photo's reduced copy for previews, made once.
    PreviewCopy preview = opened.info.video || !source_ ? PreviewCopy{} : preview_copy(*source_);
    proxy_ = std::move(preview.image);
    proxy_factor_ = preview.factor;
    equalized_.reset();
    cpu_only_ = false;
    last_error_.clear();
    emit mediaLoaded(opened.info);
    // After the media's notes are shown: the status bar's message is the last failure's.
    if (!opened.failed_before.empty()) playback_->failedBeforeShown(opened.failed_before);
    emit playbackChanged(playback_->state());
    if (live) {
        // Opened: its frames are shown as they come, whenever that is.
        opening_.clear();
        updateBusy();
        playback_->play();
    } else {
        scheduleProcess();
    }
}

void Controller::setReference(const QString& path) {
    std::shared_ptr<const hs::MatchReference> reference;
    try {
        // What File > Open reads, but raw frames (which need their format): a video's first
        // frame, a camera raw file's demosaiced image (a mosaic's quads are no picture).
        OpenedMedia opened = open_media(path, {}, 0.0, hs::media::CameraRawView::Rgb);
        if (opened.first.empty()) throw hs::InputError(path.toStdString() + ": no frame");
        // The reference is frame 0 (the CLI's --reference-frame default), not a later one.
        if (!opened.failed_before.empty()) throw hs::InputError(opened.failed_before.front());
        reference = std::make_shared<const hs::MatchReference>(
            std::make_shared<const hs::Image>(std::move(opened.first)));
    } catch (const std::exception& e) {
        emit errorOccurred(tr("Reference image: %1").arg(describe(e)));
        emit referenceRefused(path);
        return;
    }
    // Frames in flight may still read the old reference.
    discardStreams();
    reference_ = std::move(reference);
    ++reference_generation_;
    emit referenceLoaded(path);
    scheduleProcess();
}

void Controller::saveImage(const QString& path) {
    if (!source_) {
        emit errorOccurred(tr("No image to save"));
        return;
    }
    if (cfa_) {
        emit errorOccurred(
            tr("A camera raw file's CFA mosaic is no picture to save: View > Camera Raw Mosaic "
               "(M) switches to its demosaiced image"));
        return;
    }
    if (hs::media::same_file(path.toStdString(), path_.toStdString())) {
        emit errorOccurred(
            tr("%1 is the opened file: save the result under another name").arg(path));
        return;
    }
    pause();
    if (settings_.equalize.mode == EqualizeSettings::Mode::Off) return saveNow(path, source_);
    // The equalized frame of the settings sent before, at the input's depth: the last result's
    // when it brought one and nothing newer is on its way, else the one computed for it.
    if (equalized_ && !process_posted_ && stream_->inFlight() == 0 &&
        shown_generation_ == generation_)
        return saveNow(path, equalized_);
    pending_save_ = path;
    if (proxy_) emit notice(tr("Saving %1 when the full resolution is ready...").arg(path));
    scheduleProcess();
}

void Controller::saveNow(const QString& path, const std::shared_ptr<const hs::Image>& image) {
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
    cpu_only_ = false;  // the user's new choice gets its chance
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
    scheduleProcess();
}

void Controller::setExposure(double ev) {
    if (ev == settings_.exposure) return;
    settings_.exposure = ev;
    // Only a float image's pictures show it.
    if (source_ && hs::is_float(source_->type())) scheduleProcess();
}

void Controller::setScopes(const hs::ui::ScopeSettings& scopes) {
    if (scopes == settings_.scopes) return;
    settings_.scopes = scopes;
    scheduleProcess();
}

void Controller::setRegion(const QRect& region) {
    if (region == settings_.region) return;
    settings_.region = region;
    scheduleProcess();
}

void Controller::setDisplayFactor(int factor) {
    factor = std::max(factor, 1);
    if (factor == display_factor_) return;
    display_factor_ = factor;
    scheduleProcess();
}

void Controller::setPixelPicker(bool equalized_samples) {
    if (equalized_samples == picker_equalized_) return;
    picker_equalized_ = equalized_samples;
    // Wanted now: the frame shown is computed again with it (not needed when it left).
    if (equalized_samples && !equalized_) scheduleProcess();
}

// --- playback

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

void Controller::setPaced(bool paced) {
    playback_->setPaced(paced);
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

// --- the frame path

void Controller::reportError(const QString& message) {
    if (message == last_error_) return;  // a moving slider repeats the same failure
    last_error_ = message;
    // Never a dialog while a clip plays.
    if (playback_->playing())
        emit notice(message);
    else
        emit errorOccurred(message);
}

void Controller::discardStreams() {
    std::int64_t lost = 0;
    for (const FrameTag& tag : stream_->discard())
        if (tag.session == playback_->session()) ++lost;
    preview_->discard();
    if (lost > 0) playback_->lost(playback_->session(), lost, false);
}

void Controller::scheduleProcess() {
    if (process_posted_ || !source_) return;
    process_posted_ = true;
    QMetaObject::invokeMethod(this, &Controller::process, Qt::QueuedConnection);
}

void Controller::schedulePump() {
    if (pump_posted_) return;
    pump_posted_ = true;
    QMetaObject::invokeMethod(this, &Controller::pump, Qt::QueuedConnection);
}

void Controller::process() {
    process_posted_ = false;
    // While a clip plays, the next frames take the new settings (pump()).
    if (!source_ || playback_->playing()) return;
    discardStreams();  // what was on its way is computed with older settings
    ++generation_;
    FrameOptions options{display_factor_, picker_equalized_ || !pending_save_.isEmpty(), cpu_only_};
    if (!playback_->isOpen()) options.depth = 2;  // a photo: one frame at a time
    options.cfa = cfa_;
    EngineStatus status;
    const StreamPlan plan = plan_stream(source_->view(), settings_, options, *choice_,
                                        reference_.get(), reference_generation_, status);
    FrameTag tag;
    tag.image = tag.source = source_;
    tag.excursions = source_excursions_;
    tag.index = playback_->isOpen() ? playback_->frame() : -1;
    tag.frame_kind = frame_kind_;
    tag.session = playback_->isOpen() ? playback_->session() : 0;
    tag.generation = generation_;
    tag.context = plan.context;
    try {
        configureStream(plan, status);
        // A large photo on the CPU: its reduced copy first, shown as a preview meanwhile.
        if (proxy_ && stream_->engineName() == QLatin1String("cpu")) {
            EngineStatus ignored;
            FrameOptions reduced = options;
            reduced.factor = std::max(1, display_factor_ / proxy_factor_);
            reduced.cpu_only = true;
            reduced.reduced_by = proxy_factor_;
            const StreamPlan small_plan =
                plan_stream(proxy_->view(), settings_, reduced, *choice_, reference_.get(),
                            reference_generation_, ignored);
            preview_->configure(small_plan);
            FrameTag small = tag;
            small.image = proxy_;
            small.preview = true;
            small.preview_factor = proxy_factor_;
            small.context = small_plan.context;
            if (preview_->holds(proxy_))
                preview_->resubmit(small);
            else
                preview_->submit(small);
        }
        if (stream_->holds(source_))
            stream_->resubmit(tag);
        else
            stream_->submit(tag);
    } catch (const std::exception& e) {
        reportError(tr("Frame stream: %1").arg(describe(e)));
        stream_->close();
    }
    updateBusy();
}

void Controller::configureStream(const StreamPlan& plan, EngineStatus status) {
    stream_->configure(plan);
    engines_ = std::move(status);
    announceEngines();
    // A clip's reader makes its frames where this stream reads them fastest.
    if (playback_->isOpen()) playback_->setFrameMemory(stream_->frameMemory(), plan.config.format);
}

void Controller::announceEngines() {
    announced_playing_ = playback_->playing();
    EngineStatus status = engines_;
    status.message = (announced_playing_ ? tr("%1, playing on the '%2' frame stream")
                                         : tr("%1, on the '%2' frame stream"))
                         .arg(status.message, stream_->engineName());
    emit engineStatusChanged(status);
}

void Controller::pump() {
    pump_posted_ = false;
    collect();
    while (playback_->isOpen() && playback_->playing()) {
        if (sent_.size() + stream_->inFlight() >= kPresenterAhead + 3) break;
        if (stream_->isOpen() && !stream_->hasRoom()) break;
        std::optional<ReadFrame> frame = playback_->next();
        if (!frame) break;
        submitPlayed(*frame);
    }
    // Paused: a seek or a step, shown once it is read.
    if (playback_->isOpen() && !playback_->playing() && stream_->inFlight() == 0)
        if (std::optional<ReadFrame> frame = playback_->next()) submitPlayed(*frame);
    updateBusy();
}

void Controller::submitPlayed(ReadFrame& frame) {
    const FrameOptions options{display_factor_, picker_equalized_, cpu_only_};
    EngineStatus status;
    const StreamPlan plan = plan_stream(frame.image->view(), settings_, options, *choice_,
                                        reference_.get(), reference_generation_, status);
    try {
        if (!stream_->serves(plan)) {
            // New settings wait for the frames in flight, shown with the settings they ran with.
            while (std::optional<StreamDone> done = stream_->take(true)) deliver(*done);
            configureStream(plan, status);
        }
        FrameTag tag;
        tag.session = frame.session;
        tag.index = frame.index;
        tag.frame_kind = frame_kind_;
        tag.tick = playback_->playing() ? frame.tick : -1;
        tag.image = tag.source = frame.image;
        tag.excursions = frame.excursions;
        tag.read_ms = frame.read_ms;
        tag.generation = generation_;
        tag.context = plan.context;
        stream_->submit(std::move(tag));
    } catch (const std::exception& e) {
        reportError(tr("Playback stream: %1").arg(describe(e)));
        stream_->close();
        playback_->lost(frame.session, 1, true);
    }
}

void Controller::collect() {
    while (std::optional<StreamDone> done = stream_->take()) deliver(*done);
    while (std::optional<StreamDone> done = preview_->take()) deliver(*done);
}

void Controller::deliver(StreamDone& done) {
    const FrameTag& tag = done.tag;
    const bool played = tag.session != 0 && playback_->isOpen();
    if (played && tag.session != playback_->session()) return;  // a session gone: unseen
    if (!done.result) {
        if (played) playback_->lost(tag.session, 1, true);
        if (done.device_error && !cpu_only_) {
            // A GPU failure (no device, out of memory, ...): the CPU reference takes over.
            reportError(tr("Kernel %1 failed: %2. Using the CPU reference.")
                            .arg(tag.context.engine, done.error));
            EngineStatus status;
            status.requested = settings_.engine;
            status.resolved = QStringLiteral("cpu");
            status.message = tr("Kernel: cpu (%1 failed)").arg(tag.context.engine);
            status.detail = done.error;
            emit engineStatusChanged(status);
            cpu_only_ = true;
            stream_->close();
            preview_->close();
            scheduleProcess();
        } else {
            reportError(tr("Frame %1: %2").arg(tag.index).arg(done.error));
        }
        return;
    }
    if (tag.preview && shown_generation_ >= tag.generation) return;  // the exact one came first
    PresentedFrame out = results(*done.result, tag);
    const std::shared_ptr<const hs::Image> equalized = out.result;
    // A clip's results are computed ahead of the frame on screen: theirs become the ones to save
    // once shown (framesConsumed()), or a pause would save a frame that was never on screen.
    if (!tag.preview && !played) {
        shown_generation_ = tag.generation;
        equalized_ = equalized;
    }
    if (!out.equalize_note.isEmpty() && settings_.equalize.mode != EqualizeSettings::Mode::Off)
        emit notice(out.equalize_note);
    choice_->addThroughput(out.timing, out.original_histogram);
    out.timing.dropped = playback_->isOpen() ? playback_->dropped() : 0;
    out.sequence = ++sequence_;
    sent_.push_back({tag.source, equalized, tag.excursions, tag.generation, tag.preview});
    emit frameReady(out);
    if (!opening_.isEmpty()) {
        opening_.clear();
        updateBusy();
    }
    if (!tag.preview && !pending_save_.isEmpty() && tag.generation == generation_) {
        const QString path = std::exchange(pending_save_, QString());
        // This result is of the frame on screen (process() computed it for the save).
        if (settings_.equalize.mode == EqualizeSettings::Mode::Off)
            saveNow(path, tag.source);
        else if (equalized)
            saveNow(path, equalized);
        else
            emit errorOccurred(tr("Nothing equalized to save: %1").arg(out.equalize_note));
    }
}

void Controller::framesConsumed(quint64 session, qint64 index, int count, int dropped) {
    Sent shown;
    for (int i = 0; i < count && !sent_.empty(); ++i) {
        shown = std::move(sent_.front());
        sent_.pop_front();
    }
    if (index >= 0 && session != 0 && playback_->onScreen(session)) {
        // The frame on screen: what a paused settings change computes again, and saves.
        source_ = shown.source;
        source_excursions_ = shown.excursions;
        if (!shown.preview) {
            equalized_ = shown.equalized;
            shown_generation_ = shown.generation;
        }
        playback_->presented(session, index, dropped);
    }
    schedulePump();
}

// --- kernel comparison

void Controller::runBenchmark(int runs) {
    pause();
    // Engines are used by one thread at a time: nothing of the streams' may run meanwhile.
    discardStreams();
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
    // A CFA mosaic's channels by their names (core's rows name the image's R, G, B, A).
    std::string cfa_names;
    if (cfa_)
        for (const hs::media::CfaColour& c : hs::media::kCfaColours)
            cfa_names += (cfa_names.empty() ? "" : ",") + std::string(c.name);
    hooks.row = [this, cfa_names](const BenchRow& row) {
        if (cfa_names.empty() || row.floor) return emit benchmarkRow(row);
        BenchRow named = row;
        named.channels = cfa_names;
        emit benchmarkRow(named);
    };
    try {
        const bool finished = compare_engines(
            *registry_, histogram_request(source_->view(), settings_.bins, cfa_ != nullptr),
            QFileInfo(path_).fileName(), std::max(runs, 1), options_, *choice_, hooks);
        emit benchmarkFinished(!finished);
    } catch (const std::exception& e) {
        emit errorOccurred(describe(e));
        emit benchmarkFinished(false);
    }
}

}  // namespace hs::ui
