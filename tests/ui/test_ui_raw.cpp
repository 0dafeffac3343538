// The desktop application on synthetic raw frames only, so that it needs no OpenCV and runs in
// every build, the GPU host's (gui-host preset) included: the application's own registry
// (hs::gui::make_controller_setup()), driven through the main window as a user would. Every
// engine the registry says can run here is selected in turn and its counts compared with the CPU
// reference of the same pixels; engines that cannot run must say why. On a machine with a GPU
// the GPU engines, "auto" and the GPU frame stream run for real; without one, only what needs
// the device is skipped, with QSKIP and the reason.

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QtTest>
#include <memory>
#include <vector>

#include "controller_setup.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/media/media.hpp"
#include "histoscope/ui/compare_dialog.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/controls_panel.hpp"
#include "histoscope/ui/equalize_panel.hpp"
#include "histoscope/ui/histogram_model.hpp"
#include "histoscope/ui/image_view.hpp"
#include "histoscope/ui/main_window.hpp"
#include "histoscope/ui/qimage_convert.hpp"
#include "histoscope/ui/region_bar.hpp"
#include "histoscope/ui/scopes_panel.hpp"
#include "histoscope/ui/theme.hpp"
#include "histoscope/ui/timing_model.hpp"
#include "histoscope/ui/timing_panel.hpp"
#include "histoscope/ui/worker.hpp"
#include "synthetic.hpp"
#include "ui_test_support.hpp"

using namespace hs::ui;
using namespace ui_test;

namespace {

constexpr int kTimeoutMs = 60000;

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// Uniform samples with both ends of the range present (first and last pixel).
hs::Image with_borders(hs::Image image) {
    const hs::ImageView v = image.view();
    const std::uint32_t top = (1u << image.bit_depth()) - 1u;
    for (int c = 0; c < v.channels; ++c) {
        image.set_sample(0, 0, c, 0);
        image.set_sample(v.width - 1, v.height - 1, c, top);
    }
    return image;
}

}  // namespace

class TestUiRaw : public QObject {
    Q_OBJECT

  private:
    std::unique_ptr<Worker> worker_;
    std::unique_ptr<MainWindow> window_;
    QTemporaryDir dir_;
    QStringList gpu_engines_;      // available GPU engines ("auto" picks one of them if any)
    QStringList host_equalizers_;  // the equalizers of the registry that run on the host
    int disk_reads_ = 0;           // copies of the settings' file read (savedOnDisk())

    Controller* controller() const { return worker_->controller(); }
    void settle() { ui_test::settle(*window_); }

    // What needs the device: skipped without one, with the reason (never a silent pass).
    bool noGpu() const { return gpu_engines_.isEmpty(); }
    static constexpr const char* kNoGpu =
        "no GPU engine can run on this machine: the part of this test that needs the device "
        "(GPU engines, auto's GPU choice, the GPU frame stream) runs on a GPU host (scripts/gpu.sh "
        "gui)";

    void openRaw(const QString& path, const QString& format) {
        window_->openRawFile(path, format);
        QTRY_VERIFY2_WITH_TIMEOUT(window_->currentPath() == path, qPrintable(window_->lastError()),
                                  kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(window_->imageView()->hasImage(), kTimeoutMs);
        settle();
    }

    void setEqualize(const EqualizeSettings& s) {
        if (window_->equalizePanel()->settings() == s) return settle();
        const std::uint64_t seen = window_->framesShown();
        window_->equalizePanel()->setSettings(s);
        emit window_->equalizePanel()->settingsChanged(window_->equalizePanel()->settings());
        QTRY_VERIFY_WITH_TIMEOUT(window_->framesShown() > seen, kTimeoutMs);
        settle();
    }

    // Picks `data` in `combo` as a user would and waits for the frame computed with it.
    void pick(QComboBox* combo, const QVariant& data) {
        const int index = combo->findData(data);
        QVERIFY2(index >= 0, qPrintable(data.toString()));
        if (combo->currentIndex() == index) return settle();
        const std::uint64_t seen = window_->framesShown();
        combo->setCurrentIndex(index);
        QTRY_VERIFY_WITH_TIMEOUT(window_->framesShown() > seen, kTimeoutMs);
        settle();
    }

    // Every histogram engine of the registry in the engine combo, on the frame shown (`view`,
    // at `bins`): those that can run give the reference counts, themselves or, when they
    // refuse this request, through the CPU reference with the reason in the status bar; those
    // that cannot run here are disabled with the reason. Returns the GPU engines that ran.
    QStringList checkEveryEngine(const hs::ImageView& view, int bins) {
        QStringList gpu_ran, refused;
        const auto reference = reference_of(view, bins);
        QComboBox* combo = window_->controls()->engineCombo();
        const auto* items = qobject_cast<QStandardItemModel*>(combo->model());
        const auto registry = make_registry();
        for (const auto& engine : registry->engines()) {
            const QString name = qs(engine->name());
            const hs::Availability a = engine->availability();
            const int index = combo->findData(name);
            // "auto" is always offered first: without a GPU it runs the CPU reference, said so.
            if (!a.available && name != QLatin1String("auto")) {
                // Listed, disabled, and saying why.
                [&] {
                    QVERIFY2(index > 0, qPrintable(name));
                    QVERIFY2(!a.reason.empty(), qPrintable(name));
                    QVERIFY(!items->item(index)->isEnabled());
                    QVERIFY2(combo->itemText(index).contains(QStringLiteral("unavailable")),
                             qPrintable(combo->itemText(index)));
                    QCOMPARE(combo->itemData(index, Qt::ToolTipRole).toString(),
                             QString::fromStdString(a.reason));
                }();
                if (QTest::currentTestFailed()) return {};
                continue;
            }
            pick(combo, name);
            if (QTest::currentTestFailed()) return {};
            const QString ran = window_->histogramModel()->histogram().engine;
            const QString status = window_->engineStatus();
            [&] {
                QVERIFY2(
                    model_matches(*window_->histogramModel(), reference),
                    qPrintable(QStringLiteral("%1 (ran: %2) at %3 bins").arg(name, ran).arg(bins)));
                QCOMPARE(window_->timingModel()->entries().front().engine, ran);
                if (name == QLatin1String("auto")) {
                    // A GPU engine when there is a GPU, else the CPU reference, said so.
                    if (noGpu()) {
                        QCOMPARE(ran, QStringLiteral("cpu"));
                        QVERIFY2(status.contains(QStringLiteral("CPU only")), qPrintable(status));
                    } else {
                        QVERIFY2(gpu_engines_.contains(ran), qPrintable(ran));
                    }
                } else if (ran != name) {
                    // This request is refused (e.g. a kernel without deep bins): the CPU
                    // reference ran, and the status bar says which engine could not.
                    QCOMPARE(ran, QStringLiteral("cpu"));
                    QVERIFY2(status.contains(QStringLiteral("%1 cannot run").arg(name)),
                             qPrintable(status));
                    refused << name;
                }
            }();
            if (QTest::currentTestFailed()) return {};
            // A GPU kernel of its own (auto counts above, not here).
            if (gpu_engines_.contains(ran) && ran == name && name != QLatin1String("auto"))
                gpu_ran << name;
        }
        qInfo("%d bins: GPU engines that ran: %s; refused this request: %s", bins,
              qPrintable(gpu_ran.join(QLatin1String(", "))),
              qPrintable(refused.join(QLatin1String(", "))));
        pick(combo, QStringLiteral("auto"));
        return gpu_ran;
    }

    // Every equalizer of the registry that can run here, in the equalizer combo: the equalized
    // picture and its counts are those of core's equalize_reference. Returns the non-CPU
    // equalizers that ran.
    QStringList checkEveryEqualizer(const hs::Image& image, const EqualizeSettings& s, int bins) {
        setEqualize(s);
        if (QTest::currentTestFailed()) return {};
        const hs::Image expected = equalized_reference(image.view(), s);
        const auto reference = reference_of(expected.view(), bins);
        const QImage picture = to_qimage(expected.view());
        QStringList ran_gpu;
        QComboBox* combo = window_->equalizePanel()->equalizerCombo();
        // The equalizer "auto" picks first (as the application starts), then each in turn.
        [&] {
            QCOMPARE(combo->currentData().toString(), QStringLiteral("auto"));
            QVERIFY2(model_matches(*window_->equalizedModel(), reference),
                     qPrintable(window_->timingModel()->entries().front().equalizer));
        }();
        if (QTest::currentTestFailed()) return {};
        const auto registry = make_registry();
        for (const auto& e : registry->equalizers()) {
            const QString name = qs(e->name());
            if (!e->availability().available) {
                const int index = combo->findData(name);
                [&] {
                    QVERIFY2(index > 0, qPrintable(name));
                    QVERIFY2(!e->availability().reason.empty(), qPrintable(name));
                    QVERIFY(!combo->itemData(index, Qt::ToolTipRole).toString().isEmpty());
                }();
                if (QTest::currentTestFailed()) return {};
                continue;
            }
            pick(combo, name);
            if (QTest::currentTestFailed()) return {};
            const QString ran = window_->timingModel()->entries().front().equalizer;
            [&] {
                // The one picked, or the CPU reference where it refuses this request.
                QVERIFY2(ran == name || ran == QLatin1String("cpu"), qPrintable(ran));
                QVERIFY2(model_matches(*window_->equalizedModel(), reference),
                         qPrintable(QStringLiteral("equalizer %1 (ran: %2)").arg(name, ran)));
                // 8-bit pictures are shown as they are (deeper ones may be stretched for
                // viewing: their counts above are what is exact).
                if (image.bit_depth() == 8)
                    QVERIFY2(window_->imageView()->equalized() == picture, qPrintable(name));
            }();
            if (QTest::currentTestFailed()) return {};
            if (ran == name && !host_equalizers_.contains(name)) ran_gpu << name;
        }
        pick(combo, QStringLiteral("auto"));
        return ran_gpu;
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        fresh_settings("test_ui_raw");
        hs::gui::ControllerSetup setup = hs::gui::make_controller_setup();
        gpu_engines_ = available_gpu_engines();
        hs::EngineRegistry host;  // the registry without the GPU's
        hs::register_core_engines(host);
        hs::media::register_engines(host);
        for (const auto& e : host.equalizers()) host_equalizers_ << qs(e->name());
        qInfo("GPU engines available here: %s",
              gpu_engines_.isEmpty() ? "none" : qPrintable(gpu_engines_.join(QLatin1String(", "))));
        start_window(std::move(setup), worker_, window_);
        if (QTest::currentTestFailed()) return;
        // Fresh settings: equalization global, 100%; the engine "auto".
        QCOMPARE(window_->equalizePanel()->settings().mode, EqualizeSettings::Mode::Global);
        QCOMPARE(window_->controls()->engineCombo()->currentData().toString(),
                 QStringLiteral("auto"));
    }

    void cleanupTestCase() {
        window_.reset();
        worker_.reset();
        QSettings().clear();
    }

    void rgbFrameIsExactWithEveryEngineAndEqualizer() {
        // Odd sizes, uniform samples, both ends of the range.
        const hs::Image rgb =
            with_borders(hs::test::uniform(1021, 767, 3, hs::SampleType::U8, 8, 11));
        const QString path = write_raw(dir_, "rgb.raw", {&rgb});
        QVERIFY(!path.isEmpty());
        openRaw(path, QStringLiteral("1021x767x3:u8"));
        QVERIFY(!window_->media().video);
        QCOMPARE(window_->imageView()->original(), to_qimage(rgb.view()));
        // The default engine ("auto") first, as the application starts.
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(rgb.view(), 256)));
        const QString by_auto = window_->histogramModel()->histogram().engine;
        if (noGpu()) QCOMPARE(by_auto, QStringLiteral("cpu"));
        const QStringList gpu_ran = checkEveryEngine(rgb.view(), 256);
        QVERIFY(!QTest::currentTestFailed());
        EqualizeSettings s;
        s.mode = EqualizeSettings::Mode::Global;
        s.luma = true;
        s.strength = 0.8;
        const QStringList global_gpu = checkEveryEqualizer(rgb, s, 256);
        QVERIFY(!QTest::currentTestFailed());
        s.mode = EqualizeSettings::Mode::Clahe;
        s.luma = false;
        s.strength = 1.0;
        s.clip = 3.0;
        s.tiles_x = 5;
        s.tiles_y = 7;
        const QStringList clahe_gpu = checkEveryEqualizer(rgb, s, 256);
        QVERIFY(!QTest::currentTestFailed());
        s = EqualizeSettings{};
        s.mode = EqualizeSettings::Mode::Global;
        setEqualize(s);
        if (noGpu()) {
            QVERIFY(gpu_ran.isEmpty());
            QSKIP(kNoGpu);
        }
        QVERIFY2(gpu_engines_.contains(by_auto), qPrintable(by_auto));
        QVERIFY2(!gpu_ran.isEmpty(), "no GPU engine ran on an 8-bit RGB frame");
        QVERIFY2(!global_gpu.isEmpty() || !clahe_gpu.isEmpty(),
                 "no GPU equalizer ran (every one refused or fell back to the CPU)");
    }

    void unavailableEngineSaysWhyAndTheReferenceRuns() {
        // Each engine that cannot run here, picked anyway (e.g. from remembered settings): the
        // CPU reference runs, and the status bar names the engine that could not.
        const hs::Image rgb = hs::test::uniform(33, 17, 3, hs::SampleType::U8, 8, 5);
        const QString path = write_raw(dir_, "small.raw", {&rgb});
        openRaw(path, QStringLiteral("33x17x3:u8"));
        QComboBox* combo = window_->controls()->engineCombo();
        int unavailable = 0;
        const auto registry = make_registry();
        for (const auto& engine : registry->engines()) {
            if (engine->availability().available || engine->name() == "auto") continue;
            ++unavailable;
            const QString name = qs(engine->name());
            pick(combo, name);
            QCOMPARE(window_->histogramModel()->histogram().engine, QStringLiteral("cpu"));
            QVERIFY(model_matches(*window_->histogramModel(), reference_of(rgb.view(), 256)));
            QVERIFY2(window_->engineStatus().contains(QStringLiteral("%1 cannot run").arg(name)),
                     qPrintable(window_->engineStatus()));
        }
        pick(combo, QStringLiteral("auto"));
        qInfo("%d engines cannot run here", unavailable);
        if (noGpu()) {
            // A CUDA build without a device lists its GPU engines, each unavailable.
            const hs::gui::ControllerSetup setup = hs::gui::make_controller_setup();
            QCOMPARE(unavailable, static_cast<int>(setup.options.gpu_engines.size()) -
                                      (setup.registry->find("auto") != nullptr ? 1 : 0));
        }
    }

    void deepRawAt4096BinsIsExactWithEveryEngine() {
        // 16-bit samples of a 12-bit sensor, odd sizes, both ends of the 12-bit range.
        const hs::Image deep =
            with_borders(hs::test::uniform(1283, 721, 1, hs::SampleType::U16, 12, 7));
        const QString path = write_raw(dir_, "sensor12.raw", {&deep});
        openRaw(path, QStringLiteral("1283x721x1:u16:12"));
        QCOMPARE(window_->media().bit_depth, 12);
        QVERIFY(window_->controls()->binsCombo()->findData(4096) >= 0);
        QCOMPARE(window_->controls()->binsCombo()->findData(8192), -1);
        pick(window_->controls()->binsCombo(), 4096);
        QTRY_COMPARE_WITH_TIMEOUT(window_->histogramModel()->rowCount(), 4096, kTimeoutMs);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(deep.view(), 4096)));
        const QStringList gpu_ran = checkEveryEngine(deep.view(), 4096);
        QVERIFY(!QTest::currentTestFailed());
        EqualizeSettings s;
        s.mode = EqualizeSettings::Mode::Global;
        s.strength = 1.0;
        const QStringList eq_gpu = checkEveryEqualizer(deep, s, 4096);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(equalized_reference(deep.view(), s).bit_depth(), 12);
        pick(window_->controls()->binsCombo(), 256);
        if (noGpu()) QSKIP(kNoGpu);
        QVERIFY2(!gpu_ran.isEmpty(), "no GPU engine ran at 4096 bins on 12-bit samples");
        qInfo("GPU equalizers that ran at 12 bits: %s",
              qPrintable(eq_gpu.join(QLatin1String(", "))));
    }

    void compareKernelsVerifiesEveryEngine() {
        const hs::Image rgb =
            with_borders(hs::test::uniform(1021, 767, 3, hs::SampleType::U8, 8, 13));
        const QString path = write_raw(dir_, "compare.raw", {&rgb});
        openRaw(path, QStringLiteral("1021x767x3:u8"));
        window_->openCompareDialog();
        CompareDialog* dialog = window_->compareDialog();
        QVERIFY(dialog != nullptr);
        dialog->findChild<QSpinBox*>()->setValue(5);
        QSignalSpy finished(dialog, &CompareDialog::finished);
        dialog->start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 240000);
        QCOMPARE(finished.first().first().toBool(), false);
        const auto registry = make_registry();
        QCOMPARE(static_cast<int>(dialog->rows().size()),
                 static_cast<int>(registry->engines().size()));
        QStringList gpu_timed, unsupported;
        for (const BenchRow& row : dialog->rows()) {
            const QString engine = QString::fromStdString(row.kernel);
            const hs::HistogramEngine* e = registry->find(row.kernel);
            QVERIFY2(e != nullptr, qPrintable(engine));
            QCOMPARE(row.input, std::string("compare.raw"));
            QCOMPARE(row.width, 1021);
            QCOMPARE(row.height, 767);
            if (!e->availability().available) {
                QCOMPARE(row.status, std::string("unavailable"));
                QVERIFY2(!row.reason.empty(), qPrintable(engine));
                continue;
            }
            if (row.status == "unsupported") {
                // An engine that can run here but not this request says why.
                QVERIFY2(!row.reason.empty() && engine != QLatin1String("cpu"), qPrintable(engine));
                unsupported << engine;
                continue;
            }
            QVERIFY2(row.status == "ok",
                     qPrintable(engine + QLatin1String(": ") + QString::fromStdString(row.reason)));
            QVERIFY2(row.verified, qPrintable(engine));
            QCOMPARE(row.runs, 5);
            QVERIFY(row.median_ms > 0.0);
            if (gpu_engines_.contains(engine)) gpu_timed << engine;
        }
        qInfo("Compare Kernels: GPU engines verified and timed: %s; unsupported: %s",
              qPrintable(gpu_timed.join(QLatin1String(", "))),
              qPrintable(unsupported.join(QLatin1String(", "))));
        dialog->findChild<QSpinBox*>()->setValue(20);
        dialog->close();
        if (noGpu()) QSKIP(kNoGpu);
        QVERIFY2(!gpu_timed.isEmpty(), "Compare Kernels timed no GPU engine");
    }

    void aFrameThatFailsIsDroppedAndSteppedOver() {
        // Ten 12-bit frames; the sixth holds 5000, which is not a 12-bit sample.
        std::vector<hs::Image> frames;
        for (int k = 0; k < 10; ++k)
            frames.push_back(hs::test::uniform(32, 16, 1, hs::SampleType::U16, 12,
                                               static_cast<unsigned>(7 + k)));
        frames[5].set_sample(3, 2, 0, 5000);
        std::vector<const hs::Image*> all;
        for (const hs::Image& f : frames) all.push_back(&f);
        const QString path = write_raw(dir_, "bad12.raw", all);
        openRaw(path, QStringLiteral("32x16x1:u16:12"));
        QCOMPARE(window_->playback().frames, 10);
        // Stepping from frame 5 (index 4) lands on index 6; the failure is said (a notice).
        QSignalSpy notices(controller(), &Controller::notice);
        emit window_->seekRequested(4);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 4, kTimeoutMs);
        emit window_->stepRequested(1);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 6, kTimeoutMs);
        settle();
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(frames[6].view(), 256)));
        QVERIFY(!notices.isEmpty());
        QVERIFY2(notices.first().first().toString().contains(QStringLiteral("5000")),
                 qPrintable(notices.first().first().toString()));
        // Playing from the start drops the bad frame and goes on to the last.
        emit window_->seekRequested(0);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 0, kTimeoutMs);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, 60000);
        settle();
        QCOMPARE(window_->playback().frame, 9);
        QCOMPARE(window_->playback().failed, 1);  // said apart from the frames dropped for time
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(frames[9].view(), 256)));
    }

    // Video > Go to Frame (Ctrl+G) puts the cursor in the frame number's box beside the slider: a
    // number typed and entered shows that frame, exactly, and the bar says when it falls.
    void goToFrameShowsTheFrameTyped() {
        std::vector<hs::Image> frames;
        for (int k = 0; k < 40; ++k)
            frames.push_back(hs::test::uniform(48, 32, 3, hs::SampleType::U8, 8,
                                               static_cast<unsigned>(300 + k)));
        std::vector<const hs::Image*> all;
        for (const hs::Image& f : frames) all.push_back(&f);
        const QString path = write_raw(dir_, "goto.raw", all);
        openRaw(path, QStringLiteral("48x32x3:u8"));
        QSpinBox* spin = window_->frameSpin();
        QVERIFY(spin->isVisible());
        QCOMPARE(spin->maximum(), 39);
        QCOMPARE(spin->value(), 0);
        window_->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(window_.get()));
        QTest::keyClick(window_.get(), Qt::Key_G, Qt::ControlModifier);
        QTRY_VERIFY(spin->hasFocus());
        QTest::keyClicks(spin, QStringLiteral("27"));
        QTest::qWait(200);
        QCOMPARE(window_->playback().frame, 0);  // nothing until the number is entered
        QTest::keyClick(spin, Qt::Key_Return);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 27, kTimeoutMs);
        settle();
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(frames[27].view(), 256)));
        // At the 25 frames per second raw frames play at: 27 / 25 s.
        const auto* label = window_->findChild<QLabel*>(QStringLiteral("frameLabel"));
        QVERIFY(label != nullptr);
        QVERIFY2(label->text().contains(QStringLiteral("Frame 27 of 0..39 at 0:01.080")),
                 qPrintable(label->text()));
        // The box follows every other way of moving: a step.
        window_->imageView()->setFocus();
        emit window_->stepRequested(1);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 28, kTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(spin->value(), 28, kTimeoutMs);
        settle();
    }

    // The file dialog open in the window (the save dialog, or a static one), once it shows.
    static QFileDialog* shownFileDialog() {
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < kTimeoutMs) {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (auto* d = qobject_cast<QFileDialog*>(w); d != nullptr && d->isVisible())
                    return d;
            QTest::qWait(20);
        }
        return nullptr;
    }
    static QString offeredName(QFileDialog* dialog) {
        const auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
        return name != nullptr ? name->text() : QString();
    }

    // Save Equalized Image and the exports of a stream's frame default to names with the frame's
    // number, so that saving several frames replaces none; asked while it plays, they pause
    // first, and the file holds the frame its name says.
    void savingAFrameNamesItsNumber() {
        std::vector<hs::Image> frames;
        for (int k = 0; k < 30; ++k)
            frames.push_back(hs::test::uniform(40, 24, 3, hs::SampleType::U8, 8,
                                               static_cast<unsigned>(500 + k)));
        std::vector<const hs::Image*> all;
        for (const hs::Image& f : frames) all.push_back(&f);
        const QString path = write_raw(dir_, "clip.raw", all);
        openRaw(path, QStringLiteral("40x24x3:u8"));
        QAction* save = nullptr;
        QAction* csv = nullptr;
        QAction* loop = nullptr;
        for (QAction* a : window_->findChildren<QAction*>()) {
            if (a->text() == QLatin1String("&Save Equalized Image As...")) save = a;
            if (a->text() == QLatin1String("&Export Histogram CSV...")) csv = a;
            if (a->text() == QLatin1String("L&oop")) loop = a;
        }
        QVERIFY(save != nullptr && csv != nullptr && loop != nullptr);
        const EqualizeSettings settings = window_->equalizePanel()->settings();
        QVERIFY(settings.mode == EqualizeSettings::Mode::Global ||
                settings.mode == EqualizeSettings::Mode::Clahe);
        QSignalSpy saved(controller(), &Controller::imageSaved);
        // Saves frame `n` under the name offered, which names it.
        const auto saves_frame = [&](std::int64_t n) {
            QFileDialog* dialog = shownFileDialog();
            QVERIFY(dialog != nullptr);
            QVERIFY(!window_->playback().playing);
            QCOMPARE(window_->playback().frame, n);
            QCOMPARE(offeredName(dialog), QStringLiteral("clip-frame-%1-equalized.png").arg(n));
            const qsizetype before = saved.count();
            static_cast<QDialog*>(dialog)->accept();
            QTRY_COMPARE_WITH_TIMEOUT(saved.count(), before + 1, kTimeoutMs);
            const QString file = saved.last().first().toString();
            QCOMPARE(file, dir_.filePath(QStringLiteral("clip-frame-%1-equalized.png").arg(n)));
            const hs::Image want =
                ui_test::equalized_reference(frames[static_cast<std::size_t>(n)].view(), settings);
            const hs::Image got = hs::media::read_image(file.toStdString()).image;
            QCOMPARE(got.channels(), want.channels());
            bool same = true;
            for (int y = 0; y < want.height() && same; ++y)
                for (int x = 0; x < want.width() && same; ++x)
                    for (int c = 0; c < want.channels(); ++c)
                        same = same && got.view().sample(x, y, c) == want.view().sample(x, y, c);
            QVERIFY2(same, qPrintable(file));
        };
        emit window_->seekRequested(7);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 7, kTimeoutMs);
        settle();
        save->trigger();
        saves_frame(7);
        if (QTest::currentTestFailed()) return;
        // Asked while the clip plays: it pauses, and the name is the frame it stopped on.
        loop->setChecked(true);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing && window_->playback().frame > 9,
                                 kTimeoutMs);
        save->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, kTimeoutMs);
        settle();
        saves_frame(window_->playback().frame);
        if (QTest::currentTestFailed()) return;
        // The histogram's CSV too.
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing, kTimeoutMs);
        // The static dialog runs its own loop: watched from a timer of that loop, not waited for.
        QString offered;
        QTimer watch;
        watch.setInterval(20);
        connect(&watch, &QTimer::timeout, this, [&] {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (auto* d = qobject_cast<QFileDialog*>(w); d != nullptr && d->isVisible()) {
                    watch.stop();
                    offered = offeredName(d);
                    d->reject();
                    return;
                }
        });
        watch.start();
        csv->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!offered.isEmpty(), kTimeoutMs);
        QVERIFY(!window_->playback().playing);
        QCOMPARE(offered,
                 QStringLiteral("clip-frame-%1-histogram.csv").arg(window_->playback().frame));
        loop->setChecked(false);
        settle();
    }

    // The settings as written to disk: read from a copy of the file, since QSettings objects of
    // one process share what they hold of a file, written or not.
    QVariant savedOnDisk(const QString& key) {
        const QString copy = dir_.filePath(QStringLiteral("settings-%1.conf").arg(++disk_reads_));
        if (!QFile::copy(QSettings().fileName(), copy)) return {};
        return QSettings(copy, QSettings::IniFormat).value(key);
    }

    // Each setting is on disk soon after it changes, the window still open: a SIGTERM or a
    // crash loses none of them (they were saved on a normal quit only).
    void settingsAreSavedAsTheyChange() {
        const hs::Image frame = hs::test::uniform(32, 16, 3, hs::SampleType::U8, 8, 77);
        openRaw(write_raw(dir_, "settings.raw", {&frame}), QStringLiteral("32x16x3:u8"));
        const bool log = !window_->controls()->logCheck()->isChecked();
        window_->controls()->logCheck()->setChecked(log);
        QTRY_COMPARE_WITH_TIMEOUT(savedOnDisk(QStringLiteral("histogram/log")).toBool(), log,
                                  kTimeoutMs);
        pick(window_->controls()->binsCombo(), 64);
        QTRY_COMPARE_WITH_TIMEOUT(savedOnDisk(QStringLiteral("histogram/bins")).toInt(), 64,
                                  kTimeoutMs);
        EqualizeSettings clahe;
        clahe.mode = EqualizeSettings::Mode::Clahe;
        clahe.strength = 0.6;
        clahe.tiles_x = 3;
        setEqualize(clahe);
        QTRY_COMPARE_WITH_TIMEOUT(savedOnDisk(QStringLiteral("equalize/mode")).toInt(),
                                  static_cast<int>(EqualizeSettings::Mode::Clahe), kTimeoutMs);
        QCOMPARE(savedOnDisk(QStringLiteral("equalize/strength")).toDouble(), 0.6);
        QCOMPARE(savedOnDisk(QStringLiteral("equalize/tilesX")).toInt(), 3);
        QAction* clipping = window_->findChild<QAction*>(QStringLiteral("clippingAction"));
        QVERIFY(clipping != nullptr);
        const bool overlay = !clipping->isChecked();
        clipping->setChecked(overlay);
        QTRY_COMPARE_WITH_TIMEOUT(savedOnDisk(QStringLiteral("view/clipping")).toBool(), overlay,
                                  kTimeoutMs);
        // The window's size too.
        window_->resize(window_->width() - 40, window_->height());
        QTRY_COMPARE_WITH_TIMEOUT(savedOnDisk(QStringLiteral("window/geometry")).toByteArray(),
                                  window_->saveGeometry(), kTimeoutMs);
        // Back as the other tests expect them.
        window_->controls()->logCheck()->setChecked(!log);
        clipping->setChecked(!overlay);
        pick(window_->controls()->binsCombo(), 256);
        EqualizeSettings global;
        global.mode = EqualizeSettings::Mode::Global;
        setEqualize(global);
        window_->resize(1400, 900);
        settle();
    }

    void rawStreamPlaysToItsLastFrame() {
        // 250 small frames, each different: 10 s at the 25 frames per second of raw streams.
        constexpr int kFrames = 250;
        std::vector<hs::Image> frames;
        QByteArray bytes;
        for (int k = 0; k < kFrames; ++k) {
            frames.push_back(hs::test::uniform(160, 90, 3, hs::SampleType::U8, 8,
                                               static_cast<unsigned>(100 + k)));
            append_raw(bytes, frames.back());
        }
        const QString path = dir_.filePath(QStringLiteral("stream.raw"));
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            QCOMPARE(file.write(bytes), bytes.size());
        }
        openRaw(path, QStringLiteral("160x90x3:u8"));
        QVERIFY(window_->media().video);
        QCOMPARE(window_->playback().frames, kFrames);
        QCOMPARE(window_->playback().frame, 0);
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(frames[0].view(), 256)));
        QSignalSpy errors(controller(), &Controller::errorOccurred);
        QSignalSpy notices(controller(), &Controller::notice);
        const std::uint64_t shown = window_->framesShown();
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, 180000);
        settle();
        const PlaybackState state = window_->playback();
        QCOMPARE(state.frame, kFrames - 1);
        // Ended: the status bar no longer says it plays.
        QTRY_VERIFY2_WITH_TIMEOUT(!window_->engineStatus().contains(QStringLiteral("playing")),
                                  qPrintable(window_->engineStatus()), kTimeoutMs);
        QCOMPARE(state.frames, kFrames);
        QCOMPARE(errors.count(), 0);
        QCOMPARE(notices.count(), 0);
        // Every frame after the first is shown or dropped; drops never exceed the frames.
        const auto drawn = static_cast<std::int64_t>(window_->framesShown() - shown);
        QVERIFY2(drawn >= 1 && drawn + state.dropped >= kFrames - 1 && state.dropped < kFrames,
                 qPrintable(QStringLiteral("%1 drawn, %2 dropped").arg(drawn).arg(state.dropped)));
        // The last frame is shown, exactly.
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(frames.back().view(), 256)));
        QCOMPARE(window_->imageView()->original(), to_qimage(frames.back().view()));
        // Playback ran on a frame stream of the registry and says which.
        const FrameTiming& played = window_->timingModel()->entries().front();
        QCOMPARE(played.frame, kFrames - 1);
        QVERIFY(played.total_ms > 0.0);
        QVERIFY(window_->timingPanel()->summary().contains(QStringLiteral("frame stream")));
        // The frame named as what it is: a raw file's, not a video's.
        QCOMPARE(played.frame_kind, QStringLiteral("raw"));
        QVERIFY2(window_->timingPanel()->summary().contains(
                     QStringLiteral("raw frame %1,").arg(kFrames - 1)),
                 qPrintable(window_->timingPanel()->summary()));
        QVERIFY(!window_->timingPanel()->summary().contains(QStringLiteral("video")));
        qInfo("played %d frames: %lld drawn, %lld dropped, engine %s, frame stream %s", kFrames,
              static_cast<long long>(drawn), static_cast<long long>(state.dropped),
              qPrintable(played.engine), qPrintable(played.stream));
        const auto registry = make_registry();
        QVERIFY2(registry->find(played.engine.toStdString()) != nullptr, qPrintable(played.engine));
        if (noGpu()) {
            // The host's frame stream, with a host engine.
            QCOMPARE(played.stream, QStringLiteral("cpu"));
            QVERIFY2(!hs::gui::make_controller_setup().options.gpu_engines.contains(played.engine),
                     qPrintable(played.engine));
            QSKIP(kNoGpu);
        }
        // The GPU frame pipeline, with a GPU engine.
        QCOMPARE(played.stream, QStringLiteral("gpu"));
        QVERIFY2(gpu_engines_.contains(played.engine), qPrintable(played.engine));
    }

    // A deep stream looks the same playing and paused: over its stretched range, with the note
    // saying so, while Stretch Deep Images is on, over the full range once it is off, whenever
    // it is switched; and the status bar says "playing" while it plays, and only then.
    void deepStreamIsShownAlikePlayingAndPaused() {
        constexpr int kFrames = 100;
        QByteArray bytes;
        for (int k = 0; k < kFrames; ++k) {
            hs::Image frame(160, 90, 1, hs::SampleType::U16, 16);
            for (int y = 0; y < 90; ++y)
                for (int x = 0; x < 160; ++x)
                    frame.set_sample(
                        x, y, 0,
                        static_cast<std::uint32_t>(20000 + (x * 40 + y * 20 + k * 100) % 8000));
            append_raw(bytes, frame);
        }
        const QString path = dir_.filePath(QStringLiteral("deep.raw"));
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            QCOMPARE(file.write(bytes), bytes.size());
        }
        QAction* stretch = window_->findChild<QAction*>(QStringLiteral("stretchAction"));
        QVERIFY(stretch != nullptr && stretch->isChecked());
        QAction* loop = nullptr;
        for (QAction* a : window_->findChildren<QAction*>())
            if (a->text() == QLatin1String("L&oop")) loop = a;
        QVERIFY(loop != nullptr);
        loop->setChecked(true);  // it plays until paused
        openRaw(path, QStringLiteral("160x90x1:u16"));
        // Samples 20000..27999: at most 109 of 255 over the full range, up to 255 stretched.
        const auto brightest = [this] { return brightest_shown(*window_); };
        const auto stretched = [&] {
            return brightest() > 240 &&
                   window_->imageView()->note().contains(QStringLiteral("display"));
        };
        const auto full_range = [&] {
            return brightest() <= 110 && window_->imageView()->note().isEmpty();
        };
        const auto says_playing = [this] {
            return window_->engineStatus().contains(QStringLiteral("playing"));
        };
        QVERIFY(stretched());
        QVERIFY2(!says_playing(), qPrintable(window_->engineStatus()));
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing && window_->playback().frame >= 3,
                                 kTimeoutMs);
        QTRY_VERIFY2_WITH_TIMEOUT(says_playing(), qPrintable(window_->engineStatus()), kTimeoutMs);
        QVERIFY(stretched());
        // Off while it plays: the next frames are shown over the full range.
        stretch->trigger();
        QTRY_VERIFY2_WITH_TIMEOUT(full_range(), qPrintable(window_->imageView()->note()),
                                  kTimeoutMs);
        QVERIFY(window_->playback().playing);
        const std::uint64_t shown = window_->framesShown();
        QTRY_VERIFY_WITH_TIMEOUT(window_->framesShown() > shown + 2, kTimeoutMs);
        QVERIFY(full_range());
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, kTimeoutMs);
        settle();
        QVERIFY(full_range());
        QTRY_VERIFY2_WITH_TIMEOUT(!says_playing(), qPrintable(window_->engineStatus()), kTimeoutMs);
        // On while paused, then played: stretched both ways.
        stretch->trigger();
        QTRY_VERIFY2_WITH_TIMEOUT(stretched(), qPrintable(window_->imageView()->note()),
                                  kTimeoutMs);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing, kTimeoutMs);
        const std::uint64_t playing = window_->framesShown();
        QTRY_VERIFY_WITH_TIMEOUT(window_->framesShown() > playing + 2, kTimeoutMs);
        QVERIFY2(stretched(), qPrintable(window_->imageView()->note()));
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, kTimeoutMs);
        settle();
        QVERIFY(stretched());
        QTRY_VERIFY2_WITH_TIMEOUT(!says_playing(), qPrintable(window_->engineStatus()), kTimeoutMs);
        loop->setChecked(false);
    }

    // The scopes follow a clip as it plays, computed in the frame stream with the histograms (on
    // the GPU pipeline where there is one), of the region typed; the last frame's are exact.
    void scopesPlayLiveOverARegion() {
        constexpr int kFrames = 60;
        std::vector<hs::Image> frames;
        std::vector<const hs::Image*> written;
        for (int k = 0; k < kFrames; ++k)
            frames.push_back(hs::test::gaussian(320, 180, 3, hs::SampleType::U8, 8, 10.0 + k,
                                                static_cast<unsigned>(7 + k)));
        for (const hs::Image& f : frames) written.push_back(&f);
        const QString path = write_raw(dir_, "scoped.raw", written);
        QVERIFY(!path.isEmpty());
        openRaw(path, QStringLiteral("320x180x3:u8"));
        ScopesPanel* panel = window_->scopesPanel();
        for (const char* kind : {"waveform", "parade", "vectorscope"})
            panel->button(QString::fromLatin1(kind))->setChecked(true);
        window_->scopesDock()->show();
        RegionBar* bar = window_->regionBar();
        const int region[] = {31, 17, 250, 101};
        for (int i = 0; i < 4; ++i) bar->spin(i)->setValue(region[i]);
        QTRY_VERIFY_WITH_TIMEOUT(
            scopes_problem(*panel, hs::crop(frames[0].view(), {31, 17, 250, 101})).isEmpty(),
            kTimeoutMs);
        QSignalSpy errors(controller(), &Controller::errorOccurred);
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, 60000);
        settle();
        QCOMPARE(window_->playback().frame, kFrames - 1);
        QCOMPARE(errors.count(), 0);
        const hs::ImageView last = hs::crop(frames.back().view(), {31, 17, 250, 101});
        const QString problem = scopes_problem(*panel, last);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(model_matches(*window_->histogramModel(), reference_of(last, 256)));
        // The scopes were a stage of the frame stream.
        const FrameTiming& played = window_->timingModel()->entries().front();
        bool scoped = false;
        for (const StageTiming& st : played.stages) scoped = scoped || st.name == "scopes";
        QVERIFY(scoped);
        qInfo("scopes played on the '%s' frame stream", qPrintable(played.stream));
        bar->clearButton()->click();
        window_->scopesDock()->hide();
        settle();
        if (!noGpu()) QCOMPARE(played.stream, QStringLiteral("gpu"));
    }

    // The timing panel names a frame by its source: a clip's, a raw file's, standard input's;
    // a photo has no frame number.
    void timingPanelNamesTheFramesSource() {
        TimingModel model(4);
        TimingPanel panel(&model);
        const auto said = [&](const QString& kind, std::int64_t frame) {
            FrameTiming t;
            t.engine = QStringLiteral("cpu");
            t.frame = frame;
            t.frame_kind = kind;
            model.add(t);
            return panel.summary();
        };
        QVERIFY(said(QStringLiteral("video"), 7).contains(QStringLiteral("video frame 7,")));
        QVERIFY(said(QStringLiteral("raw"), 8).contains(QStringLiteral("raw frame 8,")));
        const QString live = said(QStringLiteral("live"), 9);
        QVERIFY2(live.contains(QStringLiteral("frame 9 of standard input,")), qPrintable(live));
        QVERIFY2(!live.contains(QStringLiteral("video")), qPrintable(live));
        QVERIFY(!said(QString(), -1).contains(QStringLiteral("frame -1")));
    }

    // The pixel readout in the status bar follows each frame presented under a pointer that does
    // not move: a step, every frame of playback to the last, another file opened (once the
    // status bar's message about it has had its time).
    void pixelReadoutFollowsEachFrameUnderAStillPointer() {
        constexpr int kFrames = 40;
        std::vector<hs::Image> frames;
        std::vector<const hs::Image*> written;
        for (int k = 0; k < kFrames; ++k)
            frames.push_back(
                hs::test::make_image(120, 80, 3, hs::SampleType::U16, 12, [&](int x, int y, int c) {
                    return static_cast<std::uint32_t>((x * 7 + y * 13 + c * 101 + k * 331) % 4096);
                }));
        for (const hs::Image& f : frames) written.push_back(&f);
        const QString path = write_raw(dir_, "readout.raw", written);
        QVERIFY(!path.isEmpty());
        openRaw(path, QStringLiteral("120x80x3:u16:12"));
        EqualizeSettings off;
        off.mode = EqualizeSettings::Mode::Off;  // one picture: the pointer reads the original
        setEqualize(off);
        QCOMPARE(window_->playback().frame, 0);
        ImageView* view = window_->imageView();
        view->fit();
        settle();
        const QPoint centre = view->rect().center();
        const QPoint pixel = view->pixelAt(centre);
        QVERIFY(pixel.x() >= 0 && pixel.y() >= 0);
        QMouseEvent move(QEvent::MouseMove, centre, view->mapToGlobal(centre), Qt::NoButton,
                         Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(view, &move);
        // "R 1234  G 567  B 890" of the pixel in `image`.
        const auto samples = [&](const hs::Image& image, QPoint at) {
            const hs::ImageView v = image.view();
            return QStringLiteral("R %1  G %2  B %3")
                .arg(v.sample(at.x(), at.y(), 0))
                .arg(v.sample(at.x(), at.y(), 1))
                .arg(v.sample(at.x(), at.y(), 2));
        };
        const auto reads = [&](const QString& text) {
            return window_->statusBar()->currentMessage().contains(text);
        };
        QVERIFY2(reads(samples(frames[0], pixel)),
                 qPrintable(window_->statusBar()->currentMessage()));
        // A step.
        emit window_->stepRequested(1);
        QTRY_COMPARE_WITH_TIMEOUT(window_->playback().frame, 1, kTimeoutMs);
        settle();
        QTRY_VERIFY2_WITH_TIMEOUT(reads(samples(frames[1], pixel)),
                                  qPrintable(window_->statusBar()->currentMessage()), kTimeoutMs);
        // Playback: each frame shown is read, the last one last.
        QStringList seen;
        const QMetaObject::Connection watch =
            connect(window_->statusBar(), &QStatusBar::messageChanged, this,
                    [&](const QString& text) { seen << text; });
        emit window_->playToggleRequested();
        QTRY_VERIFY_WITH_TIMEOUT(window_->playback().playing, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(!window_->playback().playing, 60000);
        settle();
        disconnect(watch);
        QCOMPARE(window_->playback().frame, kFrames - 1);
        QVERIFY2(reads(samples(frames.back(), pixel)),
                 qPrintable(window_->statusBar()->currentMessage()));
        // Frames between were read as they were shown (dropped ones aside).
        int frames_read = 0;
        for (int k = 2; k < kFrames - 1; ++k)
            frames_read +=
                seen.filter(samples(frames[static_cast<std::size_t>(k)], pixel)).isEmpty() ? 0 : 1;
        QVERIFY2(frames_read > 0, qPrintable(seen.join(QLatin1Char('\n'))));
        // Another file under the same pointer: its pixel there.
        hs::Image other = hs::test::uniform(90, 60, 3, hs::SampleType::U16, 12, 77);
        const QString other_path = write_raw(dir_, "other.raw", {&other});
        openRaw(other_path, QStringLiteral("90x60x3:u16:12"));
        const QPoint other_pixel = view->pixelAt(centre);
        QVERIFY(other_pixel.x() >= 0 && other_pixel.y() >= 0);
        QTRY_VERIFY2_WITH_TIMEOUT(reads(samples(other, other_pixel)),
                                  qPrintable(window_->statusBar()->currentMessage()), kTimeoutMs);
        QEvent leave(QEvent::Leave);  // the pointer leaves: no readout
        QApplication::sendEvent(view, &leave);
        QVERIFY(window_->statusBar()->currentMessage().isEmpty());
        EqualizeSettings global;
        global.mode = EqualizeSettings::Mode::Global;
        setEqualize(global);
    }
};

QTEST_MAIN(TestUiRaw)
#include "test_ui_raw.moc"
