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
constexpr double kMostUpscale = 1.25;

// Grey squares behind transparent pixels, as image editors draw them.
const QBrush& checkerboard() {
    static const QBrush brush = [] {
        QPixmap tile(16, 16);
        tile.fill(QColor(102, 102, 102));
        QPainter p(&tile);
        p.fillRect(0, 0, 8, 8, QColor(153, 153, 153));
        p.fillRect(8, 8, 8, 8, QColor(153, 153, 153));
        return QBrush(tile);
    }();
    return brush;
}
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

void ImageView::setSide(Side& side, const Picture& picture) {
    side.picture = picture;
    side.pixmap = picture.shown.isNull() ? QPixmap() : QPixmap::fromImage(picture.shown);
    side.clipping = picture.clipping.isNull() ? QPixmap() : QPixmap::fromImage(picture.clipping);
}

int ImageView::displayFactor() const {
    const double scale = zoom_ * devicePixelRatioF();  // screen pixels per image pixel
    if (scale <= 0.0) return 1;
    // Pictures drawn at most 1.25 times their size: a 1920-pixel frame in a 1000-pixel view
    // comes as 960 pixels, not 1920 (four times the pixels to make, move and scale for a
    // difference no one sees); zooming in for detail asks for more.
    return std::max(1, static_cast<int>(std::floor(kMostUpscale / scale + 1e-9)));
}

void ImageView::zoomChangedTo(double zoom) {
    emit zoomChanged(zoom);
    if (const int f = displayFactor(); f != factor_) {
        factor_ = f;
        emit displayFactorChanged(f);
    }
}

void ImageView::setImageSize(QSize size) {
    if (size == size_) return;
    size_ = size;
    fit();
}

void ImageView::setOriginal(const Picture& picture) {
    if (picture.shown.isNull()) return;
    if (size_.isEmpty()) size_ = picture.shown.size();
    setSide(original_, picture);
    if (fitted_) fit();
    update();
}

void ImageView::setEqualized(const Picture& picture) {
    setSide(equalized_, picture);
    if (fitted_) fit();
    update();
}

void ImageView::setClippingVisible(bool on) {
    clipping_visible_ = on;
    update();
}

void ImageView::setNote(const QString& note) {
    if (note == note_) return;
    note_ = note;
    update();
}

void ImageView::setCompare(Compare mode) {
    if (mode == compare_) return;
    compare_ = mode;
    if (fitted_) fit();
    update();
    emit compareChanged(compare_);
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
    const double w = size_.width() * zoom_, h = size_.height() * zoom_;
    return {area.center().x() - center_.x() * zoom_, area.center().y() - center_.y() * zoom_, w, h};
}

QPoint ImageView::pixelAt(QPointF pos, bool* equalized_side) const {
    const QPoint none(-1, -1);
    if (!hasImage()) return none;
    int index = 0;
    if (comparing() && compare_ == Compare::SideBySide && pane(1).contains(pos)) index = 1;
    const QRectF r = imageRect(pane(index));
    if (!r.contains(pos)) return none;
    if (equalized_side != nullptr)
        *equalized_side =
            comparing() && (compare_ == Compare::SideBySide ? index == 1 : pos.x() >= dividerX());
    // The screen pixel at `pos` spans [pos, pos + 1): its centre says which image pixel it shows.
    const QPointF p = (pos + QPointF(0.5, 0.5) - r.topLeft()) / zoom_;
    return {std::clamp(static_cast<int>(p.x()), 0, size_.width() - 1),
            std::clamp(static_cast<int>(p.y()), 0, size_.height() - 1)};
}

double ImageView::fitZoom() const {
    if (size_.isEmpty()) return 1.0;
    const QRectF area = pane(0);
    return std::clamp(std::min(area.width() / size_.width(), area.height() / size_.height()),
                      kMinZoom, kMaxZoom);
}

void ImageView::fit() {
    fitted_ = true;
    if (size_.isEmpty()) return;
    zoom_ = fitZoom();
    center_ = QPointF(size_.width() / 2.0, size_.height() / 2.0);
    zoomChangedTo(zoom_);
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
    if (size_.isEmpty()) return;
    const double z = std::clamp(zoom_ * factor, kMinZoom, kMaxZoom);
    // Keep the image point under `anchor` where it is.
    QRectF area = pane(0);
    if (!area.contains(anchor) && comparing() && compare_ == Compare::SideBySide) area = pane(1);
    const QPointF image_point = center_ + (anchor - area.center()) / zoom_;
    zoom_ = z;
    center_ = image_point - (anchor - area.center()) / zoom_;
    fitted_ = false;
    zoomChangedTo(zoom_);
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

// One side's picture over `target` (the whole image's rectangle), within the painter's clip.
void ImageView::drawSide(QPainter& p, const Side& side, const QRectF& target) const {
    const QRectF visible =
        target.intersected(p.hasClipping() ? p.clipBoundingRect() : QRectF(rect()));
    if (visible.isEmpty()) return;
    if (side.picture.shown.hasAlphaChannel()) {
        p.setBrushOrigin(target.topLeft());
        p.fillRect(visible, checkerboard());
    }
    p.drawPixmap(target, side.pixmap, QRectF(side.pixmap.rect()));
    if (clipping_visible_ && !side.clipping.isNull()) {
        p.save();
        p.setRenderHint(QPainter::SmoothPixmapTransform, false);
        // The overlay marks what the statistics count: the region's pixels when there is one.
        if (!region_.isNull()) p.setClipRect(regionRect(target), Qt::IntersectClip);
        p.drawPixmap(target, side.clipping, QRectF(side.clipping.rect()));
        p.restore();
    }
}

QRectF ImageView::regionRect(const QRectF& target) const {
    return {target.left() + region_.x() * zoom_, target.top() + region_.y() * zoom_,
            region_.width() * zoom_, region_.height() * zoom_};
}

void ImageView::drawRegion(QPainter& p, const QRectF& target) const {
    if (region_.isNull()) return;
    const QRectF r = regionRect(target);
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(0, 0, 0, 200), 3));
    p.drawRect(r);
    QPen dashed(QColor(255, 214, 10), 1, Qt::DashLine);
    p.setPen(dashed);
    p.drawRect(r);
    p.restore();
}

void ImageView::setRegion(const QRect& region) {
    const QRect r = region.isEmpty() ? QRect() : region;
    if (r == region_) return;
    region_ = r;
    update();
}

QPoint ImageView::nearestPixel(QPointF pos, int index) const {
    const QRectF r = imageRect(pane(index));
    const QPointF p = (pos + QPointF(0.5, 0.5) - r.topLeft()) / zoom_;
    return {std::clamp(static_cast<int>(std::floor(p.x())), 0, std::max(0, size_.width() - 1)),
            std::clamp(static_cast<int>(std::floor(p.y())), 0, std::max(0, size_.height() - 1))};
}

void ImageView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Dark));
    if (!hasImage()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Open a photo or a video (Ctrl+O) or drop it here"));
        return;
    }
    p.setRenderHint(QPainter::SmoothPixmapTransform, zoom_ < 2.0);
    if (!comparing()) {
        drawSide(p, original_, imageRect(pane(0)));
        drawRegion(p, imageRect(pane(0)));
    } else if (compare_ == Compare::SideBySide) {
        for (int i = 0; i < 2; ++i) {
            const QRectF area = pane(i);
            p.save();
            p.setClipRect(area);
            drawSide(p, i == 0 ? original_ : equalized_, imageRect(area));
            drawRegion(p, imageRect(area));
            p.restore();
            drawLabel(p, area, i == 0 ? tr("Original") : tr("Equalized"), false);
        }
    } else {
        const QRectF target = imageRect(pane(0));
        const double x = dividerX();
        p.save();
        p.setClipRect(QRectF(0, 0, x, height()));
        drawSide(p, original_, target);
        p.setClipRect(QRectF(x, 0, width() - x, height()));
        drawSide(p, equalized_, target);
        p.restore();
        drawRegion(p, target);
        p.setPen(QPen(QColor(255, 255, 255, 220), 2));
        p.drawLine(QPointF(x, 0), QPointF(x, height()));
        const double r = fontMetrics().height() * 0.6;
        p.setBrush(QColor(255, 255, 255, 220));
        p.drawEllipse(QPointF(x, height() / 2.0), r, r);
        drawLabel(p, QRectF(rect()), tr("Original"), false);
        drawLabel(p, QRectF(rect()), tr("Equalized"), true);
    }
    if (!note_.isEmpty()) {
        const QFontMetrics fm = fontMetrics();
        const QString text = fm.elidedText(note_, Qt::ElideRight, width() - 28);
        const QRectF box(8, height() - fm.height() - 14, fm.horizontalAdvance(text) + 12,
                         fm.height() + 6);
        p.fillRect(box, QColor(0, 0, 0, 170));
        p.setPen(Qt::white);
        p.drawText(box, Qt::AlignCenter, text);
    }
    emit painted();
}

void ImageView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (fitted_) fit();
}

void ImageView::wheelEvent(QWheelEvent* event) {
    if (!hasImage()) return;
    zoomAt(event->angleDelta().y() > 0 ? 1.25 : 0.8, event->position());
    event->accept();
}

void ImageView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !hasImage()) return;
    last_pos_ = event->position();
    if (event->modifiers() & Qt::ShiftModifier) {
        region_pane_ =
            comparing() && compare_ == Compare::SideBySide && pane(1).contains(last_pos_) ? 1 : 0;
        region_anchor_ = nearestPixel(last_pos_, region_pane_);
        drag_ = Drag::Region;
        setCursor(Qt::CrossCursor);
        return;
    }
    const bool near_divider =
        comparing() && compare_ == Compare::Split &&
        std::abs(event->position().x() - dividerX()) <= fontMetrics().height() * 0.8;
    drag_ = near_divider ? Drag::Divider : Drag::Pan;
    setCursor(near_divider ? Qt::SplitHCursor : Qt::ClosedHandCursor);
}

void ImageView::mouseMoveEvent(QMouseEvent* event) {
    const QPointF pos = event->position();
    if (drag_ == Drag::Region) {
        const QRect r = QRect(region_anchor_, nearestPixel(pos, region_pane_)).normalized();
        if (r != region_) {
            region_ = r;
            update();
        }
    } else if (drag_ == Drag::Divider) {
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
    hover_pos_ = pos;
    bool equalized_side = false;
    const QPoint pixel = pixelAt(pos, &equalized_side);
    emit pixelHovered(pixel, equalized_side);
}

std::optional<QPoint> ImageView::hoveredPixel(bool* equalized_side) const {
    if (!hover_pos_) return std::nullopt;
    return pixelAt(*hover_pos_, equalized_side);
}

void ImageView::mouseReleaseEvent(QMouseEvent* event) {
    if (drag_ == Drag::Region) {
        // A Shift+click without a drag clears the region.
        const QPoint end = nearestPixel(event->position(), region_pane_);
        region_ = end == region_anchor_ ? QRect() : QRect(region_anchor_, end).normalized();
        update();
        emit regionDrawn(region_);
        // The picker's words about the region change with it.
        bool equalized_side = false;
        const QPoint pixel = pixelAt(event->position(), &equalized_side);
        emit pixelHovered(pixel, equalized_side);
    }
    drag_ = Drag::None;
    unsetCursor();
}

void ImageView::mouseDoubleClickEvent(QMouseEvent*) {
    fit();
}

void ImageView::leaveEvent(QEvent*) {
    hover_pos_.reset();
    emit pixelHovered(QPoint(-1, -1), false);
}

}  // namespace hs::ui
