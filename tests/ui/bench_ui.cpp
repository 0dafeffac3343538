// bench_ui: the desktop application's timings, measured on the real widgets and controller (not
// a test: speed is never asserted). Run it offscreen or under Xvfb (QT_QPA_PLATFORM=xcb) to
// include the X11 blit.
//
//   bench_ui draw [RUNS]          paints the histogram view at 1920x1080 with four channels of
//                                 65536 bins (linear and log), RUNS times each; median and
//                                 quartiles in ms
//   bench_ui play FILE [--log]    plays FILE to its last frame in the main window (global
//                                 equalization on, as on a first start); frames shown, dropped
//   bench_ui cancel FILE [TIMES]  Compare Kernels on FILE with 1000 runs, cancelled once the
//                                 first runs are done: the time until it stops
//   bench_ui preview FILE [MOVES] opens a large photo and moves the Strength slider MOVES times;
//                                 the time to the first image, to the exact result, and from
//                                 each move to its preview and to its exact result

#include <QApplication>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QProgressBar>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "controller_setup.hpp"
#include "histoscope/ui/compare_dialog.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/controls_panel.hpp"
#include "histoscope/ui/equalize_panel.hpp"
#include "histoscope/ui/histogram_model.hpp"
#include "histoscope/ui/histogram_view.hpp"
#include "histoscope/ui/image_view.hpp"
#include "histoscope/ui/main_window.hpp"
#include "histoscope/ui/theme.hpp"
#include "histoscope/ui/timing_model.hpp"
#include "histoscope/ui/worker.hpp"

using namespace hs::ui;

namespace {

struct Summary {
    double median = 0.0, q1 = 0.0, q3 = 0.0, min = 0.0;
};

Summary summarize(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    if (v.empty()) return {};
    auto at = [&](double q) {
        return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
    };
    return {at(0.5), at(0.25), at(0.75), v.front()};
}

// Four channels of 65536 bins shaped like a real 16-bit photo: three broad humps and a luma
// between them, with per-bin noise (every bin different, none empty).
HistogramData deep_histogram() {
    HistogramData d;
    d.bins = 65536;
    d.lower = 0;
    d.upper = 65536;
    d.channel_names = {QStringLiteral("r"), QStringLiteral("g"), QStringLiteral("b"),
                       QStringLiteral("luma")};
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> noise(0.8, 1.2);
    const double centres[] = {18000.0, 30000.0, 42000.0, 30000.0};
    for (int c = 0; c < 4; ++c) {
        std::vector<std::uint64_t> counts(65536);
        for (int b = 0; b < 65536; ++b) {
            const double x = (b - centres[c]) / 9000.0;
            counts[static_cast<std::size_t>(b)] =
                static_cast<std::uint64_t>(1.0 + 400.0 * std::exp(-x * x) * noise(rng));
        }
        d.counts.push_back(std::move(counts));
        d.stats.emplace_back();
    }
    return d;
}

int bench_draw(int runs) {
    const HistogramData data = deep_histogram();
    HistogramModel model;
    model.setHistogram(data);
    HistogramView view;
    view.setModel(&model);
    view.resize(1920, 1080);
    QImage target(view.size(), QImage::Format_ARGB32_Premultiplied);
    for (const bool log : {false, true}) {
        model.setLogScale(log);
        std::vector<double> paint_ms, update_ms;
        for (int i = 0; i < runs + 5; ++i) {
            // A new histogram before every paint, as during playback: nothing drawn is reused.
            QElapsedTimer clock;
            clock.start();
            model.setHistogram(data);
            const double update = static_cast<double>(clock.nsecsElapsed()) / 1e6;
            clock.restart();
            view.render(&target);
            if (i < 5) continue;  // warm-up
            paint_ms.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
            update_ms.push_back(update);
        }
        const Summary s = summarize(paint_ms);
        const Summary u = summarize(update_ms);
        std::printf(
            "draw 1920x1080, 4 channels x 65536 bins, %s: paint median %.3f ms (q1 %.3f, "
            "q3 %.3f, min %.3f) over %d paints; model update median %.3f ms\n",
            log ? "log" : "linear", s.median, s.q1, s.q3, s.min, runs, u.median);
    }
    return 0;
}

// Processes events until `done` or `timeout_ms`; false on timeout.
template <typename Done>
bool wait_until(Done done, int timeout_ms = 600000) {
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > timeout_ms) return false;
        QTest::qWait(5);
    }
    return true;
}

std::unique_ptr<Controller> make_controller() {
    hs::gui::ControllerSetup setup = hs::gui::make_controller_setup();
    return std::make_unique<Controller>(std::move(setup.registry), std::move(setup.options));
}

struct App {
    Worker worker{make_controller()};
    MainWindow window{worker.controller(), QStringLiteral(HS_SAMPLES_DIR)};
    App() {
        window.resize(1600, 1000);
        window.show();
    }
};

int bench_play(const QString& path, bool log) {
    App app;
    app.window.controls()->logCheck()->setChecked(log);
    app.window.openFile(path);
    if (!wait_until([&] {
            return app.window.currentPath() == path && app.window.imageView()->hasImage();
        })) {
        std::fprintf(stderr, "error: %s did not open\n", qPrintable(path));
        return 3;
    }
    QTest::qWait(1000);
    const std::uint64_t shown_before = app.window.framesShown();
    QElapsedTimer clock;
    clock.start();
    emit app.window.playToggleRequested();
    wait_until([&] { return app.window.playback().playing; });
    wait_until([&] { return !app.window.playback().playing; });
    const double seconds = static_cast<double>(clock.elapsed()) / 1000.0;
    const PlaybackState st = app.window.playback();
    const std::uint64_t shown = app.window.framesShown() - shown_before;
    std::printf(
        "play %s (%s): %lld frames, %.2f fps, last frame shown %lld, frames drawn %llu, "
        "dropped %lld (%.2f%%), %.2f s\n",
        qPrintable(path), log ? "log" : "linear", static_cast<long long>(st.frames), st.fps,
        static_cast<long long>(st.frame), static_cast<unsigned long long>(shown),
        static_cast<long long>(st.dropped),
        st.frames > 0 ? 100.0 * static_cast<double>(st.dropped) / static_cast<double>(st.frames)
                      : 0.0,
        seconds);
    return 0;
}

// The frames the window has shown, and whether the last one was a preview.
struct Shown {
    std::uint64_t count;
    bool preview;
};
Shown shown(const MainWindow& w) {
    return {w.framesShown(),
            !w.timingModel()->entries().empty() && w.timingModel()->entries().front().preview};
}

int bench_preview(const QString& path, int moves) {
    App app;
    QElapsedTimer clock;
    clock.start();
    app.window.openFile(path);
    if (!wait_until([&] { return app.window.framesShown() > 0; })) return 3;
    const double first = static_cast<double>(clock.elapsed());
    const bool first_preview = shown(app.window).preview;
    wait_until([&] { return !shown(app.window).preview; });
    const double exact = static_cast<double>(clock.elapsed());
    std::printf("preview %s: first picture %.0f ms after open (%s), exact %.0f ms after open\n",
                qPrintable(path), first, first_preview ? "preview" : "exact", exact);
    QSlider* slider = app.window.equalizePanel()->strengthSlider();
    // Moves one at a time: each waits for its exact result.
    std::vector<double> to_preview, to_exact;
    for (int i = 0; i < moves; ++i) {
        const std::uint64_t before = app.window.framesShown();
        clock.restart();
        slider->setValue(i % 2 == 0 ? 60 : 90);
        wait_until([&] { return app.window.framesShown() > before; });
        to_preview.push_back(static_cast<double>(clock.elapsed()));
        wait_until([&] { return !shown(app.window).preview; });
        to_exact.push_back(static_cast<double>(clock.elapsed()));
    }
    const Summary p = summarize(to_preview), e = summarize(to_exact);
    std::printf(
        "strength moves (one at a time, %d): to the preview median %.0f ms (min %.0f, max "
        "%.0f); to the exact result median %.0f ms\n",
        moves, p.median, p.min,
        to_preview.empty() ? 0.0 : *std::max_element(to_preview.begin(), to_preview.end()),
        e.median);
    // A drag: a move every 100 ms while the full resolution keeps being cancelled and restarted.
    std::vector<double> drag;
    for (int i = 0; i < moves * 2; ++i) {
        const std::uint64_t before = app.window.framesShown();
        clock.restart();
        slider->setValue(30 + (i * 7) % 70);
        wait_until([&] { return app.window.framesShown() > before; });
        drag.push_back(static_cast<double>(clock.elapsed()));
        QTest::qWait(std::max(0, 100 - static_cast<int>(clock.elapsed())));
    }
    const Summary d = summarize(drag);
    clock.restart();
    wait_until([&] { return !shown(app.window).preview; });
    std::printf(
        "drag (%d moves, 100 ms apart): move to the preview median %.0f ms (q3 %.0f, max "
        "%.0f); exact %.0f ms after the last move\n",
        moves * 2, d.median, d.q3, *std::max_element(drag.begin(), drag.end()),
        static_cast<double>(clock.elapsed()));
    return 0;
}

int bench_cancel(const QString& path, int repeats) {
    App app;
    app.window.openFile(path);
    if (!wait_until([&] { return app.window.framesShown() > 0 && !app.window.busy(); })) return 3;
    std::vector<double> latency;
    for (int i = 0; i < repeats; ++i) {
        app.window.openCompareDialog();
        CompareDialog* dialog = app.window.compareDialog();
        dialog->findChild<QSpinBox*>()->setValue(1000);
        bool finished = false;
        QObject::connect(dialog, &CompareDialog::finished, dialog, [&] { finished = true; });
        dialog->start();
        wait_until([&] { return dialog->progressBar()->value() >= 2; });
        QElapsedTimer clock;
        clock.start();
        dialog->cancel();
        wait_until([&] { return finished; });
        latency.push_back(static_cast<double>(clock.elapsed()));
        dialog->close();
        QTest::qWait(200);
    }
    const Summary s = summarize(latency);
    std::printf(
        "cancel %s (Compare Kernels, 1000 runs asked): cancel to finished median %.0f ms "
        "(min %.0f, max %.0f) over %d cancels\n",
        qPrintable(path), s.median, s.min, *std::max_element(latency.begin(), latency.end()),
        repeats);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    QApplication qapp(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("HistoscopeBench"));
    QCoreApplication::setApplicationName(QStringLiteral("bench_ui"));
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    init_resources();
    apply_dark_theme(qapp);
    const QStringList args = QCoreApplication::arguments().mid(1);
    const QString command = args.value(0);
    if (command == QLatin1String("draw"))
        return bench_draw(args.value(1, QStringLiteral("200")).toInt());
    if (command == QLatin1String("cancel") && args.size() >= 2)
        return bench_cancel(args[1], args.value(2, QStringLiteral("5")).toInt());
    if (command == QLatin1String("preview") && args.size() >= 2)
        return bench_preview(args[1], args.value(2, QStringLiteral("5")).toInt());
    if (command == QLatin1String("play") && args.size() >= 2)
        return bench_play(args[1], args.contains(QStringLiteral("--log")));
    std::fputs("usage: bench_ui draw [RUNS] | play FILE [--log] | preview FILE [MOVES]\n", stderr);
    return 2;
}
