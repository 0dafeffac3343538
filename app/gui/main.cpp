// histoscope: the desktop application. Builds the engine registry (adding the GPU engines when
// built with CUDA), starts the controller on its worker thread and shows the main window.
//
//   histoscope [FILE]                       opens FILE (default: the last file opened, else a
//                                           bundled sample)
//   histoscope --raw WxHxC:u8|u16[:DEPTH] FILE
//                                           opens FILE as raw frames of that format (the CLI's
//                                           --raw): one frame like a photo, more like a video
//   histoscope --screenshot OUT.png [FILE]  loads, waits for the first processed frame, saves
//                                           the window as a PNG and exits

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QTimer>
#include <cstdio>
#include <memory>

#include "engines.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/version.hpp"
#include "histoscope/media/media.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/main_window.hpp"
#include "histoscope/ui/theme.hpp"
#include "histoscope/ui/worker.hpp"

namespace {

constexpr const char* kDefaultSample = "fruits.jpg";

// The bundled samples: next to an installed binary, else the source tree it was built from.
QString find_samples_dir() {
    const QString installed = QDir(QCoreApplication::applicationDirPath())
                                  .filePath(QStringLiteral("../share/histoscope/samples"));
    if (QFileInfo::exists(installed)) return QDir::cleanPath(installed);
    return QStringLiteral(HS_SAMPLES_DIR);
}

}  // namespace

int main(int argc, char** argv) {
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
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Load FILE, wait for its histogram, save the window to OUT and exit."),
        QStringLiteral("OUT"));
    parser.addOption(screenshot);
    const QCommandLineOption raw(
        QStringLiteral("raw"),
        QStringLiteral("Open FILE as raw frames of FORMAT (WxHxC:u8, WxHxC:u16 or "
                       "WxHxC:u16:DEPTH, as histoscope-cli --raw), e.g. 1920x1080x1:u16:12."),
        QStringLiteral("FORMAT"));
    parser.addOption(raw);
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("Image to open"),
                                 QStringLiteral("[FILE]"));
    parser.process(app);

    const QString samples_dir = find_samples_dir();
    QString file = parser.positionalArguments().value(0);
    QString raw_format;
    if (parser.isSet(raw)) {
        raw_format = parser.value(raw);
        try {
            // Checked here, as the CLI checks it, so that a typo is an error and exit code 2.
            static_cast<void>(hs::media::parse_raw_format(raw_format.toStdString()));
        } catch (const hs::UsageError& e) {
            std::fprintf(stderr, "error: %s\n", e.what());
            return 2;
        }
        if (file.isEmpty()) {
            std::fputs("error: --raw FORMAT needs the FILE of raw frames\n", stderr);
            return 2;
        }
    }
    if (file.isEmpty() && !parser.isSet(screenshot)) {
        const QString last =
            QSettings().value(QStringLiteral("recentFiles")).toStringList().value(0);
        if (!last.isEmpty() && QFileInfo::exists(last)) file = last;
    }
    if (file.isEmpty()) {
        const QString sample = QDir(samples_dir).filePath(QString::fromLatin1(kDefaultSample));
        if (QFileInfo::exists(sample)) file = sample;
    }

    hs::gui::Engines engines = hs::gui::make_engines();
    hs::ui::Worker worker(std::make_unique<hs::ui::Controller>(std::move(engines.registry),
                                                               std::move(engines.options)));
    hs::ui::MainWindow window(worker.controller(), samples_dir);

    if (parser.isSet(screenshot)) {
        const QString out = parser.value(screenshot);
        if (file.isEmpty()) {
            std::fputs("error: --screenshot needs a FILE (no bundled sample found)\n", stderr);
            return 2;
        }
        window.resize(1600, 1000);
        auto grab = [&window, out] {
            // Let the layout and the repaint triggered by the new data settle first.
            QTimer::singleShot(500, &window, [&window, out] {
                const bool ok = window.grab().save(out, "PNG");
                if (ok)
                    std::printf("wrote %s (%s)\n", qPrintable(out),
                                qPrintable(window.currentPath()));
                else
                    std::fprintf(stderr, "error: cannot write %s\n", qPrintable(out));
                QApplication::exit(ok ? 0 : 3);
            });
        };
        QObject::connect(worker.controller(), &hs::ui::Controller::frameReady, &window, grab,
                         Qt::SingleShotConnection);
        QObject::connect(worker.controller(), &hs::ui::Controller::loadFailed, &window,
                         [](const QString&, const QString& message) {
                             std::fprintf(stderr, "error: %s\n", qPrintable(message));
                             QApplication::exit(3);
                         });
    }
    window.show();
    if (!raw_format.isEmpty())
        window.openRawFile(file, raw_format);
    else if (!file.isEmpty())
        window.openFile(file);
    return QApplication::exec();
}
