#include "histoscope/ui/histogram_view.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace hs::ui {

QColor channel_color(const QString& name) {
    if (name == QLatin1String("r")) return {235, 72, 72};
    if (name == QLatin1String("g")) return {72, 205, 96};
    if (name == QLatin1String("b")) return {78, 136, 245};
    if (name == QLatin1String("a")) return {170, 170, 170};
    return {225, 225, 225};  // luma, gray
}

HistogramView::HistogramView(QWidget* parent)
    : QWidget(parent), placeholder_(tr("Open an image to see its histogram")) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setToolTip(tr("Drag to zoom into a bin range, wheel to zoom, double-click to reset"));
}

QSize HistogramView::sizeHint() const {
    const int em = fontMetrics().height();
    return {em * 30, em * 14};
}

QSize HistogramView::minimumSizeHint() const {
    const int em = fontMetrics().height();
    return {em * 12, em * 7};
}

void HistogramView::setModel(HistogramModel* model) {
    if (model_) disconnect(model_, nullptr, this, nullptr);
    model_ = model;
    if (model_)
        connect(model_, &HistogramModel::displayChanged, this, &HistogramView::onModelChanged);
    onModelChanged();
}

void HistogramView::setTitle(const QString& title) {
    title_ = title;
    update();
}

void HistogramView::setPlaceholder(const QString& text) {
    placeholder_ = text;
    update();
}

void HistogramView::onModelChanged() {
    const int bins = model_ ? model_->rowCount() : 0;
    if (bins != bins_ && bins > 0) {
        bins_ = bins;
        first_ = 0;
        last_ = bins;
        emit binRangeChanged(first_, last_);
    }
    update();
}

void HistogramView::setParade(bool on) {
    parade_ = on;
    update();
}

void HistogramView::setBinRange(int first, int last) {
    first = std::clamp(first, 0, bins_);
    last = std::clamp(last, 0, bins_);
    if (last - first < 1 || (first == first_ && last == last_)) return;
    first_ = first;
    last_ = last;
    emit binRangeChanged(first_, last_);
    update();
}

void HistogramView::resetZoom() {
    setBinRange(0, bins_);
}

QList<int> HistogramView::visibleChannels() const {
    QList<int> out;
    if (!model_) return out;
    for (int c = 0; c < model_->columnCount(); ++c)
        if (model_->channelVisible(model_->channelName(c))) out << c;
    return out;
}

QRectF HistogramView::plotArea() const {
    const QFontMetrics fm = fontMetrics();
    const double left = fm.horizontalAdvance(QStringLiteral("Equalized")) * 1.3;
    const double bottom = fm.height() * 1.6;
    const double top = fm.height() * 0.6;
    const double right = fm.height() * 0.8;
    return QRectF(rect()).adjusted(left, top, -right, -bottom);
}

QRectF HistogramView::laneArea(int lane, int lanes) const {
    const QRectF area = plotArea();
    if (!parade_ || lanes <= 1) return area;
    const double gap = fontMetrics().height() * 0.4;
    const double w = (area.width() - gap * (lanes - 1)) / lanes;
    return {area.left() + lane * (w + gap), area.top(), w, area.height()};
}

int HistogramView::binAt(double x, const QRectF& area) const {
    if (last_ <= first_ || area.width() <= 0) return -1;
    const double t = (x - area.left()) / area.width();
    if (t < 0.0 || t >= 1.0) return -1;
    return first_ + static_cast<int>(t * (last_ - first_));
}

void HistogramView::paintChannel(QPainter& p, const QRectF& area, int channel, double y_max,
                                 bool fill) const {
    const QVector<double> s = model_->series(channel);
    const int n = last_ - first_;
    if (n <= 0 || y_max <= 0.0) return;
    const int columns = std::max(1, static_cast<int>(std::ceil(area.width())));
    QPainterPath path(QPointF(area.left(), area.bottom()));
    auto y_of = [&](double v) { return area.bottom() - area.height() * std::min(v / y_max, 1.0); };
    if (n > columns) {
        // More bins than pixels: each pixel column shows its largest bin.
        for (int px = 0; px < columns; ++px) {
            const int b0 = first_ + static_cast<int>(static_cast<long long>(px) * n / columns);
            const int b1 = std::max(
                b0 + 1, first_ + static_cast<int>(static_cast<long long>(px + 1) * n / columns));
            double v = 0.0;
            for (int b = b0; b < b1; ++b) v = std::max(v, s[b]);
            const double x0 = area.left() + area.width() * px / columns;
            const double x1 = area.left() + area.width() * (px + 1) / columns;
            path.lineTo(x0, y_of(v));
            path.lineTo(x1, y_of(v));
        }
    } else {
        for (int b = first_; b < last_; ++b) {
            const double x0 = area.left() + area.width() * (b - first_) / n;
            const double x1 = area.left() + area.width() * (b - first_ + 1) / n;
            path.lineTo(x0, y_of(s[b]));
            path.lineTo(x1, y_of(s[b]));
        }
    }
    path.lineTo(area.right(), area.bottom());
    path.closeSubpath();
    const QColor color = channel_color(model_->channelName(channel));
    QColor fill_color = color;
    fill_color.setAlpha(fill ? 110 : 0);
    p.setBrush(fill_color);
    p.setPen(QPen(color, 1.2));
    p.drawPath(path);
}

void HistogramView::paintCumulative(QPainter& p, const QRectF& area, int channel) const {
    const QVector<double> c = model_->cumulativeSeries(channel);
    const int n = last_ - first_;
    if (c.isEmpty() || n <= 0) return;
    QPolygonF line;
    const int step = std::max(1, n / std::max(1, static_cast<int>(area.width())));
    for (int b = first_; b < last_; b += step) {
        const double x = area.left() + area.width() * (b - first_ + 1) / n;
        line << QPointF(x, area.bottom() - area.height() * c[b]);
    }
    line << QPointF(area.right(), area.bottom() - area.height() * c[last_ - 1]);
    QPen pen(channel_color(model_->channelName(channel)).lighter(130), 1.6, Qt::DashLine);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawPolyline(line);
}

void HistogramView::paintAxes(QPainter& p, const QRectF& area) const {
    const QColor text = palette().color(QPalette::WindowText);
    QColor grid = text;
    grid.setAlpha(40);
    p.setPen(QPen(grid, 1));
    for (int i = 1; i < 4; ++i) {
        const double y = area.top() + area.height() * i / 4;
        p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
    }
    const HistogramData& d = model_->histogram();
    p.setPen(text);
    const QFontMetrics fm = fontMetrics();
    // Bin-edge ticks under the plot, or under each lane of the parade (each lane spans the
    // same bin range).
    const auto lanes = parade_ ? std::max<int>(1, static_cast<int>(visibleChannels().size())) : 1;
    const int ticks = lanes == 1 ? 4 : (lanes == 2 ? 2 : 1);
    for (int lane = 0; lane < lanes; ++lane) {
        const QRectF la = laneArea(lane, lanes);
        for (int i = 0; i <= ticks; ++i) {
            const double x = la.left() + la.width() * i / ticks;
            const int bin = first_ + (last_ - first_) * i / ticks;
            const QString label = QString::number(d.bin_lower(bin), 'g', 6);
            const double w = fm.horizontalAdvance(label);
            const double lx = std::clamp(x - w / 2, la.left(), la.right() - w);
            p.drawText(QPointF(lx, la.bottom() + fm.ascent() + fm.height() * 0.25), label);
            p.drawLine(QPointF(x, la.bottom()), QPointF(x, la.bottom() + fm.height() * 0.2));
        }
    }
    // The scale and the title in the left margin.
    const QRectF margin(0, area.top(), area.left() - fm.height() * 0.4, fm.height());
    p.drawText(margin, Qt::AlignRight | Qt::AlignTop,
               model_->logScale() ? tr("log") : tr("linear"));
    if (!title_.isEmpty()) {
        QFont bold = font();
        bold.setBold(true);
        p.save();
        p.setFont(bold);
        p.drawText(margin.translated(0, fm.height() * 1.2), Qt::AlignRight | Qt::AlignTop,
                   fm.elidedText(title_, Qt::ElideRight, static_cast<int>(margin.width())));
        p.restore();
    }
}

void HistogramView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const QRectF area = plotArea();
    if (!model_ || model_->empty() || last_ <= first_) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, placeholder_);
        if (!title_.isEmpty())
            p.drawText(rect().adjusted(6, 4, -6, -4), Qt::AlignRight | Qt::AlignTop, title_);
        return;
    }
    paintAxes(p, area);
    const QList<int> channels = visibleChannels();
    const auto lanes = static_cast<int>(channels.size());
    for (int i = 0; i < lanes; ++i) {
        const int c = channels[i];
        const QRectF lane = laneArea(parade_ ? i : 0, parade_ ? lanes : 1);
        double y_max = 0.0;
        const QVector<double> s = model_->series(c);
        // Overlaid channels share one scale; parade lanes scale on their own.
        for (int k = parade_ ? i : 0; k < (parade_ ? i + 1 : lanes); ++k) {
            const QVector<double> sk = k == i ? s : model_->series(channels[k]);
            for (int b = first_; b < last_; ++b) y_max = std::max(y_max, sk[b]);
        }
        p.save();
        p.setClipRect(lane.adjusted(-1, -1, 1, 1));
        const bool luma = model_->channelName(c) == QLatin1String("luma") && lanes > 1 && !parade_;
        p.setCompositionMode(QPainter::CompositionMode_Plus);
        paintChannel(p, lane, c, y_max, !luma);
        p.setCompositionMode(QPainter::CompositionMode_SourceOver);
        paintCumulative(p, lane, c);
        p.restore();
        if (parade_) {
            p.setPen(channel_color(model_->channelName(c)));
            p.drawText(lane.adjusted(4, 2, -4, 0), Qt::AlignLeft | Qt::AlignTop,
                       model_->channelName(c));
        }
    }
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(area);

    if (drag_start_ >= 0.0 && drag_now_ >= 0.0) {
        QColor sel = palette().color(QPalette::Highlight);
        sel.setAlpha(70);
        p.fillRect(QRectF(QPointF(std::min(drag_start_, drag_now_), area.top()),
                          QPointF(std::max(drag_start_, drag_now_), area.bottom())),
                   sel);
    }
    if (hover_bin_ >= first_ && hover_bin_ < last_ && !parade_) {
        const double x =
            area.left() + area.width() * (hover_bin_ - first_ + 0.5) / (last_ - first_);
        p.setPen(QPen(palette().color(QPalette::Highlight), 1));
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        const QString text = readout(hover_bin_);
        const QFontMetrics fm = fontMetrics();
        QRectF box(area.left() + 6, area.top() + 4, fm.horizontalAdvance(text) + 12,
                   fm.height() + 6);
        QColor bg = palette().color(QPalette::ToolTipBase);
        bg.setAlpha(220);
        p.fillRect(box, bg);
        p.setPen(palette().color(QPalette::ToolTipText));
        p.drawText(box, Qt::AlignCenter, text);
    }
}

QString HistogramView::readout(int bin) const {
    if (!model_ || model_->empty() || bin < 0 || bin >= model_->rowCount()) return {};
    const HistogramData& d = model_->histogram();
    QString text = QStringLiteral("[%1, %2)").arg(d.bin_lower(bin)).arg(d.bin_lower(bin + 1));
    for (int c : visibleChannels()) {
        const std::uint64_t n = model_->count(bin, c);
        const double total = static_cast<double>(std::max<std::uint64_t>(model_->total(c), 1));
        text += QStringLiteral("  %1 %2 (%3%)")
                    .arg(model_->channelName(c))
                    .arg(n)
                    .arg(100.0 * static_cast<double>(n) / total, 0, 'f', 3);
    }
    return text;
}

void HistogramView::mouseMoveEvent(QMouseEvent* event) {
    const QRectF area = plotArea();
    const double x = event->position().x();
    if (drag_start_ >= 0.0) drag_now_ = std::clamp(x, area.left(), area.right());
    const int bin = binAt(x, area);
    if (bin != hover_bin_) {
        hover_bin_ = bin;
        emit hoverChanged(readout(bin));
    }
    update();
}

void HistogramView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton && !parade_) {
        drag_start_ = event->position().x();
        drag_now_ = drag_start_;
    }
}

void HistogramView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton && drag_start_ >= 0.0) {
        const QRectF area = plotArea();
        const double a = std::min(drag_start_, drag_now_);
        const double b = std::max(drag_start_, drag_now_);
        if (b - a >= 4.0) {
            const int first = std::max(binAt(a, area), first_);
            const int last = binAt(std::min(b, area.right() - 0.5), area) + 1;
            setBinRange(first, last);
        }
    }
    drag_start_ = -1.0;
    drag_now_ = -1.0;
    update();
}

void HistogramView::mouseDoubleClickEvent(QMouseEvent*) {
    resetZoom();
}

void HistogramView::wheelEvent(QWheelEvent* event) {
    const QRectF area = plotArea();
    const int anchor = binAt(event->position().x(), area);
    if (anchor < 0) return;
    const double factor = event->angleDelta().y() > 0 ? 0.8 : 1.25;
    const int span = std::clamp(static_cast<int>(std::lround((last_ - first_) * factor)), 2, bins_);
    const double t = (event->position().x() - area.left()) / area.width();
    int first = anchor - static_cast<int>(t * span);
    first = std::clamp(first, 0, bins_ - span);
    setBinRange(first, first + span);
    event->accept();
}

void HistogramView::leaveEvent(QEvent*) {
    hover_bin_ = -1;
    emit hoverChanged(QString());
    update();
}

}  // namespace hs::ui
