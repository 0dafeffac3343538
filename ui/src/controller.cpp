#include "histoscope/ui/controller.hpp"

#include <QElapsedTimer>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <new>
#include <numeric>
#include <thread>
#include <utility>
#include <vector>

#include "benchmark_runner.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/core/stats.hpp"
#include "histoscope/media/media.hpp"
#include "histoscope/ui/qimage_convert.hpp"
#include "playback.hpp"

namespace hs::ui {

namespace {

QString qstr(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

double ms_of(const QElapsedTimer& clock) {
    return static_cast<double>(clock.nsecsElapsed()) / 1e6;
}

// One line for any failure: typed errors carry their own, bad_alloc gets a readable one.
QString describe(const std::exception& e) {
    if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) return QObject::tr("out of memory");
    return QString::fromUtf8(e.what());
}

std::vector<hs::Channel> display_channels(const hs::ImageView& image) {
    if (image.channels == 1) return {hs::Channel::Gray};
    return {hs::Channel::R, hs::Channel::G, hs::Channel::B, hs::Channel::Luma601};
}

std::uint64_t image_bytes(const hs::ImageView& image) {
    return static_cast<std::uint64_t>(image.row_bytes()) * static_cast<std::uint64_t>(image.height);
}

// The host's read bandwidth in GB/s, measured the way the CPU reference reads: every hardware
// thread sums its share of a 128 MiB buffer; the median of 5 passes.
double measure_host_read_bandwidth_gbs(unsigned& threads_used) {
    const std::size_t words = (std::size_t{128} << 20) / sizeof(std::uint64_t);
    std::vector<std::uint64_t> buffer(words);
    std::iota(buffer.begin(), buffer.end(), std::uint64_t{1});
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    threads_used = threads;
    std::vector<double> seconds;
    std::vector<std::uint64_t> sums(threads);
    for (int run = 0; run < 5; ++run) {
        QElapsedTimer clock;
        clock.start();
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                const std::size_t begin = words * t / threads, end = words * (t + 1) / threads;
                std::uint64_t s = 0;
                for (std::size_t i = begin; i < end; ++i) s += buffer[i];
                sums[t] = s;
            });
        for (auto& th : pool) th.join();
        seconds.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e9);
    }
    // The sums are used so the reads cannot be optimized away.
    volatile std::uint64_t sink = std::accumulate(sums.begin(), sums.end(), std::uint64_t{0});
    (void)sink;
    std::sort(seconds.begin(), seconds.end());
    const double s = seconds[seconds.size() / 2];
    return s > 0.0 ? static_cast<double>(words * sizeof(std::uint64_t)) / s / 1e9 : 0.0;
}

hs::EqualizeMode core_mode(EqualizeSettings::Mode mode) {
    switch (mode) {
        case EqualizeSettings::Mode::Clahe:
            return hs::EqualizeMode::Clahe;
        case EqualizeSettings::Mode::Match:
            return hs::EqualizeMode::Match;
        default:
            return hs::EqualizeMode::Global;
    }
}

}  // namespace

Controller::Controller(std::unique_ptr<hs::EngineRegistry> registry, ControllerOptions options,
                       QObject* parent)
    : QObject(parent),
      registry_(std::move(registry)),
      options_(std::move(options)),
      playback_(new Playback([this](std::int64_t, hs::Image& frame) { showFrame(frame); }, this)) {
    // Frames fall due (and are dropped) while the UI still draws the last result.
    playback_->setReady([this] { return unshown_.load() == 0; });
    connect(playback_, &Playback::stateChanged, this, &Controller::playbackChanged);
    connect(playback_, &Playback::stopped, this, &Controller::drainStream);
    connect(playback_, &Playback::problem, this, &Controller::notice);
}

Controller::~Controller() = default;

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

// --- media

void Controller::openFile(const QString& path) {
    const std::string file = path.toStdString();
    MediaInfo info;
    info.path = path;
    try {
        if (hs::media::probe(file) == hs::media::MediaKind::Video) {
            auto reader = std::make_unique<hs::media::VideoReader>(file);
            std::optional<hs::Image> first = reader->read();
            if (!first) throw hs::InputError(file + ": the video has no decodable frame");
            info.video = true;
            info.format = QString::fromStdString(reader->codec());
            info.frames = reader->frame_count();
            info.fps = reader->fps();
            pause();  // shows the frames in flight of the clip playing
            closeStream();
            playback_->open(std::move(reader));
            source_ = std::move(*first);
        } else {
            hs::media::LoadedImage loaded = hs::media::read_image(file);
            info.format = QString::fromStdString(loaded.format);
            for (const auto& note : loaded.notes) info.notes << QString::fromStdString(note);
            pause();
            closeStream();
            playback_->close();
            source_ = std::move(loaded.image);
        }
    } catch (const std::exception& e) {
        emit loadFailed(path, describe(e));
        return;  // the previous media stays loaded
    }
    path_ = path;
    info.width = source_.width();
    info.height = source_.height();
    info.channels = source_.channels();
    info.bit_depth = source_.bit_depth();
    last_error_.clear();
    emit mediaLoaded(info);
    emit playbackChanged(playback_->state());
    original_dirty_ = true;
    scheduleProcess();
}

void Controller::setReference(const QString& path) {
    try {
        drainStream();  // frames in flight may still read the old reference
        closeStream();
        reference_ = std::move(hs::media::read_image(path.toStdString()).image);
        ++reference_generation_;
    } catch (const std::exception& e) {
        emit errorOccurred(tr("Reference image: %1").arg(describe(e)));
        return;
    }
    emit referenceLoaded(path);
    scheduleProcess();
}

void Controller::saveImage(const QString& path) {
    const hs::Image& image =
        equalize_.mode != EqualizeSettings::Mode::Off && !equalized_.empty() ? equalized_ : source_;
    if (image.empty()) {
        emit errorOccurred(tr("No image to save"));
        return;
    }
    try {
        hs::media::write_image(path.toStdString(), image.view());
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

// --- playback

void Controller::showFrame(hs::Image& frame) {
    std::swap(source_, frame);  // the old frame's storage is reused for the next one
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

// --- the pipeline

void Controller::scheduleProcess() {
    if (process_posted_ || source_.empty()) return;
    process_posted_ = true;
    QMetaObject::invokeMethod(this, &Controller::process, Qt::QueuedConnection);
}

void Controller::reportError(const QString& message) {
    if (message == last_error_) return;  // a moving slider repeats the same failure
    last_error_ = message;
    emit errorOccurred(message);
}

hs::HistogramRequest Controller::makeRequest(const hs::ImageView& image) const {
    hs::HistogramRequest request;
    request.image = image;
    request.channels = display_channels(image);
    const int levels = 1 << image.bit_depth;
    request.spec = hs::HistogramSpec::full_range(image, std::clamp(bins_, 1, levels));
    return request;
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
        const hs::Availability a = e->availability();
        if (!a.available) {
            if (why.isEmpty()) why = QString::fromStdString(a.reason);
            continue;
        }
        const std::string reason = e->unsupported_reason(request);
        if (!reason.empty()) {
            if (why.isEmpty()) why = QString::fromStdString(reason);
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
        status.resolved = QStringLiteral("cpu");
        status.message =
            options_.gpu_engines.isEmpty()
                ? tr("Kernel: cpu (auto) - no GPU: this build has no CUDA engines")
                : tr("Kernel: cpu (auto) - no GPU: %1")
                      .arg(why.isEmpty() ? tr("no GPU kernel serves this request") : why);
        return cpu;
    }
    hs::HistogramEngine* chosen = registry_->find(engine_.toStdString());
    if (chosen == nullptr) {
        why = tr("not in this build");
    } else if (const hs::Availability a = chosen->availability(); !a.available) {
        why = QString::fromStdString(a.reason);
    } else {
        why = QString::fromStdString(chosen->unsupported_reason(request));
    }
    if (why.isEmpty()) {
        status.resolved = engine_;
        status.message = tr("Kernel: %1").arg(engine_);
        return chosen;
    }
    status.resolved = QStringLiteral("cpu");
    status.message = tr("Kernel: cpu - %1 cannot run: %2").arg(engine_, why);
    return cpu;
}

hs::EqualizeEngine* Controller::resolveEqualizer(const hs::EqualizeRequest& request, QString& why) {
    auto usable = [&](hs::EqualizeEngine* e) {
        return e != nullptr && e->refusal(request).empty();
    };
    if (equalizer_ != QLatin1String("auto")) {
        hs::EqualizeEngine* e = registry_->find_equalizer(equalizer_.toStdString());
        if (usable(e)) return e;
        why = tr("%1 cannot run this request").arg(equalizer_);
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
    if (!host_bw_) host_bw_ = measure_host_read_bandwidth_gbs(host_threads_);
    device = tr("CPU, %1 threads").arg(host_threads_);
    return *host_bw_;
}

HistogramData Controller::histogramOf(hs::HistogramEngine& engine,
                                      const hs::HistogramRequest& request,
                                      const QString& engine_name) {
    const hs::HistogramResult result = engine.compute(request);
    HistogramData data = histogramData(request, result.channels, engine_name);
    data.total_ms = result.total_ms;
    for (const auto& stage : result.stages)
        data.stages.push_back({QString::fromStdString(stage.name), stage.ms});
    return data;
}

HistogramData Controller::histogramData(const hs::HistogramRequest& request,
                                        const std::vector<hs::ChannelHistogram>& channels,
                                        const QString& engine_name) const {
    HistogramData data;
    data.engine = engine_name;
    data.bins = request.spec.bins;
    data.lower = request.spec.lower;
    data.upper = request.spec.upper;
    data.pixels = request.image.pixel_count();
    data.bytes = image_bytes(request.image);
    // Statistics are exact from the full-resolution value histogram: the counts themselves
    // when there is one bin per code value, otherwise a separate pass.
    const std::uint32_t max_code = request.image.max_value();
    const bool per_value = request.spec.bins == static_cast<int>(max_code) + 1;
    for (const auto& channel : channels) {
        data.channel_names << qstr(hs::channel_name(channel.channel));
        data.stats.push_back(per_value
                                 ? hs::stats_from_values(channel.counts, max_code, request.spec)
                                 : hs::compute_stats(request.image, channel.channel, request.spec));
        data.counts.push_back(channel.counts);
    }
    return data;
}

void Controller::process() {
    process_posted_ = false;
    if (source_.empty()) return;
    drainStream();  // the frames in flight come first, so results stay in frame order
    QElapsedTimer frame_clock;
    frame_clock.start();
    FrameResult out;
    FrameTiming& timing = out.timing;
    const hs::HistogramRequest request = makeRequest(source_.view());
    EngineStatus status;
    hs::HistogramEngine* engine = resolveEngine(request, status);
    emit engineStatusChanged(status);

    // 1. The original's histogram.
    try {
        out.original_histogram = histogramOf(*engine, request, status.resolved);
    } catch (const std::exception& e) {
        const QString failed = status.resolved;
        if (failed == QLatin1String("cpu")) {
            reportError(tr("Histogram (%1): %2").arg(failed, describe(e)));
            return;  // the previous result stays on screen
        }
        // A GPU failure (no device, out of memory, ...) falls back to the CPU reference.
        reportError(tr("Kernel %1 failed: %2. Using the CPU reference for this frame.")
                        .arg(failed, describe(e)));
        engine = registry_->find("cpu");
        status.resolved = QStringLiteral("cpu");
        status.message = tr("Kernel: cpu - %1 failed: %2").arg(failed, describe(e));
        emit engineStatusChanged(status);
        try {
            out.original_histogram = histogramOf(*engine, request, status.resolved);
        } catch (const std::exception& e2) {
            reportError(tr("Histogram (cpu): %1").arg(describe(e2)));
            return;
        }
    }
    timing.engine = status.resolved;
    timing.bins = request.spec.bins;
    for (const StageTiming& s : out.original_histogram.stages) timing.stages.push_back(s);

    // 2. Equalization and the result's histogram.
    bool equalize_failed = false;
    if (equalize_.mode != EqualizeSettings::Mode::Off) {
        try {
            const hs::EqualizeRequest eq = equalizeRequest(source_.view());
            QString why;
            hs::EqualizeEngine* equalizer = resolveEqualizer(eq, why);
            hs::EqualizeResult result = equalizer->equalize(eq);
            timing.equalizer = qstr(equalizer->name());
            for (const auto& s : result.stages)
                timing.stages.push_back({QString::fromStdString(s.name), s.ms});
            equalized_ = std::move(result.image);
            const hs::HistogramRequest after = makeRequest(equalized_.view());
            QElapsedTimer clock;
            clock.start();
            out.equalized_histogram = histogramOf(*engine, after, status.resolved);
            timing.stages.push_back({QStringLiteral("histogram (equalized)"), ms_of(clock)});
            out.equalized = to_qimage(equalized_.view());
        } catch (const std::exception& e) {
            equalize_failed = true;
            equalized_ = hs::Image();  // nothing stale to save
            reportError(tr("Equalization: %1").arg(describe(e)));
        }
    } else {
        equalized_ = hs::Image();
    }

    if (original_dirty_) {
        out.original = to_qimage(source_.view());
        original_dirty_ = false;
    }
    timing.frame = playback_->isOpen() ? playback_->frame() : -1;
    if (!equalize_failed) last_error_.clear();
    emitFrame(out, ms_of(frame_clock));
}

hs::EqualizeRequest Controller::equalizeRequest(const hs::ImageView& image) const {
    hs::EqualizeRequest eq;
    eq.image = image;
    eq.mode = core_mode(equalize_.mode);
    eq.space = equalize_.luma ? hs::EqualizeSpace::Luma : hs::EqualizeSpace::Rgb;
    eq.strength = std::clamp(equalize_.strength, 0.0, 1.0);
    eq.clip = equalize_.clip;
    eq.tiles_x = std::clamp(equalize_.tiles_x, 1, std::min(64, image.width));
    eq.tiles_y = std::clamp(equalize_.tiles_y, 1, std::min(64, image.height));
    if (eq.mode == hs::EqualizeMode::Match) {
        if (!reference_)
            throw hs::UsageError(
                "match mode needs a reference image: choose one with Reference...");
        eq.reference = reference_->view();
    }
    return eq;
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
}

// --- playback on the frame stream

bool Controller::submitToStream() {
    const hs::ImageView view = source_.view();
    const hs::HistogramRequest request = makeRequest(view);
    EngineStatus status;
    resolveEngine(request, status);
    hs::StreamConfig config;
    config.format = hs::FrameFormat::of(view);
    config.engine = status.resolved.toStdString();
    config.channels = request.channels;
    config.spec = request.spec;
    try {
        if (equalize_.mode != EqualizeSettings::Mode::Off) {
            const hs::EqualizeRequest eq = equalizeRequest(view);
            QString why;
            config.equalize = eq;
            config.equalizer = std::string(resolveEqualizer(eq, why)->name());
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
            stream_status_ =
                tr("%1 - playback on the '%2' frame stream").arg(status.message, stream_engine_);
        }
        status.message = stream_status_;
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
    const hs::HistogramRequest request = makeRequest(image.view());
    const QString engine_name = qstr(result.histogram_engine);
    out.original_histogram = histogramData(request, result.channels, engine_name);
    for (const auto& st : result.stages)
        out.original_histogram.stages.push_back({QString::fromStdString(st.name), st.ms});
    out.original = to_qimage(image.view());
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
    if (!result.equalized.empty()) {
        equalized_ = std::move(result.equalized);
        out.equalized = to_qimage(equalized_.view());
        if (hs::HistogramEngine* engine = registry_->find(result.histogram_engine)) {
            try {
                QElapsedTimer clock;
                clock.start();
                out.equalized_histogram =
                    histogramOf(*engine, makeRequest(equalized_.view()), engine_name);
                timing.stages.push_back({QStringLiteral("histogram (equalized)"), ms_of(clock)});
            } catch (const std::exception& e) {
                reportError(tr("Histogram of the equalized frame: %1").arg(describe(e)));
            }
        }
    } else {
        equalized_ = hs::Image();
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
    stream_status_.clear();
    in_flight_.clear();
}

// --- kernel comparison

void Controller::runBenchmark(int runs) {
    pause();
    if (source_.empty()) {
        emit errorOccurred(tr("Open an image before comparing kernels"));
        emit benchmarkFinished(false);
        return;
    }
    std::vector<hs::HistogramEngine*> engines;
    for (const auto& engine : registry_->engines())
        if (engine->availability().available) engines.push_back(engine.get());
    const auto total = static_cast<int>(engines.size());
    emit benchmarkStarted(total);
    const hs::HistogramRequest request = makeRequest(source_.view());
    std::vector<hs::ChannelHistogram> reference;
    try {
        reference = hs::reference_histogram(request.image, request.channels, request.spec);
    } catch (const std::exception& e) {
        emit errorOccurred(describe(e));
        emit benchmarkFinished(false);
        return;
    }
    for (int i = 0; i < total; ++i) {
        if (cancel_.load()) {
            emit benchmarkFinished(true);
            return;
        }
        hs::HistogramEngine& engine = *engines[static_cast<std::size_t>(i)];
        emit benchmarkProgress(i, total, qstr(engine.name()));
        BenchRow row = benchmark_engine(engine, request, reference, runs);
        if (row.status == QLatin1String("ok") && row.median_ms > 0.0) {
            row.gb_per_s = static_cast<double>(image_bytes(request.image)) / (row.median_ms * 1e6);
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
