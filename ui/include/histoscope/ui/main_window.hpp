#pragma once
// The main window: the image (before/after) and the video controls on the left; the
// histograms of the original and of the equalized image, their controls, the equalization
// controls, the statistics and the live timing on the right. It draws and forwards intent to
// the Controller (queued signals) and shows the value results that come back.

#include <QElapsedTimer>
#include <QMainWindow>
#include <QPointer>
#include <optional>
#include <vector>

#include "histoscope/ui/types.hpp"

class QAction;
class QDockWidget;
class QFileDialog;
class QProgressBar;
class QLabel;
class QMenu;
class QDialog;
class QMessageBox;
class QSlider;
class QSpinBox;
class QSplitter;
class QTabWidget;
class QTimer;
class QTableView;
class QToolButton;

namespace hs::ui {

class CompareDialog;
class Controller;
class ControlsPanel;
class EqualizePanel;
class HistogramModel;
class HistogramView;
class ImageView;
class RawDialog;
class ElidedLabel;
class RegionBar;
class ScopesPanel;
class StatsModel;
class TimingModel;
class TimingPanel;

class Presenter;

class MainWindow : public QMainWindow {
    Q_OBJECT

  public:
    // `samples_dir`: the bundled sample media (File > Open Sample); may be empty.
    MainWindow(Controller* controller, const QString& samples_dir, QWidget* parent = nullptr);
    ~MainWindow() override;

    HistogramModel* histogramModel() const { return histogram_model_; }
    HistogramModel* equalizedModel() const { return equalized_model_; }
    StatsModel* statsModel() const { return stats_model_; }
    TimingModel* timingModel() const { return timing_model_; }
    HistogramView* histogramView() const { return histogram_view_; }
    HistogramView* equalizedView() const { return equalized_view_; }
    ImageView* imageView() const { return image_view_; }
    ControlsPanel* controls() const { return controls_; }
    EqualizePanel* equalizePanel() const { return equalize_; }
    TimingPanel* timingPanel() const { return timing_panel_; }
    QTableView* statsView() const { return stats_view_; }
    // What the statistics shown count when it is not the whole frame at full resolution (a
    // preview, a region); empty otherwise.
    QString statsNote() const;
    QTabWidget* tabs() const { return tabs_; }
    ScopesPanel* scopesPanel() const { return scopes_; }
    QDockWidget* scopesDock() const { return scopes_dock_; }
    RegionBar* regionBar() const { return region_bar_; }
    QSlider* splitSlider() const { return split_slider_; }
    QSlider* frameSlider() const { return frame_slider_; }
    // The frame number to go to (Video > Go to Frame, Ctrl+G): typed, then Enter.
    QSpinBox* frameSpin() const { return frame_spin_; }
    const QString& currentPath() const { return current_path_; }
    const MediaInfo& media() const { return media_; }
    const PlaybackState& playback() const { return playback_; }
    const QString& lastError() const { return last_error_; }
    std::uint64_t framesShown() const { return frames_shown_; }
    bool busy() const { return busy_; }  // the controller has work pending
    QString engineStatus() const;
    CompareDialog* compareDialog() const;
    RawDialog* rawDialog() const;  // the Open Raw dialog while it is open

  public slots:
    // A photo or a video; a file of raw frames with the format remembered for it, else (a .raw
    // or .bin file) after asking for its format.
    void openFile(const QString& path);
    // Raw frames of `format` (the CLI's --raw: "WxHxC:u8|u16[:DEPTH]|f32").
    // Several frames play at `fps` frames per second (0: 25); path "-": standard input, live.
    void openRawFile(const QString& path, const QString& format, double fps = 0.0);
    // The Open Raw dialog for `path` (window-modal, not blocking).
    void askRawFormat(const QString& path);
    void openCompareDialog();
    void setReferenceFile(const QString& path);
    // Writes the whole window, or the histogram plots, to a PNG. Returns an error or "".
    QString savePlotPng(const QString& path);

  signals:
    void openRequested(const QString& path);
    void rawOpenRequested(const QString& path, const QString& format, double fps);
    // The pointer reads the equalized image's samples (or stopped reading them).
    void pixelPickerRequested(bool equalized_samples);
    // A frame's result was painted: its timing, and how long the window's update and the paint
    // took (the paint stage of the frame path).
    void framePainted(const hs::ui::FrameTiming& timing, double paint_ms);
    void engineRequested(const QString& name);
    void equalizerRequested(const QString& name);
    void binsRequested(int bins);
    void exposureRequested(double ev);
    void equalizeRequested(const hs::ui::EqualizeSettings& settings);
    void referenceRequested(const QString& path);
    void saveRequested(const QString& path);
    void enginesRequested();
    void playToggleRequested();
    void pauseRequested();
    void stepRequested(int frames);
    void seekRequested(qint64 frame);
    void loopRequested(bool on);
    void displayRequested(bool stretch_deep, unsigned clipping);
    void scopesRequested(const hs::ui::ScopeSettings& scopes);
    void regionRequested(const QRect& region);
    void hostBandwidthRequested(double gbs);
    // How camera raw files are opened: "cfa" (their CFA mosaic) or "rgb" (demosaiced).
    void cameraRawViewRequested(const QString& view);

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void moveEvent(QMoveEvent* event) override;

  private:
    void buildLayout();
    void buildMenus();
    void connectController();
    void restoreSettings();
    void saveSettings() const;
    // Every setting saved soon after it changes, not only on a normal quit (a SIGTERM or a
    // crash lost them): each change starts settings_save_, whose end saves them all.
    void watchSettings();
    void scheduleSettingsSave();
    void rebuildRecentMenu();
    void addRecent(const QString& path);
    void onMediaLoaded(const MediaInfo& info);
    void onLoadFailed(const QString& path, const QString& message);
    void onFrame(const PresentedFrame& result);
    void onEngineStatus(const EngineStatus& status);
    void showText();  // the statistics and timing of the last frame shown, when not shown yet
    // The statistics' columns as wide as their numbers (never elided: the table scrolls when
    // they do not fit), sharing what room is left.
    void fitStatsColumns();
    void onPlayback(const PlaybackState& state);
    void onPixelHovered(QPoint pixel, bool equalized_side);
    // The readout of the pixel under a pointer that rests over the image, for the frame shown
    // now: it replaces the readout of an earlier frame or an empty status bar, never a message
    // shown since (which has its time, then gives way to the readout again).
    void refreshReadout();
    // The media label as wide as the status bar's message leaves it (its whole width without
    // one): QStatusBar draws the message only up to the labels it keeps at the right.
    void fitStatusBar();
    void onEqualizeChanged(const EqualizeSettings& settings);
    void sendDisplay();  // the display settings to the controller and the image view
    // The scopes the panel shows to the controller (none while the panel is hidden).
    void sendScopes();
    // A region drawn or typed: to the view, the numbers and the controller.
    void setRegion(const QRect& region);
    void showShortcuts();
    // Video > Go to Frame: the frame number's box, focused with its text selected.
    void goToFrame();
    void showError(const QString& title, const QString& message);
    void chooseAndOpen();
    void chooseAndOpenRaw();
    void chooseReference();
    void chooseAndSave();
    // Saves the equalized image as `path` once it is no input and may be replaced.
    void saveAs(const QString& path);
    void exportHistogramCsv();
    void exportPlotPng();
    // Runs `then` on the frame playback stops on: at once when nothing plays, else once the
    // pause it asks for has come (a file named after the frame shown holds that frame).
    void whenPaused(void (MainWindow::*then)());
    // Where an export of the media shown goes by default: beside it, named after it and, for a
    // clip's or a stream's frame, the frame ("clip-frame-12-equalized.png").
    QString exportPath(const QString& suffix) const;

    Controller* controller_;
    QString samples_dir_;
    QString current_path_;
    QString last_error_;
    MediaInfo media_;
    PlaybackState playback_;
    std::int64_t shown_frame_ = -1;  // the number of the frame on screen (-1: a photo)
    void (MainWindow::*when_paused_)() = nullptr;  // what whenPaused() waits to run
    std::uint64_t frames_shown_ = 0;
    HistogramModel* histogram_model_;
    HistogramModel* equalized_model_;
    StatsModel* stats_model_;
    TimingModel* timing_model_;
    ImageView* image_view_;
    HistogramView* histogram_view_;
    HistogramView* equalized_view_;
    QWidget* plots_;
    ControlsPanel* controls_;
    EqualizePanel* equalize_;
    QTableView* stats_view_;
    QWidget* stats_page_;
    QLabel* stats_note_;
    TimingPanel* timing_panel_;
    QTabWidget* tabs_;
    ScopesPanel* scopes_;
    QDockWidget* scopes_dock_;
    RegionBar* region_bar_;
    QSplitter* main_splitter_ = nullptr;
    QSplitter* right_splitter_ = nullptr;
    QSlider* split_slider_;
    QWidget* video_bar_;
    QToolButton* play_button_;
    QSlider* frame_slider_;
    QSpinBox* frame_spin_;
    QLabel* frame_label_;
    QLabel* engine_label_;
    // The media (format, size, a camera raw file's view, levels, camera and shot), kept at the
    // right; it gives way, elided, to the passing message (the pixel readout) beside it.
    ElidedLabel* media_label_;
    // The media's notes, shown whenever no passing message covers them.
    ElidedLabel* notes_label_;
    QLabel* busy_label_;
    QProgressBar* busy_bar_;
    Presenter* presenter_;
    QTimer* settings_save_;
    QMenu* recent_menu_ = nullptr;
    QAction* play_action_ = nullptr;
    QAction* loop_action_ = nullptr;
    QAction* clipping_action_ = nullptr;
    QAction* stretch_action_ = nullptr;
    QAction* mosaic_action_ = nullptr;  // camera raw files shown as their CFA mosaic
    bool wanted_mosaic_ = true;         // what it says (kept with the settings)
    QAction* split_action_ = nullptr;
    QAction* side_action_ = nullptr;
    QList<QAction*> media_actions_;  // enabled once media is loaded
    QList<QAction*> video_actions_;  // enabled for video
    QList<QWidget*> step_buttons_;   // the video bar's previous and next frame
    QList<QWidget*> split_labels_;   // "Original" and "Equalized" beside the divider's slider
    QPointer<CompareDialog> compare_;
    QPointer<RawDialog> raw_dialog_;
    QPointer<QMessageBox> error_box_;
    QPointer<QDialog> shortcuts_;
    QPointer<QFileDialog> reference_dialog_;
    QPointer<QFileDialog> save_dialog_;
    // Why the last exact result has no equalized image to save (its settings asked for one),
    // until the settings change; empty otherwise.
    QString unsaveable_;
    // The last frame's samples, for the pixel picker.
    std::shared_ptr<const hs::Image> source_;
    std::shared_ptr<const hs::Image> result_;
    int result_factor_ = 1;
    // What their pictures show them over (none: no picture came with them).
    std::optional<hs::DisplayRange> source_range_, result_range_;
    double shown_exposure_ = 0.0;    // a float image's pictures: the exposure they show
    bool picker_equalized_ = false;  // what pixelPickerRequested() said last
    QString readout_;                // the status bar's text the pixel picker showed last
    // The statistics and timing of the last frame shown, and when they were last put in their
    // models (see onFrame()).
    struct Text {
        bool pending = false;
        QStringList names;
        std::vector<hs::Stats> stats;
        std::vector<hs::FloatStats> float_stats;  // a float image's (stats then empty)
        std::vector<ChannelLevels> levels;        // a CFA mosaic's
        QString stats_note;
        bool preview = false;
        FrameTiming timing;
        QElapsedTimer clock;
    } text_;
    EqualizeSettings sent_equalize_;  // what the controller last got
    bool has_reference_ = false;      // the controller holds a match reference
    // Match was chosen without a reference and one was picked: the mode is sent once it loads,
    // and goes back to sent_equalize_'s if it is refused.
    bool match_waits_ = false;
    bool announce_open_ = false;
    bool busy_ = false;
    bool scopes_sized_ = false;  // the scopes' dock was given its first height
};

}  // namespace hs::ui
