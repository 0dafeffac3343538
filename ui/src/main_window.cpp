#include "histoscope/ui/main_window.hpp"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QSettings>
#include <QSlider>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <limits>

#include "histoscope/ui/compare_dialog.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/controls_panel.hpp"
#include "histoscope/ui/export.hpp"
#include "histoscope/ui/histogram_model.hpp"
#include "histoscope/ui/histogram_view.hpp"
#include "histoscope/ui/image_view.hpp"
#include "histoscope/ui/stats_model.hpp"
#include "histoscope/ui/timing_model.hpp"
#include "histoscope/ui/timing_panel.hpp"

namespace hs::ui {

namespace {

constexpr int kMaxRecent = 8;
const QString kRecentKey = QStringLiteral("recentFiles");
const QString kMediaFilter = QStringLiteral(
    "Photos and video (*.png *.jpg *.jpeg *.tif *.tiff *.bmp *.webp *.ppm *.pgm *.pnm *.avi "
    "*.mp4 *.mkv *.mov *.webm);;Photos (*.png *.jpg *.jpeg *.tif *.tiff *.bmp *.webp *.ppm "
    "*.pgm *.pnm);;Video (*.avi *.mp4 *.mkv *.mov *.webm);;All files (*)");

QString base_name(const QString& path) {
    return QFileInfo(path).completeBaseName();
}

}  // namespace

MainWindow::MainWindow(Controller* controller, const QString& samples_dir, QWidget* parent)
    : QMainWindow(parent),
      controller_(controller),
      samples_dir_(samples_dir),
      histogram_model_(new HistogramModel(this)),
      equalized_model_(new HistogramModel(this)),
      stats_model_(new StatsModel(this)),
      timing_model_(new TimingModel(60, this)),
      image_view_(new ImageView(this)),
      histogram_view_(new HistogramView(this)),
      equalized_view_(new HistogramView(this)),
      plots_(new QWidget(this)),
      controls_(new ControlsPanel(this)),
      equalize_(new EqualizePanel(this)),
      stats_view_(new QTableView(this)),
      timing_panel_(new TimingPanel(timing_model_, this)),
      tabs_(new QTabWidget(this)),
      split_slider_(new QSlider(Qt::Horizontal, this)),
      video_bar_(new QWidget(this)),
      play_button_(new QToolButton(this)),
      frame_slider_(new QSlider(Qt::Horizontal, this)),
      frame_label_(new QLabel(this)),
      engine_label_(new QLabel(this)),
      media_label_(new QLabel(this)) {
    setWindowTitle(tr("Histoscope"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/histoscope.svg")));
    setAcceptDrops(true);
    histogram_view_->setModel(histogram_model_);
    histogram_view_->setTitle(tr("Original"));
    equalized_view_->setModel(equalized_model_);
    equalized_view_->setTitle(tr("Equalized"));
    equalized_view_->setPlaceholder(tr("Equalization is off: choose a mode below"));
    buildLayout();
    buildMenus();
    connectController();
    statusBar()->addPermanentWidget(media_label_);
    statusBar()->addPermanentWidget(engine_label_);
    const int em = fontMetrics().height();
    resize(em * 96, em * 56);
    restoreSettings();
    emit enginesRequested();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildLayout() {
    // Left: the image, the before/after divider and the video bar.
    split_slider_->setRange(0, 1000);
    split_slider_->setValue(500);
    split_slider_->setToolTip(tr("Before/after divider: original left, equalized right"));
    play_button_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    play_button_->setToolTip(tr("Play/pause (Space)"));
    frame_slider_->setToolTip(tr("Seek: the frame follows while dragging"));
    frame_label_->setMinimumWidth(
        fontMetrics().horizontalAdvance(QStringLiteral("Frame 00000 / 00000  dropped 00000")));
    auto* video_layout = new QHBoxLayout(video_bar_);
    video_layout->setContentsMargins(0, 0, 0, 0);
    auto* prev = new QToolButton(this);
    prev->setIcon(style()->standardIcon(QStyle::SP_MediaSeekBackward));
    prev->setToolTip(tr("Previous frame (,)"));
    auto* next = new QToolButton(this);
    next->setIcon(style()->standardIcon(QStyle::SP_MediaSeekForward));
    next->setToolTip(tr("Next frame (.)"));
    video_layout->addWidget(prev);
    video_layout->addWidget(play_button_);
    video_layout->addWidget(next);
    video_layout->addWidget(frame_slider_, 1);
    video_layout->addWidget(frame_label_);
    video_bar_->setVisible(false);
    connect(play_button_, &QToolButton::clicked, this, &MainWindow::playToggleRequested);
    connect(prev, &QToolButton::clicked, this, [this] { emit stepRequested(-1); });
    connect(next, &QToolButton::clicked, this, [this] { emit stepRequested(1); });
    // Every user move, dragging included (the controller keeps the latest); updates from
    // playback block the slider's signals.
    connect(frame_slider_, &QSlider::valueChanged, this,
            [this](int value) { emit seekRequested(value); });

    auto* split_row = new QHBoxLayout;
    split_row->addWidget(new QLabel(tr("Original"), this));
    split_row->addWidget(split_slider_, 1);
    split_row->addWidget(new QLabel(tr("Equalized"), this));
    auto* left = new QWidget(this);
    auto* left_layout = new QVBoxLayout(left);
    left_layout->setContentsMargins(0, 0, 0, 0);
    left_layout->addWidget(image_view_, 1);
    left_layout->addLayout(split_row);
    left_layout->addWidget(video_bar_);
    connect(split_slider_, &QSlider::valueChanged, this,
            [this](int v) { image_view_->setSplit(v / 1000.0); });
    connect(image_view_, &ImageView::splitChanged, this, [this](double s) {
        const QSignalBlocker block(split_slider_);
        split_slider_->setValue(static_cast<int>(std::lround(s * 1000.0)));
    });

    // Right: both histograms, their controls, equalization, statistics and timing.
    auto* plots_layout = new QVBoxLayout(plots_);
    plots_layout->setContentsMargins(0, 0, 0, 0);
    plots_layout->setSpacing(2);
    plots_layout->addWidget(histogram_view_, 1);
    plots_layout->addWidget(equalized_view_, 1);
    auto* top = new QWidget(this);
    auto* top_layout = new QVBoxLayout(top);
    top_layout->setContentsMargins(4, 0, 4, 0);
    top_layout->addWidget(plots_, 1);
    top_layout->addWidget(controls_);
    top_layout->addWidget(equalize_);

    stats_view_->setModel(stats_model_);
    stats_view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    stats_view_->setAlternatingRowColors(true);
    stats_view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    stats_view_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    tabs_->addTab(timing_panel_, tr("&Timing"));
    tabs_->addTab(stats_view_, tr("Stat&istics"));

    right_splitter_ = new QSplitter(Qt::Vertical, this);
    right_splitter_->setObjectName(QStringLiteral("rightSplitter"));
    right_splitter_->addWidget(top);
    right_splitter_->addWidget(tabs_);
    right_splitter_->setStretchFactor(0, 3);
    right_splitter_->setStretchFactor(1, 2);

    main_splitter_ = new QSplitter(Qt::Horizontal, this);
    main_splitter_->setObjectName(QStringLiteral("mainSplitter"));
    main_splitter_->addWidget(left);
    main_splitter_->addWidget(right_splitter_);
    main_splitter_->setStretchFactor(0, 5);
    main_splitter_->setStretchFactor(1, 4);
    setCentralWidget(main_splitter_);

    // Both plots show the same bin range.
    connect(histogram_view_, &HistogramView::binRangeChanged, equalized_view_,
            &HistogramView::setBinRange);
    connect(equalized_view_, &HistogramView::binRangeChanged, histogram_view_,
            &HistogramView::setBinRange);
}

void MainWindow::buildMenus() {
    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->setMovable(false);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(style()->standardIcon(QStyle::SP_DialogOpenButton),
                                    tr("&Open..."), this, &MainWindow::chooseAndOpen);
    open->setShortcut(QKeySequence::Open);
    recent_menu_ = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    const QDir samples(samples_dir_);
    const QStringList sample_files =
        samples_dir_.isEmpty()
            ? QStringList()
            : samples.entryList(
                  {QStringLiteral("*.jpg"), QStringLiteral("*.png"), QStringLiteral("*.tif"),
                   QStringLiteral("*.avi"), QStringLiteral("*.mp4")},
                  QDir::Files, QDir::Name);
    if (!sample_files.isEmpty()) {
        QMenu* menu = file->addMenu(tr("Open &Sample"));
        for (const QString& name : sample_files) {
            const QString path = samples.filePath(name);
            menu->addAction(name, this, [this, path] { openFile(path); });
        }
    }
    file->addSeparator();
    QAction* save =
        file->addAction(style()->standardIcon(QStyle::SP_DialogSaveButton),
                        tr("&Save Equalized Image As..."), this, &MainWindow::chooseAndSave);
    save->setShortcut(QKeySequence::Save);
    QAction* csv =
        file->addAction(tr("&Export Histogram CSV..."), this, &MainWindow::exportHistogramCsv);
    csv->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    QAction* png = file->addAction(tr("Export &Plot PNG..."), this, &MainWindow::exportPlotPng);
    png->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* fit = view->addAction(tr("&Fit to Window"), image_view_, &ImageView::fit);
    fit->setShortcut(QKeySequence(Qt::Key_F));
    QAction* zoom_in = view->addAction(tr("Zoom &In"), image_view_, &ImageView::zoomIn);
    zoom_in->setShortcuts(
        {QKeySequence::ZoomIn, QKeySequence(Qt::Key_Plus), QKeySequence(Qt::Key_Equal)});
    QAction* zoom_out = view->addAction(tr("Zoom &Out"), image_view_, &ImageView::zoomOut);
    zoom_out->setShortcuts({QKeySequence::ZoomOut, QKeySequence(Qt::Key_Minus)});
    QAction* actual = view->addAction(tr("&Actual Size"), image_view_, &ImageView::actualSize);
    actual->setShortcut(QKeySequence(Qt::Key_1));
    view->addSeparator();
    auto* compare_group = new QActionGroup(this);
    split_action_ = view->addAction(tr("Before/After &Split"));
    side_action_ = view->addAction(tr("Before/After Side by Si&de"));
    for (QAction* a : {split_action_, side_action_}) {
        a->setCheckable(true);
        compare_group->addAction(a);
    }
    split_action_->setChecked(true);
    split_action_->setShortcut(QKeySequence(Qt::Key_S));
    side_action_->setShortcut(QKeySequence(Qt::Key_D));
    connect(split_action_, &QAction::toggled, this, [this](bool on) {
        if (on) image_view_->setCompare(ImageView::Compare::Split);
        split_slider_->setEnabled(on);
    });
    connect(side_action_, &QAction::toggled, this, [this](bool on) {
        if (on) image_view_->setCompare(ImageView::Compare::SideBySide);
    });
    view->addSeparator();
    QAction* log = view->addAction(tr("&Log Scale"));
    log->setShortcut(QKeySequence(Qt::Key_L));
    connect(log, &QAction::triggered, controls_->logCheck(), &QCheckBox::toggle);
    QAction* cumulative = view->addAction(tr("C&umulative Curve"));
    cumulative->setShortcut(QKeySequence(Qt::Key_U));
    connect(cumulative, &QAction::triggered, controls_->cumulativeCheck(), &QCheckBox::toggle);
    QAction* parade = view->addAction(tr("&Parade"));
    parade->setShortcut(QKeySequence(Qt::Key_P));
    connect(parade, &QAction::triggered, controls_->paradeCheck(), &QCheckBox::toggle);
    QAction* reset =
        view->addAction(tr("&Reset Histogram Zoom"), histogram_view_, &HistogramView::resetZoom);
    reset->setShortcut(QKeySequence(Qt::Key_0));

    QMenu* video = menuBar()->addMenu(tr("&Video"));
    play_action_ = video->addAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("&Play/Pause"),
                                    this, &MainWindow::playToggleRequested);
    play_action_->setShortcut(QKeySequence(Qt::Key_Space));
    QAction* next = video->addAction(tr("&Next Frame"), this, [this] { emit stepRequested(1); });
    next->setShortcut(QKeySequence(Qt::Key_Period));
    QAction* prev =
        video->addAction(tr("P&revious Frame"), this, [this] { emit stepRequested(-1); });
    prev->setShortcut(QKeySequence(Qt::Key_Comma));
    QAction* first = video->addAction(tr("&First Frame"), this, [this] { emit seekRequested(0); });
    first->setShortcut(QKeySequence(Qt::Key_Home));
    QAction* last = video->addAction(tr("&Last Frame"), this, [this] {
        emit seekRequested(std::numeric_limits<qint64>::max());  // clamped to the clip
    });
    last->setShortcut(QKeySequence(Qt::Key_End));
    video->addSeparator();
    loop_action_ = video->addAction(tr("L&oop"));
    loop_action_->setCheckable(true);
    loop_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    loop_action_->setToolTip(tr("Start over at the end of the clip"));
    connect(loop_action_, &QAction::toggled, this, &MainWindow::loopRequested);
    video_actions_ = {play_action_, next, prev, first, last};

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    QAction* compare =
        tools->addAction(tr("&Compare Kernels..."), this, &MainWindow::openCompareDialog);
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Histoscope"), this, [this] {
        QMessageBox::about(
            this, tr("About Histoscope"),
            tr("<b>Histoscope %1</b><p>Exact image histograms and contrast equalization on the "
               "CPU and the GPU. Every kernel is verified against the CPU reference.</p>")
                .arg(QApplication::applicationVersion()));
    });

    toolbar->addAction(open);
    toolbar->addAction(save);
    toolbar->addSeparator();
    toolbar->addAction(fit);
    toolbar->addAction(split_action_);
    toolbar->addAction(side_action_);
    toolbar->addSeparator();
    toolbar->addAction(compare);

    media_actions_ = {save, csv, png, compare};
    for (QAction* a : media_actions_) a->setEnabled(false);
    for (QAction* a : video_actions_) a->setEnabled(false);
}

void MainWindow::connectController() {
    connect(this, &MainWindow::openRequested, controller_, &Controller::openFile);
    connect(this, &MainWindow::engineRequested, controller_, &Controller::setEngine);
    connect(this, &MainWindow::equalizerRequested, controller_, &Controller::setEqualizer);
    connect(this, &MainWindow::binsRequested, controller_, &Controller::setBins);
    connect(this, &MainWindow::equalizeRequested, controller_, &Controller::setEqualize);
    connect(this, &MainWindow::referenceRequested, controller_, &Controller::setReference);
    connect(this, &MainWindow::saveRequested, controller_, &Controller::saveImage);
    connect(this, &MainWindow::enginesRequested, controller_, &Controller::listEngines);
    connect(this, &MainWindow::playToggleRequested, controller_, &Controller::togglePlay);
    connect(this, &MainWindow::stepRequested, controller_, &Controller::step);
    connect(this, &MainWindow::seekRequested, controller_, &Controller::seek);
    connect(this, &MainWindow::loopRequested, controller_, &Controller::setLoop);

    connect(controller_, &Controller::enginesListed, this,
            [this](const QVector<EngineInfo>& engines, const QVector<EngineInfo>& equalizers) {
                controls_->setEngines(engines);
                equalize_->setEqualizers(equalizers);
            });
    connect(controller_, &Controller::mediaLoaded, this, &MainWindow::onMediaLoaded);
    connect(controller_, &Controller::loadFailed, this, &MainWindow::onLoadFailed);
    connect(controller_, &Controller::frameReady, this, &MainWindow::onFrame);
    connect(controller_, &Controller::engineStatusChanged, this, &MainWindow::onEngineStatus);
    connect(controller_, &Controller::playbackChanged, this, &MainWindow::onPlayback);
    connect(controller_, &Controller::referenceLoaded, this, [this](const QString& path) {
        equalize_->setReferenceName(QFileInfo(path).fileName());
        QSettings().setValue(QStringLiteral("equalize/reference"), path);
    });
    connect(controller_, &Controller::imageSaved, this, [this](const QString& path) {
        statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
    });
    connect(controller_, &Controller::errorOccurred, this,
            [this](const QString& message) { showError(tr("Histoscope"), message); });
    connect(controller_, &Controller::notice, this, [this](const QString& message) {
        last_error_ = message;
        statusBar()->showMessage(message, 10000);
    });

    for (HistogramModel* model : {histogram_model_, equalized_model_}) {
        connect(controls_, &ControlsPanel::channelToggled, model,
                &HistogramModel::setChannelVisible);
        connect(controls_, &ControlsPanel::logToggled, model, &HistogramModel::setLogScale);
        connect(controls_, &ControlsPanel::cumulativeToggled, model,
                &HistogramModel::setCumulative);
    }
    for (HistogramView* view : {histogram_view_, equalized_view_}) {
        connect(controls_, &ControlsPanel::paradeToggled, view, &HistogramView::setParade);
        connect(view, &HistogramView::hoverChanged, this, [this](const QString& text) {
            if (text.isEmpty())
                statusBar()->clearMessage();
            else
                statusBar()->showMessage(text);
        });
    }
    connect(controls_, &ControlsPanel::binsChanged, this, &MainWindow::binsRequested);
    connect(controls_, &ControlsPanel::engineChanged, this, &MainWindow::engineRequested);
    connect(equalize_, &EqualizePanel::settingsChanged, this, &MainWindow::equalizeRequested);
    connect(equalize_, &EqualizePanel::equalizerChanged, this, &MainWindow::equalizerRequested);
    connect(equalize_, &EqualizePanel::referenceRequested, this, &MainWindow::chooseReference);
}

// --- settings

void MainWindow::restoreSettings() {
    QSettings s;
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
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
    emit equalizeRequested(equalize_->settings());
    const QString reference = s.value(QStringLiteral("equalize/reference")).toString();
    if (!reference.isEmpty() && QFileInfo::exists(reference)) emit referenceRequested(reference);
    if (s.value(QStringLiteral("view/sideBySide"), false).toBool()) side_action_->setChecked(true);
    loop_action_->setChecked(s.value(QStringLiteral("video/loop"), false).toBool());
}

void MainWindow::saveSettings() const {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("window/mainSplitter"), main_splitter_->saveState());
    s.setValue(QStringLiteral("window/rightSplitter"), right_splitter_->saveState());
    s.setValue(QStringLiteral("histogram/log"), controls_->logCheck()->isChecked());
    s.setValue(QStringLiteral("histogram/cumulative"), controls_->cumulativeCheck()->isChecked());
    s.setValue(QStringLiteral("histogram/parade"), controls_->paradeCheck()->isChecked());
    s.setValue(QStringLiteral("histogram/bins"), controls_->bins());
    s.setValue(QStringLiteral("histogram/kernel"), controls_->engine());
    const EqualizeSettings e = equalize_->settings();
    s.setValue(QStringLiteral("equalize/mode"), static_cast<int>(e.mode));
    s.setValue(QStringLiteral("equalize/luma"), e.luma);
    s.setValue(QStringLiteral("equalize/strength"), e.strength);
    s.setValue(QStringLiteral("equalize/clip"), e.clip);
    s.setValue(QStringLiteral("equalize/tilesX"), e.tiles_x);
    s.setValue(QStringLiteral("equalize/tilesY"), e.tiles_y);
    s.setValue(QStringLiteral("view/sideBySide"), side_action_->isChecked());
    s.setValue(QStringLiteral("video/loop"), loop_action_->isChecked());
}

// --- actions

QString MainWindow::engineStatus() const {
    return engine_label_->text();
}

CompareDialog* MainWindow::compareDialog() const {
    return compare_.data();
}

void MainWindow::openFile(const QString& path) {
    statusBar()->showMessage(tr("Opening %1...").arg(QFileInfo(path).fileName()));
    emit openRequested(path);
}

void MainWindow::setReferenceFile(const QString& path) {
    emit referenceRequested(path);
}

void MainWindow::chooseAndOpen() {
    const QString dir =
        current_path_.isEmpty() ? samples_dir_ : QFileInfo(current_path_).absolutePath();
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open Photo or Video"), dir, kMediaFilter);
    if (!path.isEmpty()) openFile(path);
}

void MainWindow::chooseReference() {
    const QString dir =
        current_path_.isEmpty() ? samples_dir_ : QFileInfo(current_path_).absolutePath();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Reference Image"), dir, kMediaFilter.section(QStringLiteral(";;"), 1, 1));
    if (!path.isEmpty()) setReferenceFile(path);
}

void MainWindow::chooseAndSave() {
    const QFileInfo info(current_path_);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save Equalized Image As"),
        info.absoluteDir().filePath(info.completeBaseName() + QStringLiteral("-equalized.png")),
        tr("PNG (*.png);;TIFF (*.tif *.tiff);;JPEG (*.jpg *.jpeg);;BMP (*.bmp);;WebP (*.webp)"));
    if (!path.isEmpty()) emit saveRequested(path);
}

void MainWindow::exportHistogramCsv() {
    if (histogram_model_->empty()) return;
    const QFileInfo info(current_path_);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Histogram CSV"),
        info.absoluteDir().filePath(base_name(current_path_) + QStringLiteral("-histogram.csv")),
        tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    const QString error = write_text_file(
        path, histogram_csv(histogram_model_->histogram(), equalized_model_->histogram()));
    if (!error.isEmpty())
        showError(tr("Export failed"), error);
    else
        statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
}

QString MainWindow::savePlotPng(const QString& path) {
    if (!plots_->grab().save(path, "PNG")) return tr("%1: could not write the PNG").arg(path);
    return {};
}

void MainWindow::exportPlotPng() {
    const QFileInfo info(current_path_);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Plot PNG"),
        info.absoluteDir().filePath(base_name(current_path_) + QStringLiteral("-histogram.png")),
        tr("PNG (*.png)"));
    if (path.isEmpty()) return;
    const QString error = savePlotPng(path);
    if (!error.isEmpty())
        showError(tr("Export failed"), error);
    else
        statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
}

void MainWindow::openCompareDialog() {
    if (current_path_.isEmpty()) return;
    if (!compare_) {
        compare_ = new CompareDialog(controller_, QFileInfo(current_path_).fileName(), this);
        compare_->setAttribute(Qt::WA_DeleteOnClose);
    }
    compare_->show();
    compare_->raise();
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

// --- results

void MainWindow::onMediaLoaded(const MediaInfo& info) {
    media_ = info;
    current_path_ = info.path;
    last_error_.clear();
    controls_->setBitDepth(info.bit_depth);
    setWindowTitle(tr("%1 - Histoscope").arg(QFileInfo(info.path).fileName()));
    QString text = tr("%1  %2 x %3  %4 ch  %5-bit")
                       .arg(info.format)
                       .arg(info.width)
                       .arg(info.height)
                       .arg(info.channels)
                       .arg(info.bit_depth);
    if (info.video) text += tr("  %1 frames at %2 fps").arg(info.frames).arg(info.fps, 0, 'f', 2);
    media_label_->setText(text);
    statusBar()->showMessage(info.notes.isEmpty() ? tr("Opened %1").arg(info.path)
                                                  : info.notes.join(QStringLiteral("; ")),
                             8000);
    for (QAction* a : media_actions_) a->setEnabled(true);
    for (QAction* a : video_actions_) a->setEnabled(info.video);
    video_bar_->setVisible(info.video);
    {
        const QSignalBlocker block(frame_slider_);
        frame_slider_->setRange(0, static_cast<int>(std::max<std::int64_t>(0, info.frames - 1)));
        frame_slider_->setValue(0);
    }
    timing_model_->clear();
    if (compare_) compare_->close();
    addRecent(info.path);
}

void MainWindow::onLoadFailed(const QString& path, const QString& message) {
    Q_UNUSED(path);
    showError(
        tr("Cannot open"),
        current_path_.isEmpty()
            ? message
            : tr("%1\n\nStill showing %2.").arg(message, QFileInfo(current_path_).fileName()));
}

void MainWindow::onFrame(const FrameResult& result) {
    if (!result.original.isNull()) image_view_->setOriginal(result.original);
    image_view_->setEqualized(result.equalized);
    const HistogramData& h = result.original_histogram;
    controls_->setChannels(h.channel_names);
    for (const QString& name : h.channel_names)
        if (const QCheckBox* box = controls_->channelCheck(name))
            for (HistogramModel* model : {histogram_model_, equalized_model_})
                model->setChannelVisible(name, box->isChecked());
    histogram_model_->setHistogram(h);
    equalized_model_->setHistogram(result.equalized_histogram);
    QStringList names = h.channel_names;
    std::vector<hs::Stats> stats = h.stats;
    const HistogramData& e = result.equalized_histogram;
    for (int c = 0; c < e.channel_names.size(); ++c) {
        names << tr("%1 (eq)").arg(e.channel_names[c]);
        stats.push_back(e.stats[static_cast<std::size_t>(c)]);
    }
    stats_model_->setStats(names, stats);
    timing_model_->add(result.timing);
    ++frames_shown_;
    controller_->frameShown();
}

void MainWindow::onEngineStatus(const EngineStatus& status) {
    engine_label_->setText(status.message);
}

void MainWindow::onPlayback(const PlaybackState& state) {
    playback_ = state;
    play_button_->setIcon(
        style()->standardIcon(state.playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    if (!frame_slider_->isSliderDown()) {
        const QSignalBlocker block(frame_slider_);
        frame_slider_->setValue(static_cast<int>(state.frame));
    }
    // Frames count from 1 here, as players show them.
    frame_label_->setText(
        tr("Frame %1 / %2  dropped %3").arg(state.frame + 1).arg(state.frames).arg(state.dropped));
    if (frame_slider_->maximum() != static_cast<int>(std::max<std::int64_t>(0, state.frames - 1))) {
        const QSignalBlocker block(frame_slider_);
        frame_slider_->setMaximum(static_cast<int>(std::max<std::int64_t>(0, state.frames - 1)));
    }
}

void MainWindow::showError(const QString& title, const QString& message) {
    last_error_ = message;
    statusBar()->showMessage(message, 10000);
    // One box at a time: a failure that repeats while a slider moves updates it.
    if (error_box_) {
        error_box_->setText(message);
        return;
    }
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    error_box_ = box;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile()) {
            openFile(url.toLocalFile());
            event->acceptProposedAction();
            return;
        }
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSettings();
    QMainWindow::closeEvent(event);
}

}  // namespace hs::ui
