#pragma once
// Helpers of the desktop application's QtTest suites (test_ui, test_ui_raw): the application's
// registry, the CPU reference's counts and equalization of the pixels shown, raw files written
// as --raw reads them, and waiting for the window to settle. No OpenCV here: the suite of the
// GPU host's build (test_ui_raw) uses them too.

#include <QApplication>
#include <QByteArray>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "controller_setup.hpp"
#include "histoscope/core/display.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/core/image.hpp"
#include "histoscope/core/scope_picture.hpp"
#include "histoscope/core/scopes.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/histogram_model.hpp"
#include "histoscope/ui/image_view.hpp"
#include "histoscope/ui/main_window.hpp"
#include "histoscope/ui/qimage_convert.hpp"
#include "histoscope/ui/scopes_panel.hpp"
#include "histoscope/ui/theme.hpp"
#include "histoscope/ui/types.hpp"
#include "histoscope/ui/worker.hpp"
#include "scope_specs.hpp"

namespace ui_test {

// A suite's start as the application's: settings of its own, empty (kept under `app`), and the
// application's resources.
inline void fresh_settings(const char* app) {
    QCoreApplication::setOrganizationName(QStringLiteral("HistoscopeTest"));
    QCoreApplication::setApplicationName(QString::fromLatin1(app));
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    hs::ui::init_resources();
}

// The controller of `setup` on a worker thread, and the main window on it, shown at 1400 x 900.
inline void start_window(hs::gui::ControllerSetup setup, std::unique_ptr<hs::ui::Worker>& worker,
                         std::unique_ptr<hs::ui::MainWindow>& window) {
    worker = std::make_unique<hs::ui::Worker>(
        std::make_unique<hs::ui::Controller>(std::move(setup.registry), std::move(setup.options)));
    window = std::make_unique<hs::ui::MainWindow>(worker->controller(), QString());
    window->resize(1400, 900);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
}

// The registry the application runs with (GPU engines too when built with CUDA).
inline std::unique_ptr<hs::EngineRegistry> make_registry() {
    return hs::gui::make_controller_setup().registry;
}

// The GPU engines of that registry that can run here (none without a GPU).
inline QStringList available_gpu_engines() {
    const hs::gui::ControllerSetup setup = hs::gui::make_controller_setup();
    QStringList out;
    for (const QString& name : setup.options.gpu_engines)
        if (setup.registry->find(name.toStdString())->availability().available) out << name;
    return out;
}

inline std::vector<hs::Channel> shown_channels(const hs::ImageView& view) {
    if (view.channels == 1) return {hs::Channel::Gray};
    if (view.channels == 4)
        return {hs::Channel::R, hs::Channel::G, hs::Channel::B, hs::Channel::A,
                hs::Channel::Luma601};
    return {hs::Channel::R, hs::Channel::G, hs::Channel::B, hs::Channel::Luma601};
}

// The reference counts of `view` for the channels the application shows.
inline std::vector<hs::ChannelHistogram> reference_of(const hs::ImageView& view, int bins) {
    return hs::reference_histogram(view, shown_channels(view),
                                   hs::HistogramSpec::full_range(view, bins));
}

// The CPU reference's equalization of an image.
inline hs::Image equalized_reference(const hs::ImageView& image,
                                     const hs::ui::EqualizeSettings& s) {
    hs::EqualizeRequest r;
    r.image = image;
    r.mode = s.mode == hs::ui::EqualizeSettings::Mode::Clahe ? hs::EqualizeMode::Clahe
                                                             : hs::EqualizeMode::Global;
    r.space = s.luma ? hs::EqualizeSpace::Luma : hs::EqualizeSpace::Rgb;
    r.strength = s.strength;
    r.clip = s.clip;
    r.tiles_x = s.tiles_x;
    r.tiles_y = s.tiles_y;
    return hs::equalize_reference(r);
}

// The raw bytes of `frame` as --raw reads them (rows packed, 16-bit samples little-endian).
inline void append_raw(QByteArray& bytes, const hs::Image& frame) {
    const hs::ImageView v = frame.view();
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x)
            for (int c = 0; c < v.channels; ++c) {
                const std::uint32_t sample = v.sample(x, y, c);
                bytes.append(static_cast<char>(sample & 0xffu));
                if (v.type == hs::SampleType::U16) bytes.append(static_cast<char>(sample >> 8));
            }
}

// Writes `frames` to a file of raw frames in `dir` and returns its path (empty on failure).
inline QString write_raw(const QTemporaryDir& dir, const char* name,
                         const std::vector<const hs::Image*>& frames) {
    QByteArray bytes;
    for (const hs::Image* frame : frames) append_raw(bytes, *frame);
    const QString path = dir.filePath(QLatin1String(name));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size()) return {};
    return path;
}

// `image` with every sample shifted by `by` (wrapping), a frame that differs from it.
inline hs::Image shifted(const hs::Image& image, int by) {
    hs::Image out = image;
    const hs::ImageView v = out.view();
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x)
            for (int c = 0; c < v.channels; ++c)
                out.set_sample(x, y, c,
                               (v.sample(x, y, c) + static_cast<std::uint32_t>(by)) % 256u);
    return out;
}

// The picture the window shows of `image` over its full range, reduced for the view's zoom as
// the frame stream reduces it (histoscope/core/display.hpp).
inline QImage shown_picture(const hs::ui::MainWindow& window, const hs::ImageView& image) {
    const int factor = window.imageView()->displayFactor();
    return hs::ui::picture_qimage(
        hs::display_picture(image, factor, hs::full_display_range(image)).view());
}

// The brightest gray level of the original picture the window shows.
inline int brightest_shown(const hs::ui::MainWindow& window) {
    const QImage shown = window.imageView()->original().convertToFormat(QImage::Format_Grayscale8);
    int max = 0;
    for (int y = 0; y < shown.height(); ++y)
        for (int x = 0; x < shown.width(); ++x) max = std::max(max, qGray(shown.pixel(x, y)));
    return max;
}

inline bool model_matches(const hs::ui::HistogramModel& model,
                          const std::vector<hs::ChannelHistogram>& ref) {
    if (model.columnCount() != static_cast<int>(ref.size())) return false;
    for (int c = 0; c < model.columnCount(); ++c) {
        const auto& counts = ref[static_cast<std::size_t>(c)].counts;
        if (model.rowCount() != static_cast<int>(counts.size())) return false;
        for (int b = 0; b < model.rowCount(); ++b)
            if (model.count(b, c) != counts[static_cast<std::size_t>(b)]) return false;
        if (model.data(model.index(0, c)).toULongLong() != counts[0]) return false;
    }
    return true;
}

// Why the Scopes panel's waveform, parade and vectorscope (those a `counted` image has) are not
// exactly what core's scope_picture() draws of their reference over `counted`, with the panel's
// defaults (the luma waveform, or the gray sample; the Rec.601 vectorscope; at most 512
// columns); empty when they are.
inline QString scopes_problem(const hs::ui::ScopesPanel& panel, const hs::ImageView& counted) {
    const int columns = std::min(counted.width, 512);
    std::vector<hs::ScopeSpec> specs{hs::test::waveform(
        counted.channels == 1 ? hs::Channel::Gray : hs::Channel::Luma601, 256, columns)};
    if (counted.channels >= 3)
        specs.insert(specs.end(), {hs::test::parade(256, columns), hs::test::vectorscope(256)});
    for (const hs::ScopeSpec& spec : specs) {
        const QString kind = QString::fromLatin1(hs::scope_kind_name(spec.kind));
        const hs::ui::ScopeView* view = panel.view(kind);
        if (!view->isVisible()) return kind + QStringLiteral(" is not shown");
        const hs::ui::ScopeImage& shown = view->scope();
        const hs::Image want = hs::scope_picture(hs::reference_scope(counted, spec), spec);
        if (shown.picture.size() != QSize(want.width(), want.height()))
            return kind + QStringLiteral(" has another size");
        if (shown.pixels != counted.pixel_count())
            return kind + QStringLiteral(" counted %1 pixels").arg(shown.pixels);
        for (int y = 0; y < want.height(); ++y)
            for (int x = 0; x < want.width(); ++x)
                if (shown.picture.pixel(x, y) !=
                    qRgb(static_cast<int>(want.view().sample(x, y, 0)),
                         static_cast<int>(want.view().sample(x, y, 1)),
                         static_cast<int>(want.view().sample(x, y, 2))))
                    return kind + QStringLiteral(" differs at %1,%2").arg(x).arg(y);
    }
    return {};
}

// Waits until no result is pending: the last frame shown reflects every setting sent (a large
// photo's exact result included).
inline void settle(const hs::ui::MainWindow& window) {
    std::uint64_t seen = 0;
    do {
        seen = window.framesShown();
        QTest::qWait(300);
    } while (window.framesShown() != seen || window.busy());
}

}  // namespace ui_test
