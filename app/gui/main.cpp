// histoscope: the desktop application. Builds the engine registry (adding the GPU engines when
// built with CUDA), starts the controller on its worker thread and shows the main window.
//
//   histoscope [FILE]                       opens FILE (default: the last file opened, else a
//                                           bundled sample)
//   histoscope --raw WxHxC:u8|u16[:DEPTH]|f32 [--fps R] FILE|-
//                                           opens FILE as raw frames of that format (the CLI's
//                                           --raw): one frame like a photo, more like a video
//                                           at R frames per second (default 25); "-" shows the
//                                           frames arriving on standard input, live (at R fps,
//                                           or as they come without --fps)
//   histoscope --screenshot OUT.png [--screenshot-play [--screenshot-unpaced]
//              [--screenshot-frames N] | --screenshot-rerender]
//              [--screenshot-compare CMP.png] [--screenshot-timeout S] [FILE]
//                                           loads, waits for the first processed frame (with
//                                           --screenshot-play, plays the video or raw stream to
//                                           its last frame, by the clock or with
//                                           --screenshot-unpaced as fast as the frame path goes,
//                                           and sums it up: drops per stage, stage times), saves
//                                           the window as a PNG (then, with
//                                           --screenshot-compare, runs Compare Kernels with every
//                                           engine and saves that dialog) and exits: 0, or 3
//                                           after an `error:` line (scripted_run.hpp); a FILE
//                                           of raw frames needs --raw (no dialog is opened)

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <future>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "controller_setup.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/version.hpp"
#include "histoscope/media/atomic_file.hpp"
#include "histoscope/media/media.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/main_window.hpp"
#include "histoscope/ui/raw_dialog.hpp"
#include "histoscope/ui/theme.hpp"
#include "histoscope/ui/worker.hpp"
#include "scripted_run.hpp"

namespace {

constexpr const char* kDefaultSample = HS_DEFAULT_SAMPLE;

// The bundled samples: next to an installed binary, else the source tree it was built from.
QString find_samples_dir() {
    const QString installed = QDir(QCoreApplication::applicationDirPath())
                                  .filePath(QStringLiteral("../share/histoscope/samples"));
    if (QFileInfo::exists(installed)) return QDir::cleanPath(installed);
    return QStringLiteral(HS_SAMPLES_DIR);
}

// The value of `option` when it is a number within [lo, hi] (and `whole` when asked); else one
// error line saying it takes `what`, and nullopt.
// Says `message` as our one error line; the exit code of a usage error.
int usage_error(const QString& message) {
    std::fprintf(stderr, "error: %s\n", qPrintable(message));
    return 2;
}

std::optional<double> number_in(const QCommandLineParser& parser, const QCommandLineOption& option,
                                double lo, double hi, bool whole, const char* what) {
    const QString text = parser.value(option);
    bool ok = false;
    const double value = text.toDouble(&ok);
    if (ok && value >= lo && value <= hi && (!whole || value == std::floor(value))) return value;
    usage_error(QStringLiteral("--%1 takes %2, not '%3'")
                    .arg(option.names().constFirst(), QString::fromUtf8(what), text));
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
    // --help and --version need no screen: answered over ssh too, without a display.
    const bool no_display = qEnvironmentVariableIsEmpty("DISPLAY") &&
                            qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
                            qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
    for (int i = 1; i < argc && no_display; ++i) {
        const std::string_view a = argv[i];
        if (a == "--help" || a == "-h" || a == "--help-all" || a == "--version" || a == "-v")
            qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Histoscope"));
    QApplication::setOrganizationName(QStringLiteral("Histoscope"));
    QApplication::setApplicationVersion(
        QString::fromUtf8(hs::kVersion.data(), static_cast<qsizetype>(hs::kVersion.size())));
    QApplication::setDesktopFileName(QStringLiteral("histoscope"));
    hs::ui::init_resources();
    hs::ui::apply_dark_theme(app);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Exact image histograms on the CPU and the GPU"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Load FILE, wait for its histogram, save the window to OUT and exit."),
        QStringLiteral("OUT"));
    parser.addOption(screenshot);
    const QCommandLineOption screenshot_compare(
        QStringLiteral("screenshot-compare"),
        QStringLiteral("With --screenshot: then run Compare Kernels with every engine and save "
                       "that dialog to OUT."),
        QStringLiteral("OUT"));
    parser.addOption(screenshot_compare);
    const QCommandLineOption screenshot_play(
        QStringLiteral("screenshot-play"),
        QStringLiteral("With --screenshot: play the video or raw stream to its last frame "
                       "first, and print a summary of the playback."));
    parser.addOption(screenshot_play);
    const QCommandLineOption screenshot_unpaced(
        QStringLiteral("screenshot-unpaced"),
        QStringLiteral("With --screenshot-play: every frame processed and painted as fast as the "
                       "frame path goes (not by the clock); the summary gives frames per second."));
    parser.addOption(screenshot_unpaced);
    const QCommandLineOption screenshot_frames(
        QStringLiteral("screenshot-frames"),
        QStringLiteral("With --screenshot-play: loop the input and stop after N frames."),
        QStringLiteral("N"));
    parser.addOption(screenshot_frames);
    const QCommandLineOption screenshot_rerender(
        QStringLiteral("screenshot-rerender"),
        QStringLiteral("With --screenshot of a photo: time re-renders after changes of the "
                       "equalization's strength (global and CLAHE)."));
    parser.addOption(screenshot_rerender);
    const QCommandLineOption screenshot_timeout(
        QStringLiteral("screenshot-timeout"),
        QStringLiteral("With --screenshot: fail after SECONDS (default 300)."),
        QStringLiteral("SECONDS"), QStringLiteral("300"));
    parser.addOption(screenshot_timeout);
    const QCommandLineOption raw(
        QStringLiteral("raw"),
        QStringLiteral("Open FILE as raw frames of FORMAT (WxHxC:u8, WxHxC:u16, "
                       "WxHxC:u16:DEPTH or WxHxC:f32, as histoscope-cli --raw), e.g. "
                       "1920x1080x1:u16:12."),
        QStringLiteral("FORMAT"));
    parser.addOption(raw);
    const QCommandLineOption fps(
        QStringLiteral("fps"),
        QStringLiteral("With --raw: play the frames at R frames per second (default 25; standard "
                       "input: as they come)."),
        QStringLiteral("R"));
    parser.addOption(fps);
    parser.addPositionalArgument(
        QStringLiteral("file"),
        QStringLiteral("Photo, video or raw frames to open (\"-\" with --raw: standard input)"),
        QStringLiteral("[FILE]"));
    // Errors are ours: one line, exit code 2 (QCommandLineParser::process() says them its way
    // and exits 1).
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    if (!parser.parse(QCoreApplication::arguments())) return usage_error(parser.errorText());
    if (parser.isSet(help)) parser.showHelp(0);
    if (parser.isSet(version)) parser.showVersion();
    if (parser.positionalArguments().size() > 1) {
        return usage_error(
            QStringLiteral("one FILE at a time, not %1").arg(parser.positionalArguments().size()));
    }

    const QString samples_dir = find_samples_dir();
    QString file = parser.positionalArguments().value(0);
    QString raw_format;
    if (parser.isSet(raw)) {
        raw_format = parser.value(raw);
        try {
            // Checked here, as the CLI checks it, so that a typo is an error and exit code 2.
            static_cast<void>(hs::media::parse_raw_format(raw_format.toStdString()));
        } catch (const hs::UsageError& e) {
            return usage_error(QString::fromUtf8(e.what()));
        }
        if (file.isEmpty())
            return usage_error(QStringLiteral(
                "--raw FORMAT needs the FILE of raw frames (or - for standard input)"));
    }
    double raw_fps = 0.0;
    if (parser.isSet(fps)) {
        const std::optional<double> rate =
            number_in(parser, fps, 0.1, 1000.0, false, "a rate from 0.1 to 1000 frames per second");
        if (!rate) return 2;
        raw_fps = *rate;
        if (raw_format.isEmpty())
            return usage_error(
                QStringLiteral("--fps sets the rate of raw frames (--raw); a "
                               "video plays at its container's rate"));
    }
    if (file == QLatin1String("-") && raw_format.isEmpty())
        return usage_error(
            QStringLiteral("standard input (-) holds raw frames: say their format with --raw "
                           "WxHxC:u8|u16[:DEPTH]|f32"));
    if (file.isEmpty() && !parser.isSet(screenshot)) {
        const QString last =
            QSettings().value(QStringLiteral("recentFiles")).toStringList().value(0);
        if (!last.isEmpty() && QFileInfo::exists(last)) file = last;
    }
    if (file.isEmpty()) {
        const QString sample = QDir(samples_dir).filePath(QString::fromLatin1(kDefaultSample));
        if (QFileInfo::exists(sample)) file = sample;
    }

    // Options that only mean something with another.
    const std::pair<const QCommandLineOption*, const QCommandLineOption*> needs[] = {
        {&screenshot_compare, &screenshot},
        {&screenshot_play, &screenshot},
        {&screenshot_unpaced, &screenshot_play},
        {&screenshot_frames, &screenshot_play}};
    for (const auto& [option, needed] : needs) {
        if (parser.isSet(*option) && !parser.isSet(*needed))
            return usage_error(
                QStringLiteral("--%1 needs --%2")
                    .arg(option->names().constFirst(), needed->names().constFirst()));
    }
    if (parser.isSet(screenshot_rerender) &&
        (!parser.isSet(screenshot) || parser.isSet(screenshot_play)))
        return usage_error(QStringLiteral(
            "--screenshot-rerender needs --screenshot of a photo (without --screenshot-play)"));
    int play_frames = 0;
    if (parser.isSet(screenshot_frames)) {
        const std::optional<double> n = number_in(parser, screenshot_frames, 1, 10000000, true,
                                                  "a whole number of frames from 1 to 10000000");
        if (!n) return 2;
        play_frames = static_cast<int>(*n);
    }
    int timeout_s = 0;
    if (parser.isSet(screenshot)) {
        const std::optional<double> timeout =
            number_in(parser, screenshot_timeout, 1, 86400, true, "whole seconds from 1 to 86400");
        if (!timeout) return 2;
        timeout_s = static_cast<int>(*timeout);
        if (file.isEmpty())
            return usage_error(
                QStringLiteral("--screenshot needs a FILE (no bundled sample found)"));
        // (QFileInfo's own == is undefined for files that do not exist yet.)
        if (QFileInfo(parser.value(screenshot)).absoluteFilePath() ==
            QFileInfo(parser.value(screenshot_compare)).absoluteFilePath())
            return usage_error(
                QStringLiteral("--screenshot and --screenshot-compare name the same file"));
        for (const QString& out : {parser.value(screenshot), parser.value(screenshot_compare)}) {
            if (!out.isEmpty() && hs::media::same_file(out.toStdString(), file.toStdString()))
                return usage_error(
                    QStringLiteral("%1 is the input: a screenshot never replaces it").arg(out));
        }
        // Nobody answers a dialog in a scripted run: a file whose format the Open Raw dialog
        // would ask for is refused here, not waited on until the time limit.
        if (raw_format.isEmpty() && hs::ui::asks_raw_format(file)) {
            try {
                hs::media::raw_format_needed("'" + file.toStdString() + "'");
            } catch (const hs::UsageError& e) {
                return usage_error(
                    QStringLiteral("--screenshot: %1 (a scripted run opens no dialog)")
                        .arg(QString::fromUtf8(e.what())));
            }
        }
    }

    hs::gui::ControllerSetup setup = hs::gui::make_controller_setup();
    if (setup.options.gpu_absence.isEmpty() && setup.options.gpu_read_bandwidth_gbs) {
        // The GPU's read bandwidth (the roofline of its kernels) is measured at once on a
        // thread of its own: that also starts the CUDA context, which the first frame would
        // otherwise wait for, while the file is still being decoded.
        auto measured = std::make_shared<std::shared_future<double>>(
            std::async(std::launch::async, setup.options.gpu_read_bandwidth_gbs).share());
        // Not waited for: until it is there, frames are shown without their share of it.
        setup.options.gpu_read_bandwidth_gbs = [measured] {
            return measured->wait_for(std::chrono::seconds(0)) == std::future_status::ready
                       ? measured->get()
                       : 0.0;
        };
    }
    hs::ui::Worker worker(
        std::make_unique<hs::ui::Controller>(std::move(setup.registry), std::move(setup.options)));
    hs::ui::MainWindow window(worker.controller(), samples_dir);
    if (parser.isSet(screenshot))
        hs::gui::arm_scripted_run(
            {parser.value(screenshot), parser.isSet(screenshot_play),
             parser.isSet(screenshot_unpaced), play_frames, parser.isSet(screenshot_rerender),
             parser.value(screenshot_compare), timeout_s},
            window, *worker.controller());
    window.show();
    if (!raw_format.isEmpty())
        window.openRawFile(file, raw_format, raw_fps);
    else if (!file.isEmpty())
        window.openFile(file);
    return QApplication::exec();
}
