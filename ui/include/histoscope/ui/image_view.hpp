#pragma once
// Shows the image before and after equalization: a split view (original left of a draggable
// divider, equalized right of it) or the two side by side, with fit, zoom (wheel, +/-) and pan
// (drag). Without an equalized image it shows the original alone.

#include <QImage>
#include <QPixmap>
#include <QPointF>
#include <QWidget>

namespace hs::ui {

class ImageView : public QWidget {
    Q_OBJECT

  public:
    enum class Compare { Split, SideBySide };

    explicit ImageView(QWidget* parent = nullptr);

    void setOriginal(const QImage& image);   // a null image keeps the current one
    void setEqualized(const QImage& image);  // null: equalization is off
    bool hasImage() const { return !original_.isNull(); }
    const QImage& original() const { return original_; }
    const QImage& equalized() const { return equalized_; }

    Compare compare() const { return compare_; }
    double split() const { return split_; }  // 0..1 of the image width
    double zoom() const { return zoom_; }    // displayed pixels per image pixel
    bool fitted() const { return fitted_; }

    QSize sizeHint() const override;

  public slots:
    void setCompare(hs::ui::ImageView::Compare mode);
    void setSplit(double split);
    void zoomIn();
    void zoomOut();
    void fit();
    void actualSize();

  signals:
    void zoomChanged(double zoom);
    void splitChanged(double split);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

  private:
    bool comparing() const { return !equalized_.isNull(); }
    QRectF pane(int index) const;                // widget area of pane 0 (or 1, side by side)
    QRectF imageRect(const QRectF& pane) const;  // where the image lands in a pane
    double fitZoom() const;
    double dividerX() const;
    void zoomAt(double factor, QPointF anchor);
    void drawLabel(QPainter& p, const QRectF& area, const QString& text, bool right) const;

    QImage original_, equalized_;
    QPixmap original_pixmap_, equalized_pixmap_;
    Compare compare_ = Compare::Split;
    double split_ = 0.5;
    double zoom_ = 1.0;
    QPointF center_;  // image coordinate shown at the centre of each pane
    bool fitted_ = true;
    enum class Drag { None, Pan, Divider } drag_ = Drag::None;
    QPointF last_pos_;
};

}  // namespace hs::ui
