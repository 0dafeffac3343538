// The desktop application, headless (QT_QPA_PLATFORM=offscreen): the controller on its worker
// thread, the models, the drawing of the histogram and image views, equalization, video
// playback and the kernel comparison, driven through the main window as a user would.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QThread>
#include <QTimer>
#include <QToolButton>
#include <QUrl>
#include <QValueAxis>
#include <QWheelEvent>
#include <QtTest>
#include <atomic>
#include <cmath>
#include <fstream>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "coded_video.hpp"
#include "controller_setup.hpp"
#include "histoscope/core/display.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/core/match_reference.hpp"
#include "histoscope/core/scope_picture.hpp"
#include "histoscope/core/scopes.hpp"
#include "histoscope/media/media.hpp"
#include "histoscope/ui/compare_dialog.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/controls_panel.hpp"
#include "histoscope/ui/equalize_panel.hpp"
#include "histoscope/ui/export.hpp"
#include "histoscope/ui/histogram_columns.hpp"
#include "histoscope/ui/histogram_model.hpp"
#include "histoscope/ui/histogram_view.hpp"
#include "histoscope/ui/image_view.hpp"
#include "histoscope/ui/main_window.hpp"
#include "histoscope/ui/photo_reader.hpp"
#include "histoscope/ui/pixel_readout.hpp"
#include "histoscope/ui/qimage_convert.hpp"
#include "histoscope/ui/raw_dialog.hpp"
#include "histoscope/ui/region_bar.hpp"
#include "histoscope/ui/scopes_panel.hpp"
#include "histoscope/ui/stats_model.hpp"
#include "histoscope/ui/theme.hpp"
#include "histoscope/ui/timing_model.hpp"
#include "histoscope/ui/timing_panel.hpp"
#include "histoscope/ui/worker.hpp"
#include "ui_test_support.hpp"

using namespace hs::ui;
using namespace ui_test;

namespace {

const QString kSamples = QStringLiteral(HS_SAMPLES_DIR);
constexpr int kTimeoutMs = 60000;

QString sample(const char* name) {
    return kSamples + QLatin1Char('/') + QLatin1String(name);
}

QString test_data(const char* name) {
    return QStringLiteral(HS_UI_TEST_DATA "/") + QLatin1String(name);
}

std::vector<hs::ChannelHistogram> reference_of(const QString& path, int bins) {
    const hs::media::LoadedImage loaded = hs::media::read_image(path.toStdString());
    return ui_test::reference_of(loaded.image.view(), bins);
}

hs::Image equalized_reference(const QString& path, const EqualizeSettings& s) {
    return ui_test::equalized_reference(hs::media::read_image(path.toStdString()).image.view(), s);
}

// A one-channel 65536-bin histogram with `count` in every bin.
HistogramData flat_deep_histogram(std::uint64_t count) {
    HistogramData d;
    d.bins = 65536;
    d.upper = 65536;
    d.channel_names = {QStringLiteral("gray")};
    d.counts = {std::vector<std::uint64_t>(65536, count)};
    d.stats.emplace_back();
    return d;
}

// The height in pixels of what is drawn in each pixel column of the plot area: the rows from
// the plot's bottom up to the topmost row that differs from the empty plot's background.
std::vector<int> column_heights(HistogramView& view) {
    const QImage image = view.grab().toImage().convertToFormat(QImage::Format_RGB32);
    const QRect area = view.plotArea().toAlignedRect().adjusted(2, 2, -2, -2);
    const QRgb background = image.pixel(area.left(), area.top());
    std::vector<int> heights;
    for (int x = area.left(); x <= area.right(); ++x) {
        int y = area.top();
        while (y <= area.bottom() && image.pixel(x, y) == background) ++y;
        heights.push_back(area.bottom() + 1 - y);
    }
    return heights;
}

// Writes `image` to a PNG in `dir` and returns its path.
QString write_png(const QTemporaryDir& dir, const char* name, const hs::Image& image) {
    const QString path = dir.filePath(QLatin1String(name));
    hs::media::write_image(path.toStdString(), image.view());
    return path;
}

int count_pixels(const QImage& image, QRgb colour) {
    int n = 0;
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < rgb.height(); ++y)
        for (int x = 0; x < rgb.width(); ++x) n += rgb.pixel(x, y) == colour ? 1 : 0;
    return n;
}

// Stand-ins for GPU engines: the reference counts after a delay, or a device failure.
class FakeGpuEngine final : public hs::HistogramEngine {
  public:
    FakeGpuEngine(std::string name, int delay_ms, bool fail)
        : name_(std::move(name)), delay_ms_(delay_ms), fail_(fail) {}
    std::string_view name() const override { return name_; }
    std::string_view description() const override { return "test stand-in for a GPU engine"; }
    hs::Capabilities capabilities() const override { return {}; }

  protected:
    hs::HistogramResult run(const hs::HistogramRequest& r) override {
        if (fail_) throw hs::DeviceError("out of device memory (test)");
        QThread::msleep(static_cast<unsigned long>(delay_ms_));
        hs::HistogramResult result;
        result.channels = hs::reference_histogram(r.image, r.channels, r.spec);
        result.stages = {{"upload", 0.1}, {"histogram", 0.2}, {"download", 0.05}};
        return result;
    }

  private:
    std::string name_;
    int delay_ms_;
    bool fail_;
};

}  // namespace

class TestUi : public QObject {
    Q_OBJECT

  private:
    std::unique_ptr<Worker> worker_;
    std::unique_ptr<MainWindow> window_;
    std::size_t available_engines_ = 0;
    QStringList gpu_engines_;  // available GPU engines ("auto" picks one of them if any)

    Controller* controller() const { return worker_->controller(); }

    QImage plot(HistogramView* view = nullptr) const {
        QApplication::processEvents();
        return (view ? view : window_->histogramView())->grab().toImage();
    }
    // Waits until the window has drawn a frame computed after this call.
    void waitForFrame() {
        const std::uint64_t seen = window_->framesShown();
        QTRY_VERIFY_WITH_TIMEOUT(window_->framesShown() > seen, kTimeoutMs);
    }
    void settle() { ui_test::settle(*window_); }
    void setEqualize(const EqualizeSettings& s) {
        if (window_->equalizePanel()->settings() == s) return settle();
        window_->equalizePanel()->setSettings(s);
        emit window_->equalizePanel()->settingsChanged(window_->equalizePanel()->settings());
        waitForFrame();
        settle();
    }
    void selectBins(int bins) {
        QComboBox* combo = window_->controls()->binsCombo();
        const int index = combo->findData(bins);
        QVERIFY(index >= 0);
        combo->setCurrentIndex(index);
        QTRY_VERIFY_WITH_TIMEOUT(window_->histogramModel()->rowCount() == bins, kTimeoutMs);
        settle();
    }
    void openAndWait(const QString& path) {
        window_->openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(window_->currentPath() == path, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(window_->imageView()->hasImage(), kTimeoutMs);
        settle();
    }

  private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("HistoscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui"));
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        init_resources();
        hs::gui::ControllerSetup setup = hs::gui::make_controller_setup();
        for (const auto& e : setup.registry->engines())
            if (e->availability().available) ++available_engines_;
        gpu_engines_ = available_gpu_engines();
        worker_ = std::make_unique<Worker>(
            std::make_unique<Controller>(std::move(setup.registry), std::move(setup.options)));
        window_ = std::make_unique<MainWindow>(controller(), kSamples);
        window_->resize(1400, 900);
        window_->show();
        // First start: equalization defaults to global, 100%.
        QCOMPARE(window_->equalizePanel()->settings().mode, EqualizeSettings::Mode::Global);
    }

    void cleanupTestCase() {
        window_.reset();
        worker_.reset();
        QSettings().clear();
    }

    void columnsPreserveArea() {
        // Flat counts give equal columns at any width, whole or fractional bins per column.
        const std::vector<double> flat = prefix_sums(std::vector<std::uint64_t>(65536, 7));
        std::vector<double> columns;
        for (const int width : {1, 3, 640, 1000, 1517, 65536, 100000}) {
            column_means(flat, 0, 65536, width, columns);
            QCOMPARE(static_cast<int>(columns.size()), width);
            for (const double v : columns)
                QVERIFY2(std::abs(v - 7.0) < 1e-9, qPrintable(QString::number(v)));
        }
        // A column over bins [0, 2.5) of 2, 4, 6: (2 + 4 + 6 / 2) / 2.5 per bin.
        const std::vector<double> small = prefix_sums({2, 4, 6});
        column_means(small, 0, 3, 1, columns);
        QCOMPARE(columns[0], 4.0);
        column_means(small, 0, 2.5, 1, columns);
        QCOMPARE(columns[0], 9.0 / 2.5);
        // The ceiling sets aside one spike, not a plain maximum.
        std::vector<double> values(1500, 10.0);
        values[3] = 1e6;
        QCOMPARE(plot_ceiling(values, 2), 10.0);
        values[1400] = 3e5;  // and one at the other end
        QCOMPARE(plot_ceiling(values, 2), 10.0);
        values[3] = 12.0;
        values[1400] = 11.0;
        QCOMPARE(plot_ceiling(values, 2), 12.0);
        QCOMPARE(plot_ceiling({0.0, 0.0, 5.0}, 2), 5.0);  // nothing but the spike
        // A curve's spike columns: two bins of at most ceil(columns / bins) + 1 columns each,
        // or 0.1% of the columns.
        QCOMPARE(spike_columns(600, 65536), std::size_t{4});
        QCOMPARE(spike_columns(600, 256), std::size_t{8});
        QCOMPARE(spike_columns(190, 64), std::size_t{8});
        QCOMPARE(spike_columns(8000, 65536), std::size_t{8});
        QCOMPARE(spike_columns(0, 256), std::size_t{0});
    }

    // A spike in bins wider than a pixel column (a black border at 256 or 64 bins) is cut in
    // the overlay and in the parade alike, and the rest keeps its height; a real peak (a narrow
    // mountain of one channel, a photo's peak in coarse bins) is no spike and stays whole.
    void wideBinSpikesAreCutInEveryMode() {
        // A blue mountain at 256 bins, and a photo's green peak at 64 bins: a Gaussian 1.4 bins
        // wide whose top bin stands 30% above the next (what coarse bins make of a real peak).
        for (const int bins : {256, 64}) {
            HistogramData d;
            d.bins = bins;
            d.upper = 256;
            d.channel_names = {QStringLiteral("r"), QStringLiteral("g"), QStringLiteral("b")};
            for (int c = 0; c < 3; ++c) {
                d.counts.push_back(
                    std::vector<std::uint64_t>(static_cast<std::size_t>(bins), 1000));
                d.stats.emplace_back();
            }
            if (bins == 256)
                for (int b = 4; b <= 16; ++b)
                    d.counts[2][static_cast<std::size_t>(b)] =
                        static_cast<std::uint64_t>(40'000 - 2'000 * std::abs(b - 10));
            else
                for (int b = 20; b < 40; ++b)
                    d.counts[1][static_cast<std::size_t>(b)] += static_cast<std::uint64_t>(
                        std::lround(60'000 * std::exp(-(b - 30) * (b - 30) / (2 * 1.4 * 1.4))));
            HistogramModel model;
            model.setHistogram(d);
            HistogramView view;
            view.setModel(&model);
            view.resize(900, 300);
            for (const bool parade : {false, true}) {
                view.setParade(parade);
                static_cast<void>(view.grab());
                QVERIFY2(view.clippedColumns() == 0,
                         qPrintable(
                             QStringLiteral("peak at %1 bins, %2: %3 columns cut")
                                 .arg(bins)
                                 .arg(parade ? QStringLiteral("parade") : QStringLiteral("overlay"))
                                 .arg(view.clippedColumns())));
            }
        }
        for (const int bins : {256, 64}) {
            HistogramData d;
            d.bins = bins;
            d.upper = 256;
            d.channel_names = {QStringLiteral("r"), QStringLiteral("g"), QStringLiteral("b")};
            for (int c = 0; c < 3; ++c) {
                std::vector<std::uint64_t> counts(static_cast<std::size_t>(bins));
                for (int b = 0; b < bins; ++b)
                    counts[static_cast<std::size_t>(b)] = 1000 + static_cast<std::uint64_t>(b % 7);
                counts[0] = 5'000'000;  // the border, in every channel
                d.counts.push_back(counts);
                d.stats.emplace_back();
            }
            HistogramModel model;
            model.setHistogram(d);
            HistogramView view;
            view.setModel(&model);
            view.resize(900, 300);
            for (const bool parade : {false, true}) {
                view.setParade(parade);
                const std::vector<int> heights = column_heights(view);
                const QString where =
                    QStringLiteral("%1 bins, %2")
                        .arg(bins)
                        .arg(parade ? QStringLiteral("parade") : QStringLiteral("overlay"));
                QVERIFY2(view.clippedColumns() > 0, qPrintable(where));
                // Past the spike's columns the plot stands at most of its height (above the
                // top grid line: a flattened column reads as that line's height).
                const int full = static_cast<int>(view.plotArea().height()) - 4;
                int tall = 0;
                for (const int h : heights) tall += h > full * 3 / 4 ? 1 : 0;
                QVERIFY2(tall > static_cast<int>(heights.size()) * 3 / 4,
                         qPrintable(QStringLiteral("%1: %2 of %3 columns above 3/4 height")
                                        .arg(where)
                                        .arg(tall)
                                        .arg(heights.size())));
            }
        }
    }

    void flatDeepHistogramDrawsEqualColumns() {
        HistogramModel model;
        model.setHistogram(flat_deep_histogram(500));
        HistogramView view;
        view.setModel(&model);
        for (const QSize size : {QSize(900, 300), QSize(1517, 411), QSize(333, 200)}) {
            view.resize(size);
            const std::vector<int> heights = column_heights(view);
            QVERIFY(!heights.empty());
            const auto [low, high] = std::minmax_element(heights.begin(), heights.end());
            QVERIFY2(*low == *high, qPrintable(QStringLiteral("%1 to %2 px at %3x%4")
                                                   .arg(*low)
                                                   .arg(*high)
                                                   .arg(size.width())
                                                   .arg(size.height())));
            QVERIFY(*low > view.plotArea().height() / 2);
            QCOMPARE(view.clippedColumns(), 0);
        }
    }

    void oneHugeBinStillShowsTheOthers() {
        HistogramData d = flat_deep_histogram(100);
        d.counts[0][0] = 1'000'000'000;
        HistogramModel model;
        model.setHistogram(d);
        HistogramView view;
        view.setModel(&model);
        view.resize(900, 300);
        const std::vector<int> heights = column_heights(view);
        // The spike is cut at the top and marked; every other column keeps most of the height.
        QVERIFY(view.clippedColumns() >= 1);
        const int full = static_cast<int>(view.plotArea().height()) - 4;
        for (std::size_t x = 2; x < heights.size(); ++x)
            QVERIFY2(
                heights[x] > full * 3 / 4,
                qPrintable(
                    QStringLiteral("column %1: %2 of %3 px").arg(x).arg(heights[x]).arg(full)));
        // The readout of the first column still tells the real count.
        QVERIFY(view.readout(0).contains(QStringLiteral("gray 1000000000 ")));
        // On a log scale the spike is shown whole and the rest stays visible.
        model.setLogScale(true);
        const std::vector<int> log_heights = column_heights(view);
        QCOMPARE(view.clippedColumns(), 0);
        for (std::size_t x = 2; x < log_heights.size(); ++x) QVERIFY(log_heights[x] > 0);
    }

    void engineCombosListTheRegistry() {
        QComboBox* combo = window_->controls()->engineCombo();
        const auto registry = make_registry();
        // The first entry is "auto": the registry's own "auto" engine where it has one (CUDA
        // builds), else the controller's choice; every other engine follows it.
        const int own_auto = registry->find("auto") != nullptr ? 0 : 1;
        QTRY_COMPARE_WITH_TIMEOUT(
            combo->count(), static_cast<int>(registry->engines().size()) + own_auto, kTimeoutMs);
        QCOMPARE(combo->itemData(0).toString(), QStringLiteral("auto"));
        for (const auto& e : registry->engines())
            if (e->name() != "auto")
                QVERIFY(combo->findData(QString::fromStdString(std::string(e->name()))) > 0);
        QComboBox* eq = window_->equalizePanel()->equalizerCombo();
        QCOMPARE(eq->count(), static_cast<int>(registry->equalizers().size()) + 1);
        for (const auto& e : registry->equalizers())
            QVERIFY(eq->findData(QString::fromStdString(std::string(e->name()))) > 0);
        QVERIFY(eq->findData(QStringLiteral("cpu")) > 0);
    }

    void loadingFillsTheModelWithTheReferenceCounts() {
        const QString path = sample("fruits.jpg");
        openAndWait(path);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(path, 256)));
        QCOMPARE(window_->imageView()->original().width(), 512);
        // "auto": the CPU reference without a GPU, else one of the GPU engines; either way
        // the counts above are exact.
        const QString engine = window_->histogramModel()->histogram().engine;
        if (gpu_engines_.isEmpty())
            QCOMPARE(engine, QStringLiteral("cpu"));
        else
            QVERIFY2(gpu_engines_.contains(engine), qPrintable(engine));
        // Original and equalized columns for r, g, b, luma.
        QCOMPARE(window_->statsModel()->columnCount(), 8);
        QVERIFY(window_->statsModel()->rowCount() >= 8);
        const hs::Stats& red = window_->histogramModel()->histogram().stats[0];
        const hs::media::LoadedImage loaded = hs::media::read_image(path.toStdString());
        const hs::Stats expect =
            hs::compute_stats(loaded.image.view(), hs::Channel::R,
                              hs::HistogramSpec::full_range(loaded.image.view()));
        QCOMPARE(red.median, expect.median);
        QCOMPARE(red.mean, expect.mean);
        // Timing: the CPU engine's own stages and a throughput.
        QVERIFY(window_->timingModel()->rowCount() >= 1);
        const FrameTiming& t = window_->timingModel()->entries().front();
        QCOMPARE(t.engine, engine);
        QVERIFY(!t.equalizer.isEmpty());
        QVERIFY(!t.stages.isEmpty());
        QVERIFY(t.gpix_per_s > 0.0);
        QVERIFY(window_->timingPanel()->summary().contains(QStringLiteral("Gpix/s")));
        // Without a GPU the status bar says so in a few words.
        QVERIFY2(window_->engineStatus().contains(
                     gpu_engines_.isEmpty() ? QStringLiteral("CPU only") : engine),
                 qPrintable(window_->engineStatus()));
        if (gpu_engines_.isEmpty()) {
            // The CPU engine's own stage, the host's measured read bandwidth, and the status
            // bar says the CPU runs and why.
            QCOMPARE(t.stages.front().name, QStringLiteral("histogram"));
            QVERIFY(t.read_bandwidth_gbs > 0.0);
            QVERIFY(t.pct_read_bw > 0.0);
            QVERIFY2(window_->engineStatus().size() < 60, qPrintable(window_->engineStatus()));
        }
    }

    void gifOpensThroughQtWithExactCounts() {
        // OpenCV 4.6 has no GIF decoder: Qt's reader gives the pixels another decoder
        // (ImageMagick, into the PNG twin) gives, and the counts are those of any format.
        const QString gif = sample("fruits.gif");
        const hs::media::LoadedImage twin =
            hs::media::read_image(test_data("fruits_gif.png").toStdString());
        const hs::media::LoadedImage read = read_photo(gif);
        QCOMPARE(QString::fromStdString(read.format), QStringLiteral("GIF (Qt)"));
        QCOMPARE(read.image.channels(), 3);
        QCOMPARE(to_qimage(read.image.view()), to_qimage(twin.image.view()));
        openAndWait(gif);
        QCOMPARE(window_->media().format, QStringLiteral("GIF (Qt)"));
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(twin.image.view(), 256)));

        // A transparent animation: its first frame, RGBA, with an alpha histogram; the
        // checkerboard shows through the transparent pixels.
        const QString animated = test_data("chelsea_baboon_alpha.gif");
        const hs::media::LoadedImage frame0 =
            hs::media::read_image(test_data("chelsea_baboon_alpha_frame0.png").toStdString());
        QCOMPARE(frame0.image.channels(), 4);
        QCOMPARE(to_qimage(read_photo(animated).image.view()), to_qimage(frame0.image.view()));
        QSignalSpy opened(controller(), &Controller::mediaLoaded);
        openAndWait(animated);
        QCOMPARE(opened.count(), 1);
        QVERIFY(opened.first().first().value<MediaInfo>().notes.join(QString()).contains(
            QStringLiteral("frame 1 of 2")));
        QCOMPARE(window_->histogramModel()->histogram().channel_names,
                 QStringList({QStringLiteral("r"), QStringLiteral("g"), QStringLiteral("b"),
                              QStringLiteral("a"), QStringLiteral("luma")}));
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(frame0.image.view(), 256)));
        QVERIFY(window_->histogramModel()->count(0, 3) > 0);    // transparent pixels
        QVERIFY(window_->histogramModel()->count(255, 3) > 0);  // opaque ones
        EqualizeSettings off;
        off.mode = EqualizeSettings::Mode::Off;
        setEqualize(off);
        const QImage view = window_->imageView()->grab().toImage();
        bool light = false, dark = false;
        for (int y = 0; y < view.height(); y += 2)
            for (int x = 0; x < view.width(); x += 2) {
                light = light || view.pixel(x, y) == qRgb(153, 153, 153);
                dark = dark || view.pixel(x, y) == qRgb(102, 102, 102);
            }
        QVERIFY(light && dark);
        EqualizeSettings global;
        global.mode = EqualizeSettings::Mode::Global;
        setEqualize(global);
        openAndWait(sample("fruits.jpg"));
    }

    void photosFromAFifoAreReadOnce() {
        // A named FIFO can be read once: its bytes are probed and decoded from memory (a GIF's
        // by Qt's reader too), with the counts of the file.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::pair<QString, QString> cases[] = {
            {sample("fruits.jpg"), sample("fruits.jpg")},
            {sample("fruits.gif"), test_data("fruits_gif.png")}};
        for (const auto& [file, twin] : cases) {
            const QString fifo = dir.filePath(QFileInfo(file).fileName() + QStringLiteral(".fifo"));
            QCOMPARE(::mkfifo(qPrintable(fifo), 0600), 0);
            QFile in(file);
            QVERIFY(in.open(QIODevice::ReadOnly));
            const QByteArray bytes = in.readAll();
            std::jthread writer([&] {
                const int fd = ::open(qPrintable(fifo), O_WRONLY);  // waits for the reader
                if (fd < 0) return;
                for (qsizetype at = 0; at < bytes.size();) {
                    const ssize_t n = ::write(fd, bytes.constData() + at,
                                              static_cast<std::size_t>(bytes.size() - at));
                    if (n <= 0) break;
                    at += n;
                }
                ::close(fd);
            });
            openAndWait(fifo);
            const hs::Image expected = hs::media::read_image(twin.toStdString()).image;
            QVERIFY2(model_matches(*window_->histogramModel(), reference_of(expected.view(), 256)),
                     qPrintable(file));
        }
        openAndWait(sample("fruits.jpg"));
    }

    void droppingAFileOpensIt() {
        const QString path = sample("baboon.jpg");
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton,
                              Qt::NoModifier);
        QApplication::sendEvent(window_.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(window_.get(), &drop);
        QTRY_COMPARE_WITH_TIMEOUT(window_->currentPath(), path, kTimeoutMs);
        settle();
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(path, 256)));
        openAndWait(sample("fruits.jpg"));
    }

    void equalizedHistogramIsTheReferenceOfTheEqualizedImage() {
        const QString path = sample("fruits.jpg");
        for (const EqualizeSettings::Mode mode :
             {EqualizeSettings::Mode::Global, EqualizeSettings::Mode::Clahe}) {
            EqualizeSettings s;
            s.mode = mode;
            s.luma = mode == EqualizeSettings::Mode::Global;
            s.strength = 0.7;
            s.clip = 3.0;
            s.tiles_x = 4;
            s.tiles_y = 6;
            setEqualize(s);
            const hs::Image expected = equalized_reference(path, s);
            QVERIFY(model_matches(*window_->equalizedModel(), reference_of(expected.view(), 256)));
            QCOMPARE(window_->imageView()->equalized(), to_qimage(expected.view()));
        }
    }

    void strengthSliderChangesTheOutputImage() {
        EqualizeSettings s;
        s.mode = EqualizeSettings::Mode::Global;
        s.strength = 1.0;
        setEqualize(s);
        const QImage full = window_->imageView()->equalized();
        const QImage view_full = window_->imageView()->grab().toImage();
        QVERIFY(!full.isNull());
        QVERIFY(full != window_->imageView()->original());
        QSlider* slider = window_->equalizePanel()->strengthSlider();
        // Move the slider as a drag would: many values in a row, the latest wins.
        for (int v = 100; v >= 30; v -= 5) slider->setValue(v);
        settle();
        QCOMPARE(window_->equalizePanel()->settings().strength, 0.3);
        const QImage partial = window_->imageView()->equalized();
        QVERIFY(partial != full);
        QVERIFY(window_->imageView()->grab().toImage() != view_full);
        s.strength = 0.3;
        QCOMPARE(partial, to_qimage(equalized_reference(sample("fruits.jpg"), s).view()));
        slider->setValue(0);
        settle();
        QCOMPARE(window_->imageView()->equalized(), window_->imageView()->original());
        slider->setValue(100);
        settle();
        QCOMPARE(window_->imageView()->equalized(), full);
    }

    void equalizationOffShowsTheOriginalOnly() {
        EqualizeSettings s;
        s.mode = EqualizeSettings::Mode::Off;
        setEqualize(s);
        QVERIFY(window_->imageView()->equalized().isNull());
        QVERIFY(window_->equalizedModel()->empty());
        QCOMPARE(window_->statsModel()->columnCount(), 4);
        QCOMPARE(window_->timingModel()->entries().front().equalizer, QString());
        s.mode = EqualizeSettings::Mode::Global;
        setEqualize(s);
        QVERIFY(!window_->equalizedModel()->empty());
    }

    // Picks `path` in a file dialog as a user does, typing it into the name field (selectFile()
    // leaves the field alone while it has the focus, as it has in a dialog just opened).
    static void chooseFile(QFileDialog* dialog, const QString& path) {
        auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
        QVERIFY(name != nullptr);
        name->setText(path);
        static_cast<QDialog*>(dialog)->accept();
    }

    // The reference dialog the window opened, once it shows (null after a minute).
    QFileDialog* referenceDialog() {
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < kTimeoutMs) {
            auto* dialog = window_->findChild<QFileDialog*>(QStringLiteral("referenceDialog"));
            if (dialog != nullptr && dialog->isVisible()) return dialog;
            QTest::qWait(20);
        }
        return nullptr;
    }

    void matchWithoutAReferenceAsksForOne() {
        EqualizePanel* panel = window_->equalizePanel();
        QSignalSpy errors(controller(), &Controller::errorOccurred);
        const EqualizeSettings before = panel->settings();
        // Choosing Match opens the picker; cancelling it goes back to the mode before.
        panel->modeCombo()->setCurrentIndex(
            panel->modeCombo()->findData(static_cast<int>(EqualizeSettings::Mode::Match)));
        QFileDialog* dialog = referenceDialog();
        QVERIFY(dialog != nullptr);
        dialog->reject();
        QTRY_COMPARE_WITH_TIMEOUT(panel->settings().mode, before.mode, kTimeoutMs);
        // Again, and a reference given: it is matched.
        panel->modeCombo()->setCurrentIndex(
            panel->modeCombo()->findData(static_cast<int>(EqualizeSettings::Mode::Match)));
        dialog = referenceDialog();
        QVERIFY(dialog != nullptr);
        QSignalSpy loaded(controller(), &Controller::referenceLoaded);
        chooseFile(dialog, sample("baboon.jpg"));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, kTimeoutMs);
        settle();
        QCOMPARE(errors.count(), 0);
        QVERIFY(!window_->imageView()->equalized().isNull());
        // Matching to the baboon: the equalized luma histogram is the reference's recipe.
        const hs::media::LoadedImage image =
            hs::media::read_image(sample("fruits.jpg").toStdString());
        const hs::media::LoadedImage ref =
            hs::media::read_image(sample("baboon.jpg").toStdString());
        hs::EqualizeRequest r;
        r.image = image.image.view();
        r.mode = hs::EqualizeMode::Match;
        r.reference = ref.image.view();
        const hs::Image expected = hs::equalize_reference(r);
        QVERIFY(model_matches(*window_->equalizedModel(), reference_of(expected.view(), 256)));

        // A file that is no image is refused: the baboon stays, also in the settings.
        const QString saved = QSettings().value(QStringLiteral("equalize/reference")).toString();
        QCOMPARE(saved, sample("baboon.jpg"));
        QTemporaryDir dir;
        const QString text = dir.filePath(QStringLiteral("notes.txt"));
        {
            QFile file(text);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("not a picture\n");
        }
        window_->setReferenceFile(text);
        QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, kTimeoutMs);
        QVERIFY2(errors.first().first().toString().startsWith(QStringLiteral("Reference image")),
                 qPrintable(errors.first().first().toString()));
        settle();
        QCOMPARE(QSettings().value(QStringLiteral("equalize/reference")).toString(), saved);
        QVERIFY(model_matches(*window_->equalizedModel(), reference_of(expected.view(), 256)));
        EqualizeSettings s;
        s.mode = EqualizeSettings::Mode::Global;
        setEqualize(s);
    }

    // Match chosen without a reference, and the file picked cannot be read (a JPEG cut short): the
    // error is said and the mode goes back, as when the picker is cancelled, rather than stay on
    // Match with nothing to match and an empty equalized pane.
    void aRefusedFirstReferencePutsTheModeBack() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString cut = dir.filePath(QStringLiteral("cut.jpg"));
        {
            QFile in(sample("fruits.jpg"));
            QVERIFY(in.open(QIODevice::ReadOnly));
            const QByteArray bytes = in.readAll();
            QFile out(cut);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(bytes.left(bytes.size() / 2));
        }
        // A window of its own, which has no reference yet.
        const QVariant kept = QSettings().value(QStringLiteral("equalize/reference"));
        QSettings().remove(QStringLiteral("equalize/reference"));
        Worker worker(std::make_unique<Controller>(make_registry(), ControllerOptions{}));
        MainWindow window(worker.controller(), kSamples);
        window.show();
        window.openFile(sample("fruits.jpg"));
        QTRY_VERIFY_WITH_TIMEOUT(!window.imageView()->equalized().isNull(), kTimeoutMs);
        ui_test::settle(window);
        EqualizePanel* panel = window.equalizePanel();
        const EqualizeSettings before = panel->settings();
        QVERIFY(before.mode != EqualizeSettings::Mode::Match);
        QSignalSpy errors(worker.controller(), &Controller::errorOccurred);
        panel->modeCombo()->setCurrentIndex(
            panel->modeCombo()->findData(static_cast<int>(EqualizeSettings::Mode::Match)));
        QFileDialog* dialog = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((dialog = window.findChild<QFileDialog*>(
                                      QStringLiteral("referenceDialog"))) != nullptr &&
                                     dialog->isVisible(),
                                 kTimeoutMs);
        chooseFile(dialog, cut);
        QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, kTimeoutMs);
        QVERIFY2(errors.first().first().toString().startsWith(QStringLiteral("Reference image")),
                 qPrintable(errors.first().first().toString()));
        QTRY_COMPARE_WITH_TIMEOUT(panel->settings().mode, before.mode, kTimeoutMs);
        ui_test::settle(window);
        QCOMPARE(panel->settings(), before);
        QVERIFY(window.lastError().startsWith(QStringLiteral("Reference image")));
        // The equalized pane still shows the mode before.
        QVERIFY(!window.imageView()->equalized().isNull());
        QCOMPARE(errors.count(), 1);
        window.close();
        if (kept.isValid()) QSettings().setValue(QStringLiteral("equalize/reference"), kept);
    }

    // Matching takes a reference of any depth (hs::MatchReference: the normalized CDFs over
    // each side's own code values): a 10-bit clip's frame matched to an 8-bit photo, a 16-bit
    // PNG and another clip's first frame, and a 16-bit photo to an 8-bit one.
    void matchTakesAReferenceOfAnyDepth() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const hs::test::CodedClip clip;  // 96x64, 6 frames, yuv420p10le
        const std::string path = dir.filePath(QStringLiteral("clip.mkv")).toStdString();
        const std::string error = hs::test::encode_clip(
            clip, path, "-c:v libx265 -x265-params lossless=1:log-level=error");
        QVERIFY2(error.empty(), error.c_str());
        QSignalSpy loaded(controller(), &Controller::referenceLoaded);
        QSignalSpy errors(controller(), &Controller::errorOccurred);
        window_->setReferenceFile(sample("baboon.jpg"));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, kTimeoutMs);
        settle();
        EqualizeSettings match;
        match.mode = EqualizeSettings::Mode::Match;
        setEqualize(match);
        openAndWait(QString::fromStdString(path));
        QCOMPARE(window_->media().bit_depth, 10);
        selectBins(1024);
        hs::media::VideoReader reader(path);
        const std::optional<hs::Image> frame = reader.read();
        QVERIFY(frame.has_value());
        const auto check = [&](const QString& reference, const hs::Image& reference_image,
                               const hs::ImageView& image, int bins) {
            hs::EqualizeRequest r;
            r.image = image;
            r.mode = hs::EqualizeMode::Match;
            const hs::MatchReference ref(std::make_shared<const hs::Image>(reference_image));
            ref.apply(r);
            const hs::Image expected = hs::equalize_reference(r);
            QVERIFY2(model_matches(*window_->equalizedModel(), reference_of(expected.view(), bins)),
                     qPrintable(reference));
        };
        check(QStringLiteral("baboon.jpg"),
              hs::media::read_image(sample("baboon.jpg").toStdString()).image, frame->view(), 1024);
        int references = 1;
        for (const char* name : {"moon_4k_16bit.png", "Megamind.avi"}) {
            window_->setReferenceFile(sample(name));
            ++references;
            QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), references, kTimeoutMs);
            settle();
            const std::string file = sample(name).toStdString();
            // A clip serves with its first frame.
            const hs::Image image = QString::fromLatin1(name).endsWith(QLatin1String(".avi"))
                                        ? *hs::media::VideoReader(file).read()
                                        : hs::media::read_image(file).image;
            check(QString::fromLatin1(name), image, frame->view(), 1024);
        }
        QCOMPARE(QSettings().value(QStringLiteral("equalize/reference")).toString(),
                 sample("Megamind.avi"));
        // A 16-bit photo matched to an 8-bit one.
        window_->setReferenceFile(sample("baboon.jpg"));
        ++references;
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), references, kTimeoutMs);
        selectBins(256);
        openAndWait(sample("chessboard_GRAY_U16.tif"));
        check(QStringLiteral("baboon.jpg on a 16-bit photo"),
              hs::media::read_image(sample("baboon.jpg").toStdString()).image,
              hs::media::read_image(sample("chessboard_GRAY_U16.tif").toStdString()).image.view(),
              256);
        QCOMPARE(errors.count(), 0);
        openAndWait(sample("fruits.jpg"));
        EqualizeSettings global;
        global.mode = EqualizeSettings::Mode::Global;
        setEqualize(global);
    }

    void binCountRecomputesExactly() {
        QComboBox* bins = window_->controls()->binsCombo();
        QCOMPARE(bins->findData(512), -1);  // an 8-bit image offers at most 256 bins
        selectBins(64);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(sample("fruits.jpg"), 64)));
        QCOMPARE(window_->equalizedModel()->rowCount(), 64);
        selectBins(256);
    }

    void sixteenBitImageOffersDeepBins() {
        const QString path = sample("moon_4k_16bit.png");
        openAndWait(path);
        selectBins(65536);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(path, 65536)));
        QCOMPARE(window_->statsModel()->columnCount(), 2);  // gray and gray (eq)
        QVERIFY(!plot().isNull());
        // Back to the 8-bit photo: the bin count falls back to what 8 bits offer.
        openAndWait(sample("fruits.jpg"));
        selectBins(256);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(sample("fruits.jpg"), 256)));
    }

    void displayTogglesChangeWhatIsDrawn() {
        HistogramModel* model = window_->histogramModel();
        ControlsPanel* controls = window_->controls();
        const QImage linear = plot();
        const QImage linear_eq = plot(window_->equalizedView());
        const QVector<double> linear_series = model->series(0);

        controls->logCheck()->setChecked(true);
        QVERIFY(model->logScale());
        QVERIFY(window_->equalizedModel()->logScale());
        QVERIFY(model->series(0) != linear_series);
        QVERIFY(plot() != linear);
        QVERIFY(plot(window_->equalizedView()) != linear_eq);
        controls->logCheck()->setChecked(false);

        QVERIFY(model->cumulativeSeries(0).isEmpty());
        controls->cumulativeCheck()->setChecked(true);
        const QVector<double> cumulative = model->cumulativeSeries(0);
        QCOMPARE(cumulative.size(), 256);
        QCOMPARE(cumulative.last(), 1.0);
        QVERIFY(plot() != linear);
        controls->cumulativeCheck()->setChecked(false);
        QCOMPARE(plot(), linear);

        QCheckBox* red = controls->channelCheck(QStringLiteral("r"));
        QVERIFY(red != nullptr);
        red->setChecked(false);
        QVERIFY(!model->channelVisible(QStringLiteral("r")));
        QVERIFY(plot() != linear);
        QVERIFY(!window_->histogramView()->readout(128).contains(QStringLiteral(" r ")));
        red->setChecked(true);
        QVERIFY(window_->histogramView()->readout(128).contains(QStringLiteral(" r ")));
        QCOMPARE(plot(), linear);

        controls->paradeCheck()->setChecked(true);
        QVERIFY(plot() != linear);
        controls->paradeCheck()->setChecked(false);
        QCOMPARE(plot(), linear);
    }

    void hoverReadoutAndZoom() {
        HistogramView* view = window_->histogramView();
        const QString text = view->readout(100);
        const QString count = QString::number(window_->histogramModel()->count(100, 0));
        QVERIFY2(text.startsWith(QStringLiteral("[100, 101)")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral(" r ") + count + QStringLiteral(" (")));
        const QImage full = plot();
        view->setBinRange(64, 128);
        QCOMPARE(view->firstBin(), 64);
        QCOMPARE(view->lastBin(), 128);
        // Both plots zoom together.
        QCOMPARE(window_->equalizedView()->firstBin(), 64);
        QCOMPARE(window_->equalizedView()->lastBin(), 128);
        QVERIFY(plot() != full);
        view->resetZoom();
        QCOMPARE(view->lastBin(), 256);
        QCOMPARE(window_->equalizedView()->lastBin(), 256);
    }

    void beforeAfterViewSplitsAndSitsSideBySide() {
        ImageView* view = window_->imageView();
        QVERIFY(!view->equalized().isNull());
        view->setCompare(ImageView::Compare::Split);
        window_->splitSlider()->setValue(0);
        QCOMPARE(view->split(), 0.0);
        const QImage all_after = view->grab().toImage();
        window_->splitSlider()->setValue(1000);
        const QImage all_before = view->grab().toImage();
        QVERIFY(all_after != all_before);
        view->setCompare(ImageView::Compare::SideBySide);
        QVERIFY(view->grab().toImage() != all_before);
        view->setCompare(ImageView::Compare::Split);
        window_->splitSlider()->setValue(500);
        view->zoomIn();
        QVERIFY(!view->fitted());
        QVERIFY(view->zoom() > 0.0);
        view->fit();
        QVERIFY(view->fitted());
    }

    void exportsHistogramCsvPlotPngAndTheImage() {
        const QString csv = histogram_csv(window_->histogramModel()->histogram(),
                                          window_->equalizedModel()->histogram());
        const QStringList lines = csv.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 257);
        QCOMPARE(lines.first(),
                 QStringLiteral("bin,lower,upper,r,g,b,luma,r_equalized,g_equalized,b_equalized,"
                                "luma_equalized"));
        QCOMPARE(lines[1].section(QLatin1Char(','), 3, 3),
                 QString::number(window_->histogramModel()->count(0, 0)));
        QCOMPARE(lines[1].section(QLatin1Char(','), 7, 7),
                 QString::number(window_->equalizedModel()->count(0, 0)));

        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("plot.png"));
        QCOMPARE(window_->savePlotPng(png), QString());
        QVERIFY(!QImage(png).isNull());

        const QString saved = dir.filePath(QStringLiteral("equalized.png"));
        QSignalSpy done(controller(), &Controller::imageSaved);
        emit window_->saveRequested(saved);
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kTimeoutMs);
        const hs::media::LoadedImage back = hs::media::read_image(saved.toStdString());
        QCOMPARE(to_qimage(back.image.view()), window_->imageView()->equalized());
    }

    void savingOrExportingOntoTheOpenedFileIsRefused() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString copy = dir.filePath(QStringLiteral("mine.png"));
        QVERIFY(QImage(sample("fruits.jpg")).save(copy));
        QFile original(copy);
        QVERIFY(original.open(QIODevice::ReadOnly));
        const QByteArray bytes = original.readAll();
        original.close();
        openAndWait(copy);
        QSignalSpy failed(controller(), &Controller::errorOccurred);
        QSignalSpy saved(controller(), &Controller::imageSaved);
        emit window_->saveRequested(copy);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kTimeoutMs);
        QVERIFY2(failed.first().first().toString().contains(QStringLiteral("opened file")),
                 qPrintable(failed.first().first().toString()));
        QCOMPARE(saved.count(), 0);
        // Nor does an export (the plot, the histogram's CSV) replace the file it was made from.
        QVERIFY(window_->savePlotPng(copy).contains(QStringLiteral("opened file")));
        QVERIFY(write_text_file(copy, QStringLiteral("bin\n"), window_->currentPath())
                    .contains(QStringLiteral("opened file")));
        QVERIFY(original.open(QIODevice::ReadOnly));
        QCOMPARE(original.readAll(), bytes);
        openAndWait(sample("fruits.jpg"));
    }

    void corruptFileShowsAnErrorAndKeepsTheImage() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile source(sample("fruits.jpg"));
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QByteArray bytes = source.readAll();
        const QString corrupt = dir.filePath(QStringLiteral("truncated.jpg"));
        QFile out(corrupt);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(bytes.left(bytes.size() / 3));
        out.close();
        const QString not_image = dir.filePath(QStringLiteral("notes.png"));
        QFile text(not_image);
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write("this is not a PNG");
        text.close();
        const QString missing = dir.filePath(QStringLiteral("missing.jpg"));

        const QString before = window_->currentPath();
        const QImage image_before = window_->imageView()->original();
        const HistogramData counts_before = window_->histogramModel()->histogram();
        QSignalSpy failed(controller(), &Controller::loadFailed);
        for (const QString& path : {corrupt, not_image, missing}) {
            const int seen = static_cast<int>(failed.count());
            window_->openFile(path);
            QTRY_VERIFY_WITH_TIMEOUT(failed.count() == seen + 1, kTimeoutMs);
            QApplication::processEvents();
            QVERIFY2(window_->lastError().contains(QFileInfo(path).fileName()),
                     qPrintable(window_->lastError()));
            QCOMPARE(window_->currentPath(), before);
            QCOMPARE(window_->imageView()->original(), image_before);
            QCOMPARE(window_->histogramModel()->histogram().counts, counts_before.counts);
        }
        // The controller still holds the old image: a new bin count recomputes it.
        selectBins(128);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(before, 128)));
        selectBins(256);
    }

    void videoPlaysOnTheClockAndSteps() {
        const QString path = sample("tree.avi");
        openAndWait(path);
        QVERIFY(window_->media().video);
        QVERIFY(window_->media().fps > 0.0);
        QCOMPARE(window_->playback().frame, 0);
        // Step: the next frame's histogram is the reference of that decoded frame.
        emit window_->stepRequested(1);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 1, kTimeoutMs);
        settle();
        hs::media::VideoReader reader(path.toStdString());
        reader.read();
        const std::optional<hs::Image> second = reader.read();
        QVERIFY(second.has_value());
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(second->view(), 256)));
        QCOMPARE(window_->timingModel()->entries().front().frame, 1);
        // Play for a second: frames advance with the clock, every one is drawn or dropped.
        const std::uint64_t shown = window_->framesShown();
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing, kTimeoutMs);
        QTest::qWait(1000);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, kTimeoutMs);
        settle();
        const PlaybackState state = window_->playback();
        QVERIFY2(state.frame > 1, qPrintable(QString::number(state.frame)));
        QVERIFY(window_->framesShown() > shown);
        // Never behind the clock by more than the frames it dropped: shown + dropped covers
        // every frame played.
        QVERIFY(static_cast<std::int64_t>(window_->framesShown() - shown) + state.dropped >=
                state.frame - 1);
        QCOMPARE(window_->timingModel()->entries().front().frame, state.frame);
        // Playback ran on a frame stream of the registry (the GPU frame pipeline when there is
        // a GPU, else the CPU one), and the last frame shown is exact.
        const FrameTiming& played = window_->timingModel()->entries().front();
        QCOMPARE(played.stream,
                 gpu_engines_.isEmpty() ? QStringLiteral("cpu") : QStringLiteral("gpu"));
        // The equalizer the stream ran, by its registry name (none with equalization off).
        if (window_->equalizePanel()->settings().mode == EqualizeSettings::Mode::Off)
            QCOMPARE(played.equalizer, QString());
        else
            QVERIFY2(make_registry()->find_equalizer(played.equalizer.toStdString()) != nullptr,
                     qPrintable(played.equalizer));
        QVERIFY(window_->timingPanel()->summary().contains(QStringLiteral("frame stream")));
        QVERIFY2(window_->timingPanel()->summary().contains(
                     QStringLiteral("video frame %1,").arg(state.frame)),
                 qPrintable(window_->timingPanel()->summary()));
        {
            hs::media::VideoReader at(path.toStdString());
            at.seek(state.frame);
            const std::optional<hs::Image> shown_frame = at.read();
            QVERIFY(shown_frame.has_value());
            QVERIFY(
                model_matches(*window_->histogramModel(), reference_of(shown_frame->view(), 256)));
        }
        // Seek, by the frame number typed into the box beside the slider (Ctrl+G goes there).
        QSpinBox* spin = window_->frameSpin();
        QVERIFY(spin->isVisible());
        QCOMPARE(spin->value(), static_cast<int>(state.frame));
        spin->setFocus();
        spin->selectAll();
        QTest::keyClicks(spin, QStringLiteral("5"));
        QTest::keyClick(spin, Qt::Key_Return);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 5, kTimeoutMs);
        settle();
        {
            hs::media::VideoReader at(path.toStdString());
            at.seek(5);
            const std::optional<hs::Image> fifth = at.read();
            QVERIFY(fifth.has_value());
            QVERIFY(model_matches(*window_->histogramModel(), reference_of(fifth->view(), 256)));
        }
        window_->imageView()->setFocus();
        // Playing to the end stops there; playing again starts over.
        const std::int64_t last = window_->media().frames - 1;
        emit window_->seekRequested(last - 3);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, last - 3, kTimeoutMs);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, kTimeoutMs);
        QVERIFY(window_->playback().frame >= last - 1);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().frame < last - 3, kTimeoutMs);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, kTimeoutMs);
        settle();
        openAndWait(sample("fruits.jpg"));
        QVERIFY(!window_->media().video);
    }

    void fourKClipPlaysToItsLastFrameUnderLoad() {
        // Busy threads on every core: processing and drawing fall behind the clip's clock, so
        // frames must be dropped, and the frame due must never run past the clip's last one.
        std::atomic<bool> stop{false};
        std::vector<std::thread> load;
        for (unsigned i = 0; i < std::max(2u, std::thread::hardware_concurrency()); ++i)
            load.emplace_back([&stop] {
                volatile std::uint64_t spin = 0;
                while (!stop.load(std::memory_order_relaxed)) spin = spin + 1;
            });
        const QString path = sample("starry_pan_4k.mp4");
        openAndWait(path);
        const std::int64_t frames = window_->media().frames;
        QCOMPARE(frames, 48);
        QSignalSpy errors(controller(), &Controller::errorOccurred);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, 180000);
        stop.store(true);
        for (auto& t : load) t.join();
        settle();
        const PlaybackState state = window_->playback();
        QCOMPARE(state.frame, frames - 1);
        QCOMPARE(state.frames, frames);
        QVERIFY2(state.dropped > 0, "the load forced no frame drop");
        QCOMPARE(errors.count(), 0);  // no dialog during playback
        QCOMPARE(window_->timingModel()->entries().front().frame, frames - 1);
        // What is shown is the last frame, exactly.
        hs::media::VideoReader reader(path.toStdString());
        hs::Image last;
        while (reader.read_frame(last) == hs::media::VideoReader::FrameStatus::Ok) {
        }
        QCOMPARE(reader.position(), frames);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(last.view(), 256)));
        // The picture is the frame reduced for the view, as the frame stream made it.
        QVERIFY(window_->imageView()->displayFactor() > 1);
        QCOMPARE(window_->imageView()->original(), shown_picture(*window_, last.view()));
        // Played again from the start (and paused at once): the drops of the run before are
        // not carried over.
        emit window_->playToggleRequested();
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, kTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().dropped, 0, kTimeoutMs);
        openAndWait(sample("fruits.jpg"));
    }

    void videoLoopsScrubsAndSeekingResetsDrops() {
        openAndWait(sample("tree.avi"));
        const std::int64_t last = window_->media().frames - 1;
        emit window_->loopRequested(true);
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().loop, kTimeoutMs);
        emit window_->seekRequested(last - 2);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, last - 2, kTimeoutMs);
        emit window_->playToggleRequested();
        // Past the last frame it starts over and keeps playing.
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().frame == last, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().frame < last - 2, kTimeoutMs);
        QVERIFY(window_->playback().playing);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, kTimeoutMs);
        emit window_->loopRequested(false);
        // Home: the first frame, and the dropped count starts over.
        emit window_->seekRequested(0);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 0, kTimeoutMs);
        QCOMPARE(window_->playback().dropped, 0);
        // Dragging the slider shows the frames as it moves, before it is released.
        window_->frameSlider()->setSliderDown(true);
        window_->frameSlider()->setValue(10);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 10, kTimeoutMs);
        window_->frameSlider()->setValue(20);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 20, kTimeoutMs);
        window_->frameSlider()->setSliderDown(false);
        settle();
        QCOMPARE(window_->timingModel()->entries().front().frame, 20);
        openAndWait(sample("fruits.jpg"));
    }

    // --- raw frames (File > Open Raw..., histoscope --raw)

    void rawFrameOpensLikeAPhotoWithExactCountsEqualizationCompareAndExport() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const hs::Image fruits = hs::media::read_image(sample("fruits.jpg").toStdString()).image;
        const QString path = write_raw(dir, "fruits.raw", {&fruits});
        QVERIFY(!path.isEmpty());
        window_->openRawFile(path, QStringLiteral("512x480x3:u8"));
        QTRY_VERIFY2_WITH_TIMEOUT(window_->currentPath() == path, qPrintable(window_->lastError()),
                                  kTimeoutMs);
        settle();
        EqualizeSettings s;
        s.mode = EqualizeSettings::Mode::Global;
        s.luma = true;
        s.strength = 0.8;
        setEqualize(s);
        // One frame: a photo, with the counts of the CPU reference of the same pixels.
        QVERIFY(!window_->media().video);
        QCOMPARE(window_->media().raw_format, QStringLiteral("512x480x3:u8"));
        QCOMPARE(window_->media().frames, 1);
        QVERIFY(!window_->playback().video);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(fruits.view(), 256)));
        QCOMPARE(window_->imageView()->original(), to_qimage(fruits.view()));
        const hs::Image expected = equalized_reference(fruits.view(), s);
        QVERIFY(model_matches(*window_->equalizedModel(), reference_of(expected.view(), 256)));
        QCOMPARE(window_->imageView()->equalized(), to_qimage(expected.view()));
        // Export: the histogram and the equalized image.
        const QStringList csv = histogram_csv(window_->histogramModel()->histogram(),
                                              window_->equalizedModel()->histogram())
                                    .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(csv.size(), 257);
        const QString saved = dir.filePath(QStringLiteral("fruits-equalized.png"));
        QSignalSpy done(controller(), &Controller::imageSaved);
        emit window_->saveRequested(saved);
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kTimeoutMs);
        QCOMPARE(to_qimage(hs::media::read_image(saved.toStdString()).image.view()),
                 to_qimage(expected.view()));
        // Compare Kernels times every engine on the raw frame, each verified.
        QSignalSpy started(controller(), &Controller::benchmarkStarted);
        QSignalSpy rows(controller(), &Controller::benchmarkRow);
        QSignalSpy finished(controller(), &Controller::benchmarkFinished);
        controller()->clearCancel();
        QMetaObject::invokeMethod(controller(), "runBenchmark", Q_ARG(int, 2));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(finished.first().first().toBool(), false);
        QCOMPARE(started.first().first().value<BenchContext>().timed_runs, 2);
        int timed = 0;
        for (const QList<QVariant>& args : rows) {
            const auto row = args.first().value<BenchRow>();
            QCOMPARE(row.input, std::string("fruits.raw"));
            QCOMPARE(row.width, 512);
            if (row.status != "ok") continue;
            QVERIFY2(row.verified, row.kernel.c_str());
            ++timed;
        }
        QVERIFY(timed >= 2);
    }

    void rawStreamPlaysLikeAVideoToItsLastFrame() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const hs::Image fruits = hs::media::read_image(sample("fruits.jpg").toStdString()).image;
        std::vector<hs::Image> frames;
        for (int k = 0; k < 8; ++k) frames.push_back(shifted(fruits, 29 * k));
        std::vector<const hs::Image*> all;
        for (const hs::Image& f : frames) all.push_back(&f);
        const QString path = write_raw(dir, "stream.raw", all);
        window_->openRawFile(path, QStringLiteral("512x480x3:u8"));
        QTRY_VERIFY_WITH_TIMEOUT(window_->currentPath() == path, kTimeoutMs);
        settle();
        QVERIFY(window_->media().video);
        QCOMPARE(window_->media().frames, 8);
        QCOMPARE(window_->media().fps, 25.0);
        QCOMPARE(window_->playback().frames, 8);
        QCOMPARE(window_->playback().frame, 0);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(frames[0].view(), 256)));
        // Step and scrub: the frame shown is the one asked for, exactly.
        emit window_->stepRequested(1);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 1, kTimeoutMs);
        settle();
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(frames[1].view(), 256)));
        window_->frameSlider()->setSliderDown(true);
        window_->frameSlider()->setValue(3);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 3, kTimeoutMs);
        window_->frameSlider()->setSliderDown(false);
        settle();
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(frames[3].view(), 256)));
        // Frames are numbered from 0, as the CLI and every message number them.
        const auto* label = window_->findChild<QLabel*>(QStringLiteral("frameLabel"));
        QVERIFY(label != nullptr);
        QVERIFY2(label->text().startsWith(QStringLiteral("Frame 3 of 0..7 at 0:00.120  dropped 0")),
                 qPrintable(label->text()));
        // Home, then play to the end: it stops on the last frame, which is shown exactly.
        emit window_->seekRequested(0);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 0, kTimeoutMs);
        QCOMPARE(window_->playback().dropped, 0);
        QSignalSpy errors(controller(), &Controller::errorOccurred);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, kTimeoutMs);
        settle();
        QCOMPARE(window_->playback().frame, 7);
        QCOMPARE(window_->playback().frames, 8);
        QCOMPARE(errors.count(), 0);
        QCOMPARE(window_->timingModel()->entries().front().frame, 7);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(frames[7].view(), 256)));
        QCOMPARE(window_->imageView()->original(), to_qimage(frames[7].view()));
        // Looping starts over past the last frame.
        emit window_->loopRequested(true);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().frame == 7, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().frame < 7, kTimeoutMs);
        QVERIFY(window_->playback().playing);
        // Bins chosen while it plays: the next frames are shown with them, exactly.
        QComboBox* bins = window_->controls()->binsCombo();
        bins->setCurrentIndex(bins->findData(64));
        QTRY_COMPARE_WITH_TIMEOUT(window_->histogramModel()->rowCount(), 64, kTimeoutMs);
        QVERIFY(window_->playback().playing);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, kTimeoutMs);
        settle();
        QVERIFY(model_matches(
            *window_->histogramModel(),
            reference_of(frames[static_cast<std::size_t>(window_->playback().frame)].view(), 64)));
        selectBins(256);
        emit window_->loopRequested(false);
        settle();
        // The file cut short while it is open: the frame it ends inside is dropped and said in
        // the status bar (no dialog), and playback stops on the last whole frame.
        QVERIFY(
            QFile::resize(path, static_cast<qint64>(fruits.view().row_bytes()) * 480 * 5 + 1000));
        emit window_->seekRequested(3);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 3, kTimeoutMs);
        settle();
        QSignalSpy notices(controller(), &Controller::notice);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(notices.count() > 0, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, kTimeoutMs);
        settle();
        // Said once: the reader's reason names the frame.
        QVERIFY2(window_->lastError().startsWith(
                     QStringLiteral("Frame 5 is truncated: the file ends after 1000 of its")),
                 qPrintable(window_->lastError()));
        QVERIFY2(window_->lastError().endsWith(QStringLiteral(": dropped")),
                 qPrintable(window_->lastError()));
        QCOMPARE(window_->playback().frame, 4);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(frames[4].view(), 256)));
        QCOMPARE(errors.count(), 0);
        openAndWait(sample("fruits.jpg"));
        QVERIFY(!window_->media().video);
    }

    void sixteenBitRawKeepsItsDeclaredDepth() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // Odd sizes, and the 12-bit range's borders.
        hs::Image deep(67, 41, 1, hs::SampleType::U16, 12);
        for (int y = 0; y < 41; ++y)
            for (int x = 0; x < 67; ++x)
                deep.set_sample(x, y, 0, static_cast<std::uint32_t>((x * 61 + y * 29) % 4096));
        deep.set_sample(0, 0, 0, 0);
        deep.set_sample(66, 40, 0, 4095);
        const QString path = write_raw(dir, "sensor.raw", {&deep});
        EqualizeSettings s;
        s.mode = EqualizeSettings::Mode::Global;
        s.strength = 1.0;
        setEqualize(s);
        window_->openRawFile(path, QStringLiteral("67x41x1:u16:12"));
        QTRY_VERIFY_WITH_TIMEOUT(window_->currentPath() == path, kTimeoutMs);
        settle();
        QCOMPARE(window_->media().bit_depth, 12);
        QCOMPARE(window_->media().raw_format, QStringLiteral("67x41x1:u16:12"));
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(deep.view(), 256)));
        // Bins up to the declared depth's 4096 levels, and no more.
        QVERIFY(window_->controls()->binsCombo()->findData(4096) >= 0);
        QCOMPARE(window_->controls()->binsCombo()->findData(8192), -1);
        selectBins(4096);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(deep.view(), 4096)));
        const hs::Image expected = equalized_reference(deep.view(), s);
        QCOMPARE(expected.bit_depth(), 12);
        QVERIFY(model_matches(*window_->equalizedModel(), reference_of(expected.view(), 4096)));
        // Saved, each 12-bit sample is its bit replication to 16 bits (v << 4 | v >> 8), which
        // other viewers show at its brightness: Qt's own PNG reader sees those values; the PNG
        // reads back at 12 bits (its sBIT), the TIFF (which keeps no depth) at 16.
        const auto replication = [](std::uint32_t v) { return (v << 4) | (v >> 8); };
        for (const char* name : {"sensor-equalized.png", "sensor-equalized.tif"}) {
            const QString saved = dir.filePath(QLatin1String(name));
            QSignalSpy done(controller(), &Controller::imageSaved);
            emit window_->saveRequested(saved);
            QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kTimeoutMs);
            const hs::media::LoadedImage back = hs::media::read_image(saved.toStdString());
            const bool png = saved.endsWith(QLatin1String(".png"));
            QCOMPARE(back.image.bit_depth(), png ? 12 : 16);
            const QImage by_qt = png ? QImage(saved) : QImage();
            if (png) QCOMPARE(by_qt.format(), QImage::Format_Grayscale16);
            int wrong = 0;
            for (int y = 0; y < 41; ++y)
                for (int x = 0; x < 67; ++x) {
                    const std::uint32_t v = expected.view().sample(x, y, 0);
                    const std::uint32_t read = back.image.view().sample(x, y, 0);
                    wrong += read != (png ? v : replication(v)) ? 1 : 0;
                    if (png)
                        wrong += reinterpret_cast<const quint16*>(by_qt.constScanLine(y))[x] !=
                                         replication(v)
                                     ? 1
                                     : 0;
                }
            QVERIFY2(wrong == 0, name);
        }
        selectBins(256);
        openAndWait(sample("fruits.jpg"));
    }

    // A 10-bit clip is shown at its depth: 1024 levels on the axis, its frames' 16-bit R, G, B
    // counted, frame after frame.
    void tenBitClipShowsItsHistogramsAtItsDepth() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const hs::test::CodedClip clip;  // 96x64, 6 frames, yuv420p10le
        const std::string path = dir.filePath(QStringLiteral("clip.mkv")).toStdString();
        const std::string error = hs::test::encode_clip(
            clip, path,
            "-c:v libx265 -x265-params lossless=1:log-level=error -colorspace bt709 "
            "-color_range tv");
        QVERIFY2(error.empty(), error.c_str());
        openAndWait(QString::fromStdString(path));
        QVERIFY(window_->media().video);
        QCOMPARE(window_->media().bit_depth, 10);
        QCOMPARE(window_->media().frames, 6);
        QVERIFY(window_->controls()->binsCombo()->findData(1024) >= 0);
        QCOMPARE(window_->controls()->binsCombo()->findData(2048), -1);
        selectBins(1024);
        hs::media::VideoReader reader(path);
        const std::optional<hs::Image> first = reader.read();
        QVERIFY(first.has_value());
        QCOMPARE(first->bit_depth(), 10);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(first->view(), 1024)));
        emit window_->stepRequested(1);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 1, kTimeoutMs);
        settle();
        const std::optional<hs::Image> second = reader.read();
        QVERIFY(second.has_value());
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(second->view(), 1024)));
        selectBins(256);
        openAndWait(sample("fruits.jpg"));
    }

    // A limited-range clip's coded Y' below black (< 64 at 10 bits, < 16 at 8) and above white
    // (> 940, > 235), which its R', G', B' clamp, is said in the statistics, frame by frame; a
    // full-range clip has no such span and says nothing.
    void limitedRangeClipSaysItsYBelowBlackAndAboveWhite() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const int depth : {10, 8}) {
            hs::test::CodedClip clip;  // Y' over every code value: some below and above
            clip.width = 48;
            clip.height = 32;
            clip.frames = 3;
            clip.depth = depth;
            clip.pix_fmt = depth == 8 ? "yuv420p" : "yuv420p10le";
            const std::uint32_t black = 16u << (depth - 8), white = 235u << (depth - 8);
            const auto expected = [&](int frame) {
                std::uint64_t below = 0, above = 0;
                for (int y = 0; y < clip.height; ++y)
                    for (int x = 0; x < clip.width; ++x) {
                        const std::uint32_t v = clip.value(0, x, y, frame);
                        below += v < black ? 1u : 0u;
                        above += v > white ? 1u : 0u;
                    }
                const double n = clip.width * clip.height;
                return QStringLiteral(
                           "Limited range Y': %1 below black (< %2, %3%), %4 above white (> "
                           "%5, %6%)")
                    .arg(below)
                    .arg(black)
                    .arg(100.0 * static_cast<double>(below) / n, 0, 'f', 3)
                    .arg(above)
                    .arg(white)
                    .arg(100.0 * static_cast<double>(above) / n, 0, 'f', 3);
            };
            const QString limited = dir.filePath(QStringLiteral("limited%1.mkv").arg(depth));
            QString error = QString::fromStdString(
                hs::test::encode_clip(clip, limited.toStdString(), "-c:v ffv1 -color_range tv"));
            QVERIFY2(error.isEmpty(), qPrintable(error));
            openAndWait(limited);
            QVERIFY2(window_->statsNote().contains(expected(0)),
                     qPrintable(window_->statsNote() + QStringLiteral(" / ") + expected(0)));
            QVERIFY(expected(0) != expected(2));
            // A frame read by playback's reader, and again once a setting changes.
            emit window_->seekRequested(2);
            QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 2, kTimeoutMs);
            settle();
            QVERIFY2(window_->statsNote().contains(expected(2)), qPrintable(window_->statsNote()));
            selectBins(64);
            QVERIFY2(window_->statsNote().contains(expected(2)), qPrintable(window_->statsNote()));
            selectBins(256);
            const QString full = dir.filePath(QStringLiteral("full%1.mkv").arg(depth));
            error = QString::fromStdString(
                hs::test::encode_clip(clip, full.toStdString(), "-c:v ffv1 -color_range pc"));
            QVERIFY2(error.isEmpty(), qPrintable(error));
            openAndWait(full);
            QVERIFY2(window_->media().coding.contains(QStringLiteral("full range")),
                     qPrintable(window_->media().coding));
            QVERIFY2(!window_->statsNote().contains(QStringLiteral("Limited range")),
                     qPrintable(window_->statsNote()));
        }
        openAndWait(sample("fruits.jpg"));
    }

    // A clip whose first group of pictures is damaged opens at the first frame that decodes,
    // under its own number: the frames before it are counted failed and said in the status bar
    // as playback says them, and noted; stepping goes on from there.
    void aClipWhoseFirstFramesAreDamagedOpensAtTheFirstThatDecodes() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        hs::test::CodedClip clip;
        clip.frames = 24;
        const std::string whole = dir.filePath(QStringLiteral("whole.mkv")).toStdString();
        const std::string path = dir.filePath(QStringLiteral("damaged.mkv")).toStdString();
        const std::string error =
            hs::test::encode_clip(clip, whole,
                                  "-c:v libx265 -x265-params "
                                  "lossless=1:log-level=error:keyint=12:min-keyint=12:bframes=0");
        QVERIFY2(error.empty(), error.c_str());
        const std::vector<hs::test::PacketSpan> packets = hs::test::video_packets(whole);
        QCOMPARE(packets.size(), std::size_t{24});
        QVERIFY(packets[0].size > 1500);
        std::string bytes = hs::test::slurp(whole);
        bytes.replace(packets[0].pos + 300, 1000, 1000, '\xff');
        { std::ofstream(path, std::ios::binary) << bytes; }

        QSignalSpy failed(controller(), &Controller::loadFailed);
        openAndWait(QString::fromStdString(path));
        QCOMPARE(failed.count(), 0);
        QVERIFY(window_->media().video);
        QCOMPARE(window_->media().frames, 24);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 12, kTimeoutMs);
        QCOMPARE(window_->playback().failed, 12);
        QVERIFY2(window_->media().notes.contains(
                     QStringLiteral("Frames 0 to 11 cannot be read: showing frame 12")),
                 qPrintable(window_->media().notes.join(QLatin1Char('\n'))));
        QVERIFY2(window_->lastError().startsWith(QStringLiteral("Frame 11 of ")) &&
                     window_->lastError().endsWith(QStringLiteral(": dropped")),
                 qPrintable(window_->lastError()));
        selectBins(1024);
        hs::media::VideoReader reader(path);
        reader.seek(12);
        const std::optional<hs::Image> first = reader.read();
        QVERIFY(first.has_value());
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(first->view(), 1024)));
        emit window_->stepRequested(1);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 13, kTimeoutMs);
        settle();
        const std::optional<hs::Image> second = reader.read();
        QVERIFY(second.has_value());
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(second->view(), 1024)));
        selectBins(256);
        openAndWait(sample("fruits.jpg"));
    }

    void rawOfTheWrongSizeIsRefused() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("dump.raw"));
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray(1000, '\x7f'));
        }
        // The dialog says what the size makes of each format, and refuses a wrong one.
        RawDialog dialog(path);
        QVERIFY(dialog.setFormat(QStringLiteral("512x480x3:u8")));
        QVERIFY2(dialog.problem().contains(QStringLiteral("1000 bytes, shorter than one")),
                 qPrintable(dialog.problem()));
        QVERIFY(!dialog.buttons()->button(QDialogButtonBox::Open)->isEnabled());
        QVERIFY(dialog.setFormat(QStringLiteral("10x10x1:u8")));
        QCOMPARE(dialog.problem(), QString());
        QCOMPARE(dialog.frames(), 10);
        QVERIFY(dialog.buttons()->button(QDialogButtonBox::Open)->isEnabled());
        dialog.channelsCombo()->setCurrentIndex(dialog.channelsCombo()->findData(3));
        QCOMPARE(dialog.format(), QStringLiteral("10x10x3:u8"));
        // Three whole frames and the start of a fourth: the whole ones open, the cut one is said.
        QCOMPARE(dialog.problem(), QString());
        QCOMPARE(dialog.frames(), 3);
        QVERIFY2(dialog.summary().contains(QStringLiteral("then 100 bytes of a truncated frame 3")),
                 qPrintable(dialog.summary()));
        QVERIFY(dialog.buttons()->button(QDialogButtonBox::Open)->isEnabled());
        QVERIFY(!dialog.setFormat(QStringLiteral("10x10x2:u8")));  // malformed: unchanged
        QCOMPARE(dialog.format(), QStringLiteral("10x10x3:u8"));
        dialog.typeCombo()->setCurrentIndex(1);
        dialog.depthSpin()->setValue(10);
        QCOMPARE(dialog.format(), QStringLiteral("10x10x3:u16:10"));

        // Opened anyway (a remembered format, the command line): one clear error, and the
        // image shown stays, for wrong sizes, malformed and absurd formats alike.
        const QString before = window_->currentPath();
        const HistogramData counts_before = window_->histogramModel()->histogram();
        QSignalSpy failed(controller(), &Controller::loadFailed);
        const std::vector<std::pair<QString, QString>> cases{
            {QStringLiteral("512x480x3:u8"), QStringLiteral("shorter than one")},
            {QStringLiteral("10x10x2:u8"), QStringLiteral("malformed raw format")},
            {QStringLiteral("65536x65536x4:u16"), QStringLiteral("shorter than one")},
            {QStringLiteral("10x10x1:u16:17"), QStringLiteral("u16 depth must be 8..16")},
        };
        for (const auto& [format, why] : cases) {
            const int seen = static_cast<int>(failed.count());
            window_->openRawFile(path, format);
            QTRY_VERIFY_WITH_TIMEOUT(failed.count() == seen + 1, kTimeoutMs);
            QApplication::processEvents();
            QVERIFY2(window_->lastError().contains(why), qPrintable(window_->lastError()));
            QVERIFY2(window_->statusBar()->currentMessage().contains(why),
                     qPrintable(window_->statusBar()->currentMessage()));
            QCOMPARE(window_->currentPath(), before);
            QCOMPARE(window_->histogramModel()->histogram().counts, counts_before.counts);
        }
        for (QMessageBox* box : window_->findChildren<QMessageBox*>()) box->close();
        QVERIFY(remembered_raw_format(path).isEmpty());  // nothing that failed is remembered

        // A size that is not a whole number of frames: the whole ones play, the cut one is said
        // at once and counted among the frames, where it fails as a cut stream's last frame.
        window_->openRawFile(path, QStringLiteral("10x10x3:u8"));
        QTRY_VERIFY_WITH_TIMEOUT(window_->currentPath() == path, kTimeoutMs);
        settle();
        QCOMPARE(window_->media().frames, 4);
        QVERIFY2(window_->media().notes.join(QString()).contains(
                     QStringLiteral("holds 3 whole frames; frame 3 is truncated: the file ends "
                                    "after 100 of its 300 bytes")),
                 qPrintable(window_->media().notes.join(QStringLiteral(" | "))));
    }

    void rawFormatIsRememberedForTheSamePath() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const hs::Image fruits = hs::media::read_image(sample("fruits.jpg").toStdString()).image;
        const QString first = write_raw(dir, "first.raw", {&fruits});
        const QString second = write_raw(dir, "second.bin", {&fruits});
        // The first through the dialog, as a user opens it.
        window_->askRawFormat(first);
        RawDialog* dialog = window_->rawDialog();
        QVERIFY(dialog != nullptr && dialog->isVisible());
        QVERIFY(dialog->setFormat(QStringLiteral("512x480x3:u8")));
        QCOMPARE(dialog->frames(), 1);
        dialog->buttons()->button(QDialogButtonBox::Open)->click();
        QTRY_VERIFY_WITH_TIMEOUT(window_->currentPath() == first, kTimeoutMs);
        settle();
        QCOMPARE(remembered_raw_format(first), QStringLiteral("512x480x3:u8"));
        // The same bytes as another format: a gray frame three times as wide.
        window_->openRawFile(second, QStringLiteral("1536x480x1:u8"));
        QTRY_VERIFY_WITH_TIMEOUT(window_->currentPath() == second, kTimeoutMs);
        settle();
        QCOMPARE(window_->media().channels, 1);
        // Each file is offered its own format again, by path (relative or not).
        QCOMPARE(RawDialog(first).format(), QStringLiteral("512x480x3:u8"));
        QCOMPARE(RawDialog(second).format(), QStringLiteral("1536x480x1:u8"));
        QCOMPARE(remembered_raw_format(dir.path() + QStringLiteral("/./first.raw")),
                 QStringLiteral("512x480x3:u8"));
        // Opening the file again (Open Recent, a drop) opens it with its format, no dialog.
        window_->openFile(first);
        QTRY_VERIFY_WITH_TIMEOUT(window_->currentPath() == first, kTimeoutMs);
        settle();
        QCOMPARE(window_->media().raw_format, QStringLiteral("512x480x3:u8"));
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(fruits.view(), 256)));
        // A raw file never opened asks, offering the format used last.
        const QString third = write_raw(dir, "third.raw", {&fruits});
        window_->openFile(third);
        QVERIFY(window_->rawDialog() != nullptr);
        QCOMPARE(window_->rawDialog()->path(), third);
        QCOMPARE(window_->rawDialog()->format(), QStringLiteral("512x480x3:u8"));
        window_->rawDialog()->reject();
        QCOMPARE(window_->currentPath(), first);
        openAndWait(sample("fruits.jpg"));
    }

    void compareKernelsListsEveryEngineVerified() {
        window_->openCompareDialog();
        CompareDialog* dialog = window_->compareDialog();
        QVERIFY(dialog != nullptr);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QCOMPARE(dialog->windowTitle(), QStringLiteral("Compare Kernels"));  // as in the menu
        // A readable chart from the first open: it has most of the height.
        const int em = dialog->fontMetrics().height();
        QVERIFY2(dialog->splitter()->sizes().value(0) >= em * 8,
                 qPrintable(QString::number(dialog->splitter()->sizes().value(0))));
        QSignalSpy finished(dialog, &CompareDialog::finished);
        QSignalSpy progress(controller(), &Controller::benchmarkProgress);
        QSignalSpy rows(controller(), &Controller::benchmarkRow);
        // Progress moves with the runs, not only between engines: the 20 runs of the first
        // engine (cpu, always available) come in more than one step before its row.
        int progress_seen = 0, progress_before_first_row = -1;
        QObject context;
        connect(controller(), &Controller::benchmarkProgress, &context, [&] { ++progress_seen; });
        connect(controller(), &Controller::benchmarkRow, &context, [&] {
            if (progress_before_first_row < 0) progress_before_first_row = progress_seen;
        });
        dialog->start();
        QVERIFY(dialog->running());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY2(progress_before_first_row > 1,
                 qPrintable(QString::number(progress_before_first_row)));
        const auto registry = make_registry();
        const auto engines = static_cast<int>(registry->engines().size());
        QCOMPARE(progress.last().at(0).toInt(), progress.last().at(1).toInt());
        // Every engine has a row, after the floor's where there is a GPU; those that cannot run
        // say why.
        const int floors =
            static_cast<int>(std::count_if(dialog->rows().begin(), dialog->rows().end(),
                                           [](const BenchRow& r) { return r.floor; }));
        QVERIFY(floors <= 1);
        if (floors == 1) QVERIFY(dialog->rows().front().floor);
        QCOMPARE(static_cast<int>(dialog->rows().size()), engines + floors);
        QCOMPARE(dialog->table()->rowCount(), engines + floors);
        QStringList names;
        int timed = 0;
        const int verified_column = 7;
        QCOMPARE(dialog->table()->horizontalHeaderItem(verified_column)->text(),
                 QStringLiteral("Verified"));
        const int note_column = dialog->table()->columnCount() - 1;
        QCOMPARE(dialog->table()->horizontalHeaderItem(note_column)->text(),
                 QStringLiteral("Note"));
        for (int r = 0; r < dialog->rows().size(); ++r) {
            const BenchRow& row = dialog->rows()[r];
            const QString engine = QString::fromStdString(row.kernel);
            const QString reason = QString::fromStdString(row.reason);
            names << engine;
            QCOMPARE(dialog->table()->item(r, 0)->text(), engine);
            if (row.status == "unsupported" || row.status == "unavailable") {
                QVERIFY2(!reason.isEmpty() && !engine.startsWith(QLatin1String("cpu")),
                         qPrintable(engine));
                QCOMPARE(dialog->table()->item(r, note_column)->text(), reason);
                continue;
            }
            QCOMPARE(row.status, std::string("ok"));
            QVERIFY2(row.verified, qPrintable(engine));
            QCOMPARE(row.runs, 20);
            if (row.floor) {
                QCOMPARE(dialog->table()->item(r, verified_column)->text(),
                         QStringLiteral("read all"));
                continue;
            }
            QVERIFY(row.median_ms > 0.0);
            QVERIFY(row.gpix_s > 0.0);
            QCOMPARE(dialog->table()->item(r, verified_column)->text(), QStringLiteral("exact"));
            // Every row describes the input (core's rows, as histoscope-cli bench writes them).
            QCOMPARE(row.input, std::string("fruits.jpg"));
            QCOMPARE(row.width, 512);
            QCOMPARE(row.height, 480);
            QCOMPARE(row.depth, 8);
            QCOMPARE(row.bins, 256);
            ++timed;
        }
        QVERIFY(names.contains(QStringLiteral("cpu")));
        QVERIFY(names.contains(QStringLiteral("opencv")));
        QVERIFY(timed >= 2);
        QCOMPARE(dialog->chartBars(), timed);
        // The exports carry what makes the run reproducible, in the CLI's bench schema.
        const BenchContext& c = dialog->context();
        QCOMPARE(c.timed_runs, 20);
        QCOMPARE(c.warmup_runs, 3);
        QVERIFY(!c.cpu.empty() && !c.device.empty() && !c.date.empty());
        QVERIFY(c.host_read_bandwidth_gbs > 0.0);
        const QJsonObject json =
            QJsonDocument::fromJson(benchmark_json(dialog->rows(), c).toUtf8()).object();
        for (const char* key : {"device", "read_bandwidth_gbs", "cpu", "host_read_bandwidth_gbs",
                                "timed_runs", "warmup_runs", "rotate_bytes", "date", "version"})
            QVERIFY2(json.contains(QLatin1String(key)), key);
        const QJsonArray results = json.value(QStringLiteral("results")).toArray();
        QCOMPARE(results.size(), engines);
        QCOMPARE(results.first().toObject().value(QStringLiteral("width")).toInt(), 512);
        QCOMPARE(results.first().toObject().value(QStringLiteral("bins")).toInt(), 256);
        QCOMPARE(benchmark_json(dialog->rows(), c).count(QStringLiteral("\"verified\": true")),
                 static_cast<qsizetype>(timed));
        const QStringList csv =
            benchmark_csv(dialog->rows(), c).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(csv.size(), 1 + engines);
        QVERIFY(csv[0].startsWith(QStringLiteral("input,width,height,")));
        QVERIFY(csv[0].endsWith(QStringLiteral(",date,version")));
        QVERIFY(csv[1].startsWith(QStringLiteral("fruits.jpg,512,480,3,8,")));
        dialog->close();
    }

    void compareKernelsCancelsWithinAnEngine() {
        // A 4K photo and many runs: the first engine alone would take minutes; the cancel is
        // heard between its runs.
        openAndWait(sample("fruits_4k.jpg"));
        window_->openCompareDialog();
        CompareDialog* dialog = window_->compareDialog();
        dialog->findChild<QSpinBox*>()->setValue(1000);
        QSignalSpy finished(dialog, &CompareDialog::finished);
        QSignalSpy rows(controller(), &Controller::benchmarkRow);
        dialog->start();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->progressBar()->value() >= 2, kTimeoutMs);
        dialog->cancel();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
        QCOMPARE(finished.first().first().toBool(), true);
        QVERIFY(!dialog->running());
        QCOMPARE(rows.count(), 0);  // within the first engine's runs
        QVERIFY(dialog->progressBar()->value() < 1000);
        dialog->findChild<QSpinBox*>()->setValue(20);
        dialog->close();
        openAndWait(sample("fruits.jpg"));
    }

    // A run cancelled before any engine finished keeps the results of the run before it (and says
    // so, without a made-up "0 x 0" input), and its progress bar starts over; the dialog keeps its
    // size from run to run, is named as its menu item, and its throughput axis has round ticks.
    void compareKernelsCancelKeepsTheLastResults() {
        openAndWait(sample("fruits.jpg"));
        window_->openCompareDialog();
        CompareDialog* dialog = window_->compareDialog();
        QVERIFY(dialog != nullptr);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QCOMPARE(dialog->windowTitle(), QStringLiteral("Compare Kernels"));
        const QSize size = dialog->size();
        auto* runs = dialog->findChild<QSpinBox*>();
        runs->setValue(20);
        QSignalSpy finished(dialog, &CompareDialog::finished);
        dialog->start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        settle();
        QCOMPARE(dialog->size(), size);
        const QVector<BenchRow> done = dialog->rows();
        const QString summary = dialog->statusText();
        QVERIFY(!done.isEmpty());
        QVERIFY2(summary.contains(QStringLiteral("512 x 480")), qPrintable(summary));
        // Round ticks on the Gpix/s axis: steps of 1, 2, 2.5 or 5 times a power of ten.
        QList<QAbstractAxis*> axes = dialog->chart()->axes(Qt::Vertical);
        QCOMPARE(axes.size(), 1);
        auto* y = qobject_cast<QValueAxis*>(axes.first());
        QVERIFY(y != nullptr && y->tickCount() >= 2);
        QCOMPARE(y->min(), 0.0);
        const double step = (y->max() - y->min()) / (y->tickCount() - 1);
        const double scale = std::pow(10.0, std::floor(std::log10(step)));
        const double mantissa = step / scale;
        QVERIFY2(std::abs(mantissa - 1.0) < 1e-9 || std::abs(mantissa - 2.0) < 1e-9 ||
                     std::abs(mantissa - 2.5) < 1e-9 || std::abs(mantissa - 5.0) < 1e-9,
                 qPrintable(QStringLiteral("ticks every %1 up to %2").arg(step).arg(y->max())));
        double best = 0.0;
        for (const BenchRow& r : done) best = std::max(best, r.gpix_s);
        QVERIFY(y->max() >= best);
        // Again, many runs, cancelled within the first engine.
        runs->setValue(1000);
        dialog->start();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->progressBar()->value() >= 2, kTimeoutMs);
        dialog->cancel();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kTimeoutMs);
        QCOMPARE(finished.last().first().toBool(), true);
        QCOMPARE(dialog->rows().size(), done.size());
        QCOMPARE(dialog->table()->rowCount(), static_cast<int>(done.size()));
        for (int i = 0; i < done.size(); ++i)
            QCOMPARE(dialog->rows()[i].median_ms, done[i].median_ms);
        const QString cancelled = dialog->statusText();
        QVERIFY2(cancelled.contains(QStringLiteral("Cancelled")), qPrintable(cancelled));
        QVERIFY2(!cancelled.contains(QStringLiteral("0 x 0")), qPrintable(cancelled));
        QCOMPARE(dialog->progressBar()->value(), dialog->progressBar()->minimum());
        QCOMPARE(dialog->size(), size);
        runs->setValue(20);
        dialog->close();
    }

    // "auto" is the registry's auto engine (hs::cuda's in a CUDA build; a stand-in here that
    // delegates to a GPU engine): the GUI asks it as the CLI does and shows its counts.
    void autoIsTheRegistrysAutoAndAFailingEngineFallsBack() {
        // The CPU engines only: a CUDA build registers its own "auto", which the fake replaces.
        auto registry = std::make_unique<hs::EngineRegistry>();
        hs::register_core_engines(*registry);
        hs::media::register_engines(*registry);
        registry->add(std::make_unique<FakeGpuEngine>("fast-gpu", 0, false));
        registry->add(std::make_unique<FakeGpuEngine>("broken-gpu", 0, true));
        registry->add(std::make_unique<FakeGpuEngine>("auto", 0, false));
        ControllerOptions options;
        options.gpu_engines = {QStringLiteral("fast-gpu"), QStringLiteral("broken-gpu"),
                               QStringLiteral("auto")};
        options.gpu_read_bandwidth_gbs = [] { return 1000.0; };
        Worker worker(std::make_unique<Controller>(std::move(registry), options));
        MainWindow window(worker.controller(), kSamples);
        window.show();
        const QString path = sample("chelsea.png");
        const std::uint64_t before = window.framesShown();
        window.openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(window.framesShown() > before, kTimeoutMs);
        QCOMPARE(window.histogramModel()->histogram().engine, QStringLiteral("auto"));
        QVERIFY2(window.engineStatus().contains(QStringLiteral("auto")),
                 qPrintable(window.engineStatus()));
        // The stand-in is no GPU kernel the GPU frame pipeline can run: the CPU frame stream
        // runs it, its histogram stage first.
        const FrameTiming& t = window.timingModel()->entries().front();
        QCOMPARE(t.stream, QStringLiteral("cpu"));
        QCOMPARE(t.stages.front().name, QStringLiteral("histogram"));
        QCOMPARE(t.read_bandwidth_gbs, 1000.0);
        QVERIFY(model_matches(*window.histogramModel(), reference_of(path, 256)));
        // An engine failing with a device error: one message, the CPU reference takes over.
        QComboBox* combo = window.controls()->engineCombo();
        QTRY_VERIFY_WITH_TIMEOUT(combo->findData(QStringLiteral("broken-gpu")) > 0, kTimeoutMs);
        const std::uint64_t shown = window.framesShown();
        combo->setCurrentIndex(combo->findData(QStringLiteral("broken-gpu")));
        QTRY_VERIFY_WITH_TIMEOUT(window.framesShown() > shown, kTimeoutMs);
        QVERIFY2(window.lastError().contains(QStringLiteral("out of device memory")),
                 qPrintable(window.lastError()));
        QCOMPARE(window.histogramModel()->histogram().engine, QStringLiteral("cpu"));
        QVERIFY(model_matches(*window.histogramModel(), reference_of(path, 256)));
        QVERIFY(window.imageView()->hasImage());
        window.close();
    }

    QAction* action(const char* name) const {
        return window_->findChild<QAction*>(QLatin1String(name));
    }

    void pixelPickerReadsTheSamplesUnderTheCursor() {
        EqualizeSettings off;
        off.mode = EqualizeSettings::Mode::Off;
        setEqualize(off);
        ImageView* view = window_->imageView();
        view->fit();
        const QPoint centre = view->rect().center();
        const QPoint pixel = view->pixelAt(centre);
        QVERIFY(pixel.x() >= 0 && pixel.y() >= 0);
        QMouseEvent move(QEvent::MouseMove, centre, view->mapToGlobal(centre), Qt::NoButton,
                         Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(view, &move);
        const hs::media::LoadedImage fruits =
            hs::media::read_image(sample("fruits.jpg").toStdString());
        const hs::ImageView v = fruits.image.view();
        const std::uint32_t r = v.sample(pixel.x(), pixel.y(), 0),
                            g = v.sample(pixel.x(), pixel.y(), 1),
                            b = v.sample(pixel.x(), pixel.y(), 2);
        const QString text = window_->statusBar()->currentMessage();
        QVERIFY2(text.contains(QStringLiteral("x %1  y %2").arg(pixel.x()).arg(pixel.y())),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("R %1  G %2  B %3  luma %4")
                                   .arg(r)
                                   .arg(g)
                                   .arg(b)
                                   .arg(hs::luma(hs::kLuma601, r, g, b))),
                 qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("zoom")));
        // Deep samples also give the 8-bit value shown.
        hs::Image deep(2, 1, 3, hs::SampleType::U16, 16);
        deep.set_sample(1, 0, 0, 65535);
        deep.set_sample(1, 0, 1, 32768);
        deep.set_sample(1, 0, 2, 257);
        QCOMPARE(pixel_readout(deep.view(), 1, 0),
                 QStringLiteral("R 65535  G 32768  B 257  luma %1  (8-bit 255 128 1 %2)")
                     .arg(hs::luma(hs::kLuma601, 65535, 32768, 257))
                     .arg((hs::luma(hs::kLuma601, 65535, 32768, 257) * 255 + 32767) / 65535));
        EqualizeSettings global;
        global.mode = EqualizeSettings::Mode::Global;
        setEqualize(global);
    }

    void clippingOverlayMarksSamplesAtEitherEndPerChannel() {
        // Left third: R at 255; middle: R at 0; right: nothing clipped.
        hs::Image image(60, 20, 3, hs::SampleType::U8, 8);
        for (int y = 0; y < 20; ++y)
            for (int x = 0; x < 60; ++x) {
                image.set_sample(x, y, 0, x < 20 ? 255 : (x < 40 ? 0 : 100));
                image.set_sample(x, y, 1, 100);
                image.set_sample(x, y, 2, 100);
            }
        QTemporaryDir dir;
        openAndWait(write_png(dir, "clipped.png", image));
        EqualizeSettings off;
        off.mode = EqualizeSettings::Mode::Off;
        setEqualize(off);
        const QRgb red = qRgb(255, 0, 0), blue = qRgb(0, 90, 255);
        QVERIFY(count_pixels(window_->imageView()->grab().toImage(), red) == 0);
        action("clippingAction")->trigger();
        settle();
        QImage shown = window_->imageView()->grab().toImage();
        QVERIFY(count_pixels(shown, red) > 100);
        QVERIFY(count_pixels(shown, blue) > 100);
        // Only the channels shown count: without R nothing is clipped.
        window_->controls()->channelCheck(QStringLiteral("r"))->setChecked(false);
        settle();
        shown = window_->imageView()->grab().toImage();
        QCOMPARE(count_pixels(shown, red), 0);
        QCOMPARE(count_pixels(shown, blue), 0);
        window_->controls()->channelCheck(QStringLiteral("r"))->setChecked(true);
        action("clippingAction")->trigger();
        EqualizeSettings global;
        global.mode = EqualizeSettings::Mode::Global;
        setEqualize(global);
        openAndWait(sample("fruits.jpg"));
    }

    // The widget point of image pixel `pixel` on the original side.
    QPoint pointOf(QPoint pixel) const {
        const ImageView* view = window_->imageView();
        for (int y = 0; y < view->height(); ++y)
            for (int x = 0; x < view->width(); ++x) {
                bool equalized = false;
                if (view->pixelAt(QPointF(x, y), &equalized) == pixel && !equalized) return {x, y};
            }
        return {-1, -1};
    }

    // The Scopes panel shows what core's scope_picture() draws of the reference scopes of the
    // region; the region (typed or drawn) restricts the histograms, statistics, scopes and the
    // clipping overlay, and the picker says where a pixel lies against it.
    void scopesAndRegionFollowTheFrame() {
        // R clipped (255) in the left third only; no sample anywhere at 0.
        hs::Image image(60, 20, 3, hs::SampleType::U8, 8);
        for (int y = 0; y < 20; ++y)
            for (int x = 0; x < 60; ++x) {
                image.set_sample(x, y, 0, x < 20 ? 255 : static_cast<std::uint32_t>(3 * x));
                image.set_sample(x, y, 1, static_cast<std::uint32_t>(10 * y + 5));
                image.set_sample(x, y, 2, static_cast<std::uint32_t>((x * y) % 200 + 20));
            }
        QTemporaryDir dir;
        openAndWait(write_png(dir, "scoped.png", image));
        EqualizeSettings off;
        off.mode = EqualizeSettings::Mode::Off;
        setEqualize(off);
        ScopesPanel* panel = window_->scopesPanel();
        for (const char* kind : {"histogram", "waveform", "parade", "vectorscope"})
            panel->button(QString::fromLatin1(kind))->setChecked(true);
        window_->scopesDock()->show();
        waitForFrame();
        settle();
        const auto expect_scopes = [&](const hs::ImageView& counted) {
            const QString problem = scopes_problem(*panel, counted);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        };
        expect_scopes(image.view());
        QVERIFY(panel->histogramView()->isVisible());

        // Typed: the right third, where nothing is clipped.
        RegionBar* bar = window_->regionBar();
        bar->spin(0)->setValue(40);
        bar->spin(2)->setValue(20);
        waitForFrame();
        settle();
        QCOMPARE(window_->imageView()->region(), QRect(40, 0, 20, 20));
        const hs::ImageView right = hs::crop(image.view(), {40, 0, 20, 20});
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(right, 256)));
        QCOMPARE(window_->statsModel()->data(window_->statsModel()->index(0, 0)).toString(),
                 QStringLiteral("400"));
        expect_scopes(right);
        const QRgb red = qRgb(255, 0, 0);
        action("clippingAction")->trigger();
        settle();
        QCOMPARE(count_pixels(window_->imageView()->grab().toImage(), red), 0);

        // Drawn: Shift+drag over the left third, where R is clipped: the overlay shows there.
        QWidget* view = window_->imageView();
        const QPoint from = pointOf({2, 3}), to = pointOf({15, 17});
        QVERIFY(from.x() >= 0 && to.x() >= 0);
        QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier, from);
        QTest::mouseMove(view, to);
        QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier, to);
        waitForFrame();
        settle();
        QCOMPARE(bar->region(), QRect(2, 3, 14, 15));
        expect_scopes(hs::crop(image.view(), {2, 3, 14, 15}));
        QVERIFY(count_pixels(window_->imageView()->grab().toImage(), red) > 20);
        // The picker: inside the region, and outside it.
        QTest::mouseMove(view, pointOf({5, 5}));
        QTRY_VERIFY(window_->statusBar()->currentMessage().contains(
            QStringLiteral("in the region at +3 +2")));
        QTest::mouseMove(view, pointOf({50, 5}));
        QTRY_VERIFY(
            window_->statusBar()->currentMessage().contains(QStringLiteral("outside the region")));
        // Shift+click: the whole frame again.
        QTest::mouseClick(view, Qt::LeftButton, Qt::ShiftModifier, from);
        waitForFrame();
        settle();
        QVERIFY(bar->region().isNull());
        QVERIFY(window_->imageView()->region().isNull());
        expect_scopes(image.view());
        action("clippingAction")->trigger();

        // A gray image has a waveform only.
        hs::Image gray(33, 9, 1, hs::SampleType::U8, 8);
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 33; ++x)
                gray.set_sample(x, y, 0, static_cast<std::uint32_t>(7 * x));
        openAndWait(write_png(dir, "gray.png", gray));
        QVERIFY(!panel->button(QStringLiteral("parade"))->isEnabled());
        QVERIFY(!panel->view(QStringLiteral("vectorscope"))->isVisible());
        QVERIFY(!panel->channelCombo()->isVisible());
        QVERIFY(!panel->matrixCombo()->isVisible());
        expect_scopes(gray.view());
        window_->scopesDock()->hide();
        EqualizeSettings global;
        global.mode = EqualizeSettings::Mode::Global;
        setEqualize(global);
        openAndWait(sample("fruits.jpg"));
        QVERIFY(!panel->channelCombo()->isHidden());
        QVERIFY(!panel->matrixCombo()->isHidden());
        // A choice is live only while its scope is on.
        QToolButton* waveform = panel->button(QStringLiteral("waveform"));
        waveform->setChecked(false);
        QVERIFY(!panel->channelCombo()->isEnabled());
        waveform->setChecked(true);
        QVERIFY(panel->channelCombo()->isEnabled());
    }

    void darkDeepImagesAreStretchedForViewingOnly() {
        // 16-bit data in 0..4095: black at full range, visible stretched.
        hs::Image image(256, 64, 1, hs::SampleType::U16, 16);
        for (int y = 0; y < 64; ++y)
            for (int x = 0; x < 256; ++x)
                image.set_sample(x, y, 0, static_cast<std::uint32_t>(x * 16));
        QTemporaryDir dir;
        const QString path = write_png(dir, "dark16.png", image);
        openAndWait(path);
        const auto brightest = [this] { return brightest_shown(*window_); };
        QVERIFY(action("stretchAction")->isChecked());
        QVERIFY2(brightest() > 240, qPrintable(QString::number(brightest())));
        QVERIFY2(window_->imageView()->note().contains(QStringLiteral("view only")),
                 qPrintable(window_->imageView()->note()));
        // The data is untouched: the histogram is the samples'.
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(image.view(), 256)));
        action("stretchAction")->trigger();
        settle();
        QVERIFY2(brightest() <= 16, qPrintable(QString::number(brightest())));
        action("stretchAction")->trigger();
        settle();
        // Equalized, the result spans another range than the original: the note gives both
        // ranges the pictures are shown over.
        const EqualizeSettings before = window_->equalizePanel()->settings();
        EqualizeSettings global;
        global.mode = EqualizeSettings::Mode::Global;
        setEqualize(global);
        QTRY_VERIFY_WITH_TIMEOUT(
            window_->imageView()->note().contains(QStringLiteral(", equalized ")), kTimeoutMs);
        const hs::DisplayRange original = hs::stretched_display_range(image.view());
        QVERIFY2(window_->imageView()->note().contains(
                     QStringLiteral("display original %1..%2, equalized ")
                         .arg(original.lo)
                         .arg(original.hi)),
                 qPrintable(window_->imageView()->note()));
        setEqualize(before);
        openAndWait(sample("fruits.jpg"));
    }

    void largePhotoPreviewsThenShowsTheExactResult() {
        const QString path = sample("fruits_4k.jpg");
        const std::uint64_t before = window_->framesShown();
        window_->openFile(path);
        // First a preview (reduced, by the CPU reference), then the exact full resolution.
        QTRY_VERIFY_WITH_TIMEOUT(window_->framesShown() > before, kTimeoutMs);
        QVERIFY(window_->timingModel()->entries().front().preview);
        QTRY_VERIFY_WITH_TIMEOUT(window_->busy(), kTimeoutMs);
        settle();
        QVERIFY(!window_->timingModel()->entries().front().preview);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(path, 256)));
        // Pictures at the view's size: the 4K frame reduced by the view's factor.
        const int factor = window_->imageView()->displayFactor();
        QVERIFY(factor > 1);
        QCOMPARE(window_->imageView()->equalized().size(),
                 QSize((3840 + factor - 1) / factor, (2160 + factor - 1) / factor));
        // A setting moves: the preview at once, then the exact result of the full image.
        EqualizeSettings s;
        s.mode = EqualizeSettings::Mode::Clahe;
        s.strength = 0.6;
        window_->equalizePanel()->setSettings(s);
        emit window_->equalizePanel()->settingsChanged(window_->equalizePanel()->settings());
        QTemporaryDir dir;
        const QString saved = dir.filePath(QStringLiteral("clahe.png"));
        QSignalSpy done(controller(), &Controller::imageSaved);
        emit window_->saveRequested(saved);  // the result of these settings, once exact
        QTRY_VERIFY_WITH_TIMEOUT(window_->timingModel()->entries().front().preview, kTimeoutMs);
        settle();
        QVERIFY(!window_->timingModel()->entries().front().preview);
        const hs::Image expected = equalized_reference(path, window_->equalizePanel()->settings());
        QVERIFY(model_matches(*window_->equalizedModel(), reference_of(expected.view(), 256)));
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kTimeoutMs);
        QCOMPARE(to_qimage(hs::media::read_image(saved.toStdString()).image.view()),
                 to_qimage(expected.view()));
        s.mode = EqualizeSettings::Mode::Global;
        s.strength = 1.0;
        setEqualize(s);
        openAndWait(sample("fruits.jpg"));
    }

    void helpListsTheShortcutsAndTheWindowFitsTheScreen() {
        action("shortcutsAction")->trigger();
        auto* help = window_->findChild<QDialog*>(QStringLiteral("shortcutsDialog"));
        QVERIFY(help != nullptr && help->isVisible());
        auto* list = help->findChild<QTextBrowser*>(QStringLiteral("shortcutsText"));
        QVERIFY(list != nullptr);
        for (const char* text : {"Play/Pause", "Clipping Overlay", "Loop", "Log Scale", "Wheel"})
            QVERIFY2(list->toPlainText().contains(QLatin1String(text)), text);
        // Within the screen, the list scrolling rather than the dialog growing past it, and as
        // tall as the list or most of the screen the first time already.
        const QSize screen = QGuiApplication::primaryScreen()->availableGeometry().size();
        QVERIFY2(help->height() <= screen.height(),
                 qPrintable(QStringLiteral("%1 of %2").arg(help->height()).arg(screen.height())));
        const int em = help->fontMetrics().height();
        QVERIFY2(help->height() >= std::min(screen.height() * 8 / 10, em * 20),
                 qPrintable(QStringLiteral("%1 of %2").arg(help->height()).arg(screen.height())));
        help->close();
        // Log, Cumulative and Parade are checkable and follow their boxes.
        for (QAction* a : window_->findChildren<QAction*>())
            if (a->text() == QLatin1String("&Log Scale")) {
                QVERIFY(a->isCheckable());
                window_->controls()->logCheck()->setChecked(true);
                QVERIFY(a->isChecked());
                a->setChecked(false);
                QVERIFY(!window_->controls()->logCheck()->isChecked());
            }
        // A first window (no saved geometry) is no larger than the screen.
        QSettings settings;
        const QByteArray kept = settings.value(QStringLiteral("window/geometry")).toByteArray();
        settings.remove(QStringLiteral("window/geometry"));
        const QSize available = QGuiApplication::primaryScreen()->availableGeometry().size();
        {
            MainWindow fresh(controller(), kSamples);
            QVERIFY(fresh.width() <= available.width() && fresh.height() <= available.height());
            // Nor is one whose saved size came from a larger screen.
            fresh.resize(available * 2);
            settings.setValue(QStringLiteral("window/geometry"), fresh.saveGeometry());
        }
        {
            MainWindow restored(controller(), kSamples);
            QVERIFY2(
                restored.width() <= available.width() && restored.height() <= available.height(),
                qPrintable(QStringLiteral("%1x%2 on %3x%4")
                               .arg(restored.width())
                               .arg(restored.height())
                               .arg(available.width())
                               .arg(available.height())));
        }
        settings.setValue(QStringLiteral("window/geometry"), kept);
        // The wheel over a box of the scrolling controls scrolls them: it changes a setting only
        // once the box has the focus.
        QComboBox* engines = window_->controls()->engineCombo();
        engines->clearFocus();
        const int engine = engines->currentIndex();
        for (const int delta : {-120, 120}) {
            QWheelEvent wheel(QPointF(5, 5), engines->mapToGlobal(QPointF(5, 5)), QPoint(),
                              QPoint(0, delta), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                              false);
            QApplication::sendEvent(engines, &wheel);
            QCOMPARE(engines->currentIndex(), engine);
        }
        // With the scopes shown, the window can still be as short as a 768-pixel screen less
        // its title bar (it was 878 pixels at least): the controls under the plots scroll.
        auto* scopes = window_->findChild<QDockWidget*>(QStringLiteral("scopesDock"));
        QVERIFY(scopes != nullptr);
        scopes->show();
        settle();
        QVERIFY2(window_->minimumSizeHint().height() <= 700,
                 qPrintable(QString::number(window_->minimumSizeHint().height())));
        scopes->hide();
        settle();
    }

    // The pixel picker's 8-bit values of a deep image are those shown: over the stretched range
    // while Stretch Deep Images is on, over the full range when it is off.
    void pixelPickerGivesTheEightBitValueShown() {
        openAndWait(sample("fruits.jpg"));
        EqualizeSettings off;
        off.mode = EqualizeSettings::Mode::Off;
        setEqualize(off);
        hs::Image image(256, 64, 1, hs::SampleType::U16, 16);
        for (int y = 0; y < 64; ++y)
            for (int x = 0; x < 256; ++x)
                image.set_sample(x, y, 0, static_cast<std::uint32_t>(20000 + x * 40));
        QTemporaryDir dir;
        openAndWait(write_png(dir, "narrow16.png", image));
        ImageView* view = window_->imageView();
        view->actualSize();
        settle();
        QCOMPARE(view->displayFactor(), 1);
        for (const bool stretch : {true, false}) {
            if (action("stretchAction")->isChecked() != stretch) {
                action("stretchAction")->trigger();
                waitForFrame();
                settle();
            }
            const QPoint centre = view->rect().center();
            const QPoint pixel = view->pixelAt(centre);
            QVERIFY(pixel.x() >= 0 && pixel.y() >= 0);
            QMouseEvent move(QEvent::MouseMove, centre, view->mapToGlobal(centre), Qt::NoButton,
                             Qt::NoButton, Qt::NoModifier);
            QApplication::sendEvent(view, &move);
            const hs::DisplayRange range = stretch ? hs::stretched_display_range(image.view())
                                                   : hs::full_display_range(image.view());
            const hs::Image shown = hs::display_picture(image.view(), 1, range);
            const std::uint32_t v = image.view().sample(pixel.x(), pixel.y(), 0);
            const std::uint32_t eight = shown.view().sample(pixel.x(), pixel.y(), 0);
            // What the window shows there, too.
            QCOMPARE(static_cast<std::uint32_t>(qGray(view->original().pixel(pixel))), eight);
            const QString text = window_->statusBar()->currentMessage();
            QVERIFY2(text.contains(QStringLiteral("gray %1  (8-bit %2)").arg(v).arg(eight)),
                     qPrintable(QStringLiteral("stretch %1: %2").arg(stretch).arg(text)));
        }
        action("stretchAction")->trigger();  // back on, as it starts
        openAndWait(sample("fruits.jpg"));
        EqualizeSettings global;
        global.mode = EqualizeSettings::Mode::Global;
        setEqualize(global);
    }

    // Save Equalized Image when no equalized image can be made (Match, kept in the settings,
    // with a reference file that is gone by the next start): refused with the reason, never the
    // original written in its place.
    void saveIsRefusedWhenTheEqualizationCannotRun() {
        QTemporaryDir dir;
        const QString gone = dir.filePath(QStringLiteral("gone.png"));  // never written
        QSettings settings;
        const QVariant mode = settings.value(QStringLiteral("equalize/mode"));
        const QVariant reference = settings.value(QStringLiteral("equalize/reference"));
        settings.setValue(QStringLiteral("equalize/mode"),
                          static_cast<int>(EqualizeSettings::Mode::Match));
        settings.setValue(QStringLiteral("equalize/reference"), gone);
        {
            hs::gui::ControllerSetup setup = hs::gui::make_controller_setup();
            Worker worker(
                std::make_unique<Controller>(std::move(setup.registry), std::move(setup.options)));
            MainWindow window(worker.controller(), kSamples);
            window.resize(1400, 900);
            window.show();
            QCOMPARE(window.equalizePanel()->settings().mode, EqualizeSettings::Mode::Match);
            for (const char* name : {"fruits.jpg", "moon_4k_16bit.png"}) {
                window.openFile(sample(name));
                QTRY_VERIFY_WITH_TIMEOUT(window.currentPath() == sample(name), kTimeoutMs);
                ui_test::settle(window);
                QVERIFY2(
                    window.equalizedView()->placeholder().contains(QStringLiteral("reference")),
                    qPrintable(window.equalizedView()->placeholder()));
                const QString saved = dir.filePath(QStringLiteral("equalized.png"));
                QSignalSpy failed(worker.controller(), &Controller::errorOccurred);
                QSignalSpy done(worker.controller(), &Controller::imageSaved);
                emit window.saveRequested(saved);
                QTRY_COMPARE_WITH_TIMEOUT(failed.count() + done.count(), 1, kTimeoutMs);
                ui_test::settle(window);
                QCOMPARE(done.count(), 0);
                QVERIFY2(failed.count() == 1 && failed.first().first().toString().contains(
                                                    QStringLiteral("reference")),
                         name);
                QVERIFY2(!QFile::exists(saved), name);
                // File > Save says so at once, without asking for a file name first.
                QAction* save = nullptr;
                for (QAction* a : window.findChildren<QAction*>())
                    if (a->text() == QLatin1String("&Save Equalized Image As...")) save = a;
                QVERIFY(save != nullptr);
                bool asked_for_a_name = false;
                QTimer watch;
                connect(&watch, &QTimer::timeout, this, [&] {
                    for (QWidget* w : QApplication::topLevelWidgets())
                        if (auto* dialog = qobject_cast<QFileDialog*>(w);
                            dialog && w->isVisible()) {
                            asked_for_a_name = true;
                            dialog->reject();
                        }
                });
                watch.start(50);
                save->trigger();
                QTRY_VERIFY2_WITH_TIMEOUT(window.lastError().contains(QStringLiteral("reference")),
                                          qPrintable(window.lastError()), kTimeoutMs);
                QTest::qWait(200);
                watch.stop();
                QVERIFY2(!asked_for_a_name, name);
            }
            window.close();
        }
        // The suite's window goes on with the settings it had.
        for (const auto& [key, value] :
             {std::pair{QStringLiteral("equalize/mode"), mode},
              std::pair{QStringLiteral("equalize/reference"), reference}})
            if (value.isValid())
                settings.setValue(key, value);
            else
                settings.remove(key);
    }

    // Saving onto the opened file is refused at once: the dialog does not first ask whether to
    // replace it.
    void savingOntoTheOpenedFileIsRefusedBeforeAskingToReplaceIt() {
        openAndWait(sample("fruits.jpg"));
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("mine.png"));
        QVERIFY(QImage(sample("fruits.jpg")).save(copy));
        const auto contents = [](const QString& path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        };
        const QByteArray bytes = contents(copy);
        openAndWait(copy);
        QAction* save = nullptr;
        for (QAction* a : window_->findChildren<QAction*>())
            if (a->text() == QLatin1String("&Save Equalized Image As...")) save = a;
        QVERIFY(save != nullptr);
        // Answers what the application asks as a user would: the opened file in the save dialog,
        // "yes" to a question.
        QStringList asked;
        bool chosen = false;
        QString target = copy;
        QTimer driver;
        connect(&driver, &QTimer::timeout, this, [&] {
            for (QWidget* w : QApplication::topLevelWidgets()) {
                if (!w->isVisible()) continue;
                if (auto* box = qobject_cast<QMessageBox*>(w)) {
                    asked << box->text();
                    if (QAbstractButton* yes = box->button(QMessageBox::Yes))
                        yes->click();
                    else
                        box->close();
                } else if (auto* dialog = qobject_cast<QFileDialog*>(w); dialog && !chosen) {
                    // Typed as a user would (the dialog may still be filling in its own name).
                    auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
                    if (name == nullptr) continue;
                    chosen = true;
                    name->setText(target);
                    QMetaObject::invokeMethod(
                        dialog, [dialog] { static_cast<QDialog*>(dialog)->accept(); },
                        Qt::QueuedConnection);
                }
            }
        });
        QSignalSpy saved(controller(), &Controller::imageSaved);
        // Saving onto `target` is refused with an error saying `why`, before any question whether
        // to replace it, and `target` keeps its `kept` bytes.
        const auto refused_first = [&](const QString& why, const QByteArray& kept) {
            const qsizetype saves = saved.count();
            asked.clear();
            chosen = false;
            driver.start(50);
            save->trigger();
            QTRY_VERIFY_WITH_TIMEOUT(chosen, kTimeoutMs);
            QTRY_VERIFY2_WITH_TIMEOUT(window_->lastError().contains(why),
                                      qPrintable(window_->lastError()), kTimeoutMs);
            settle();
            driver.stop();
            for (const QString& question : asked)
                QVERIFY2(!question.contains(QStringLiteral("replace"), Qt::CaseInsensitive),
                         qPrintable(question));
            QCOMPARE(saved.count(), saves);
            QCOMPARE(contents(target), kept);
        };
        refused_first(QStringLiteral("opened file"), bytes);
        if (QTest::currentTestFailed()) return;
        // Another file that exists is replaced once the user says so.
        target = dir.filePath(QStringLiteral("other.png"));
        QVERIFY(QImage(8, 8, QImage::Format_RGB32).save(target));
        asked.clear();
        chosen = false;
        driver.start(50);
        save->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, kTimeoutMs);
        driver.stop();
        QVERIFY2(asked.size() == 1 && asked.front().contains(QStringLiteral("replace")),
                 qPrintable(asked.join(QStringLiteral(" | "))));
        QCOMPARE(QImage(target).size(), QImage(copy).size());
        // A 16-bit result onto an existing JPEG: refused for its depth before any question.
        const EqualizeSettings before = window_->equalizePanel()->settings();
        hs::Image deep(64, 32, 1, hs::SampleType::U16, 16);
        for (int y = 0; y < 32; ++y)
            for (int x = 0; x < 64; ++x)
                deep.set_sample(x, y, 0, static_cast<std::uint32_t>(x * 1000 + y));
        openAndWait(write_png(dir, "deep16.png", deep));
        EqualizeSettings global;
        global.mode = EqualizeSettings::Mode::Global;
        setEqualize(global);
        target = dir.filePath(QStringLiteral("photo.jpg"));
        QVERIFY(QImage(8, 8, QImage::Format_RGB32).save(target));
        refused_first(QStringLiteral("16-bit"), contents(target));
        setEqualize(before);
        openAndWait(sample("fruits.jpg"));
    }

    // The Match reference's file dialog is a new one each time: nothing typed into the last one is
    // kept, and none of its popups stays over the window.
    void eachReferenceDialogIsFresh() {
        openAndWait(sample("fruits.jpg"));
        emit window_->equalizePanel()->referenceRequested();
        QPointer<QFileDialog> first = referenceDialog();
        QVERIFY(first != nullptr);
        auto* name = first->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
        QVERIFY(name != nullptr);
        name->setFocus();
        QTest::keyClicks(name, kSamples + QStringLiteral("/fru"));
        QTest::qWait(200);
        first->reject();
        QTest::qWait(200);
        QApplication::processEvents();
        for (QWidget* w : QApplication::topLevelWidgets())
            QVERIFY2(!(w->isVisible() && w->inherits("QAbstractItemView")),
                     w->metaObject()->className());
        emit window_->equalizePanel()->referenceRequested();
        QFileDialog* second = referenceDialog();
        QVERIFY(second != nullptr);
        QVERIFY(first.isNull() || second != first.data());
        auto* second_name = second->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
        QVERIFY(second_name != nullptr);
        QCOMPARE(second_name->text(), QString());
        second->reject();
        settle();
    }

    // A large photo's first statistics are those of its reduced preview: they say so, as the plots
    // do, until the full resolution's replace them.
    void previewStatisticsAreMarkedAsPreview() {
        openAndWait(sample("fruits.jpg"));
        const QString path = sample("fruits_4k.jpg");
        const std::uint64_t before = window_->framesShown();
        window_->openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(window_->framesShown() > before, kTimeoutMs);
        const int stats_tab = 1;
        QVERIFY2(window_->tabs()->tabText(stats_tab).contains(QStringLiteral("Stat")),
                 qPrintable(window_->tabs()->tabText(stats_tab)));
        QVERIFY(window_->timingModel()->entries().front().preview);
        QVERIFY2(window_->tabs()->tabText(stats_tab).contains(QStringLiteral("preview")),
                 qPrintable(window_->tabs()->tabText(stats_tab)));
        QVERIFY2(window_->statsNote().contains(QStringLiteral("preview")),
                 qPrintable(window_->statsNote()));
        QTRY_VERIFY_WITH_TIMEOUT(!window_->timingModel()->entries().front().preview, kTimeoutMs);
        settle();
        QVERIFY(!window_->tabs()->tabText(stats_tab).contains(QStringLiteral("preview")));
        QVERIFY(!window_->statsNote().contains(QStringLiteral("preview")));
        QCOMPARE(window_->statsModel()->data(window_->statsModel()->index(0, 0)).toString(),
                 QString::number(3840 * 2160));
        // Equalization off, the preview still says how much it is reduced (4K to fit 2048: 1/2).
        EqualizeSettings off;
        off.mode = EqualizeSettings::Mode::Off;
        setEqualize(off);
        openAndWait(sample("fruits.jpg"));
        // The controller's results, as they come (the window may paint only the later one).
        QSignalSpy results(controller(), &Controller::frameReady);
        window_->openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(results.count() >= 1, kTimeoutMs);
        const auto first = qvariant_cast<PresentedFrame>(results.first().first());
        QVERIFY2(first.preview, "the reduced copy's result comes first");
        QCOMPARE(first.result_factor, 2);
        settle();
        EqualizeSettings global;
        global.mode = EqualizeSettings::Mode::Global;
        setEqualize(global);
        openAndWait(sample("fruits.jpg"));
    }

    // Every statistic can be read whole at the first window's size and at 1024 x 700: no cell is
    // elided (the table scrolls rather than cut a number), each says in its tooltip what it is; the
    // timing table shows its rows whole.
    void numbersStayReadableInSmallWindows() {
        const QSize before = window_->size();
        openAndWait(sample("fruits_4k.jpg"));
        // The statistics of the equalized image at the 4K size hold the widest numbers.
        for (const QSize size : {QSize(1344, 784), QSize(1024, 700)}) {
            window_->resize(size);
            for (int t = 0; t < window_->tabs()->count(); ++t)
                if (window_->tabs()->widget(t)->isAncestorOf(window_->timingPanel()))
                    window_->tabs()->setCurrentIndex(t);
            settle();
            QTest::qWait(100);
            QTableView* timing = window_->timingPanel()->table();
            const int rows = timing->model()->rowCount();
            QVERIFY(rows >= 2);  // the preview and the full resolution
            if (size == QSize(1344, 784)) {
                const int last = std::min(rows, 2) - 1;
                QVERIFY2(
                    timing->rowViewportPosition(last) + timing->rowHeight(last) <=
                        timing->viewport()->height(),
                    qPrintable(QStringLiteral("row %1 ends at %2 of %3 px")
                                   .arg(last)
                                   .arg(timing->rowViewportPosition(last) + timing->rowHeight(last))
                                   .arg(timing->viewport()->height())));
            }
            window_->tabs()->setCurrentIndex(1);  // Statistics
            settle();
            QTest::qWait(100);
            QTableView* table = window_->statsView();
            QAbstractItemModel* model = table->model();
            QVERIFY(model->columnCount() == 8);
            // What an item view needs around a text: the focus frame's margin, and a pixel, on
            // either side.
            const int margins =
                2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1);
            const QFontMetrics metrics(table->font());
            for (int c = 0; c < model->columnCount(); ++c) {
                for (int r = 0; r < model->rowCount(); ++r) {
                    const QString text = model->data(model->index(r, c)).toString();
                    QVERIFY2(metrics.horizontalAdvance(text) + margins <= table->columnWidth(c),
                             qPrintable(QStringLiteral("%1x%2: '%3' in a column of %4 px")
                                            .arg(size.width())
                                            .arg(size.height())
                                            .arg(text)
                                            .arg(table->columnWidth(c))));
                    const QString tip = model->data(model->index(r, c), Qt::ToolTipRole).toString();
                    QVERIFY2(tip.contains(text), qPrintable(tip));
                }
            }
        }
        window_->resize(before);
        window_->tabs()->setCurrentIndex(0);
        openAndWait(sample("fruits.jpg"));
    }

    // Parade and overlay alike, the log scale shows spikes whole; the linear scale cuts them.
    void logScaleShowsSpikesWholeInTheParadeToo() {
        HistogramData d;
        d.bins = 4096;
        d.upper = 4096;
        d.channel_names = {QStringLiteral("r"), QStringLiteral("g"), QStringLiteral("b")};
        // One spike, in R, narrower than a pixel column.
        for (int c = 0; c < 3; ++c) {
            d.counts.push_back(std::vector<std::uint64_t>(4096, 100));
            d.stats.emplace_back();
        }
        d.counts[0][1000] = 10'000'000;
        HistogramModel model;
        model.setHistogram(d);
        HistogramView view;
        view.setModel(&model);
        view.resize(900, 300);
        for (const bool parade : {false, true}) {
            view.setParade(parade);
            model.setLogScale(false);
            static_cast<void>(view.grab());
            QVERIFY2(view.clippedColumns() > 0, parade ? "parade" : "overlay");
            model.setLogScale(true);
            static_cast<void>(view.grab());
            QVERIFY2(
                view.clippedColumns() == 0,
                qPrintable(QStringLiteral("%1 with log: %2 columns cut")
                               .arg(parade ? QStringLiteral("parade") : QStringLiteral("overlay"))
                               .arg(view.clippedColumns())));
        }
    }

    // The slider of the split does nothing side by side: disabled there.
    void splitSliderIsOffSideBySide() {
        openAndWait(sample("fruits.jpg"));
        QAction* side = nullptr;
        QAction* split = nullptr;
        for (QAction* a : window_->findChildren<QAction*>()) {
            if (a->text() == QLatin1String("Before/After Side by Si&de")) side = a;
            if (a->text() == QLatin1String("Before/After &Split")) split = a;
        }
        QVERIFY(side != nullptr && split != nullptr);
        side->trigger();
        QVERIFY(!window_->splitSlider()->isEnabled());
        split->trigger();
        QVERIFY(window_->splitSlider()->isEnabled());
        // Set side by side from the view itself (a saved setting, the view's own switch).
        window_->imageView()->setCompare(ImageView::Compare::SideBySide);
        QVERIFY(!window_->splitSlider()->isEnabled());
        QVERIFY(side->isChecked());
        window_->imageView()->setCompare(ImageView::Compare::Split);
        QVERIFY(window_->splitSlider()->isEnabled());
        QVERIFY(split->isChecked());
    }

    // Channel boxes are named in capitals like R, G, B: alpha as A.
    void alphaBoxReadsA() {
        openAndWait(test_data("chelsea_baboon_alpha.gif"));
        const QCheckBox* alpha = window_->controls()->channelCheck(QStringLiteral("a"));
        QVERIFY(alpha != nullptr);
        QCOMPARE(alpha->text(), QStringLiteral("A"));
        openAndWait(sample("fruits.jpg"));
    }

    // "auto" is described as what it is: the registry's auto engine (the CLI's), else the CPU
    // reference; not a race of the GPU kernels.
    void autoKernelIsDescribedAsTheRegistrysAuto() {
        openAndWait(sample("fruits.jpg"));
        QComboBox* combo = window_->controls()->engineCombo();
        const auto registry = make_registry();
        const QString tip = combo->itemData(0, Qt::ToolTipRole).toString();
        // What the entry does, the CPU reference where the registry's auto cannot run included.
        QVERIFY2(tip.contains(QStringLiteral("auto engine")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("else the CPU reference")), qPrintable(tip));
        QVERIFY2(!tip.contains(QStringLiteral("fastest")), qPrintable(tip));
        if (const hs::HistogramEngine* own = registry->find("auto")) {
            // A CUDA build's own auto engine adds its description, or why it cannot run here.
            const hs::Availability a = own->availability();
            const std::string said = a.available ? std::string(own->description()) : a.reason;
            QVERIFY2(tip.contains(QString::fromStdString(said)), qPrintable(tip));
        }
        QVERIFY2(combo->toolTip().contains(QStringLiteral("auto engine")) &&
                     !combo->toolTip().contains(QStringLiteral("fastest")),
                 qPrintable(combo->toolTip()));
    }

    void readBandwidthIsKeptForTheMachine() {
        // The first frames measured it once and kept it with the machine's name.
        QSettings settings;
        QVERIFY(!settings.value(QStringLiteral("machine/cpu")).toString().isEmpty());
        QVERIFY(settings.value(QStringLiteral("machine/readBandwidthGbs")).toDouble() > 0.0);
        // A new start uses the kept value rather than measuring again under whatever load.
        settings.setValue(QStringLiteral("machine/readBandwidthGbs"), 123.0);
        Worker worker(std::make_unique<Controller>(make_registry(), ControllerOptions{}));
        MainWindow window(worker.controller(), kSamples);
        window.show();
        window.openFile(sample("chelsea.png"));
        QTRY_VERIFY_WITH_TIMEOUT(window.framesShown() > 0, kTimeoutMs);
        QCOMPARE(window.timingModel()->entries().front().read_bandwidth_gbs, 123.0);
        // Re-measuring replaces it, in the settings too.
        QSignalSpy measured(worker.controller(), &Controller::hostBandwidthMeasured);
        QMetaObject::invokeMethod(worker.controller(), &Controller::remeasureHostBandwidth);
        QTRY_COMPARE_WITH_TIMEOUT(measured.count(), 1, kTimeoutMs);
        const double gbs = measured.first().first().toDouble();
        QVERIFY(gbs > 0.0 && gbs != 123.0);
        QTRY_COMPARE_WITH_TIMEOUT(
            QSettings().value(QStringLiteral("machine/readBandwidthGbs")).toDouble(), gbs,
            kTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(window.timingModel()->entries().front().read_bandwidth_gbs, gbs,
                                  kTimeoutMs);
        window.close();
    }

    void settingsPersist() {
        window_->controls()->logCheck()->setChecked(true);
        EqualizeSettings s;
        s.mode = EqualizeSettings::Mode::Clahe;
        s.strength = 0.4;
        s.tiles_x = 3;
        setEqualize(s);
        window_->close();  // saves the settings
        QSettings settings;
        QCOMPARE(settings.value(QStringLiteral("histogram/log")).toBool(), true);
        QCOMPARE(settings.value(QStringLiteral("equalize/mode")).toInt(),
                 static_cast<int>(EqualizeSettings::Mode::Clahe));
        QVERIFY(settings.value(QStringLiteral("recentFiles"))
                    .toStringList()
                    .contains(QFileInfo(sample("fruits.jpg")).absoluteFilePath()));
        // A second window starts with them.
        MainWindow second(controller(), kSamples);
        QVERIFY(second.controls()->logCheck()->isChecked());
        QCOMPARE(second.equalizePanel()->settings().mode, EqualizeSettings::Mode::Clahe);
        QCOMPARE(second.equalizePanel()->settings().strength, 0.4);
        QCOMPARE(second.equalizePanel()->settings().tiles_x, 3);
    }
};

QTEST_MAIN(TestUi)
#include "test_ui.moc"
