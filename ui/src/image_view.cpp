#include "histoscope/ui/image_view.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace hs::ui {

namespace {
constexpr double kMinZoom = 0.02;
constexpr double kMaxZoom = 64.0;
}  // namespace

ImageView::ImageView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setFocusPolicy(Qt::StrongFocus);
    setToolTip(tr("Wheel: zoom, drag: pan, drag the divider: compare, double-click: fit"));
}

QSize ImageView::sizeHint() const {
    const int em = fontMetrics().height();
    return {em * 40, em * 30};
}

void ImageView::setOriginal(const QImage& image) {
    if (image.isNull()) return;
    const bool new_size = image.size() != original_.size();
    original_ = image;
    original_pixmap_ = QPixmap::fromImage(image);
    if (new_size || fitted_) fit();
    update();
}

void ImageView::setEqualized(const QImage& image) {
    equalized_ = image;
    equalized_pixmap_ = image.isNull() ? QPixmap() : QPixmap::fromImage(image);
    if (fitted_) fit();
    update();
}

void ImageView::setCompare(Compare mode) {
    compare_ = mode;
    if (fitted_) fit();
    update();
}

void ImageView::setSplit(double split) {
    split = std::clamp(split, 0.0, 1.0);
    if (split == split_) return;
    split_ = split;
    emit splitChanged(split_);
    update();
}

QRectF ImageView::pane(int index) const {
    const QRectF all(rect());
    if (!comparing() || compare_ == Compare::Split) return all;
    const double gap = 4.0;
    const double w = (all.width() - gap) / 2.0;
    return {all.left() + index * (w + gap), all.top(), w, all.height()};
}

QRectF ImageView::imageRect(const QRectF& area) const {
    const double w = original_.width() * zoom_, h = original_.height() * zoom_;
    return {area.center().x() - center_.x() * zoom_, area.center().y() - center_.y() * zoom_, w, h};
}

double ImageView::fitZoom() const {
    if (original_.isNull()) return 1.0;
    const QRectF area = pane(0);
    return std::clamp(
        std::min(area.width() / original_.width(), area.height() / original_.height()), kMinZoom,
        kMaxZoom);
}

void ImageView::fit() {
    fitted_ = true;
    if (original_.isNull()) return;
    zoom_ = fitZoom();
    center_ = QPointF(original_.width() / 2.0, original_.height() / 2.0);
    emit zoomChanged(zoom_);
    update();
}

void ImageView::actualSize() {
    zoomAt(1.0 / zoom_, rect().center());
}
void ImageView::zoomIn() {
    zoomAt(1.25, rect().center());
}
void ImageView::zoomOut() {
    zoomAt(0.8, rect().center());
}

void ImageView::zoomAt(double factor, QPointF anchor) {
    if (original_.isNull()) return;
    const double z = std::clamp(zoom_ * factor, kMinZoom, kMaxZoom);
    // Keep the image point under `anchor` where it is.
    QRectF area = pane(0);
    if (!area.contains(anchor) && comparing() && compare_ == Compare::SideBySide) area = pane(1);
    const QPointF image_point = center_ + (anchor - area.center()) / zoom_;
    zoom_ = z;
    center_ = image_point - (anchor - area.center()) / zoom_;
    fitted_ = false;
    emit zoomChanged(zoom_);
    update();
}

double ImageView::dividerX() const {
    const QRectF r = imageRect(pane(0));
    return std::clamp(r.left() + r.width() * split_, 0.0, static_cast<double>(width()));
}

void ImageView::drawLabel(QPainter& p, const QRectF& area, const QString& text, bool right) const {
    const QFontMetrics fm = fontMetrics();
    const double w = fm.horizontalAdvance(text) + 12, h = fm.height() + 6;
    const QRectF box(right ? area.right() - w - 8 : area.left() + 8, area.top() + 8, w, h);
    p.fillRect(box, QColor(0, 0, 0, 150));
    p.setPen(Qt::white);
    p.drawText(box, Qt::AlignCenter, text);
}

void ImageView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Dark));
    if (original_.isNull()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Open a photo or a video (Ctrl+O) or drop it here"));
        return;
    }
    p.setRenderHint(QPainter::SmoothPixmapTransform, zoom_ < 2.0);
    if (!comparing()) {
        p.drawPixmap(imageRect(pane(0)), original_pixmap_, QRectF(original_pixmap_.rect()));
        return;
    }
    if (compare_ == Compare::SideBySide) {
        for (int i = 0; i < 2; ++i) {
            const QRectF area = pane(i);
            p.save();
            p.setClipRect(area);
            p.drawPixmap(imageRect(area), i == 0 ? original_pixmap_ : equalized_pixmap_,
                         QRectF(original_pixmap_.rect()));
            p.restore();
            drawLabel(p, area, i == 0 ? tr("Original") : tr("Equalized"), false);
        }
        return;
    }
    const QRectF target = imageRect(pane(0));
    const double x = dividerX();
    p.save();
    p.setClipRect(QRectF(0, 0, x, height()));
    p.drawPixmap(target, original_pixmap_, QRectF(original_pixmap_.rect()));
    p.setClipRect(QRectF(x, 0, width() - x, height()));
    p.drawPixmap(target, equalized_pixmap_, QRectF(equalized_pixmap_.rect()));
    p.restore();
    p.setPen(QPen(QColor(255, 255, 255, 220), 2));
    p.drawLine(QPointF(x, 0), QPointF(x, height()));
    const double r = fontMetrics().height() * 0.6;
    p.setBrush(QColor(255, 255, 255, 220));
    p.drawEllipse(QPointF(x, height() / 2.0), r, r);
    drawLabel(p, QRectF(rect()), tr("Original"), false);
    drawLabel(p, QRectF(rect()), tr("Equalized"), true);
}

void ImageView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (fitted_) fit();
}

void ImageView::wheelEvent(QWheelEvent* event) {
    if (original_.isNull()) return;
    zoomAt(event->angleDelta().y() > 0 ? 1.25 : 0.8, event->position());
    event->accept();
}

void ImageView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || original_.isNull()) return;
    last_pos_ = event->position();
    const bool near_divider =
        comparing() && compare_ == Compare::Split &&
        std::abs(event->position().x() - dividerX()) <= fontMetrics().height() * 0.8;
    drag_ = near_divider ? Drag::Divider : Drag::Pan;
    setCursor(near_divider ? Qt::SplitHCursor : Qt::ClosedHandCursor);
}

void ImageView::mouseMoveEvent(QMouseEvent* event) {
    const QPointF pos = event->position();
    if (drag_ == Drag::Divider) {
        const QRectF r = imageRect(pane(0));
        if (r.width() > 0) setSplit((pos.x() - r.left()) / r.width());
    } else if (drag_ == Drag::Pan) {
        center_ -= (pos - last_pos_) / zoom_;
        fitted_ = false;
        update();
    } else if (comparing() && compare_ == Compare::Split) {
        const bool near = std::abs(pos.x() - dividerX()) <= fontMetrics().height() * 0.8;
        setCursor(near ? Qt::SplitHCursor : Qt::ArrowCursor);
    }
    last_pos_ = pos;
}

void ImageView::mouseReleaseEvent(QMouseEvent*) {
    drag_ = Drag::None;
    unsetCursor();
}

void ImageView::mouseDoubleClickEvent(QMouseEvent*) {
    fit();
}

}  // namespace hs::ui
