#include "histoscope/ui/main_window.hpp"

#include <QAbstractSpinBox>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QBuffer>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
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
#include <QProgressBar>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <limits>
#include <utility>

#include "elided_label.hpp"
#include "histoscope/core/bench.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/atomic_file.hpp"
#include "histoscope/media/media.hpp"
#include "histoscope/ui/compare_dialog.hpp"
#include "histoscope/ui/controller.hpp"
#include "histoscope/ui/controls_panel.hpp"
#include "histoscope/ui/equalize_panel.hpp"
#include "histoscope/ui/export.hpp"
#include "histoscope/ui/histogram_model.hpp"
#include "histoscope/ui/histogram_view.hpp"
#include "histoscope/ui/image_view.hpp"
#include "histoscope/ui/pixel_readout.hpp"
#include "histoscope/ui/raw_dialog.hpp"
#include "histoscope/ui/region_bar.hpp"
#include "histoscope/ui/scopes_panel.hpp"
#include "histoscope/ui/stats_model.hpp"
#include "histoscope/ui/timing_model.hpp"
#include "histoscope/ui/timing_panel.hpp"
#include "presenter.hpp"

namespace hs::ui {

namespace {

// Scrolls its widget vertically only: as wide as the widget needs (nothing cut sideways, room
// kept for the scroll bar), as tall as it wants where there is room, down to `min_height`.
class VerticalScrollArea final : public QScrollArea {
  public:
    VerticalScrollArea(QWidget* content, int min_height, QWidget* parent)
        : QScrollArea(parent), min_height_(min_height) {
        setWidget(content);
        setWidgetResizable(true);
        setFrameShape(QFrame::NoFrame);
        setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
        content->installEventFilter(this);  // its size hints change with its texts
        // The wheel scrolls the area; a box or slider it passes over takes it only once
        // focused (clicked), or scrolling the controls would change settings on the way.
        for (QWidget* w : content->findChildren<QWidget*>())
            if (qobject_cast<QComboBox*>(w) || qobject_cast<QAbstractSpinBox*>(w) ||
                qobject_cast<QSlider*>(w)) {
                w->setFocusPolicy(Qt::StrongFocus);
                w->installEventFilter(this);
            }
    }
    QSize sizeHint() const override {
        const QSize wanted = widget()->sizeHint();
        return {wanted.width() + bar(), wanted.height()};
    }
    QSize minimumSizeHint() const override {
        return {widget()->minimumSizeHint().width() + bar(), min_height_};
    }

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched == widget() && event->type() == QEvent::LayoutRequest) updateGeometry();
        if (event->type() == QEvent::Wheel && watched != widget()) {
            if (const auto* w = qobject_cast<QWidget*>(watched); w != nullptr && !w->hasFocus()) {
                // Scrolled here (the area's wheelEvent() would hand it to a hidden scroll bar,
                // which passes it up to the area again).
                const int delta = static_cast<QWheelEvent*>(event)->angleDelta().y();
                QScrollBar* bar = verticalScrollBar();
                bar->setValue(bar->value() -
                              delta * bar->singleStep() * QApplication::wheelScrollLines() / 120);
                return true;
            }
        }
        return QScrollArea::eventFilter(watched, event);
    }

  private:
    int bar() const { return verticalScrollBar()->sizeHint().width(); }
    int min_height_;
};

const QString kPhotoPatterns = QStringLiteral(
    "*.png *.jpg *.jpeg *.tif *.tiff *.bmp *.webp *.gif *.ppm *.pgm *.pnm *.exr *.pfm");
const QString kVideoPatterns = QStringLiteral("*.avi *.mp4 *.mkv *.mov *.webm");

// The camera raw files LibRaw reads, from media's one list.
QString camera_raw_patterns() {
    QStringList patterns;
    for (const std::string& ext : hs::media::camera_raw_extensions())
        patterns << QStringLiteral("*") + QString::fromStdString(ext);
    return patterns.join(QLatin1Char(' '));
}

// File > Open's filters: everything it opens, then each kind.
QString media_filter() {
    return QObject::tr(
               "Photos, camera raw and video (%1 %2 %3);;Photos (%1);;Camera raw (%2);;"
               "Video (%3);;All files (*)")
        .arg(kPhotoPatterns, camera_raw_patterns(), kVideoPatterns);
}

// Where frame `frame` falls on a clip played at `fps`: "0:01.917", "1:02:03.250"; empty
// without a rate.
QString frame_time(std::int64_t frame, double fps) {
    if (fps <= 0.0 || frame < 0) return {};
    const auto ms =
        static_cast<std::int64_t>(std::llround(static_cast<double>(frame) * 1000.0 / fps));
    const std::int64_t s = ms / 1000, m = s / 60, h = m / 60;
    const QString seconds = QStringLiteral("%1.%2")
                                .arg(s % 60, 2, 10, QLatin1Char('0'))
                                .arg(ms % 1000, 3, 10, QLatin1Char('0'));
    if (h > 0)
        return QStringLiteral("%1:%2:%3").arg(h).arg(m % 60, 2, 10, QLatin1Char('0')).arg(seconds);
    return QStringLiteral("%1:%2").arg(m).arg(seconds);
}

// How the status bar names an input: standard input ("-") in words.
QString shown_name(const QString& path) {
    return path == QLatin1String("-") ? QObject::tr("standard input") : QFileInfo(path).fileName();
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
      stats_page_(new QWidget(this)),
      stats_note_(new QLabel(this)),
      timing_panel_(new TimingPanel(timing_model_, this)),
      tabs_(new QTabWidget(this)),
      scopes_(new ScopesPanel(histogram_model_, this)),
      scopes_dock_(new QDockWidget(tr("Scopes"), this)),
      region_bar_(new RegionBar(this)),
      split_slider_(new QSlider(Qt::Horizontal, this)),
      video_bar_(new QWidget(this)),
      play_button_(new QToolButton(this)),
      frame_slider_(new QSlider(Qt::Horizontal, this)),
      frame_spin_(new QSpinBox(this)),
      frame_label_(new QLabel(this)),
      engine_label_(new QLabel(this)),
      media_label_(new ElidedLabel(this)),
      notes_label_(new ElidedLabel(this)),
      busy_label_(new QLabel(this)),
      busy_bar_(new QProgressBar(this)),
      presenter_(new Presenter(controller->playbackClock(), this)),
      settings_save_(new QTimer(this)) {
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
    // Busy: an indeterminate bar and what is pending, hidden when idle.
    busy_bar_->setRange(0, 0);
    busy_bar_->setMaximumWidth(fontMetrics().height() * 5);
    busy_bar_->setMaximumHeight(fontMetrics().height());
    busy_bar_->setTextVisible(false);
    busy_bar_->hide();
    busy_label_->hide();
    // The notes take what room the labels at the right leave; QStatusBar hides them under a
    // passing message and shows them again after it.
    notes_label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    notes_label_->setObjectName(QStringLiteral("notesLabel"));
    statusBar()->addWidget(notes_label_, 1);
    statusBar()->addPermanentWidget(busy_label_);
    statusBar()->addPermanentWidget(busy_bar_);
    statusBar()->addPermanentWidget(media_label_);
    statusBar()->addPermanentWidget(engine_label_);
    connect(statusBar(), &QStatusBar::messageChanged, this, &MainWindow::fitStatusBar);
    statusBar()->installEventFilter(this);  // its width decides the media label's
    // The first window fits the screen whatever the scale factor (restoreSettings() may then
    // bring back the size the user left it at).
    const int em = fontMetrics().height();
    QSize size(em * 96, em * 56);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableGeometry().size() * 0.92);
    resize(size);
    restoreSettings();
    watchSettings();
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
    frame_spin_->setObjectName(QStringLiteral("frameSpin"));
    frame_spin_->setToolTip(tr("Go to frame (Ctrl+G): its number, from 0, then Enter"));
    // A number typed goes to its frame once it is whole (Enter), not digit by digit.
    frame_spin_->setKeyboardTracking(false);
    frame_spin_->setAccelerated(true);
    frame_label_->setObjectName(QStringLiteral("frameLabel"));
    // The slider the whole width of the image, the buttons, the frame's number and what the bar
    // says under it: beside them it was squeezed to a stub in a narrow pane.
    auto* video_rows = new QVBoxLayout(video_bar_);
    video_rows->setContentsMargins(0, fontMetrics().height() / 3, 0, 0);
    video_rows->setSpacing(0);
    video_rows->addWidget(frame_slider_);
    auto* video_layout = new QHBoxLayout;
    video_rows->addLayout(video_layout);
    auto* prev = new QToolButton(this);
    prev->setIcon(style()->standardIcon(QStyle::SP_MediaSeekBackward));
    prev->setToolTip(tr("Previous frame (,)"));
    auto* next = new QToolButton(this);
    next->setIcon(style()->standardIcon(QStyle::SP_MediaSeekForward));
    next->setToolTip(tr("Next frame (.)"));
    video_layout->addWidget(prev);
    video_layout->addWidget(play_button_);
    video_layout->addWidget(next);
    video_layout->addWidget(frame_spin_);
    video_layout->addSpacing(fontMetrics().height() / 2);
    video_layout->addWidget(frame_label_, 1);
    video_bar_->setVisible(false);
    connect(play_button_, &QToolButton::clicked, this, &MainWindow::playToggleRequested);
    connect(prev, &QToolButton::clicked, this, [this] { emit stepRequested(-1); });
    connect(next, &QToolButton::clicked, this, [this] { emit stepRequested(1); });
    step_buttons_ = {prev, next};
    // Every user move, dragging included (the controller keeps the latest); updates from
    // playback block the slider's signals.
    connect(frame_slider_, &QSlider::valueChanged, this,
            [this](int value) { emit seekRequested(value); });
    connect(frame_spin_, &QSpinBox::valueChanged, this,
            [this](int value) { emit seekRequested(value); });

    auto* split_row = new QHBoxLayout;
    split_labels_ = {new QLabel(tr("Original"), this), new QLabel(tr("Equalized"), this)};
    split_row->addWidget(split_labels_.front());
    split_row->addWidget(split_slider_, 1);
    split_row->addWidget(split_labels_.back());
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
    // The controls under the plots scroll when the window is short (a 768-pixel screen with the
    // scopes shown) rather than hold the window taller than the screen.
    auto* settings = new QWidget(this);
    auto* settings_layout = new QVBoxLayout(settings);
    settings_layout->setContentsMargins(0, 0, 0, 0);
    settings_layout->addWidget(controls_);
    settings_layout->addWidget(region_bar_);
    settings_layout->addWidget(equalize_);
    auto* settings_area = new VerticalScrollArea(settings, fontMetrics().height() * 6, this);
    settings_area->setObjectName(QStringLiteral("settingsArea"));
    auto* top = new QWidget(this);
    auto* top_layout = new QVBoxLayout(top);
    top_layout->setContentsMargins(4, 0, 4, 0);
    top_layout->addWidget(plots_, 1);
    top_layout->addWidget(settings_area);

    stats_view_->setModel(stats_model_);
    stats_view_->setAlternatingRowColors(true);
    stats_view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    stats_view_->setWordWrap(false);
    stats_view_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    stats_view_->viewport()->installEventFilter(this);  // its width decides the columns'
    connect(stats_model_, &QAbstractItemModel::modelReset, this, &MainWindow::fitStatsColumns);
    // Above the table, what it counts when that is not the whole frame (a preview, a region).
    stats_note_->setObjectName(QStringLiteral("statsNote"));
    stats_note_->setWordWrap(true);
    stats_note_->setStyleSheet(QStringLiteral("color: rgb(240, 190, 90)"));
    stats_note_->hide();
    auto* stats_layout = new QVBoxLayout(stats_page_);
    stats_layout->setContentsMargins(0, 0, 0, 0);
    stats_layout->setSpacing(2);
    stats_layout->addWidget(stats_note_);
    stats_layout->addWidget(stats_view_, 1);
    // Its stage bars take a row each: scrolled on a short window rather than holding it tall.
    tabs_->addTab(new VerticalScrollArea(timing_panel_, fontMetrics().height() * 6, this),
                  tr("&Timing"));
    tabs_->addTab(stats_page_, tr("Stat&istics"));

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

    // The scopes below the image, hidden until asked for (View > Scopes): only the scopes shown
    // are computed.
    scopes_dock_->setObjectName(QStringLiteral("scopesDock"));
    scopes_dock_->setWidget(scopes_);
    addDockWidget(Qt::BottomDockWidgetArea, scopes_dock_);
    scopes_dock_->hide();
    connect(scopes_, &ScopesPanel::settingsChanged, this, &MainWindow::sendScopes);
    connect(scopes_dock_, &QDockWidget::visibilityChanged, this, &MainWindow::sendScopes);
    // Shown the first time, it takes about a third of the window's height. The controls beside
    // the image keep their minimum height, so a window too short for both grows, within the
    // screen, rather than squeeze the scopes to a strip (once laid out, hence the timer).
    connect(scopes_dock_, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (!visible || scopes_sized_ || scopes_dock_->isFloating()) return;
        scopes_sized_ = true;
        QTimer::singleShot(0, this, [this] {
            const int wanted = std::max(height() / 3, fontMetrics().height() * 16);
            const int missing = wanted - scopes_dock_->height();
            const QScreen* screen = this->screen();
            if (missing > 0 && screen != nullptr &&
                !(windowState() & (Qt::WindowMaximized | Qt::WindowFullScreen))) {
                const int room = screen->availableGeometry().bottom() - frameGeometry().bottom();
                if (room > 0) resize(width(), height() + std::min(missing, room));
            }
            resizeDocks({scopes_dock_}, {wanted}, Qt::Vertical);
        });
    });
    connect(image_view_, &ImageView::regionDrawn, this, &MainWindow::setRegion);
    connect(region_bar_, &RegionBar::regionEdited, this, &MainWindow::setRegion);

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
    file->addAction(tr("Open Ra&w..."), this, &MainWindow::chooseAndOpenRaw)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    recent_menu_ = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    const QDir samples(samples_dir_);
    const QStringList sample_files =
        samples_dir_.isEmpty()
            ? QStringList()
            : samples.entryList(
                  {QStringLiteral("*.jpg"), QStringLiteral("*.png"), QStringLiteral("*.tif"),
                   QStringLiteral("*.gif"), QStringLiteral("*.avi"), QStringLiteral("*.mp4")},
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
    });
    connect(side_action_, &QAction::toggled, this, [this](bool on) {
        if (on) image_view_->setCompare(ImageView::Compare::SideBySide);
    });
    // The view's mode, however it was set, decides the actions' state and the divider's
    // slider, which does nothing side by side.
    connect(image_view_, &ImageView::compareChanged, this, [this](ImageView::Compare mode) {
        const bool split = mode == ImageView::Compare::Split;
        (split ? split_action_ : side_action_)->setChecked(true);
        split_slider_->setEnabled(split);
        for (QWidget* label : split_labels_) label->setEnabled(split);
    });
    view->addSeparator();
    // Checkable actions that mirror the panel's boxes (either one toggles the other).
    auto mirror = [&](const QString& text, QKeySequence key, QCheckBox* box) {
        QAction* a = view->addAction(text);
        a->setShortcut(key);
        a->setCheckable(true);
        a->setChecked(box->isChecked());
        connect(a, &QAction::toggled, box, &QCheckBox::setChecked);
        connect(box, &QCheckBox::toggled, a, &QAction::setChecked);
        return a;
    };
    mirror(tr("&Log Scale"), QKeySequence(Qt::Key_L), controls_->logCheck());
    mirror(tr("C&umulative Curve"), QKeySequence(Qt::Key_U), controls_->cumulativeCheck());
    mirror(tr("&Parade"), QKeySequence(Qt::Key_P), controls_->paradeCheck());
    view->addSeparator();
    clipping_action_ = view->addAction(tr("&Clipping Overlay"));
    clipping_action_->setObjectName(QStringLiteral("clippingAction"));
    clipping_action_->setCheckable(true);
    clipping_action_->setShortcut(QKeySequence(Qt::Key_O));
    clipping_action_->setToolTip(
        tr("Red where a shown channel is at its maximum, blue where one is at 0"));
    stretch_action_ = view->addAction(tr("S&tretch Deep Images for Display"));
    stretch_action_->setObjectName(QStringLiteral("stretchAction"));
    stretch_action_->setCheckable(true);
    stretch_action_->setChecked(true);
    stretch_action_->setShortcut(QKeySequence(Qt::Key_T));
    stretch_action_->setToolTip(
        tr("Show 9- to 16-bit images from their 0.1% to their 99.9% value (viewing only: "
           "histograms, statistics and saved files use the data)"));
    connect(clipping_action_, &QAction::toggled, this, &MainWindow::sendDisplay);
    connect(stretch_action_, &QAction::toggled, this, &MainWindow::sendDisplay);
    mosaic_action_ = view->addAction(tr("Camera Raw &Mosaic"));
    mosaic_action_->setObjectName(QStringLiteral("mosaicAction"));
    mosaic_action_->setCheckable(true);
    mosaic_action_->setChecked(true);
    mosaic_action_->setEnabled(false);  // until a camera raw file with a mosaic is open
    mosaic_action_->setShortcut(QKeySequence(Qt::Key_M));
    mosaic_action_->setToolTip(
        tr("Camera raw files: their CFA mosaic's photosites (R, G1, G2, B at the sensor's "
           "depth, black and white levels marked), or, unchecked, LibRaw's linear 16-bit "
           "demosaiced RGB"));
    connect(mosaic_action_, &QAction::toggled, this, [this](bool mosaic) {
        wanted_mosaic_ = mosaic;
        emit cameraRawViewRequested(mosaic ? QStringLiteral("cfa") : QStringLiteral("rgb"));
    });
    QAction* scopes = scopes_dock_->toggleViewAction();
    scopes->setText(tr("Sco&pes"));
    scopes->setShortcut(QKeySequence(Qt::Key_W));
    scopes->setToolTip(tr("Histogram, waveform, RGB parade and vectorscope, live"));
    view->addAction(scopes);
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
    QAction* go = video->addAction(tr("&Go to Frame..."), this, &MainWindow::goToFrame);
    go->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    go->setObjectName(QStringLiteral("goToFrameAction"));
    video->addSeparator();
    loop_action_ = video->addAction(tr("L&oop"));
    loop_action_->setCheckable(true);
    loop_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    loop_action_->setToolTip(tr("Start over at the end of the clip"));
    connect(loop_action_, &QAction::toggled, this, &MainWindow::loopRequested);
    video_actions_ = {play_action_, next, prev, first, last, go};

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    QAction* compare =
        tools->addAction(tr("&Compare Kernels..."), this, &MainWindow::openCompareDialog);
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    tools
        ->addAction(tr("Re-measure the CPU's &Read Bandwidth"), controller_,
                    &Controller::remeasureHostBandwidth)
        ->setToolTip(tr("The CPU engines' roofline, kept for this machine: best of 7 passes"));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* keys = help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    keys->setShortcut(QKeySequence::HelpContents);
    keys->setObjectName(QStringLiteral("shortcutsAction"));
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
    connect(this, &MainWindow::rawOpenRequested, controller_, &Controller::openRaw);
    connect(this, &MainWindow::pixelPickerRequested, controller_, &Controller::setPixelPicker);
    connect(image_view_, &ImageView::displayFactorChanged, controller_,
            &Controller::setDisplayFactor);
    connect(this, &MainWindow::engineRequested, controller_, &Controller::setEngine);
    connect(this, &MainWindow::equalizerRequested, controller_, &Controller::setEqualizer);
    connect(this, &MainWindow::binsRequested, controller_, &Controller::setBins);
    connect(this, &MainWindow::exposureRequested, controller_, &Controller::setExposure);
    connect(this, &MainWindow::equalizeRequested, controller_, &Controller::setEqualize);
    connect(this, &MainWindow::referenceRequested, controller_, &Controller::setReference);
    connect(this, &MainWindow::saveRequested, controller_, &Controller::saveImage);
    connect(this, &MainWindow::enginesRequested, controller_, &Controller::listEngines);
    connect(this, &MainWindow::playToggleRequested, controller_, &Controller::togglePlay);
    connect(this, &MainWindow::pauseRequested, controller_, &Controller::pause);
    connect(this, &MainWindow::stepRequested, controller_, &Controller::step);
    connect(this, &MainWindow::seekRequested, controller_, &Controller::seek);
    connect(this, &MainWindow::loopRequested, controller_, &Controller::setLoop);
    connect(this, &MainWindow::displayRequested, controller_, &Controller::setDisplay);
    connect(this, &MainWindow::cameraRawViewRequested, controller_, &Controller::setCameraRawView);
    connect(this, &MainWindow::scopesRequested, controller_, &Controller::setScopes);
    connect(this, &MainWindow::regionRequested, controller_, &Controller::setRegion);
    connect(this, &MainWindow::hostBandwidthRequested, controller_, &Controller::setHostBandwidth);
    // Kept with the machine it was measured on.
    connect(controller_, &Controller::hostBandwidthMeasured, this, [this](double gbs) {
        QSettings s;
        s.setValue(QStringLiteral("machine/cpu"), QString::fromStdString(hs::cpu_description()));
        s.setValue(QStringLiteral("machine/readBandwidthGbs"), gbs);
        statusBar()->showMessage(
            tr("The CPU's read bandwidth: %1 GB/s (best of 7 passes)").arg(gbs, 0, 'f', 1), 8000);
    });
    connect(image_view_, &ImageView::pixelHovered, this, &MainWindow::onPixelHovered);
    connect(statusBar(), &QStatusBar::messageChanged, this, [this](const QString& text) {
        if (text.isEmpty()) refreshReadout();  // a message's time is over
    });

    connect(controller_, &Controller::enginesListed, this,
            [this](const QVector<EngineInfo>& engines, const QVector<EngineInfo>& equalizers) {
                controls_->setEngines(engines);
                equalize_->setEqualizers(equalizers);
            });
    connect(controller_, &Controller::mediaLoaded, this, &MainWindow::onMediaLoaded);
    connect(controller_, &Controller::loadFailed, this, &MainWindow::onLoadFailed);
    // Results wait in the presenter for the clock; it hands them over to paint, and says what
    // it took (the controller sends no more than it can hold).
    connect(controller_, &Controller::frameReady, presenter_, &Presenter::push);
    connect(presenter_, &Presenter::present, this, &MainWindow::onFrame);
    connect(presenter_, &Presenter::consumed, controller_, &Controller::framesConsumed);
    connect(image_view_, &ImageView::painted, presenter_, &Presenter::painted);
    connect(presenter_, &Presenter::framePainted, this, &MainWindow::framePainted);
    connect(controller_, &Controller::engineStatusChanged, this, &MainWindow::onEngineStatus);
    connect(controller_, &Controller::playbackChanged, this, &MainWindow::onPlayback);
    connect(controller_, &Controller::referenceLoaded, this, [this](const QString& path) {
        has_reference_ = true;
        unsaveable_.clear();
        equalize_->setReferenceName(QFileInfo(path).fileName());
        QSettings().setValue(QStringLiteral("equalize/reference"), path);
        if (std::exchange(match_waits_, false) && equalize_->settings() != sent_equalize_) {
            sent_equalize_ = equalize_->settings();
            emit equalizeRequested(sent_equalize_);
        }
    });
    // The error said why; Match chosen for this reference goes back to the mode before.
    connect(controller_, &Controller::referenceRefused, this, [this] {
        if (std::exchange(match_waits_, false) && !has_reference_)
            equalize_->setSettings(sent_equalize_);
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
    connect(controller_, &Controller::busyChanged, this, [this](bool busy, const QString& what) {
        busy_ = busy;
        busy_label_->setText(what);
        busy_label_->setVisible(busy);
        busy_bar_->setVisible(busy);
    });

    for (HistogramModel* model : {histogram_model_, equalized_model_}) {
        connect(controls_, &ControlsPanel::channelToggled, model,
                &HistogramModel::setChannelVisible);
        // The clipping overlay counts the channels shown.
        connect(controls_, &ControlsPanel::channelToggled, this, &MainWindow::sendDisplay);
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
    connect(controls_, &ControlsPanel::exposureChanged, this, &MainWindow::exposureRequested);
    connect(controls_, &ControlsPanel::engineChanged, this, &MainWindow::engineRequested);
    connect(equalize_, &EqualizePanel::settingsChanged, this, &MainWindow::onEqualizeChanged);
    connect(equalize_, &EqualizePanel::equalizerChanged, this, &MainWindow::equalizerRequested);
    connect(equalize_, &EqualizePanel::referenceRequested, this, &MainWindow::chooseReference);
}

// --- actions

QString MainWindow::statsNote() const {
    return stats_note_->isHidden() ? QString() : stats_note_->text();
}

void MainWindow::fitStatsColumns() {
    QHeaderView* header = stats_view_->horizontalHeader();
    const int columns = stats_model_->columnCount();
    if (columns == 0) return;
    header->setSectionResizeMode(QHeaderView::Interactive);
    stats_view_->resizeColumnsToContents();
    int used = 0;
    for (int c = 0; c < columns; ++c) used += stats_view_->columnWidth(c);
    const int room = stats_view_->viewport()->width() - used;
    if (room <= 0) return;  // a horizontal scroll bar: every number stays whole
    for (int c = 0; c < columns; ++c)
        stats_view_->setColumnWidth(
            c, stats_view_->columnWidth(c) + room / columns + (c < room % columns ? 1 : 0));
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    if (watched == stats_view_->viewport() && event->type() == QEvent::Resize)
        QTimer::singleShot(0, this, &MainWindow::fitStatsColumns);
    if (watched == statusBar() && event->type() == QEvent::Resize)
        QTimer::singleShot(0, this, &MainWindow::fitStatusBar);
    return QMainWindow::eventFilter(watched, event);
}

QString MainWindow::engineStatus() const {
    return engine_label_->text();
}

CompareDialog* MainWindow::compareDialog() const {
    return compare_.data();
}

RawDialog* MainWindow::rawDialog() const {
    return raw_dialog_.data();
}

void MainWindow::openFile(const QString& path) {
    // Raw frames have no header to tell their format: the one used last for the file, else
    // the user's for a file that holds raw frames (as the CLI tells them).
    if (const QString format = remembered_raw_format(path); !format.isEmpty())
        return openRawFile(path, format);
    if (asks_raw_format(path)) return askRawFormat(path);
    statusBar()->showMessage(tr("Opening %1...").arg(shown_name(path)));
    emit openRequested(path);
}

void MainWindow::openRawFile(const QString& path, const QString& format, double fps) {
    statusBar()->showMessage(tr("Opening %1 as %2...").arg(shown_name(path), format));
    emit rawOpenRequested(path, format, fps);
}

void MainWindow::askRawFormat(const QString& path) {
    if (raw_dialog_) raw_dialog_->close();
    auto* dialog = new RawDialog(path, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this,
            [this, dialog] { openRawFile(dialog->path(), dialog->format()); });
    raw_dialog_ = dialog;
    dialog->open();
}

void MainWindow::setReferenceFile(const QString& path) {
    emit referenceRequested(path);
}

void MainWindow::chooseAndOpen() {
    const QString dir =
        current_path_.isEmpty() ? samples_dir_ : QFileInfo(current_path_).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Photo, Camera Raw or Video"),
                                                      dir, media_filter());
    if (!path.isEmpty()) openFile(path);
}

void MainWindow::chooseAndOpenRaw() {
    const QString dir =
        current_path_.isEmpty() ? samples_dir_ : QFileInfo(current_path_).absolutePath();
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open Raw Frames"), dir,
                                     tr("Raw frames (*.raw *.bin *.rgb *.gray);;All files (*)"));
    if (!path.isEmpty()) askRawFormat(path);
}

void MainWindow::chooseReference() {
    if (QFileDialog* shown = reference_dialog_.data(); shown != nullptr && shown->isVisible()) {
        shown->raise();
        return;
    }
    // A new dialog each time: one kept hidden kept the text typed into it (the next path was
    // appended to it) and the popup of its name completer, which stayed over the window and
    // took the next click. Window-modal but not blocking: the controller goes on, and tests can
    // answer it.
    auto* dialog = new QFileDialog(
        this, tr("Reference Image for Match"),
        current_path_.isEmpty() ? samples_dir_ : QFileInfo(current_path_).absolutePath(),
        media_filter());  // a reference of any depth: a photo, a clip's first frame, a raw file
    dialog->setObjectName(QStringLiteral("referenceDialog"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& path) {
        setReferenceFile(path);
        if (equalize_->settings() == sent_equalize_) return;
        // Match chosen without a reference applies once the reference has loaded: a file that
        // cannot be read puts the mode back rather than leave Match with nothing to match.
        if (!has_reference_) {
            match_waits_ = true;
            return;
        }
        sent_equalize_ = equalize_->settings();
        emit equalizeRequested(sent_equalize_);
    });
    connect(dialog, &QFileDialog::rejected, this, [this] {
        // Match chosen without a reference, and none given: back to the mode before.
        if (!has_reference_) equalize_->setSettings(sent_equalize_);
    });
    reference_dialog_ = dialog;
    dialog->open();
}

void MainWindow::onEqualizeChanged(const EqualizeSettings& settings) {
    unsaveable_.clear();  // the controller judges the new settings
    if (settings.mode == EqualizeSettings::Mode::Match && !has_reference_) {
        chooseReference();  // match needs a reference: the picker rather than an error
        return;
    }
    sent_equalize_ = settings;
    emit equalizeRequested(settings);
}

void MainWindow::whenPaused(void (MainWindow::*then)()) {
    if (!playback_.playing) return (this->*then)();
    when_paused_ = then;
    emit pauseRequested();
}

QString MainWindow::exportPath(const QString& suffix) const {
    const QFileInfo info(current_path_);
    QString name = media_.live ? QStringLiteral("stdin") : info.completeBaseName();
    // Each frame of a clip its own file: saving several frames replaces none.
    if (media_.video && shown_frame_ >= 0) name += QStringLiteral("-frame-%1").arg(shown_frame_);
    const QDir dir = media_.live ? QDir::current() : info.absoluteDir();
    return dir.filePath(name + suffix);
}

void MainWindow::chooseAndSave() {
    if (playback_.playing) return whenPaused(&MainWindow::chooseAndSave);
    if (media_.camera_raw_view == QLatin1String("cfa")) {
        showError(tr("Save Equalized Image"),
                  tr("A camera raw file's CFA mosaic is no picture to save: View > Camera Raw "
                     "Mosaic (M) switches to its demosaiced image"));
        return;
    }
    // Said at once when equalization cannot run: choosing a file first led nowhere.
    if (!unsaveable_.isEmpty()) {
        showError(tr("Save Equalized Image"), tr("Nothing equalized to save: %1").arg(unsaveable_));
        return;
    }
    if (QFileDialog* shown = save_dialog_.data(); shown != nullptr && shown->isVisible()) {
        shown->raise();
        return;
    }
    // Only the formats that hold the result: 16-bit samples or alpha only PNG and TIFF.
    QString formats = tr("PNG (*.png);;TIFF (*.tif *.tiff)");
    if (result_ == nullptr ||
        (result_->view().type == hs::SampleType::U8 && result_->view().channels != 4))
        formats += tr(";;JPEG (*.jpg *.jpeg);;BMP (*.bmp);;WebP (*.webp)");
    auto* dialog = new QFileDialog(this, tr("Save Equalized Image As"),
                                   exportPath(QStringLiteral("-equalized.png")), formats);
    dialog->setObjectName(QStringLiteral("saveDialog"));
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setFileMode(QFileDialog::AnyFile);
    // saveAs() asks, after its own checks: a file that may not be written over (the opened one)
    // is refused before anyone is asked whether to replace it.
    dialog->setOption(QFileDialog::DontConfirmOverwrite);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& path) {
        // Once the dialog is gone.
        QTimer::singleShot(0, this, [this, path] { saveAs(path); });
    });
    save_dialog_ = dialog;
    dialog->open();
}

void MainWindow::saveAs(const QString& path) {
    if (hs::media::same_file(path.toStdString(), current_path_.toStdString())) {
        showError(tr("Save Equalized Image"),
                  tr("%1 is the opened file: save the result under another name").arg(path));
        return;
    }
    // What the format cannot hold (16 bits in a JPEG, alpha in a BMP) is refused before anyone
    // is asked whether to replace a file with it.
    if (result_ != nullptr) {
        try {
            const hs::ImageView shape = result_->view();
            hs::media::check_image_output(path.toStdString(), shape.type, shape.channels);
        } catch (const hs::UsageError& e) {
            showError(tr("Save Equalized Image"), QString::fromStdString(e.what()));
            return;
        }
    }
    if (QFileInfo::exists(path) &&
        QMessageBox::question(
            this, tr("Save Equalized Image As"),
            tr("%1 already exists.\nDo you want to replace it?").arg(QFileInfo(path).fileName()),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No) != QMessageBox::Yes)
        return;
    emit saveRequested(path);
}

void MainWindow::exportHistogramCsv() {
    if (playback_.playing) return whenPaused(&MainWindow::exportHistogramCsv);
    if (histogram_model_->empty()) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Histogram CSV"),
                                                      exportPath(QStringLiteral("-histogram.csv")),
                                                      tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    const QString error = write_text_file(
        path, histogram_csv(histogram_model_->histogram(), equalized_model_->histogram()),
        current_path_);
    if (!error.isEmpty())
        showError(tr("Export failed"), error);
    else
        statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
}

QString MainWindow::savePlotPng(const QString& path) {
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    if (!plots_->grab().save(&buffer, "PNG")) return tr("%1: could not encode the PNG").arg(path);
    return write_export(path, png, current_path_);
}

void MainWindow::exportPlotPng() {
    if (playback_.playing) return whenPaused(&MainWindow::exportPlotPng);
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Plot PNG"),
                                                      exportPath(QStringLiteral("-histogram.png")),
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
        compare_ = new CompareDialog(controller_, current_path_, this);
        compare_->setAttribute(Qt::WA_DeleteOnClose);
    }
    compare_->show();
    compare_->raise();
}

// --- results

void MainWindow::onMediaLoaded(const MediaInfo& info) {
    media_ = info;
    unsaveable_.clear();
    shown_frame_ = -1;
    when_paused_ = nullptr;  // asked of the media before
    current_path_ = info.path;
    last_error_.clear();
    controls_->setBitDepth(info.bit_depth, info.floating);
    setWindowTitle(tr("%1 - Histoscope")
                       .arg(info.live ? tr("standard input") : QFileInfo(info.path).fileName()));
    QString text =
        tr("%1  %2 x %3  %4 ch  %5")
            .arg(info.format)
            .arg(info.width)
            .arg(info.height)
            .arg(info.channels)
            .arg(info.floating ? tr("32-bit float (linear)") : tr("%1-bit").arg(info.bit_depth));
    if (!info.coding.isEmpty()) text += tr(" (%1)").arg(info.coding);
    // A camera raw file: the view and the levels, then the camera and the shot (whole in the
    // tooltip).
    QString tooltip;
    if (!info.camera_raw_view.isEmpty()) {
        if (info.camera_raw_view == QLatin1String("cfa")) {
            QStringList blacks;
            for (std::uint32_t b : info.black_levels) blacks << QString::number(b);
            blacks.removeDuplicates();
            text += tr(" (CFA %1 mosaic, black %2, white %3)")
                        .arg(info.cfa_pattern, blacks.join(QLatin1Char('/')))
                        .arg(info.white_level);
        } else {
            text += tr(" (demosaiced, linear)");
        }
        text += QStringLiteral("  ") + info.camera;
        if (!info.shot.isEmpty()) text += QStringLiteral("  ") + info.shot;
        tooltip = tr("%1\n%2\nCFA pattern %3, black levels r, g1, g2, b: %4, white level %5")
                      .arg(info.camera, info.shot.isEmpty() ? tr("shot not recorded") : info.shot,
                           info.cfa_pattern.isEmpty() ? tr("none (%1)").arg(info.mosaic_problem)
                                                      : info.cfa_pattern)
                      .arg([&] {
                          QStringList b;
                          for (std::uint32_t v : info.black_levels) b << QString::number(v);
                          return b.join(QStringLiteral(", "));
                      }())
                      .arg(info.white_level);
    }
    mosaic_action_->setEnabled(!info.cfa_pattern.isEmpty());
    if (info.live)
        text += info.fps > 0.0 ? tr("  live at %1 fps").arg(info.fps, 0, 'f', 2)
                               : tr("  live, frames shown as they come");
    else if (info.video)
        text += tr("  %1 frames at %2 fps").arg(info.frames).arg(info.fps, 0, 'f', 2);
    media_label_->setWhole(text, tooltip.isEmpty() ? text : text + QLatin1Char('\n') + tooltip);
    fitStatusBar();
    // The notes stay while the media is shown; "Opened" is said once something is (a large
    // photo's decoding is not the end of it) when there are none to read instead.
    notes_label_->setWhole(info.notes.join(QStringLiteral("; ")),
                           info.notes.join(QLatin1Char('\n')));
    if (!info.notes.isEmpty()) statusBar()->clearMessage();
    announce_open_ = info.notes.isEmpty();
    image_view_->setImageSize(QSize(info.width, info.height));
    // A region belongs to the media it was drawn on.
    region_bar_->setImageSize(QSize(info.width, info.height));
    setRegion({});
    scopes_->setImageChannels(info.channels);
    equalize_->setImageChannels(info.channels, info.floating);
    for (QAction* a : media_actions_) a->setEnabled(true);
    video_bar_->setVisible(info.video);
    // Live input cannot seek or step: its frames come once. Play and pause stay (a paused
    // reader leaves the writer waiting).
    frame_slider_->setVisible(!info.live);
    frame_spin_->setVisible(!info.live);
    for (QWidget* b : step_buttons_) b->setEnabled(!info.live);
    for (QAction* a : video_actions_)
        a->setEnabled(info.video && (!info.live || a == play_action_));
    {
        const QSignalBlocker block(frame_slider_);
        frame_slider_->setRange(0, static_cast<int>(std::max<std::int64_t>(0, info.frames - 1)));
        frame_slider_->setValue(0);
        const QSignalBlocker spin(frame_spin_);
        frame_spin_->setRange(0, frame_slider_->maximum());
        frame_spin_->setValue(0);
    }
    timing_model_->clear();
    if (compare_) compare_->close();
    if (info.live) return;  // standard input cannot be opened again
    addRecent(info.path);
    if (!info.raw_format.isEmpty()) remember_raw_format(info.path, info.raw_format);
}

void MainWindow::onLoadFailed(const QString& path, const QString& message) {
    Q_UNUSED(path);
    showError(
        tr("Cannot open"),
        current_path_.isEmpty()
            ? message
            : tr("%1\n\nStill showing %2.").arg(message, QFileInfo(current_path_).fileName()));
}

void MainWindow::onFrame(const PresentedFrame& result) {
    shown_frame_ = result.timing.frame;
    image_view_->setOriginal({result.original, result.original_clipping});
    image_view_->setEqualized({result.equalized, result.equalized_clipping});
    source_ = result.source;
    result_ = result.result;
    result_factor_ = result.result_factor;
    source_range_.reset();
    result_range_.reset();
    if (!result.original.isNull()) source_range_ = result.original_range;
    shown_exposure_ = result.exposure;
    if (!result.equalized.isNull()) result_range_ = result.equalized_range;
    // The samples under a pointer that has not moved are this frame's now.
    refreshReadout();
    // Which result this is: a large photo's preview says so until the exact one replaces it.
    // The region's numbers are under the controls; the plots' narrow margins say that they
    // count one, the scopes' titles where it is.
    QStringList title_notes;
    if (result.preview) title_notes << tr("preview");
    QStringList scope_notes = title_notes;
    if (const QRect& r = result.region; !r.isNull()) {
        title_notes << tr("region");
        scope_notes
            << tr("region %1,%2 %3x%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
    }
    const QString note = title_notes.join(QStringLiteral(", "));
    histogram_view_->setTitle(tr("Original"), note);
    equalized_view_->setTitle(tr("Equalized"), note);
    scopes_->histogramView()->setTitle(tr("Original"), note);
    scopes_->setScopes(result.scopes, scope_notes.join(QStringLiteral(", ")));
    QStringList notes;
    if (result.preview)
        notes << tr("Preview at 1/%1 resolution: computing the full resolution...")
                     .arg(result.result_factor);
    if (!result.display_note.isEmpty()) notes << result.display_note;
    image_view_->setNote(notes.join(QStringLiteral("  \u00b7  ")));
    if (!result.preview) unsaveable_ = result.equalize_wanted ? result.equalize_note : QString();
    equalized_view_->setPlaceholder(result.equalize_note.isEmpty()
                                        ? tr("Equalization is off: choose a mode below")
                                        : result.equalize_note);
    const HistogramData& h = result.original_histogram;
    controls_->setChannels(h.channel_names);
    for (const QString& name : h.channel_names)
        if (const QCheckBox* box = controls_->channelCheck(name))
            for (HistogramModel* model : {histogram_model_, equalized_model_})
                model->setChannelVisible(name, box->isChecked());
    histogram_model_->setHistogram(h);
    equalized_model_->setHistogram(result.equalized_histogram);
    // The text of the statistics and the timing panel costs more to lay out than the plots to
    // draw: while a clip plays it follows at most ten times a second, and the last frame's
    // when playback stops.
    text_.pending = true;
    text_.names = h.channel_names;
    text_.stats = h.stats;
    text_.float_stats = h.float_stats;
    text_.levels = h.levels;
    // The statistics count what the plots do, and say so as their titles do.
    QStringList counted;
    if (result.preview)
        counted << tr("preview at 1/%1 resolution (the full resolution follows)")
                       .arg(result.result_factor);
    if (const QRect& r = result.region; !r.isNull())
        counted << tr("region %1,%2 %3x%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
    QStringList stats_notes;
    if (!counted.isEmpty())
        stats_notes << tr("Counted: %1").arg(counted.join(QStringLiteral(", ")));
    // Limited range: the coded Y' that its R', G', B' clamp, which no column shows.
    if (const auto& y = result.excursions) {
        const double samples = static_cast<double>(std::max<std::uint64_t>(y->samples, 1));
        stats_notes
            << tr("Limited range Y'%1: %2 below black (< %3, %4%), %5 above white (> %6, %7%)")
                   .arg(result.region.isNull() ? QString() : tr(" of the whole frame"))
                   .arg(y->below)
                   .arg(y->black)
                   .arg(100.0 * static_cast<double>(y->below) / samples, 0, 'f', 3)
                   .arg(y->above)
                   .arg(y->white)
                   .arg(100.0 * static_cast<double>(y->above) / samples, 0, 'f', 3);
    }
    text_.stats_note = stats_notes.join(QLatin1Char('\n'));
    text_.preview = result.preview;
    const HistogramData& e = result.equalized_histogram;
    for (int c = 0; c < e.channel_names.size(); ++c) {
        text_.names << tr("%1 (eq)").arg(e.channel_names[c]);
        text_.stats.push_back(e.stats[static_cast<std::size_t>(c)]);
    }
    text_.timing = result.timing;
    // (30 times a second put the paint's 99th percentile at 10 to 15 ms on 4K and 8K clips.)
    constexpr qint64 kPlayingTextEveryMs = 100;
    if (result.tick < 0 || !text_.clock.isValid() || text_.clock.elapsed() >= kPlayingTextEveryMs)
        showText();
    if (announce_open_) {
        statusBar()->showMessage(tr("Opened %1").arg(shown_name(current_path_)), 8000);
        announce_open_ = false;
    }
    ++frames_shown_;
}

void MainWindow::showText() {
    if (!text_.pending) return;
    text_.pending = false;
    text_.clock.start();
    if (!text_.float_stats.empty())
        stats_model_->setFloatStats(text_.names, text_.float_stats);
    else
        stats_model_->setStats(text_.names, text_.stats, text_.levels);
    stats_note_->setText(text_.stats_note);
    stats_note_->setVisible(!text_.stats_note.isEmpty());
    const int stats_tab = tabs_->indexOf(stats_page_);
    tabs_->setTabText(stats_tab, text_.preview ? tr("Stat&istics (preview)") : tr("Stat&istics"));
    timing_model_->add(text_.timing);
}

void MainWindow::onEngineStatus(const EngineStatus& status) {
    engine_label_->setText(status.message);
    engine_label_->setToolTip(status.detail);
}

void MainWindow::onPixelHovered(QPoint pixel, bool equalized_side) {
    // The equalized samples come at full resolution only while they are read here.
    const bool wanted = pixel.x() >= 0 && equalized_side;
    if (wanted != picker_equalized_) {
        picker_equalized_ = wanted;
        emit pixelPickerRequested(wanted);
    }
    if (pixel.x() < 0 || !source_) {
        readout_.clear();
        statusBar()->clearMessage();
        return;
    }
    QString text = tr("x %1  y %2").arg(pixel.x()).arg(pixel.y());
    // Where the pixel lies against the region the statistics count.
    if (const QRect& region = image_view_->region(); !region.isNull())
        text += region.contains(pixel) ? tr(" (in the region at +%1 +%2)")
                                             .arg(pixel.x() - region.x())
                                             .arg(pixel.y() - region.y())
                                       : tr(" (outside the region)");
    if (equalized_side && !result_) {
        text += tr("  equalized: ...");
    } else if (equalized_side) {
        // A preview's equalized samples are those of its reduced copy.
        const QString values = pixel_readout(result_->view(), pixel.x() / result_factor_,
                                             pixel.y() / result_factor_, result_range_);
        text +=
            tr("  equalized%1: %2").arg(result_factor_ > 1 ? tr(" (preview)") : QString(), values);
    } else {
        text += tr("  original: %1")
                    .arg(pixel_readout(source_->view(), pixel.x(), pixel.y(), source_range_,
                                       media_.camera_raw_view == QLatin1String("cfa"),
                                       shown_exposure_));
    }
    text += tr("  zoom %1%").arg(image_view_->zoom() * 100.0, 0, 'g', 3);
    readout_ = text;
    statusBar()->showMessage(text);
}

void MainWindow::refreshReadout() {
    bool equalized_side = false;
    const std::optional<QPoint> pixel = image_view_->hoveredPixel(&equalized_side);
    if (!pixel || pixel->x() < 0) return;
    const QString shown = statusBar()->currentMessage();
    if (!shown.isEmpty() && shown != readout_) return;
    onPixelHovered(*pixel, equalized_side);
}

void MainWindow::fitStatusBar() {
    const QString message = statusBar()->currentMessage();
    int most = QWIDGETSIZE_MAX;
    if (!message.isEmpty()) {
        // Where the labels at the right would begin with the media label whole, and where the
        // message (drawn from x 6, 2 pixels short of them) needs them to.
        int first = statusBar()->width();
        const QWidget* kept[] = {busy_label_, busy_bar_, media_label_, engine_label_};
        for (const QWidget* w : kept)
            if (w->isVisible()) first = std::min(first, w->x());
        const int whole = media_label_->sizeHint().width();
        const int first_whole = first + media_label_->width() - whole;
        const int needs = 6 + statusBar()->fontMetrics().horizontalAdvance(message) + 2;
        if (needs > first_whole)
            most = std::max(media_label_->minimumSizeHint().width(), whole - (needs - first_whole));
    }
    if (media_label_->maximumWidth() != most) media_label_->setMaximumWidth(most);
}

void MainWindow::sendDisplay() {
    const bool clipping = clipping_action_->isChecked();
    image_view_->setClippingVisible(clipping);
    unsigned channels = 0;
    if (clipping) {
        // The colour channels shown (gray counts as channel 0; a CFA mosaic's G1 is its
        // channel 1, its G2 is not counted).
        const QStringList names{QStringLiteral("r"), QStringLiteral("g"), QStringLiteral("b")};
        for (int c = 0; c < names.size(); ++c) {
            const QCheckBox* box = controls_->channelCheck(names[c]);
            if (box == nullptr && c == 1) box = controls_->channelCheck(QStringLiteral("g1"));
            if (box == nullptr || box->isChecked()) channels |= 1u << c;
        }
        if (const QCheckBox* gray = controls_->channelCheck(QStringLiteral("gray")))
            channels = gray->isChecked() ? 1u : 0u;
        if (channels == 0) channels = 0b111;  // nothing shown: every channel
    }
    emit displayRequested(stretch_action_->isChecked(), channels);
}

void MainWindow::sendScopes() {
    ScopeSettings s;
    if (scopes_dock_->isVisible()) s = scopes_->settings();
    s.histogram = false;  // drawn from the histograms every frame has
    emit scopesRequested(s);
}

void MainWindow::setRegion(const QRect& region) {
    const QRect r = region.isEmpty() ? QRect() : region;
    image_view_->setRegion(r);
    region_bar_->setRegion(r);
    emit regionRequested(r);
}

void MainWindow::goToFrame() {
    if (!media_.video || media_.live) return;
    frame_spin_->setFocus(Qt::ShortcutFocusReason);
    frame_spin_->selectAll();
}

void MainWindow::showShortcuts() {
    // Every menu action that has a shortcut, as the menus name it, then the mouse.
    QString html = QStringLiteral("<table cellspacing='6'>");
    for (QAction* menu_action : menuBar()->actions()) {
        const QMenu* menu = menu_action->menu();
        if (menu == nullptr) continue;
        QString rows;
        for (QAction* a : menu->actions())
            if (!a->shortcuts().isEmpty()) {
                QStringList keys;
                for (const QKeySequence& k : a->shortcuts())
                    keys << k.toString(QKeySequence::NativeText).toHtmlEscaped();
                rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                            .arg(keys.join(QStringLiteral(", ")),
                                 a->text().remove(QLatin1Char('&')).toHtmlEscaped());
            }
        if (!rows.isEmpty())
            html += QStringLiteral("<tr><td colspan='2'><br><i>%1</i></td></tr>")
                        .arg(menu->title().remove(QLatin1Char('&'))) +
                    rows;
    }
    html +=
        tr("<tr><td colspan='2'><br><i>Mouse</i></td></tr>"
           "<tr><td><b>Wheel</b></td><td>Zoom the image or the histogram's bin range</td></tr>"
           "<tr><td><b>Drag</b></td><td>Pan the image; on a histogram, zoom into a bin "
           "range</td></tr>"
           "<tr><td><b>Drag the divider</b></td><td>Compare before and after</td></tr>"
           "<tr><td><b>Shift+drag</b></td><td>Draw the region the histograms, statistics and "
           "scopes count</td></tr>"
           "<tr><td><b>Shift+click</b></td><td>The whole frame again</td></tr>"
           "<tr><td><b>Double-click</b></td><td>Fit the image; reset the histogram's "
           "range</td></tr>"
           "<tr><td><b>Hover</b></td><td>Pixel values (image) or bin counts (histogram) in "
           "the status bar</td></tr></table>");
    // A dialog whose text scrolls: the list is taller than a small screen.
    if (!shortcuts_) {
        shortcuts_ = new QDialog(this);
        shortcuts_->setObjectName(QStringLiteral("shortcutsDialog"));
        shortcuts_->setWindowTitle(tr("Keyboard Shortcuts"));
        auto* layout = new QVBoxLayout(shortcuts_);
        auto* text = new QTextBrowser(shortcuts_);
        text->setObjectName(QStringLiteral("shortcutsText"));
        text->setFrameShape(QFrame::NoFrame);
        auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, shortcuts_);
        connect(buttons, &QDialogButtonBox::rejected, shortcuts_, &QDialog::close);
        layout->addWidget(text, 1);
        layout->addWidget(buttons);
    }
    auto* text = shortcuts_->findChild<QTextBrowser*>(QStringLiteral("shortcutsText"));
    text->setHtml(html);
    // As tall as the list laid out at the dialog's width (measured apart: the browser's own
    // document is laid out only once shown), within the screen.
    const int em = fontMetrics().height();
    QTextDocument measure;
    measure.setDefaultFont(text->font());
    measure.setHtml(html);
    measure.setTextWidth(em * 28);
    QSize size(em * 30, static_cast<int>(measure.size().height()) + em * 5);
    if (const QScreen* s = screen()) size = size.boundedTo(s->availableGeometry().size() * 0.9);
    shortcuts_->resize(size);
    shortcuts_->show();
    shortcuts_->raise();
}

void MainWindow::onPlayback(const PlaybackState& state) {
    playback_ = state;
    // Stale results of the session paused are dropped here: the frame on screen stays.
    presenter_->setSession(state.session);
    if (!state.playing && when_paused_ != nullptr)
        QTimer::singleShot(0, this, std::exchange(when_paused_, nullptr));
    if (!state.playing) showText();  // the frame playback stopped on, in full
    play_button_->setIcon(
        style()->standardIcon(state.playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    if (!frame_slider_->isSliderDown()) {
        const QSignalBlocker block(frame_slider_);
        frame_slider_->setValue(static_cast<int>(state.frame));
    }
    // A number being typed while paused stays until it is entered.
    if (!frame_spin_->hasFocus() || state.playing) {
        const QSignalBlocker block(frame_spin_);
        frame_spin_->setValue(static_cast<int>(state.frame));
    }
    // Frames count from 0, as the CLI, the JSON and every message number them; the drops by
    // the stage that made them.
    QString text = state.live ? tr("Frame %1 (live%2)")
                                    .arg(state.frame)
                                    .arg(state.playing ? QString() : tr(", ended"))
                              : tr("Frame %1 of 0..%2").arg(state.frame).arg(state.frames - 1);
    // Where it falls at the rate the clip plays at.
    if (const QString at = frame_time(state.frame, state.fps); !at.isEmpty())
        text += tr(" at %1").arg(at);
    text += tr("  dropped %1").arg(state.dropped);
    if (state.dropped > 0)
        text += tr(" (read %1, stream %2, paint %3)")
                    .arg(state.dropped_read)
                    .arg(state.dropped_process)
                    .arg(state.dropped_paint);
    if (state.failed > 0) text += tr("  failed %1").arg(state.failed);
    frame_label_->setText(text);
    if (frame_slider_->maximum() != static_cast<int>(std::max<std::int64_t>(0, state.frames - 1))) {
        const QSignalBlocker block(frame_slider_);
        frame_slider_->setMaximum(static_cast<int>(std::max<std::int64_t>(0, state.frames - 1)));
        const QSignalBlocker spin(frame_spin_);
        frame_spin_->setMaximum(frame_slider_->maximum());
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
    settings_save_->stop();
    saveSettings();
    QMainWindow::closeEvent(event);
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    scheduleSettingsSave();
}

void MainWindow::moveEvent(QMoveEvent* event) {
    QMainWindow::moveEvent(event);
    scheduleSettingsSave();
}

}  // namespace hs::ui
