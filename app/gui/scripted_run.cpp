#include "scripted_run.hpp"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QSaveFile>
#include <QTimer>
#include <cstdio>
#include <memory>

#include "histoscope/ui/compare_dialog.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/main_window.hpp"

namespace hs::gui {

namespace {

constexpr int kExitFailed = 3;
// The layout and the repaint the new data triggers settle before a window is grabbed.
constexpr int kSettleMs = 500;

// Writes `widget` as it is drawn now to `path` (temporary file + rename); false with the reason
// in `error` when it cannot.
bool save_png(QWidget& widget, const QString& path, QString& error) {
    const QImage image = widget.grab().toImage();
    QSaveFile file(path);
    if (image.isNull() || !file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") ||
        !file.commit()) {
        error = QStringLiteral("cannot write %1: %2")
                    .arg(path,
                         image.isNull() ? QStringLiteral("nothing was drawn") : file.errorString());
        return false;
    }
    return true;
}

// State of one run, owned by the window (the run ends with the application).
struct Run {
    ScriptedRun options;
    hs::ui::MainWindow* window = nullptr;
    hs::ui::Controller* controller = nullptr;
    QString stage = QStringLiteral("the first histogram");
    bool ended = false;  // the verdict is given; later signals change nothing

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

    // What playback showed, from the results the controller sent while it played.
    struct Played {
        int shown = 0;
        double total_ms = 0.0;  // of the frames shown, their processing as the timing reports
        QString engine, stream;
        bool playing = false;  // playback was seen to start
        bool stopped = false;  // and then to stop
        QElapsedTimer clock;
    };

    void play() {
        if (ended) return;
        if (!window->playback().video)
            return fail(QStringLiteral("--screenshot-play: %1 is not a video or a stream of raw "
                                       "frames")
                            .arg(window->currentPath()));
        stage = QStringLiteral("playback to the last frame");
        // Owned by the window; deleted once playback is summed up, with its connections.
        auto* context = new QObject(window);
        auto played = std::make_shared<Played>();
        QObject::connect(controller, &hs::ui::Controller::frameReady, context,
                         [played](const hs::ui::FrameResult& result) {
                             if (result.timing.frame < 0) return;
                             ++played->shown;
                             played->total_ms += result.timing.total_ms;
                             played->engine = result.timing.engine;
                             played->stream = result.timing.stream;
                         });
        QObject::connect(
            controller, &hs::ui::Controller::notice, context,
            [this](const QString& message) { fail(QStringLiteral("playback: %1").arg(message)); });
        QObject::connect(
            controller, &hs::ui::Controller::playbackChanged, context,
            [this, context, played](const hs::ui::PlaybackState& now) {
                if (now.playing) {
                    played->playing = true;
                    return;
                }
                if (!played->playing || played->stopped) return;
                played->stopped = true;
                const double wall_s = static_cast<double>(played->clock.elapsed()) / 1000.0;
                // The frames still in flight when playback stopped are drawn first.
                QTimer::singleShot(kSettleMs, context, [this, context, played, wall_s] {
                    finishPlay(*played, wall_s);
                    context->deleteLater();
                });
            });
        played->clock.start();
        emit window->playToggleRequested();
    }

    void finishPlay(const Played& played, double wall_s) {
        if (ended) return;
        const hs::ui::PlaybackState& state = window->playback();
        if (state.frame != state.frames - 1)
            return fail(QStringLiteral("playback stopped at frame %1 of %2")
                            .arg(state.frame + 1)
                            .arg(state.frames));
        if (played.shown == 0) return fail(QStringLiteral("playback showed no frame"));
        std::printf(
            "played: %lld frames in %.1f s: %d shown, %lld dropped, engine %s, frame "
            "stream %s, mean %.2f ms of processing per frame shown\n",
            static_cast<long long>(state.frames), wall_s, played.shown,
            static_cast<long long>(state.dropped), qPrintable(played.engine),
            played.stream.isEmpty() ? "none (frame by frame)" : qPrintable(played.stream),
            played.total_ms / played.shown);
        std::fflush(stdout);
        saveWindow();
    }

    void saveWindow() {
        if (ended) return;
        QString error;
        if (!save_png(*window, options.window_png, error)) return fail(error);
        std::printf("wrote %s (%s)\n", qPrintable(options.window_png),
                    qPrintable(window->currentPath()));
        std::fflush(stdout);
        if (options.compare_png.isEmpty()) return succeed();
        runCompare();
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
        std::printf("wrote %s (Compare Kernels: %d engines verified and timed of %d)\n",
                    qPrintable(options.compare_png), timed, static_cast<int>(dialog.rows().size()));
        std::fflush(stdout);
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

    QObject::connect(
        &controller, &hs::ui::Controller::frameReady, &window,
        [run] { QTimer::singleShot(kSettleMs, run->window, [run] { run->firstFrame(); }); },
        Qt::SingleShotConnection);
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
