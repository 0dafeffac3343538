#pragma once
// Shows the image before and after equalization: a split view (original left of a draggable
// divider, equalized right of it) or the two side by side, with fit, zoom (wheel, +/-) and pan
// (drag). Without an equalized image it shows the original alone. Transparent pixels show a
// checkerboard; the clipping overlays are drawn over the pictures when shown (inside the region
// when there is one); a note (preview, display range) sits in the bottom-left corner. A region
// (the rectangle histograms, statistics and scopes count) is drawn with Shift+drag, cleared
// with Shift+click, and outlined on every pane. Coordinates are the image's full-resolution
// pixels: the pictures come reduced by a whole factor to about the size they are drawn at
// (displayFactor(): the frame stream makes them so), and are scaled to the image's size.

#include <QImage>
#include <QPixmap>
#include <QPointF>
#include <QWidget>
#include <optional>

namespace hs::ui {

class ImageView : public QWidget {
    Q_OBJECT

  public:
    enum class Compare { Split, SideBySide };
    // What one side shows: the picture (reduced by a whole factor, or at full resolution) and
    // the clipping overlay at its size (null: none).
    struct Picture {
        QImage shown, clipping;
    };

    explicit ImageView(QWidget* parent = nullptr);

    // The image's full-resolution size; pictures of another size are scaled to it.
    void setImageSize(QSize size);
    void setOriginal(const Picture& picture);   // a null `shown` keeps the current picture
    void setEqualized(const Picture& picture);  // a null `shown`: equalization is off
    void setClippingVisible(bool on);
    // The region outlined (full-resolution pixels; null: none). Says nothing back.
    void setRegion(const QRect& region);
    const QRect& region() const { return region_; }
    void setNote(const QString& note);
    bool hasImage() const { return !original_.picture.shown.isNull(); }
    const QImage& original() const { return original_.picture.shown; }
    const QImage& equalized() const { return equalized_.picture.shown; }
    QString note() const { return note_; }

    Compare compare() const { return compare_; }
    double split() const { return split_; }  // 0..1 of the image width
    double zoom() const { return zoom_; }    // displayed pixels per image pixel
    bool fitted() const { return fitted_; }
    // The whole factor pictures are best reduced by for the zoom: the largest that keeps them
    // drawn at no more than 1.25 times their size (1: full resolution).
    int displayFactor() const;
    // The image pixel under widget point `pos` ((-1, -1) off the image) and whether it lies on
    // the equalized side.
    QPoint pixelAt(QPointF pos, bool* equalized_side = nullptr) const;
    // pixelAt() of where the pointer rests over the view (the last move it made there), for the
    // pictures and zoom shown now; nothing once it left the view.
    std::optional<QPoint> hoveredPixel(bool* equalized_side = nullptr) const;

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
    void compareChanged(hs::ui::ImageView::Compare mode);
    // The pixel under the mouse (full-resolution coordinates), or (-1, -1) when it leaves the
    // image.
    void pixelHovered(QPoint pixel, bool equalized_side);
    // The user drew a region (Shift+drag) or cleared it (Shift+click: null).
    void regionDrawn(QRect region);
    void displayFactorChanged(int factor);
    // A paint of the widget ended.
    void painted();

  protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    struct Side {
        Picture picture;
        QPixmap pixmap, clipping;  // of the picture and its overlay, for fast drawing
    };
    bool comparing() const { return !equalized_.picture.shown.isNull(); }
    QRectF pane(int index) const;                // widget area of pane 0 (or 1, side by side)
    QRectF imageRect(const QRectF& pane) const;  // where the image lands in a pane
    double fitZoom() const;
    double dividerX() const;
    void zoomAt(double factor, QPointF anchor);
    void zoomChangedTo(double zoom);  // says so, and the display factor when it changes
    void drawSide(QPainter& p, const Side& side, const QRectF& target) const;
    void drawLabel(QPainter& p, const QRectF& area, const QString& text, bool right) const;
    void drawRegion(QPainter& p, const QRectF& target) const;
    // Where the region lands over an image drawn at `target`.
    QRectF regionRect(const QRectF& target) const;
    // The image pixel nearest widget point `pos` in pane `index` (clamped into the image).
    QPoint nearestPixel(QPointF pos, int index) const;
    static void setSide(Side& side, const Picture& picture);

    QSize size_;  // the image's full resolution
    Side original_, equalized_;
    Compare compare_ = Compare::Split;
    double split_ = 0.5;
    double zoom_ = 1.0;
    QPointF center_;  // image coordinate shown at the centre of each pane
    bool fitted_ = true;
    int factor_ = 1;  // the display factor last said
    bool clipping_visible_ = false;
    QString note_;
    QRect region_;
    QPoint region_anchor_;
    int region_pane_ = 0;
    enum class Drag { None, Pan, Divider, Region } drag_ = Drag::None;
    QPointF last_pos_;
    std::optional<QPointF> hover_pos_;  // the pointer over the view
};

}  // namespace hs::ui
