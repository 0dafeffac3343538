#include "scripted_run.hpp"

#include <QApplication>
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

    QObject::connect(
        &controller, &hs::ui::Controller::frameReady, &window,
        [run] { QTimer::singleShot(kSettleMs, run->window, [run] { run->saveWindow(); }); },
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
