#pragma once
// Paints the histogram model: R, G, B and luma overlaid or side by side (parade), linear or
// log counts, the cumulative curve, a hover readout (bin range, count, percent per channel)
// and a horizontal zoom into a bin range (drag to select, wheel to zoom, double-click resets).

#include <QWidget>

#include "histoscope/ui/histogram_model.hpp"

namespace hs::ui {

class HistogramView : public QWidget {
    Q_OBJECT

  public:
    explicit HistogramView(QWidget* parent = nullptr);

    void setModel(HistogramModel* model);
    HistogramModel* model() const { return model_; }
    // Drawn in the top right corner ("Original", "Equalized"), and the text shown without data.
    void setTitle(const QString& title);
    void setPlaceholder(const QString& text);
    bool parade() const { return parade_; }
    void setParade(bool on);

    // Visible bins [first, last); the whole histogram after a reset.
    int firstBin() const { return first_; }
    int lastBin() const { return last_; }
    void setBinRange(int first, int last);
    void resetZoom();

    // "[lo, hi)  r 123 (0.10%)  g ..." for `bin`, or empty without data.
    QString readout(int bin) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  signals:
    void hoverChanged(const QString& readout);
    void binRangeChanged(int first, int last);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    QRectF plotArea() const;
    QRectF laneArea(int lane, int lanes) const;
    int binAt(double x, const QRectF& area) const;
    QList<int> visibleChannels() const;
    void paintChannel(QPainter& p, const QRectF& area, int channel, double y_max, bool fill) const;
    void paintCumulative(QPainter& p, const QRectF& area, int channel) const;
    void paintAxes(QPainter& p, const QRectF& area) const;
    void onModelChanged();

    HistogramModel* model_ = nullptr;
    QString title_;
    QString placeholder_;
    bool parade_ = false;
    int first_ = 0;
    int last_ = 0;
    int bins_ = 0;
    int hover_bin_ = -1;
    double drag_start_ = -1.0;
    double drag_now_ = -1.0;
};

// The colour a channel ("r", "g", "b", "luma", "gray", ...) is drawn with.
QColor channel_color(const QString& name);

}  // namespace hs::ui
