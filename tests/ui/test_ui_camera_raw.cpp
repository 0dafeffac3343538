// The desktop application on camera raw DNGs written by numpy and tifffile
// (tests/support/make_dng.py): opened as a user opens a file, its CFA mosaic's histograms named
// r, g1, g2, b with numpy's counts, the black and white levels marked on the plot's axis, the
// photosites at them in the statistics, the camera and the shot in the status bar; then the
// demosaiced image through View > Camera Raw Mosaic.

#include <QAction>
#include <QCheckBox>
#include <QFile>
#include <QLabel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

#include "camera_raw_dng.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/controls_panel.hpp"
#include "histoscope/ui/histogram_model.hpp"
#include "histoscope/ui/histogram_view.hpp"
#include "histoscope/ui/image_view.hpp"
#include "histoscope/ui/main_window.hpp"
#include "histoscope/ui/raw_dialog.hpp"
#include "histoscope/ui/stats_model.hpp"
#include "histoscope/ui/theme.hpp"
#include "histoscope/ui/timing_panel.hpp"
#include "histoscope/ui/worker.hpp"
#include "ui_test_support.hpp"

using namespace hs::ui;

namespace {

constexpr int kTimeoutMs = 60000;

// numpy's counts of `colour` in `bins` even bins over a `depth`-bit range.
std::vector<std::uint64_t> binned(const hs::test::CfaTruth& colour, int bins, int depth) {
    std::vector<std::uint64_t> out(static_cast<std::size_t>(bins), 0);
    for (const auto& [v, n] : colour.counts)
        out[static_cast<std::size_t>((std::uint64_t{v} * static_cast<std::uint64_t>(bins)) >>
                                     depth)] += n;
    return out;
}

// The row of the statistics named `name`, or -1.
int stats_row(const StatsModel& model, const QString& name) {
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.headerData(r, Qt::Vertical).toString() == name) return r;
    return -1;
}

}  // namespace

class TestUiCameraRaw : public QObject {
    Q_OBJECT

  private:
    std::unique_ptr<Worker> worker_;
    std::unique_ptr<MainWindow> window_;
    QTemporaryDir dir_;

    void open(const QString& path) {
        const std::uint64_t seen = window_->framesShown();
        window_->openFile(path);
        QTRY_VERIFY2_WITH_TIMEOUT(window_->currentPath() == path && window_->framesShown() > seen,
                                  qPrintable(window_->lastError()), kTimeoutMs);
        ui_test::settle(*window_);
    }

    QString mediaTooltip() const {
        for (const QLabel* label : window_->statusBar()->findChildren<QLabel*>())
            if (label->toolTip().contains(window_->media().camera)) return label->toolTip();
        return {};
    }

    QString mediaLabel() const {
        for (const QLabel* label : window_->statusBar()->findChildren<QLabel*>())
            if (label->text().contains(window_->media().format + QStringLiteral("  ")))
                return label->text();
        return {};
    }

    // Whether the status bar shows `note` now: as its message, or in a label shown (elided,
    // the whole of it in its tooltip).
    bool noteShown(const QString& note) const {
        QStatusBar* bar = window_->statusBar();
        if (bar->currentMessage().contains(note)) return true;
        for (const QLabel* label : bar->findChildren<QLabel*>())
            if (label->isVisible() && !label->text().isEmpty() &&
                (label->text().contains(note) || label->toolTip().contains(note)))
                return true;
        return false;
    }

    // Whether the status bar's message is drawn whole: the widgets kept beside it (the media
    // and engine labels) start past its text (QStatusBar draws it from x 6 up to the first).
    bool messageWhole() const {
        QStatusBar* bar = window_->statusBar();
        int first = bar->width();
        for (const QWidget* w : bar->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
            if (w->isVisible() && w->x() > 0) first = std::min(first, w->x());
        const int needs = 6 + bar->fontMetrics().horizontalAdvance(bar->currentMessage()) + 2;
        return !bar->currentMessage().isEmpty() && needs <= first;
    }

    QAction* mosaicAction() const {
        return window_->findChild<QAction*>(QStringLiteral("mosaicAction"));
    }

    // Whether the plot draws the level marker's colour in the column of code value `value`.
    bool markerDrawnAt(std::uint32_t value) const {
        HistogramView* view = window_->histogramView();
        const HistogramData& d = window_->histogramModel()->histogram();
        const QImage shot = view->grab().toImage();
        const QRectF area = view->plotArea();
        const double x =
            area.left() + (value + 0.5) / static_cast<double>(d.upper - d.lower) * area.width();
        const double dpr = shot.devicePixelRatio();
        for (int dx = -1; dx <= 1; ++dx)
            for (double y = area.top() + area.height() * 0.3; y < area.bottom(); y += 1.0) {
                const QColor c =
                    shot.pixelColor(static_cast<int>((x + dx) * dpr), static_cast<int>(y * dpr));
                // The markers' amber (250, 200, 90), which no sum of the channels' fills makes.
                if (c.red() >= 240 && std::abs(c.green() - 200) <= 15 &&
                    std::abs(c.blue() - 90) <= 15)
                    return true;
            }
        return false;
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        ui_test::fresh_settings("test_ui_camera_raw");
        ui_test::start_window(hs::gui::make_controller_setup(), worker_, window_);
    }

    void cleanupTestCase() {
        window_.reset();
        worker_.reset();
        QSettings().clear();
    }

    void mosaicHistogramsLevelsAndMetadata() {
        hs::test::DngSpec spec;
        spec.width = 81;
        spec.height = 61;
        spec.above = 40;  // white and above it: clipped photosites to count
        spec.model = "UI Sensor";
        spec.iso = 800;
        spec.exposure = "1/60";
        const QString path = dir_.filePath(QStringLiteral("mosaic.dng"));
        QCOMPARE(QString::fromStdString(hs::test::make_dng(spec, path.toStdString())), QString());
        const hs::test::DngTruth truth = hs::test::read_truth(path.toStdString());
        open(path);

        const MediaInfo& m = window_->media();
        QCOMPARE(m.camera_raw_view, QStringLiteral("cfa"));
        QCOMPARE(m.format, QStringLiteral("DNG"));
        QCOMPARE(m.width, 40);
        QCOMPARE(m.height, 30);
        QCOMPARE(m.channels, 4);
        QCOMPARE(m.bit_depth, 13);  // the white level's 12 bits, widened: photosites reach 4135
        QVERIFY(mosaicAction()->isEnabled());
        QVERIFY(mosaicAction()->isChecked());

        // The histograms: r, g1, g2, b with numpy's counts (256 bins over the 13-bit range).
        const HistogramModel& model = *window_->histogramModel();
        const HistogramData& h = model.histogram();
        QCOMPARE(h.channel_names, (QStringList{"r", "g1", "g2", "b"}));
        QCOMPARE(h.upper, std::int64_t{8192});
        for (int c = 0; c < 4; ++c) {
            const hs::test::CfaTruth& t = truth.colours.at(h.channel_names[c].toStdString());
            const std::vector<std::uint64_t> want = binned(t, h.bins, 13);
            for (int b = 0; b < h.bins; ++b)
                QVERIFY2(model.count(b, c) == want[static_cast<std::size_t>(b)],
                         qPrintable(QStringLiteral("%1 bin %2").arg(h.channel_names[c]).arg(b)));
            QCOMPARE(h.levels[static_cast<std::size_t>(c)].at_or_above_white, t.at_or_above_white);
            QCOMPARE(h.levels[static_cast<std::size_t>(c)].at_or_below_black, t.at_or_below_black);
        }
        for (const char* name : {"g1", "g2"})
            QVERIFY2(window_->controls()->channelCheck(QLatin1String(name)) != nullptr, name);

        // The levels on the axis, labelled, and drawn where their code values are.
        QCOMPARE(h.markers.size(), 2);
        QCOMPARE(h.markers[0].label, QStringLiteral("black 256"));
        QCOMPARE(h.markers[1].label, QStringLiteral("white 4095"));
        QVERIFY(markerDrawnAt(256));
        QVERIFY(markerDrawnAt(4095));
        QVERIFY(!markerDrawnAt(2000));

        // The statistics: the photosites at or below black, at or above white, per colour.
        const StatsModel& stats = *window_->statsModel();
        const int below = stats_row(stats, QStringLiteral("<= black"));
        const int clipped = stats_row(stats, QStringLiteral(">= white (clipped)"));
        QVERIFY(below >= 0 && clipped >= 0);
        for (int c = 0; c < 4; ++c) {
            const hs::test::CfaTruth& t = truth.colours.at(h.channel_names[c].toStdString());
            QCOMPARE(stats.data(stats.index(below, c)).toString(),
                     QString::number(t.at_or_below_black));
            QCOMPARE(stats.data(stats.index(clipped, c)).toString(),
                     QString::number(t.at_or_above_white));
        }

        // The camera and the shot in the status bar.
        const QString label = mediaLabel();
        for (const QString& part :
             {QStringLiteral("CFA RGGB mosaic, black 256, white 4095"),
              QStringLiteral("Histoscope UI Sensor"), QStringLiteral("ISO 800"),
              QStringLiteral("1/60 s"), QStringLiteral("f/5.6")})
            QVERIFY2(label.contains(part), qPrintable(label));
        // No equalization of a mosaic: the equalized plot says where it is.
        QVERIFY2(window_->equalizedView()->placeholder().contains(QStringLiteral("demosaiced")),
                 qPrintable(window_->equalizedView()->placeholder()));

        // The demosaiced image: an ordinary 16-bit RGB image, no levels.
        mosaicAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window_->media().camera_raw_view, QStringLiteral("rgb"),
                                  kTimeoutMs);
        ui_test::settle(*window_);
        QCOMPARE(window_->media().width, 81);
        QCOMPARE(window_->media().bit_depth, 16);
        const HistogramData& rgb = window_->histogramModel()->histogram();
        QCOMPARE(rgb.channel_names, (QStringList{"r", "g", "b", "luma"}));
        QVERIFY(rgb.markers.isEmpty());
        QVERIFY(rgb.levels.empty());
        QVERIFY2(mediaLabel().contains(QStringLiteral("(demosaiced, linear)")),
                 qPrintable(mediaLabel()));
        QVERIFY(!window_->equalizedModel()->empty());  // equalized as any image
        mosaicAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window_->media().camera_raw_view, QStringLiteral("cfa"),
                                  kTimeoutMs);
        ui_test::settle(*window_);
    }

    void levelsPerColourAreMarkedEach() {
        hs::test::DngSpec spec;
        spec.width = 40;
        spec.height = 30;
        spec.pattern = "BGGR";
        spec.black = "512,520,530,520";  // b, g2, g1, r
        spec.white = 16383;
        const QString path = dir_.filePath(QStringLiteral("levels.dng"));
        QCOMPARE(QString::fromStdString(hs::test::make_dng(spec, path.toStdString())), QString());
        open(path);
        const HistogramData& h = window_->histogramModel()->histogram();
        QCOMPARE(h.channel_names, (QStringList{"r", "g1", "g2", "b"}));
        QStringList labels;
        for (const LevelMarker& m : h.markers) labels << m.label;
        QCOMPARE(labels,
                 (QStringList{"black r,g2 520", "black g1 530", "black b 512", "white 16383"}));
        QVERIFY(mediaLabel().contains(QStringLiteral("CFA BGGR mosaic, black 520/530/512")));
    }

    // The hover readout over a mosaic's plot covers none of its level labels (it sat at the top
    // left, over the black level's, and over the white level's when wide): every label stays
    // readable wherever the pointer is, overlaid or as a parade.
    void hoverReadoutHidesNoLevelLabel() {
        hs::test::DngSpec spec;
        spec.width = 40;
        spec.height = 30;
        spec.black = "512,520,530,520";  // three black labels, stacked
        spec.white = 16383;
        const QString path = dir_.filePath(QStringLiteral("hover.dng"));
        QCOMPARE(QString::fromStdString(hs::test::make_dng(spec, path.toStdString())), QString());
        open(path);
        HistogramView* view = window_->histogramView();
        for (const bool parade : {false, true}) {
            window_->controls()->paradeCheck()->setChecked(parade);
            ui_test::settle(*window_);
            const QList<QRectF> labels = view->levelLabelRects();
            QCOMPARE(labels.size(), parade ? 16 : 4);
            const QRectF area = view->plotArea();
            // Inside a lane (0.5 is the gap between a parade's middle lanes).
            for (const double t : {0.02, 0.1, 0.4, 0.6, 0.9, 0.98}) {
                const QPointF at(area.left() + area.width() * t, area.center().y());
                QMouseEvent move(QEvent::MouseMove, at, view->mapToGlobal(at), Qt::NoButton,
                                 Qt::NoButton, Qt::NoModifier);
                QApplication::sendEvent(view, &move);
                const QRectF box = view->readoutRect();
                QVERIFY(!box.isEmpty());
                const QImage shot = view->grab().toImage();
                const double dpr = shot.devicePixelRatio();
                for (const QRectF& label : labels) {
                    const QString where = QStringLiteral("parade %1, pointer at %2: label at %3,%4")
                                              .arg(parade)
                                              .arg(t)
                                              .arg(label.x())
                                              .arg(label.y());
                    QVERIFY2(!box.intersects(label), qPrintable(where));
                    // Its text drawn in the markers' amber, over no readout.
                    bool amber = false;
                    for (int y = static_cast<int>(label.top() * dpr);
                         y < static_cast<int>(label.bottom() * dpr) && !amber; ++y)
                        for (int x = static_cast<int>(label.left() * dpr);
                             x < static_cast<int>(label.right() * dpr) && !amber; ++x) {
                            const QColor c = shot.pixelColor(x, y);
                            amber = c.red() >= 200 && c.green() >= 150 && c.green() <= 215 &&
                                    c.blue() <= 120;
                        }
                    QVERIFY2(amber, qPrintable(where));
                }
            }
        }
        window_->controls()->paradeCheck()->setChecked(false);
        QEvent leave(QEvent::Leave);
        QApplication::sendEvent(view, &leave);
        QVERIFY(view->readoutRect().isEmpty());
    }

    // The rule of the CLI (hs::media::holds_raw_frames): a DNG named .raw is a camera raw file,
    // frames of pixels named .bin ask for their format.
    void rawAndBinFilesAreRawFramesUnlessTheirBytesSayOtherwise() {
        const QString dng = dir_.filePath(QStringLiteral("shot.raw"));
        QCOMPARE(QString::fromStdString(hs::test::make_dng(hs::test::DngSpec{}, dng.toStdString())),
                 QString());
        QVERIFY(!asks_raw_format(dng));
        open(dng);
        QVERIFY(window_->rawDialog() == nullptr);
        QCOMPARE(window_->media().format, QStringLiteral("DNG"));
        QCOMPARE(window_->media().camera_raw_view, QStringLiteral("cfa"));

        const QString frames = dir_.filePath(QStringLiteral("frames.bin"));
        {
            QFile out(frames);
            QVERIFY(out.open(QIODevice::WriteOnly));
            QByteArray bytes(600, '\0');
            for (int i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 + 3);
            out.write(bytes);
        }
        QVERIFY(asks_raw_format(frames));
        window_->openFile(frames);
        QVERIFY(window_->rawDialog() != nullptr);
        QCOMPARE(window_->rawDialog()->path(), frames);
        window_->rawDialog()->reject();
        QTRY_VERIFY(window_->rawDialog() == nullptr);
        QCOMPARE(window_->currentPath(), dng);  // nothing else was opened
    }

    // A file's notes stay in the status bar while it is shown: a passing message (the pixel
    // readout) covers them, and they come back after it.
    void notesStayInTheStatusBar() {
        hs::test::DngSpec spec;
        spec.linear = true;
        spec.width = 30;
        spec.height = 24;
        const QString path = dir_.filePath(QStringLiteral("notes.dng"));
        QCOMPARE(QString::fromStdString(hs::test::make_dng(spec, path.toStdString())), QString());
        open(path);
        const QString note = QStringLiteral("No 2x2 Bayer mosaic");
        QVERIFY(window_->media().notes.join(QString()).contains(note));
        // Once no passing message (the CPU's bandwidth, measured with the first file) covers
        // them.
        window_->statusBar()->clearMessage();
        QVERIFY(noteShown(note));
        emit window_->imageView()->pixelHovered(QPoint(3, 2), false);
        QVERIFY2(window_->statusBar()->currentMessage().contains(QStringLiteral("original:")),
                 qPrintable(window_->statusBar()->currentMessage()));
        emit window_->imageView()->pixelHovered(QPoint(-1, -1), false);
        QVERIFY(noteShown(note));
        // The next file's own notes (none) replace them.
        const QString other = dir_.filePath(QStringLiteral("other.dng"));
        spec.linear = false;
        QCOMPARE(QString::fromStdString(hs::test::make_dng(spec, other.toStdString())), QString());
        open(other);
        window_->statusBar()->clearMessage();
        QVERIFY(!noteShown(note));
    }

    // The pixel readout is drawn whole beside the long label of a camera raw file (its camera
    // and shot), which gives way, elided, the whole of it in its tooltip.
    void theReadoutIsWholeBesideTheMediaLabel() {
        hs::test::DngSpec spec;
        spec.width = 30;
        spec.height = 24;
        spec.make = "Histoscope Imaging Laboratories International";
        spec.model = "Extraordinarily Long Sensor Name Mark IV";
        for (const bool linear : {false, true}) {
            spec.linear = linear;
            const QString path =
                dir_.filePath(linear ? QStringLiteral("long_rgb.dng") : QStringLiteral("long.dng"));
            QCOMPARE(QString::fromStdString(hs::test::make_dng(spec, path.toStdString())),
                     QString());
            open(path);
            emit window_->imageView()->pixelHovered(QPoint(3, 2), false);
            const QString readout = window_->statusBar()->currentMessage();
            QVERIFY2(readout.contains(linear ? QStringLiteral("luma") : QStringLiteral("G2")),
                     qPrintable(readout));
            QTRY_VERIFY2(messageWhole(), qPrintable(readout));
            QVERIFY(mediaTooltip().contains(spec.model.c_str()));
            emit window_->imageView()->pixelHovered(QPoint(-1, -1), false);
        }
    }

    // The timing panel names what was computed (a count per code value of the sensor's depth)
    // and what is shown (the plot's bins), not one for the other.
    void theTimingPanelNamesTheValuesCountedAndTheBinsShown() {
        hs::test::DngSpec spec;
        spec.width = 40;
        spec.height = 30;
        spec.white = 16383;
        spec.black = "512";
        const QString path = dir_.filePath(QStringLiteral("timing.dng"));
        QCOMPARE(QString::fromStdString(hs::test::make_dng(spec, path.toStdString())), QString());
        open(path);
        const int shown = window_->histogramModel()->histogram().bins;
        QVERIFY(shown < 16384);
        const QString summary = window_->timingPanel()->summary();
        QVERIFY2(
            summary.contains(QStringLiteral("16384 code values counted, %1 bins shown").arg(shown)),
            qPrintable(summary));
    }

    void aLinearDngShowsItsDemosaicedImage() {
        hs::test::DngSpec spec;
        spec.linear = true;
        spec.width = 30;
        spec.height = 24;
        const QString path = dir_.filePath(QStringLiteral("linear.dng"));
        QCOMPARE(QString::fromStdString(hs::test::make_dng(spec, path.toStdString())), QString());
        open(path);
        QCOMPARE(window_->media().camera_raw_view, QStringLiteral("rgb"));
        QVERIFY(!mosaicAction()->isEnabled());
        QVERIFY(window_->media().notes.join(QString()).contains(QStringLiteral("No 2x2 Bayer")));
        QCOMPARE(window_->histogramModel()->histogram().channel_names,
                 (QStringList{"r", "g", "b", "luma"}));
    }
};

QTEST_MAIN(TestUiCameraRaw)
#include "test_ui_camera_raw.moc"
