#pragma once
// Paints the histogram model: R, G, B (and alpha) overlaid or side by side (parade), linear or
// log counts, the cumulative curve, a camera raw mosaic's levels, a hover readout (bin range,
// count, percent per channel) and a horizontal zoom into a bin range (drag to select, wheel to
// zoom, double-click resets).
//
// Each pixel column shows the mean count per bin of the bins it covers (area-preserving, see
// histogram_columns.hpp). The plot's height follows plot_ceiling(): a spike far above the rest
// is cut at the top and marked with a triangle instead of flattening everything else. The
// plot is rendered once into an image (filled areas by paint_plot, a row at a time) and kept
// until the data, the range or the size change; hovering only redraws the readout over it.
// It is always dark, as scopes are, whatever the application's palette.

#include <QImage>
#include <QWidget>
#include <vector>

#include "histoscope/ui/histogram_model.hpp"

namespace hs::ui {

class HistogramView : public QWidget {
    Q_OBJECT

  public:
    explicit HistogramView(QWidget* parent = nullptr);

    void setModel(HistogramModel* model);
    HistogramModel* model() const { return model_; }
    // Drawn in the left margin ("Original", "Equalized"), with a note under it ("preview"),
    // and the text shown without data.
    void setTitle(const QString& title, const QString& note = {});
    void setPlaceholder(const QString& text);
    const QString& placeholder() const { return placeholder_; }
    bool parade() const { return parade_; }
    void setParade(bool on);

    // Visible bins [first, last); the whole histogram after a reset.
    int firstBin() const { return first_; }
    int lastBin() const { return last_; }
    void setBinRange(int first, int last);
    void resetZoom();

    // "[lo, hi)  r 123 (0.10%)  g ..." for bins [first, last) (one bin when `last` is -1), or
    // empty without data.
    QString readout(int first, int last = -1) const;

    // Where the bins are drawn, in widget coordinates (the whole plot, all parade lanes).
    QRectF plotArea() const;
    // Where the hover readout is drawn now (empty when nothing is hovered), and the level
    // labels of a camera raw mosaic's plot: the readout is placed where it covers none of them.
    QRectF readoutRect() const;
    QList<QRectF> levelLabelRects() const;
    // Pixel columns (device pixels) whose value is above the plot's height and is drawn cut at
    // the top with a marker, as of the last paint.
    int clippedColumns() const { return clipped_columns_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  signals:
    void hoverChanged(const QString& readout);
    void binRangeChanged(int first, int last);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    // A level marker's label as drawn: its box, the marker's x and the lane it is in.
    struct LevelLabel {
        QRectF box;
        double x = 0.0;
        QRectF lane;
        QString text;
    };
    // The hover readout as drawn: its text (lines), box and text width.
    struct Readout {
        QString text;
        QRectF box;
        int width = 0;
    };
    int laneCount() const;  // the parade's lanes, or 1
    QRectF laneArea(int lane, int lanes) const;
    int binAt(double x, const QRectF& area) const;
    // Bins [first, last) under widget x (a pixel column's bins), or {-1, -1}.
    std::pair<int, int> columnBins(double x) const;
    QList<int> visibleChannels() const;
    void invalidate();
    void renderPlot();  // into plot_
    void paintAxes(QPainter& p, const QList<int>& channels) const;
    // A camera raw mosaic's black and white levels (HistogramData::markers): a dashed line at
    // each, labelled, in every lane.
    void paintLevels(QPainter& p, int lanes) const;
    std::vector<LevelLabel> levelLabels(int lanes) const;
    void paintReadout(QPainter& p) const;
    Readout readoutLayout() const;
    void onModelChanged();

    HistogramModel* model_ = nullptr;
    QString title_;
    QString note_;
    QString placeholder_;
    bool parade_ = false;
    int first_ = 0;
    int last_ = 0;
    int bins_ = 0;
    std::pair<int, int> hover_{-1, -1};
    double hover_x_ = -1.0;
    double drag_start_ = -1.0;
    double drag_now_ = -1.0;
    QImage plot_;  // everything but the hover readout and the drag selection
    bool plot_stale_ = true;
    int clipped_columns_ = 0;
};

// The colour a channel ("r", "g", "b", "a", "luma", "gray") is named and outlined with.
QColor channel_color(const QString& name);

}  // namespace hs::ui
