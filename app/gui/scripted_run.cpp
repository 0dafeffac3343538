#include "scripted_run.hpp"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QSaveFile>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <future>
#include <memory>
#include <vector>

#include "histoscope/ui/compare_dialog.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/equalize_panel.hpp"
#include "histoscope/ui/main_window.hpp"

namespace hs::gui {

namespace {

constexpr int kExitFailed = 3;
// The layout and the repaint the new data triggers settle before a window is grabbed.
constexpr int kSettleMs = 500;

// Writes `image` to `path` as a PNG (temporary file + rename): empty, or why it cannot. Any
// thread: a window grabbed during playback is encoded beside it, not on the GUI thread.
QString write_png(const QImage& image, const QString& path) {
    QSaveFile file(path);
    if (image.isNull() || !file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") ||
        !file.commit())
        return QStringLiteral("cannot write %1: %2")
            .arg(path, image.isNull() ? QStringLiteral("nothing was drawn") : file.errorString());
    return {};
}

// Writes `widget` as it is drawn now to `path` (temporary file + rename); false with the reason
// in `error` when it cannot.
bool save_png(QWidget& widget, const QString& path, QString& error) {
    error = write_png(widget.grab().toImage(), path);
    return error.isEmpty();
}

// State of one run, owned by the window (the run ends with the application).
struct Run {
    ScriptedRun options;
    hs::ui::MainWindow* window = nullptr;
    hs::ui::Controller* controller = nullptr;
    QString stage = QStringLiteral("the first histogram");
    bool ended = false;    // the verdict is given; later signals change nothing
    bool started = false;  // the first exact result was painted

    void fail(const QString& message) {
        if (ended) return;
        ended = true;
        std::fprintf(stderr, "error: %s\n", qPrintable(message));
        QApplication::exit(kExitFailed);
    }
    void succeed() {
        if (ended) return;
        ended = true;
        QApplication::exit(0);
    }

    void firstFrame() {
        if (options.play) return play();
        saveWindow();
    }

    // What playback showed: each frame painted, with its stages.
    struct Played {
        std::vector<double> read, upload, stream, results, paint;
        // The frame stream's own stages, in the order it reports them.
        std::vector<std::pair<QString, std::vector<double>>> stream_stages;
        QString engine, stream_engine;
        bool playing = false;  // playback was seen to start
        bool stopped = false;  // and then to stop
        QElapsedTimer clock;
        // The window grabbed during playback, written to its PNG on a thread of its own.
        std::future<QString> window_written;
        QString window_what;
        int shown() const { return static_cast<int>(paint.size()); }
    };
    Played played;
    QElapsedTimer loaded;  // since the media was decoded (mediaLoaded)
    double first_paint_ms = -1.0;
    QString first_stages;  // the stages of that first picture, as "name ms, ..."

    // The frames played so far: shown, dropped or failed.
    std::int64_t playedSoFar() const {
        const hs::ui::PlaybackState& s = window->playback();
        return played.shown() + s.dropped + s.failed;
    }

    // The frames the run plays after the first: those asked for, else the rest of the input
    // (0 while unknown).
    std::int64_t toPlay() const {
        if (options.frames > 0) return options.frames;
        const std::int64_t frames = window->playback().frames;
        return window->playback().live || frames < 2 ? 0 : frames - 1;
    }

    static void reportWritten(const QString& path, const QString& what) {
        std::printf("wrote %s (%s)\n", qPrintable(path), qPrintable(what));
        std::fflush(stdout);
    }

    // `again`: the photo opened a second time.
    void reportFirstPicture(bool again) const {
        std::printf("photo: %sthe first picture painted %.1f ms after decoding (%s)\n",
                    again ? "opened again, " : "", first_paint_ms, qPrintable(first_stages));
        std::fflush(stdout);
    }

    // Saves the window; false (after fail()) when it cannot.
    bool writeWindow(const QString& what) {
        QString error;
        if (!save_png(*window, options.window_png, error)) {
            fail(error);
            return false;
        }
        reportWritten(options.window_png, what);
        return true;
    }

    // Listens to playback from the start: live input plays before the first frame is settled.
    void watchPlayback() {
        QObject::connect(
            window, &hs::ui::MainWindow::framePainted, window,
            [this](const hs::ui::FrameTiming& t, double paint_ms) {
                if (t.frame < 0 || !played.playing || ended) return;
                // With --screenshot-frames, the frames painted after the last one asked for
                // (while the pause takes effect) are not the run's.
                if (options.frames > 0 && playedSoFar() >= options.frames) return;
                played.read.push_back(t.read_ms);
                played.upload.push_back(t.upload_ms);
                played.stream.push_back(t.stream_ms);
                played.results.push_back(t.results_ms);
                played.paint.push_back(paint_ms);
                for (const hs::ui::StageTiming& st : t.stages) {
                    if (st.name == QLatin1String("read") || st.name == QLatin1String("results"))
                        continue;
                    auto it = std::find_if(played.stream_stages.begin(), played.stream_stages.end(),
                                           [&](const auto& p) { return p.first == st.name; });
                    if (it == played.stream_stages.end())
                        it = played.stream_stages.insert(it, {st.name, {}});
                    it->second.push_back(st.ms);
                }
                played.engine = t.engine;
                played.stream_engine = t.stream;
                const std::int64_t total = toPlay();
                if (!played.window_written.valid() && total > 0 &&
                    playedSoFar() >= std::max<std::int64_t>(1, total / 2)) {
                    played.window_what = QStringLiteral("%1, playing, frame %2")
                                             .arg(window->currentPath())
                                             .arg(t.frame);
                    played.window_written =
                        std::async(std::launch::async, write_png, window->grab().toImage(),
                                   options.window_png);
                }
                if (options.frames > 0 && !played.stopped && playedSoFar() >= options.frames &&
                    window->playback().playing)
                    emit window->playToggleRequested();  // enough: pause
            });
        QObject::connect(controller, &hs::ui::Controller::notice, window,
                         [this](const QString& message) {
                             if (played.playing) fail(QStringLiteral("playback: %1").arg(message));
                         });
        QObject::connect(
            controller, &hs::ui::Controller::playbackChanged, window,
            [this](const hs::ui::PlaybackState& now) {
                if (now.playing) {
                    if (!played.playing) played.clock.start();
                    played.playing = true;
                    return;
                }
                if (!played.playing || played.stopped) return;
                played.stopped = true;
                const double wall_s = static_cast<double>(played.clock.nsecsElapsed()) / 1e9;
                // The last frame's paint is done before the window is saved.
                QTimer::singleShot(kSettleMs, window, [this, wall_s] { finishPlay(wall_s); });
            });
    }

    void play() {
        if (ended) return;
        if (!window->playback().video)
            return fail(QStringLiteral("--screenshot-play: %1 is not a video or a stream of raw "
                                       "frames")
                            .arg(window->currentPath()));
        stage = QStringLiteral("playback to the last frame");
        if (played.playing) return;  // live input: it plays, and says when it ends
        if (options.frames > 0) emit window->loopRequested(true);
        QMetaObject::invokeMethod(
            controller, [c = controller, paced = !options.unpaced] { c->setPaced(paced); },
            Qt::QueuedConnection);
        emit window->playToggleRequested();
    }

    static double quantile(std::vector<double> v, double q) {
        if (v.empty()) return 0.0;
        std::sort(v.begin(), v.end());
        const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
        return v[std::min(v.size() - 1, rank > 0 ? rank - 1 : 0)];
    }

    void finishPlay(double wall_s) {
        if (ended) return;
        const hs::ui::PlaybackState& state = window->playback();
        if (options.frames == 0 && state.frame != state.frames - 1)
            return fail(QStringLiteral("playback stopped at frame %1 of 0..%2")
                            .arg(state.frame)
                            .arg(state.frames - 1));
        if (played.shown() == 0) return fail(QStringLiteral("playback showed no frame"));
        // What the input is: its frames, the first shown before playing (but live input's, which
        // all come through playback), or looped.
        const QString input =
            state.live ? QStringLiteral("input: %1 frames, live").arg(state.frames)
            : options.frames > 0
                ? QStringLiteral("input: %1 frames, looped").arg(state.frames)
                : QStringLiteral("input: %1 frames, the first shown before playing")
                      .arg(state.frames);
        std::printf(
            "played: %lld frames in %.2f s (%s): %d shown, %lld dropped (read %lld, stream %lld, "
            "paint %lld), %lld failed, engine %s, frame stream %s, %s, %.1f frames/s shown\n",
            static_cast<long long>(playedSoFar()), wall_s, qPrintable(input), played.shown(),
            static_cast<long long>(state.dropped), static_cast<long long>(state.dropped_read),
            static_cast<long long>(state.dropped_process),
            static_cast<long long>(state.dropped_paint), static_cast<long long>(state.failed),
            qPrintable(played.engine),
            played.stream_engine.isEmpty() ? "none" : qPrintable(played.stream_engine),
            state.paced ? qPrintable(QStringLiteral("paced at %1 fps").arg(state.fps, 0, 'g', 4))
                        : "unpaced",
            static_cast<double>(played.shown()) / std::max(wall_s, 1e-9));
        std::printf("stages (ms, median / 99th percentile of the %d frames shown):",
                    played.shown());
        const std::pair<const char*, const std::vector<double>*> stages[] = {
            {"read", &played.read},
            {"upload", &played.upload},
            {"stream", &played.stream},
            {"results", &played.results},
            {"paint", &played.paint}};
        for (const auto& [name, values] : stages)
            std::printf(" %s %.2f / %.2f", name, quantile(*values, 0.5), quantile(*values, 0.99));
        std::printf("\nstream stages (ms, median / 99th percentile):");
        for (const auto& [name, values] : played.stream_stages)
            std::printf(" %s %.3f / %.3f;", qPrintable(name), quantile(values, 0.5),
                        quantile(values, 0.99));
        std::printf("\n");
        std::fflush(stdout);
        if (played.window_written.valid()) {
            if (const QString error = played.window_written.get(); !error.isEmpty())
                return fail(error);
            reportWritten(options.window_png, played.window_what);
            return afterWindow();
        }
        saveWindow();
    }

    void saveWindow() {
        if (ended) return;
        if (!options.play && first_paint_ms >= 0.0) reportFirstPicture(false);
        if (!writeWindow(window->currentPath())) return;
        if (options.rerender && !options.play) return rerender();
        afterWindow();
    }

    void afterWindow() {
        if (options.compare_png.isEmpty()) return succeed();
        runCompare();
    }

    // Changes of the equalization, each timed from being sent to its picture painted.
    struct Change {
        QString what;
        hs::ui::EqualizeSettings settings;
    };
    std::vector<Change> changes;
    std::size_t change = 0;
    QElapsedTimer change_clock;
    std::vector<double> global_ms, clahe_ms;

    void rerender() {
        stage = QStringLiteral("the re-renders");
        if (window->playback().video)
            return fail(QStringLiteral("--screenshot-rerender: %1 is a video or a stream of raw "
                                       "frames: it times a photo's re-renders")
                            .arg(window->currentPath()));
        const hs::ui::EqualizeSettings start = window->equalizePanel()->settings();
        hs::ui::EqualizeSettings global = start, clahe = start;
        global.mode = hs::ui::EqualizeSettings::Mode::Global;
        clahe.mode = hs::ui::EqualizeSettings::Mode::Clahe;
        for (int i = 0; i < 5; ++i)
            for (const double strength : {0.5, 1.0}) {
                global.strength = clahe.strength = strength;
                changes.push_back({QStringLiteral("global"), global});
                changes.push_back({QStringLiteral("clahe"), clahe});
            }
        changes.push_back({QStringLiteral("back"), start});
        QObject::connect(window, &hs::ui::MainWindow::framePainted, window,
                         [this](const hs::ui::FrameTiming& t, double) {
                             if (t.preview || change == 0 || change > changes.size()) return;
                             const double ms =
                                 static_cast<double>(change_clock.nsecsElapsed()) / 1e6;
                             const Change& done = changes[change - 1];
                             if (done.what == QLatin1String("global")) global_ms.push_back(ms);
                             if (done.what == QLatin1String("clahe")) clahe_ms.push_back(ms);
                             QTimer::singleShot(50, window, [this] { nextChange(); });
                         });
        nextChange();
    }

    void nextChange() {
        if (ended) return;
        if (change == changes.size()) {
            std::printf(
                "rerender: a change of strength (global) repainted in %.1f ms (median of "
                "%zu, max %.1f), of strength with CLAHE in %.1f ms (median of %zu, max "
                "%.1f)\n",
                quantile(global_ms, 0.5), global_ms.size(), quantile(global_ms, 1.0),
                quantile(clahe_ms, 0.5), clahe_ms.size(), quantile(clahe_ms, 1.0));
            std::fflush(stdout);
            ++change;
            return reopen();
        }
        if (change > changes.size()) return;
        change_clock.start();
        emit window->equalizeRequested(changes[change++].settings);
    }

    // The photo opened again in the running application (its first opening also started the
    // GPU): the time from its decoding to its first picture painted, then Compare Kernels.
    void reopen() {
        stage = QStringLiteral("the photo opened again");
        first_paint_ms = -1.0;
        auto* context = new QObject(window);  // the connection goes with it
        QObject::connect(window, &hs::ui::MainWindow::framePainted, context,
                         [this, context](const hs::ui::FrameTiming& t, double) {
                             if (t.preview || ended || first_paint_ms < 0.0) return;
                             reportFirstPicture(true);
                             context->deleteLater();
                             QTimer::singleShot(kSettleMs, window, [this] { afterWindow(); });
                         });
        const hs::ui::MediaInfo& media = window->media();
        if (media.raw_format.isEmpty())
            window->openFile(media.path);
        else
            window->openRawFile(media.path, media.raw_format, media.fps);
    }

    void runCompare() {
        stage = QStringLiteral("Compare Kernels");
        window->openCompareDialog();
        hs::ui::CompareDialog* dialog = window->compareDialog();
        if (dialog == nullptr) return fail(QStringLiteral("Compare Kernels did not open"));
        dialog->resize(kScriptedCompareWidth, kScriptedCompareHeight);
        QObject::connect(
            dialog, &hs::ui::CompareDialog::finished, dialog,
            [this, dialog](bool cancelled) {
                if (cancelled) return fail(QStringLiteral("Compare Kernels was cancelled"));
                QTimer::singleShot(kSettleMs, dialog, [this, dialog] { finishCompare(*dialog); });
            },
            Qt::SingleShotConnection);
        dialog->start();
    }

    void finishCompare(hs::ui::CompareDialog& dialog) {
        if (ended) return;
        int timed = 0;
        QString failures;
        for (const hs::ui::BenchRow& row : dialog.rows()) {
            const QString engine = QString::fromStdString(row.kernel);
            const QString reason = QString::fromStdString(row.reason);
            if (row.status == "ok") {
                std::printf("compare: %s: ok, %s, median %.3f ms, %.2f Gpix/s\n",
                            row.kernel.c_str(), row.verified ? "exact" : "NOT VERIFIED",
                            row.median_ms, row.gpix_s);
                if (row.verified)
                    ++timed;
                else
                    failures += QStringLiteral(" %1 (differs from the CPU reference)").arg(engine);
            } else {
                std::printf("compare: %s: %s: %s\n", row.kernel.c_str(), row.status.c_str(),
                            row.reason.c_str());
                if (row.status == "error")
                    failures += QStringLiteral(" %1 (%2)").arg(engine, reason);
            }
        }
        std::fflush(stdout);
        QString error;
        if (!save_png(dialog, options.compare_png, error)) return fail(error);
        reportWritten(options.compare_png,
                      QStringLiteral("Compare Kernels: %1 engines verified and timed of %2")
                          .arg(timed)
                          .arg(dialog.rows().size()));
        if (!failures.isEmpty()) return fail(QStringLiteral("Compare Kernels:") + failures);
        if (timed == 0) return fail(QStringLiteral("Compare Kernels timed no engine"));
        succeed();
    }
};

}  // namespace

void arm_scripted_run(const ScriptedRun& options, hs::ui::MainWindow& window,
                      hs::ui::Controller& controller) {
    window.resize(kScriptedWindowWidth, kScriptedWindowHeight);
    auto run = std::make_shared<Run>();
    run->options = options;
    run->window = &window;
    run->controller = &controller;
    if (options.play) run->watchPlayback();
    QObject::connect(&controller, &hs::ui::Controller::mediaLoaded, &window,
                     [run] { run->loaded.start(); });
    // The first exact result painted after the media was decoded (a large photo's preview comes
    // before it): its time, and the run goes on from the first one.
    QObject::connect(
        &window, &hs::ui::MainWindow::framePainted, &window,
        [run](const hs::ui::FrameTiming& t, double) {
            if (t.preview) return;
            if (run->first_paint_ms < 0.0 && run->loaded.isValid()) {
                run->first_paint_ms = static_cast<double>(run->loaded.nsecsElapsed()) / 1e6;
                QStringList stages;
                for (const hs::ui::StageTiming& st : t.stages)
                    stages << QStringLiteral("%1 %2 ms").arg(st.name).arg(st.ms, 0, 'f', 2);
                run->first_stages = stages.join(QStringLiteral(", "));
            }
            if (run->started) return;
            run->started = true;
            QTimer::singleShot(kSettleMs, run->window, [run] { run->firstFrame(); });
        });
    QObject::connect(&controller, &hs::ui::Controller::loadFailed, &window,
                     [run](const QString&, const QString& message) { run->fail(message); });
    QObject::connect(&controller, &hs::ui::Controller::errorOccurred, &window,
                     [run](const QString& message) { run->fail(message); });
    QTimer::singleShot(options.timeout_s * 1000, &window, [run] {
        run->fail(QStringLiteral("timed out after %1 s waiting for %2")
                      .arg(run->options.timeout_s)
                      .arg(run->stage));
    });
}

}  // namespace hs::gui
