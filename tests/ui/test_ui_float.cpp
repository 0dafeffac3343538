// The desktop application on float (HDR) images: an OpenEXR file written by OpenEXR's library and
// PFM and float TIFF files written by numpy, opened as a user opens a file: their histograms in
// stops over -16..+16 EV with the CPU reference's counts at the bins chosen, luminance (luma709)
// beside R, G, B, the float statistics, the exposure slider changing the picture only (as core's
// float_display_picture makes it), the readout of a pixel's float values, and equalization
// saying that a float image is tone mapped.

#include <QComboBox>
#include <QLabel>
#include <QMouseEvent>
#include <QSlider>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <memory>

#include "exr_writer.hpp"
#include "histoscope/core/display.hpp"
#include "histoscope/core/stats.hpp"
#include "histoscope/media/media.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/controls_panel.hpp"
#include "histoscope/ui/equalize_panel.hpp"
#include "histoscope/ui/export.hpp"
#include "histoscope/ui/histogram_model.hpp"
#include "histoscope/ui/histogram_view.hpp"
#include "histoscope/ui/image_view.hpp"
#include "histoscope/ui/main_window.hpp"
#include "histoscope/ui/pixel_readout.hpp"
#include "histoscope/ui/qimage_convert.hpp"
#include "histoscope/ui/stats_model.hpp"
#include "histoscope/ui/worker.hpp"
#include "run_command.hpp"
#include "ui_test_support.hpp"

using namespace hs::ui;

namespace {

constexpr int kTimeoutMs = 60000;

// A scene of 2^-12 .. 2^12 across, tinted down, a corner of NaN and zeros.
float scene(int x, int y, int c) {
    if (x < 2 && y < 2) return x == 0 ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
    const double ev = -12.0 + 24.0 * x / 199.0 + 0.5 * std::sin(y * 0.3);
    return static_cast<float>(std::exp2(ev) * (0.5 + 0.25 * (c + 1) * (1 + std::cos(y * 0.2))));
}

// What the window counts, as README says: `bins` stops over -16..+16 EV; R, G, B (A), then the
// luminance.
hs::HistogramSpec stops(int bins) {
    return hs::HistogramSpec::floating(hs::FloatBins::stops(
        {-16, 1}, {16, 1}, hs::parse_rational("32/" + std::to_string(bins), "step")));
}
std::vector<hs::Channel> shown(const hs::ImageView& image) {
    std::vector<hs::Channel> c{hs::Channel::R, hs::Channel::G, hs::Channel::B};
    if (image.channels == 4) c.push_back(hs::Channel::A);
    c.push_back(hs::Channel::Luma709);
    return c;
}

int stats_row(const StatsModel& model, const QString& name) {
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.headerData(r, Qt::Vertical).toString() == name) return r;
    return -1;
}

}  // namespace

class TestUiFloat : public QObject {
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

    QString mediaLabel() const {
        for (const QLabel* label : window_->statusBar()->findChildren<QLabel*>())
            if (label->text().contains(window_->media().format + QStringLiteral("  ")))
                return label->text();
        return {};
    }

    // The model shows the CPU reference's counts of `image` at `bins` window bins.
    QString countsProblem(const hs::ImageView& image, int bins) const {
        const HistogramModel& model = *window_->histogramModel();
        const auto ref = hs::reference_histogram(image, shown(image), stops(bins));
        if (model.rowCount() != bins) return QStringLiteral("%1 rows").arg(model.rowCount());
        if (!ui_test::model_matches(model, ref)) return QStringLiteral("other counts");
        const HistogramData& d = model.histogram();
        if (d.unit != QLatin1String("EV") || d.lower != -16 || d.upper != 16)
            return QStringLiteral("not stops over -16..16 EV");
        return {};
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        ui_test::fresh_settings("test_ui_float");
        ui_test::start_window(hs::gui::make_controller_setup(), worker_, window_);
    }

    void cleanupTestCase() {
        window_.reset();
        worker_.reset();
        QSettings().clear();
    }

    void openExrShowsStopsLuminanceAndFloatStatistics() {
        hs::test::ExrSpec spec;
        spec.width = 200;
        spec.height = 90;
        spec.x0 = -20;  // a data window off the origin: its pixels are the image
        spec.y0 = 7;
        spec.type = Imf::FLOAT;
        const QString path = dir_.filePath(QStringLiteral("scene.exr"));
        hs::test::write_exr(path.toStdString(), spec, scene);
        open(path);
        const hs::media::LoadedImage image = hs::media::read_image(path.toStdString());
        QVERIFY2(mediaLabel().contains(QStringLiteral("32-bit float (linear)")),
                 qPrintable(mediaLabel()));
        QCOMPARE(window_->histogramModel()->histogram().channel_names,
                 (QStringList{"r", "g", "b", "luma709"}));
        const QString problem = countsProblem(image.image.view(), 256);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        // Bins offered: 16 to 4096 stops; the exposure slider is there.
        QComboBox* bins = window_->controls()->binsCombo();
        QCOMPARE(bins->itemData(bins->count() - 1).toInt(), 4096);
        QVERIFY(window_->controls()->exposureSlider()->isVisible());
        // No equalization of a float image: its controls are off (the CLI tone maps it).
        QVERIFY(!window_->equalizePanel()->modeCombo()->isEnabled());
        QVERIFY(!window_->equalizePanel()->strengthSlider()->isEnabled());
        QVERIFY(!window_->equalizePanel()->equalizerCombo()->isEnabled());
        // The statistics: the float rows, the luminance's as core computes them.
        const StatsModel& stats = *window_->statsModel();
        const int non_finite = stats_row(stats, QStringLiteral("non-finite"));
        const int median = stats_row(stats, QStringLiteral("median"));
        QVERIFY(non_finite >= 0 && median >= 0);
        const hs::FloatStats want =
            hs::compute_float_stats(image.image.view(), hs::Channel::Luma709, stops(256));
        QCOMPARE(stats.data(stats.index(non_finite, 3)).toString(),
                 QString::number(want.non_finite));
        QCOMPARE(stats.data(stats.index(median, 3)).toString(),
                 QString::number(want.median, 'g', 6));
        QVERIFY(want.non_finite > 0);
        // The exported CSV gives the samples outside the bins, as the CLI's does, then the
        // stops' edges.
        const QString csv = histogram_csv(window_->histogramModel()->histogram(), {});
        const QString outside = QStringLiteral(
                                    "# outside luma709: below_range=%1 above_range=%2 "
                                    "non_finite=%3\n")
                                    .arg(want.below_range)
                                    .arg(want.above_range)
                                    .arg(want.non_finite);
        QVERIFY2(csv.startsWith(QStringLiteral("# outside r: below_range=")), qPrintable(csv));
        QVERIFY2(csv.contains(outside + QStringLiteral("bin,lower_ev,upper_ev,r,g,b,luma709\n"
                                                       "0,-16,-15.875,")),
                 qPrintable(csv.left(400)));
        // Other bin counts, counted again.
        bins->setCurrentIndex(bins->findData(1024));
        QTRY_VERIFY_WITH_TIMEOUT(window_->histogramModel()->rowCount() == 1024, kTimeoutMs);
        ui_test::settle(*window_);
        const QString again = countsProblem(image.image.view(), 1024);
        QVERIFY2(again.isEmpty(), qPrintable(again));
        bins->setCurrentIndex(bins->findData(256));
        QTRY_VERIFY_WITH_TIMEOUT(window_->histogramModel()->rowCount() == 256, kTimeoutMs);
        ui_test::settle(*window_);
    }

    void exposureChangesThePictureOnly() {
        const hs::media::LoadedImage image =
            hs::media::read_image(window_->currentPath().toStdString());
        const HistogramData before = window_->histogramModel()->histogram();
        QSlider* slider = window_->controls()->exposureSlider();
        for (const int tenths : {25, -40, 0}) {
            slider->setValue(tenths);
            const double ev = tenths / 10.0;
            const int factor = window_->imageView()->displayFactor();
            const QImage want =
                picture_qimage(hs::float_display_picture(image.image.view(), factor, ev).view());
            QTRY_VERIFY_WITH_TIMEOUT(window_->imageView()->original() == want, kTimeoutMs);
            ui_test::settle(*window_);
            QCOMPARE(window_->histogramModel()->histogram().counts, before.counts);
        }
    }

    void readoutGivesTheFloatValues() {
        ImageView* view = window_->imageView();
        view->fit();
        const QPoint centre = view->rect().center();
        const QPoint pixel = view->pixelAt(centre);
        QVERIFY(pixel.x() >= 0 && pixel.y() >= 0);
        QMouseEvent move(QEvent::MouseMove, centre, view->mapToGlobal(centre), Qt::NoButton,
                         Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(view, &move);
        const hs::media::LoadedImage image =
            hs::media::read_image(window_->currentPath().toStdString());
        const QString want =
            pixel_readout(image.image.view(), pixel.x(), pixel.y(), {}, false, 0.0);
        const QString text = window_->statusBar()->currentMessage();
        QVERIFY2(text.contains(want), qPrintable(text + " / " + want));
        const float r = image.image.view().sample_f32(pixel.x(), pixel.y(), 0);
        QVERIFY2(want.startsWith(QStringLiteral("R %1  G ").arg(QString::number(r, 'g', 4))),
                 qPrintable(want));
        QVERIFY(want.contains(QStringLiteral(" EV)  (8-bit ")));
    }

    void equalizationSaysFloatImagesAreToneMapped() {
        QVERIFY2(window_->equalizedView()->placeholder().contains(QStringLiteral("tone mapped")),
                 qPrintable(window_->equalizedView()->placeholder()));
    }

    void pfmAndFloatTiffOpenWithExactCounts() {
        for (const QString& name : {QStringLiteral("numpy.pfm"), QStringLiteral("numpy.tif")}) {
            const QString path = dir_.filePath(name);
            const hs::test::CommandResult made = hs::test::run_command(
                std::string(HS_TEST_PYTHON) + " " + HS_FLOAT_REFERENCE +
                (name.endsWith(QStringLiteral(".pfm")) ? " write-pfm " : " write-tiff ") +
                path.toStdString() +
                (name.endsWith(QStringLiteral(".pfm")) ? " 97 41 3 big 4" : " 97 41 4 5 zlib"));
            QVERIFY2(made.exit_code == 0, made.err.c_str());
            open(path);
            const hs::media::LoadedImage image = hs::media::read_image(path.toStdString());
            const QString problem = countsProblem(image.image.view(), 256);
            QVERIFY2(problem.isEmpty(), qPrintable(name + ": " + problem));
        }
        // An 8-bit image after them: its equalization controls are back.
        const QString png = dir_.filePath(QStringLiteral("gray.png"));
        hs::media::write_image(png.toStdString(), hs::Image(8, 4, 1, hs::SampleType::U8).view());
        open(png);
        QVERIFY(window_->equalizePanel()->modeCombo()->isEnabled());
        QVERIFY(window_->equalizePanel()->strengthSlider()->isEnabled());
    }
};

QTEST_MAIN(TestUiFloat)
#include "test_ui_float.moc"
