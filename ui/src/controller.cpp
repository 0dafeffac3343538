#include "histoscope/ui/controller.hpp"

#include <QElapsedTimer>
#include <QFileInfo>
#include <algorithm>
#include <exception>
#include <thread>
#include <utility>
#include <vector>

#include "background.hpp"
#include "benchmark_runner.hpp"
#include "frame_work.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/media/media.hpp"
#include "histoscope/ui/photo_reader.hpp"
#include "histoscope/ui/qimage_convert.hpp"
#include "host_bandwidth.hpp"
#include "playback.hpp"

namespace hs::ui {

namespace {

// Photos larger than this in either direction are previewed on a copy reduced to fit it,
// about the size of a screen, while the full resolution is computed in the background.
constexpr int kPreviewSize = 2048;

}  // namespace

Controller::Controller(std::unique_ptr<hs::EngineRegistry> registry, ControllerOptions options,
                       QObject* parent)
    : QObject(parent),
      registry_(std::move(registry)),
      options_(std::move(options)),
      playback_(new Playback([this](std::int64_t, hs::Image& frame) { showFrame(frame); }, this)),
      background_(new Background(this)) {
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
    QVector<EngineInfo> engines, equalizers;
    for (const auto& engine : registry_->engines()) {
        const hs::Availability a = engine->availability();
        engines.push_back({qstr(engine->name()), qstr(engine->description()), a.available,
                           QString::fromStdString(a.reason)});
    }
    for (const auto& engine : registry_->equalizers()) {
        const hs::Availability a = engine->availability();
        equalizers.push_back({qstr(engine->name()), qstr(engine->description()), a.available,
                              QString::fromStdString(a.reason)});
    }
    emit enginesListed(engines, equalizers);
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
    background_->cancel();  // the last photo's full resolution is not needed any more
    opening_ = QFileInfo(path).fileName();
    updateBusy();
    const std::string file = path.toStdString();
    MediaInfo info;
    info.path = path;
    auto image = std::make_shared<hs::Image>();
    try {
        if (hs::media::probe(file) == hs::media::MediaKind::Video) {
            auto reader = std::make_unique<hs::media::VideoReader>(file);
            std::optional<hs::Image> first = reader->read();
            if (!first) throw hs::InputError(file + ": the video has no decodable frame");
            info.video = true;
            info.format = QString::fromStdString(reader->codec());
            info.frames = reader->frame_count();
            info.fps = reader->fps();
            *image = std::move(*first);
            pause();  // shows the frames in flight of the clip playing
            closeStream();
            playback_->open(std::move(reader));
        } else {
            hs::media::LoadedImage loaded = read_photo(path);
            info.format = QString::fromStdString(loaded.format);
            for (const auto& note : loaded.notes) info.notes << QString::fromStdString(note);
            *image = std::move(loaded.image);
            pause();
            closeStream();
            playback_->close();
        }
    } catch (const std::exception& e) {
        opening_.clear();
        updateBusy();
        emit loadFailed(path, describe(e));
        return;  // the previous media stays loaded
    }
    source_ = std::move(image);
    path_ = path;
    // A large photo's reduced copy for previews, made once.
    proxy_.reset();
    proxy_factor_ = 1;
    const int factor =
        (std::max(source_->width(), source_->height()) + kPreviewSize - 1) / kPreviewSize;
    if (!info.video && factor > 1) {
        proxy_ = std::make_shared<hs::Image>(downscale(source_->view(), factor));
        proxy_factor_ = factor;
    }
    equalized_.reset();
    full_original_dirty_ = true;
    info.width = source_->width();
    info.height = source_->height();
    info.channels = source_->channels();
    info.bit_depth = source_->bit_depth();
    last_error_.clear();
    emit mediaLoaded(info);
    emit playbackChanged(playback_->state());
    original_dirty_ = true;
    scheduleProcess();
}

QString Controller::referenceProblem(const hs::Image& reference) const {
    if (!source_ || reference.bit_depth() == source_->bit_depth()) return {};
    return tr("the reference is %1-bit and this image %2-bit: a reference must have the image's "
              "depth")
        .arg(reference.bit_depth())
        .arg(source_->bit_depth());
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
    if (const QString problem = referenceProblem(*reference); !problem.isEmpty()) {
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
        equalize_.mode != EqualizeSettings::Mode::Off && equalized_ ? equalized_ : source_;
    if (!image || image->empty()) {
        emit errorOccurred(tr("No image to save"));
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
    engine_ = name;
    scheduleProcess();
}

void Controller::setEqualizer(const QString& name) {
    equalizer_ = name;
    scheduleProcess();
}

void Controller::setBins(int bins) {
    bins_ = std::max(bins, 1);
    scheduleProcess();
}

void Controller::setEqualize(const hs::ui::EqualizeSettings& settings) {
    if (settings == equalize_) return;
    equalize_ = settings;
    scheduleProcess();
}

void Controller::setDisplay(bool stretch_deep, unsigned clipping) {
    if (stretch_deep == stretch_deep_ && clipping == clipping_) return;
    stretch_deep_ = stretch_deep;
    clipping_ = clipping;
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
    if (playback_->playing())
        pause();
    else
        play();
}

void Controller::setLoop(bool on) {
    playback_->setLoop(on);
}

void Controller::step(int frames) {
    playback_->step(frames);
}

// Seeks coalesce like settings: a dragged slider sends many, the latest wins.
void Controller::seek(qint64 frame) {
    const bool posted = pending_seek_.has_value();
    pending_seek_ = frame;
    if (!posted)
        QMetaObject::invokeMethod(
            this,
            [this] {
                const std::int64_t target = *pending_seek_;
                pending_seek_.reset();
                playback_->seek(target);
            },
            Qt::QueuedConnection);
}

void Controller::setHostBandwidth(double gbs) {
    if (gbs > 0.0) host_bw_ = gbs;
}

void Controller::remeasureHostBandwidth() {
    const bool had = host_bw_.has_value();
    host_bw_ = measure_host_read_bandwidth_gbs();
    emit hostBandwidthMeasured(*host_bw_);
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

// When the registry's own "auto" engine cannot serve a request (or the registry has none): the
// fastest available GPU engine that serves it, found by timing each once on it and remembered
// per request shape; null (meaning the CPU reference) when no GPU engine can run.
hs::HistogramEngine* Controller::fastestGpuEngineForAuto(const hs::HistogramRequest& request,
                                                         QString& why) {
    std::vector<hs::HistogramEngine*> candidates;
    for (const QString& name : options_.gpu_engines) {
        if (name == QLatin1String("auto")) continue;  // it just declined
        hs::HistogramEngine* e = registry_->find(name.toStdString());
        if (e == nullptr) continue;
        const std::string refusal = e->refusal(request);
        if (!refusal.empty()) {
            if (why.isEmpty()) why = QString::fromStdString(refusal);
            continue;
        }
        candidates.push_back(e);
    }
    if (candidates.empty()) return nullptr;
    if (candidates.size() == 1) return candidates.front();
    const auto key =
        std::make_tuple(request.image.width, request.image.height, request.image.channels,
                        request.image.bit_depth, request.spec.bins);
    if (const auto it = auto_choice_.find(key); it != auto_choice_.end())
        if (hs::HistogramEngine* e = registry_->find(it->second.toStdString())) return e;
    hs::HistogramEngine* best = nullptr;
    double best_ms = 0.0;
    for (hs::HistogramEngine* e : candidates) {
        try {
            e->compute(request);  // warm-up (allocations, first launch)
            const double ms = e->compute(request).total_ms;
            if (best == nullptr || ms < best_ms) {
                best = e;
                best_ms = ms;
            }
        } catch (const std::exception&) {
            // An engine that fails here is simply not chosen.
        }
    }
    if (best != nullptr) auto_choice_[key] = qstr(best->name());
    return best;
}

hs::HistogramEngine* Controller::resolveEngine(const hs::HistogramRequest& request,
                                               EngineStatus& status) {
    status.requested = engine_;
    hs::HistogramEngine* cpu = registry_->find("cpu");
    QString why;
    if (engine_ == QLatin1String("auto")) {
        hs::HistogramEngine* registered = registry_->find("auto");
        if (registered != nullptr) {
            const std::string refusal = registered->refusal(request);
            if (refusal.empty()) {
                status.resolved = QStringLiteral("auto");
                status.message = tr("Kernel: auto (the registry's GPU selection)");
                return registered;
            }
            why = QString::fromStdString(refusal);
        }
        if (hs::HistogramEngine* gpu = fastestGpuEngineForAuto(request, why)) {
            status.resolved = qstr(gpu->name());
            status.message = tr("Kernel: %1 (auto: fastest GPU kernel)").arg(status.resolved);
            return gpu;
        }
        // The status bar says it in a few words; the engines' own sentence is the tooltip.
        status.resolved = QStringLiteral("cpu");
        if (options_.gpu_engines.isEmpty()) {
            status.message = tr("CPU only: this build has no GPU kernels");
            status.detail = tr("Histoscope was built without CUDA: auto runs the CPU reference.");
        } else if (!options_.gpu_absence.isEmpty()) {
            status.message = tr("CPU only: %1").arg(options_.gpu_absence);
            status.detail = why;
        } else {
            status.message = tr("Kernel: cpu (auto): no GPU kernel serves this request");
            status.detail = why;
        }
        return cpu;
    }
    hs::HistogramEngine* chosen = registry_->find(engine_.toStdString());
    why = chosen == nullptr ? tr("not in this build")
                            : QString::fromStdString(chosen->refusal(request));
    if (why.isEmpty()) {
        status.resolved = engine_;
        status.message = tr("Kernel: %1").arg(engine_);
        return chosen;
    }
    status.resolved = QStringLiteral("cpu");
    status.message = tr("Kernel: cpu (%1 cannot run)").arg(engine_);
    status.detail = why;
    return cpu;
}

hs::EqualizeEngine* Controller::resolveEqualizer(const hs::EqualizeRequest& request) {
    auto usable = [&](hs::EqualizeEngine* e) {
        return e != nullptr && e->refusal(request).empty();
    };
    if (equalizer_ != QLatin1String("auto")) {
        hs::EqualizeEngine* e = registry_->find_equalizer(equalizer_.toStdString());
        if (usable(e)) return e;
        return registry_->find_equalizer("cpu");
    }
    // auto: the first usable equalizer that is not the CPU reference, else the reference.
    for (const auto& e : registry_->equalizers())
        if (e->name() != "cpu" && usable(e.get())) return e.get();
    return registry_->find_equalizer("cpu");
}

double Controller::readBandwidthGbs(const QString& engine, QString& device) {
    if (options_.gpu_engines.contains(engine)) {
        device = tr("GPU");
        if (!gpu_bw_) {
            gpu_bw_ = 0.0;
            if (options_.gpu_read_bandwidth_gbs) try {
                    gpu_bw_ = options_.gpu_read_bandwidth_gbs();
                } catch (const std::exception&) {
                    gpu_bw_ = 0.0;
                }
        }
        return *gpu_bw_;
    }
    if (!host_bw_) remeasureHostBandwidth();
    device = tr("CPU, %1 threads").arg(std::max(1u, std::thread::hardware_concurrency()));
    return *host_bw_;
}

FrameSpec Controller::frameSpec(const std::shared_ptr<const hs::Image>& image,
                                EngineStatus& status) {
    FrameSpec spec;
    spec.image = image;
    spec.reference = reference_;
    spec.bins = bins_;
    spec.equalize = equalize_;
    spec.engine = resolveEngine(histogram_request(image->view(), bins_), status);
    spec.engine_name = status.resolved;
    spec.fallback = registry_->find("cpu");
    spec.original_picture = original_dirty_;
    spec.stretch_deep = stretch_deep_;
    spec.clipping = clipping_;
    if (equalize_.mode == EqualizeSettings::Mode::Off) return spec;
    if (equalize_.mode == EqualizeSettings::Mode::Match) {
        if (!reference_)
            spec.equalize_refused = tr("Match: choose a reference image (Reference...)");
        else if (const QString problem = referenceProblem(*reference_); !problem.isEmpty())
            spec.equalize_refused = tr("Match: %1").arg(problem);
        if (!spec.equalize_refused.isEmpty()) return spec;
    }
    try {
        spec.equalizer =
            resolveEqualizer(equalize_request(image->view(), equalize_, reference_.get()));
    } catch (const std::exception& e) {
        spec.equalize_refused = describe(e);
    }
    return spec;
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
    FrameSpec spec = frameSpec(source_, status);
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
        if (equalize_.mode != EqualizeSettings::Mode::Off && !out.equalize_note.isEmpty())
            emit notice(out.equalize_note);
    }
    emitFrame(out, total_ms);
    if (exact_ && !pending_save_.isEmpty()) saveImage(std::exchange(pending_save_, QString()));
}

void Controller::emitFrame(FrameResult& out, double total_ms) {
    FrameTiming& timing = out.timing;
    const HistogramData& h = out.original_histogram;
    timing.histogram_ms = h.histogram_ms();
    if (timing.histogram_ms > 0.0) {
        timing.gpix_per_s = static_cast<double>(h.pixels) / (timing.histogram_ms * 1e6);
        timing.gb_per_s = static_cast<double>(h.bytes) / (timing.histogram_ms * 1e6);
    }
    timing.dropped = playback_->dropped();
    timing.total_ms = total_ms;
    // Measured once per device, outside the frame's time.
    timing.read_bandwidth_gbs = readBandwidthGbs(timing.engine, timing.bandwidth_device);
    if (timing.read_bandwidth_gbs > 0.0)
        timing.pct_read_bw = 100.0 * timing.gb_per_s / timing.read_bandwidth_gbs;
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
    const hs::ImageView view = source_->view();
    const hs::HistogramRequest request = histogram_request(view, bins_);
    EngineStatus status;
    resolveEngine(request, status);
    hs::StreamConfig config;
    config.format = hs::FrameFormat::of(view);
    config.engine = status.resolved.toStdString();
    config.channels = request.channels;
    config.spec = request.spec;
    try {
        if (equalize_.mode != EqualizeSettings::Mode::Off) {
            const hs::EqualizeRequest eq = equalize_request(view, equalize_, reference_.get());
            config.equalize = eq;
            config.equalizer = std::string(resolveEqualizer(eq)->name());
        }
        // What the stream was opened with; a change (settings, a new clip) reopens it.
        const std::string key =
            config.format.describe() + "|" + config.engine + "|" + config.spec.describe() + "|" +
            config.equalizer + "|" + std::to_string(static_cast<int>(equalize_.mode)) + "|" +
            std::to_string(equalize_.luma) + "|" + std::to_string(equalize_.strength) + "|" +
            std::to_string(equalize_.clip) + "|" + std::to_string(equalize_.tiles_x) + "x" +
            std::to_string(equalize_.tiles_y) + "|" + std::to_string(reference_generation_);
        if (stream_ && key != stream_key_) {
            drainStream();  // the frames in flight are shown with the settings they ran with
            closeStream();
        }
        if (!stream_) {
            hs::StreamEngine& engine = hs::choose_stream_engine(*registry_, config);
            stream_ = engine.open(config);
            stream_key_ = key;
            stream_engine_ = qstr(engine.name());
        }
        status.message =
            tr("%1, playing on the '%2' frame stream").arg(status.message, stream_engine_);
        emit engineStatusChanged(status);
        in_flight_.emplace_back(playback_->frame(), source_);
        stream_->submit(view);
        while (auto r = stream_->poll()) showStreamResult(*r);
        return true;
    } catch (const std::exception& e) {
        reportError(tr("Playback stream: %1. Processing frame by frame.").arg(describe(e)));
        closeStream();
        return false;
    }
}

void Controller::showStreamResult(hs::FrameResult& result) {
    if (in_flight_.empty()) return;
    const auto [index, image] = std::move(in_flight_.front());
    in_flight_.pop_front();
    FrameResult out;
    FrameTiming& timing = out.timing;
    const hs::HistogramRequest request = histogram_request(image->view(), bins_);
    const QString engine_name = qstr(result.histogram_engine);
    out.original_histogram = histogram_data(request, result.channels, engine_name);
    for (const auto& st : result.stages)
        out.original_histogram.stages.push_back({QString::fromStdString(st.name), st.ms});
    out.original = to_qimage(image->view());
    out.source = image;
    if (clipping_ != 0) out.original_clipping = clipping_overlay(image->view(), 1, clipping_);
    timing.engine = engine_name;
    timing.equalizer = qstr(stream_->equalizer());
    timing.bins = request.spec.bins;
    timing.stream = stream_engine_;
    // The frame's time: its span on the device where the stream measured one, else the sum of
    // its stages.
    double total = 0.0, span = -1.0;
    for (const auto& st : result.stages) {
        timing.stages.push_back({QString::fromStdString(st.name), st.ms});
        if (st.name == "gpu_total")
            span = st.ms;
        else
            total += st.ms;
    }
    if (span >= 0.0) total = span;
    equalized_.reset();
    if (!result.equalized.empty()) {
        auto equalized = std::make_shared<hs::Image>(std::move(result.equalized));
        out.equalized = to_qimage(equalized->view());
        if (clipping_ != 0)
            out.equalized_clipping = clipping_overlay(equalized->view(), 1, clipping_);
        if (hs::HistogramEngine* engine = registry_->find(result.histogram_engine)) {
            try {
                QElapsedTimer clock;
                clock.start();
                out.equalized_histogram =
                    histogram_of(*engine, histogram_request(equalized->view(), bins_), engine_name);
                timing.stages.push_back({QStringLiteral("histogram (equalized)"), ms_of(clock)});
            } catch (const std::exception& e) {
                reportError(tr("Histogram of the equalized frame: %1").arg(describe(e)));
            }
        }
        out.result = equalized;
        equalized_ = std::move(equalized);
    }
    timing.frame = index;
    emitFrame(out, total);
}

void Controller::drainStream() {
    if (!stream_) return;
    try {
        while (auto r = stream_->wait()) showStreamResult(*r);
    } catch (const std::exception& e) {
        reportError(tr("Playback stream: %1").arg(describe(e)));
        closeStream();
    }
}

void Controller::closeStream() {
    stream_.reset();
    stream_key_.clear();
    stream_engine_.clear();
    in_flight_.clear();
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
    runs = std::max(runs, 1);
    const hs::HistogramRequest request = histogram_request(source_->view(), bins_);
    std::vector<hs::ChannelHistogram> reference;
    try {
        reference = hs::reference_histogram(request.image, request.channels, request.spec);
    } catch (const std::exception& e) {
        emit errorOccurred(describe(e));
        emit benchmarkFinished(false);
        return;
    }
    QString host;
    const BenchContext context =
        bench_context(request, QFileInfo(path_).fileName(), runs, options_.gpu_device,
                      readBandwidthGbs(QStringLiteral("cpu"), host));
    int available = 0;
    for (const auto& engine : registry_->engines())
        if (engine->availability().available) ++available;
    const int total = available * runs;
    emit benchmarkStarted(context, total);
    int done = 0;  // runs of the engines before this one
    BenchHooks hooks;
    hooks.cancel = &cancel_;
    hooks.progress = [&](int runs_done, const QString& engine) {
        emit benchmarkProgress(done + runs_done, total, engine);
    };
    for (const auto& engine : registry_->engines()) {
        if (engine->availability().available)
            emit benchmarkProgress(done, total, qstr(engine->name()));
        BenchRow row;
        if (!benchmark_engine(*engine, request, reference, runs, hooks, row)) {
            emit benchmarkFinished(true);
            return;
        }
        if (engine->availability().available) done += runs;
        if (row.status == QLatin1String("ok") && row.median_ms > 0.0) {
            row.gb_per_s = static_cast<double>(context.bytes) / (row.median_ms * 1e6);
            QString device;
            const double bw = readBandwidthGbs(row.engine, device);
            if (bw > 0.0) row.pct_read_bw = 100.0 * row.gb_per_s / bw;
        }
        emit benchmarkRow(row);
    }
    emit benchmarkProgress(total, total, QString());
    emit benchmarkFinished(false);
}

}  // namespace hs::ui
