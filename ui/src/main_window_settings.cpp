// MainWindow's persistence: what the user left (window layout, histogram and equalization
// settings, view toggles, loop) restored at start and saved as it changes, and the recent files.

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QTimer>
#include <algorithm>

#include "histoscope/core/bench.hpp"
#include "histoscope/ui/controls_panel.hpp"
#include "histoscope/ui/equalize_panel.hpp"
#include "histoscope/ui/main_window.hpp"
#include "histoscope/ui/scopes_panel.hpp"

namespace hs::ui {

namespace {

constexpr int kMaxRecent = 8;
// Changes this close together are saved once, when they stop: a dragged slider or a window
// being resized writes the file once, not at every step.
constexpr int kSettingsSaveDelayMs = 250;
const QString kRecentKey = QStringLiteral("recentFiles");

}  // namespace

void MainWindow::restoreSettings() {
    QSettings s;
    if (s.value(QStringLiteral("machine/cpu")).toString() ==
        QString::fromStdString(hs::cpu_description()))
        emit hostBandwidthRequested(s.value(QStringLiteral("machine/readBandwidthGbs")).toDouble());
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    // A size kept from a larger screen is brought back within this one, as a first window is.
    if (const QScreen* screen = this->screen()) {
        const QRect available = screen->availableGeometry();
        const QSize decorations = frameGeometry().size() - size();
        const QSize fit = size().boundedTo(available.size() - decorations);
        if (fit != size()) {
            resize(fit);
            move(std::clamp(x(), available.left(), available.right() - frameGeometry().width() + 1),
                 std::clamp(y(), available.top(),
                            available.bottom() - frameGeometry().height() + 1));
        }
    }
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    main_splitter_->restoreState(s.value(QStringLiteral("window/mainSplitter")).toByteArray());
    right_splitter_->restoreState(s.value(QStringLiteral("window/rightSplitter")).toByteArray());
    controls_->logCheck()->setChecked(s.value(QStringLiteral("histogram/log"), false).toBool());
    controls_->cumulativeCheck()->setChecked(
        s.value(QStringLiteral("histogram/cumulative"), false).toBool());
    controls_->paradeCheck()->setChecked(
        s.value(QStringLiteral("histogram/parade"), false).toBool());
    const int bins = s.value(QStringLiteral("histogram/bins"), 256).toInt();
    controls_->selectBins(bins);
    emit binsRequested(bins);
    const QString engine =
        s.value(QStringLiteral("histogram/kernel"), QStringLiteral("auto")).toString();
    controls_->selectEngine(engine);
    emit engineRequested(engine);
    EqualizeSettings e;
    e.mode = static_cast<EqualizeSettings::Mode>(
        std::clamp(s.value(QStringLiteral("equalize/mode"), 1).toInt(), 0, 3));
    e.luma = s.value(QStringLiteral("equalize/luma"), true).toBool();
    e.strength = std::clamp(s.value(QStringLiteral("equalize/strength"), 1.0).toDouble(), 0.0, 1.0);
    e.clip = s.value(QStringLiteral("equalize/clip"), 2.0).toDouble();
    e.tiles_x = s.value(QStringLiteral("equalize/tilesX"), 8).toInt();
    e.tiles_y = s.value(QStringLiteral("equalize/tilesY"), 8).toInt();
    equalize_->setSettings(e);
    sent_equalize_ = equalize_->settings();
    emit equalizeRequested(sent_equalize_);
    const QString reference = s.value(QStringLiteral("equalize/reference")).toString();
    if (!reference.isEmpty() && QFileInfo::exists(reference)) emit referenceRequested(reference);
    if (s.value(QStringLiteral("view/sideBySide"), false).toBool()) side_action_->setChecked(true);
    loop_action_->setChecked(s.value(QStringLiteral("video/loop"), false).toBool());
    clipping_action_->setChecked(s.value(QStringLiteral("view/clipping"), false).toBool());
    stretch_action_->setChecked(s.value(QStringLiteral("view/stretchDeep"), true).toBool());
    // Before any file opens (the controller takes requests in order).
    mosaic_action_->setChecked(s.value(QStringLiteral("view/cameraRawMosaic"), true).toBool());
    sendDisplay();
    ScopeSettings scopes;
    scopes.histogram = s.value(QStringLiteral("scopes/histogram"), true).toBool();
    scopes.waveform = s.value(QStringLiteral("scopes/waveform"), true).toBool();
    scopes.parade = s.value(QStringLiteral("scopes/parade"), true).toBool();
    scopes.vectorscope = s.value(QStringLiteral("scopes/vectorscope"), true).toBool();
    scopes.waveform_channel =
        s.value(QStringLiteral("scopes/waveformChannel"), QStringLiteral("luma")).toString();
    scopes.rec709 = s.value(QStringLiteral("scopes/rec709"), false).toBool();
    scopes_->setSettings(scopes);
    sendScopes();
}

void MainWindow::saveSettings() const {
    QSettings s;
    // A window not shown yet (or no more) has no layout the user saw.
    if (isVisible()) {
        s.setValue(QStringLiteral("window/geometry"), saveGeometry());
        s.setValue(QStringLiteral("window/state"), saveState());
        s.setValue(QStringLiteral("window/mainSplitter"), main_splitter_->saveState());
        s.setValue(QStringLiteral("window/rightSplitter"), right_splitter_->saveState());
    }
    s.setValue(QStringLiteral("histogram/log"), controls_->logCheck()->isChecked());
    const ScopeSettings scopes = scopes_->settings();
    s.setValue(QStringLiteral("scopes/histogram"), scopes.histogram);
    s.setValue(QStringLiteral("scopes/waveform"), scopes.waveform);
    s.setValue(QStringLiteral("scopes/parade"), scopes.parade);
    s.setValue(QStringLiteral("scopes/vectorscope"), scopes.vectorscope);
    s.setValue(QStringLiteral("scopes/waveformChannel"), scopes.waveform_channel);
    s.setValue(QStringLiteral("scopes/rec709"), scopes.rec709);
    s.setValue(QStringLiteral("histogram/cumulative"), controls_->cumulativeCheck()->isChecked());
    s.setValue(QStringLiteral("histogram/parade"), controls_->paradeCheck()->isChecked());
    s.setValue(QStringLiteral("histogram/bins"), controls_->bins());
    s.setValue(QStringLiteral("histogram/kernel"), controls_->engine());
    // What the controller got: Match chosen while its reference is still being picked is not
    // kept until the reference has loaded.
    const EqualizeSettings& e = sent_equalize_;
    s.setValue(QStringLiteral("equalize/mode"), static_cast<int>(e.mode));
    s.setValue(QStringLiteral("equalize/luma"), e.luma);
    s.setValue(QStringLiteral("equalize/strength"), e.strength);
    s.setValue(QStringLiteral("equalize/clip"), e.clip);
    s.setValue(QStringLiteral("equalize/tilesX"), e.tiles_x);
    s.setValue(QStringLiteral("equalize/tilesY"), e.tiles_y);
    s.setValue(QStringLiteral("view/sideBySide"), side_action_->isChecked());
    s.setValue(QStringLiteral("video/loop"), loop_action_->isChecked());
    s.setValue(QStringLiteral("view/clipping"), clipping_action_->isChecked());
    s.setValue(QStringLiteral("view/stretchDeep"), stretch_action_->isChecked());
    s.setValue(QStringLiteral("view/cameraRawMosaic"), wanted_mosaic_);
}

void MainWindow::watchSettings() {
    settings_save_->setSingleShot(true);
    settings_save_->setInterval(kSettingsSaveDelayMs);
    // A QSettings written to and destroyed writes its file (saveSettings()'s).
    connect(settings_save_, &QTimer::timeout, this, &MainWindow::saveSettings);
    // After restoreSettings(): what it set is no change. The requests the controller gets
    // stand for the settings they carry.
    connect(this, &MainWindow::binsRequested, this, &MainWindow::scheduleSettingsSave);
    connect(this, &MainWindow::engineRequested, this, &MainWindow::scheduleSettingsSave);
    connect(this, &MainWindow::equalizeRequested, this, &MainWindow::scheduleSettingsSave);
    connect(this, &MainWindow::loopRequested, this, &MainWindow::scheduleSettingsSave);
    connect(this, &MainWindow::displayRequested, this, &MainWindow::scheduleSettingsSave);
    connect(this, &MainWindow::scopesRequested, this, &MainWindow::scheduleSettingsSave);
    connect(this, &MainWindow::cameraRawViewRequested, this, &MainWindow::scheduleSettingsSave);
    for (auto signal : {&ControlsPanel::logToggled, &ControlsPanel::cumulativeToggled,
                        &ControlsPanel::paradeToggled})
        connect(controls_, signal, this, &MainWindow::scheduleSettingsSave);
    connect(side_action_, &QAction::toggled, this, &MainWindow::scheduleSettingsSave);
    // The layout: the splitters, the scopes' dock (resizing and moving the window itself are
    // resizeEvent() and moveEvent()).
    for (QSplitter* splitter : {main_splitter_, right_splitter_})
        connect(splitter, &QSplitter::splitterMoved, this, &MainWindow::scheduleSettingsSave);
    connect(scopes_dock_, &QDockWidget::dockLocationChanged, this,
            &MainWindow::scheduleSettingsSave);
    connect(scopes_dock_, &QDockWidget::topLevelChanged, this, &MainWindow::scheduleSettingsSave);
}

void MainWindow::scheduleSettingsSave() {
    settings_save_->start();
}

void MainWindow::rebuildRecentMenu() {
    recent_menu_->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    for (const QString& path : recent)
        recent_menu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); })
            ->setToolTip(path);
    recent_menu_->setToolTipsVisible(true);
    if (!recent.isEmpty()) {
        recent_menu_->addSeparator();
        recent_menu_->addAction(tr("Clear Recent"), this, [this] {
            QSettings().remove(kRecentKey);
            rebuildRecentMenu();
        });
    }
    recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::addRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue(kRecentKey, recent);
    rebuildRecentMenu();
}

}  // namespace hs::ui
