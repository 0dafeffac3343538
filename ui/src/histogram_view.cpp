#include "histoscope/ui/histogram_view.hpp"

#include <QEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "histoscope/ui/histogram_columns.hpp"
#include "histoscope/ui/theme.hpp"
#include "plot_raster.hpp"

namespace hs::ui {

namespace {

// The plot's colours: theme.hpp's background and text, and its own grid and frame.
const QRgb kBackground = kPlotBackground;
const QColor kText(kPlotText);
const QRgb kGrid = qRgb(22, 22, 22);  // added to what lies under a grid line
const QRgb kFrame = qRgb(80, 81, 86);
constexpr double kHeadroom = 0.95;  // the plot's height used by its ceiling
constexpr int kReadoutFlags = Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap;

bool is_colour(const QString& name) {
    return name == QLatin1String("r") || name == QLatin1String("g") || name == QLatin1String("b") ||
           name == QLatin1String("g1") || name == QLatin1String("g2");
}

// What a channel adds to the pixels below its top (fill) and along its top (edge). Overlaid on
// a colour image, luma and alpha are outlines only, so that R, G and B stay visible under them.
struct ChannelPaint {
    QRgb fill = 0;
    QRgb edge = 0;
};

ChannelPaint paint_of(const QString& name, bool outline_only) {
    if (name == QLatin1String("r")) return {qRgb(150, 18, 18), qRgb(105, 45, 45)};
    // A CFA mosaic's two greens: G1 as G, G2 bluer, so that where they differ it shows.
    if (name == QLatin1String("g") || name == QLatin1String("g1"))
        return {qRgb(18, 130, 36), qRgb(45, 100, 50)};
    if (name == QLatin1String("g2")) return {qRgb(10, 105, 80), qRgb(40, 95, 85)};
    if (name == QLatin1String("b")) return {qRgb(20, 40, 165), qRgb(45, 60, 110)};
    if (name == QLatin1String("a"))
        return outline_only ? ChannelPaint{0, qRgb(150, 120, 205)}
                            : ChannelPaint{qRgb(80, 64, 110), qRgb(90, 75, 120)};
    return outline_only ? ChannelPaint{0, qRgb(190, 190, 190)}
                        : ChannelPaint{qRgb(112, 112, 112), qRgb(80, 80, 80)};
}

}  // namespace

QColor channel_color(const QString& name) {
    if (name == QLatin1String("r")) return {235, 72, 72};
    if (name == QLatin1String("g") || name == QLatin1String("g1")) return {72, 205, 96};
    if (name == QLatin1String("g2")) return {60, 200, 170};
    if (name == QLatin1String("b")) return {78, 136, 245};
    if (name == QLatin1String("a")) return {180, 150, 235};
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

void HistogramView::setTitle(const QString& title, const QString& note) {
    if (title == title_ && note == note_) return;
    title_ = title;
    note_ = note;
    invalidate();
}

void HistogramView::setPlaceholder(const QString& text) {
    if (text == placeholder_) return;
    placeholder_ = text;
    invalidate();
}

void HistogramView::invalidate() {
    plot_stale_ = true;
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
    if (hover_.first >= 0) emit hoverChanged(readout(hover_.first, hover_.second));
    invalidate();
}

void HistogramView::setParade(bool on) {
    if (parade_ == on) return;
    parade_ = on;
    invalidate();
}

void HistogramView::setBinRange(int first, int last) {
    first = std::clamp(first, 0, bins_);
    last = std::clamp(last, 0, bins_);
    if (last - first < 1 || (first == first_ && last == last_)) return;
    first_ = first;
    last_ = last;
    emit binRangeChanged(first_, last_);
    invalidate();
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
    // The parade names its lanes above them.
    const double top = fm.height() * (parade_ ? 1.5 : 0.6);
    const double right = fm.height() * 0.8;
    return QRectF(rect()).adjusted(left, top, -right, -bottom);
}

QRectF HistogramView::laneArea(int lane, int lanes) const {
    const QRectF area = plotArea();
    if (lanes <= 1) return area;
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

std::pair<int, int> HistogramView::columnBins(double x) const {
    if (!model_ || model_->empty() || last_ <= first_) return {-1, -1};
    const int lanes = laneCount();
    const double dpr = devicePixelRatioF();
    for (int lane = 0; lane < lanes; ++lane) {
        const QRectF la = laneArea(lane, lanes);
        const double left = std::round(la.left() * dpr), right = std::round(la.right() * dpr);
        const double px = std::floor(x * dpr);
        if (px < left || px >= right) continue;
        const double w = (last_ - first_) / (right - left);
        const double c = px - left;
        const auto b0 = static_cast<int>(std::lround(first_ + c * w));
        const int b1 = std::max(b0 + 1, static_cast<int>(std::lround(first_ + (c + 1) * w)));
        return {std::clamp(b0, first_, last_ - 1), std::clamp(b1, first_ + 1, last_)};
    }
    return {-1, -1};
}

void HistogramView::renderPlot() {
    const double dpr = devicePixelRatioF();
    const QSize pixels = (QSizeF(size()) * dpr).toSize();
    if (plot_.size() != pixels) plot_ = QImage(pixels, QImage::Format_RGB32);  // else reused
    plot_.setDevicePixelRatio(dpr);
    plot_stale_ = false;
    clipped_columns_ = 0;
    const QRectF area = plotArea();
    if (!model_ || model_->empty() || last_ <= first_ || area.width() < 2 || area.height() < 2) {
        plot_.fill(kBackground);
        QPainter p(&plot_);
        p.setPen(kText.darker(140));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, placeholder_);
        if (!title_.isEmpty()) {
            p.setPen(kText);
            p.drawText(rect().adjusted(6, 4, -6, -4), Qt::AlignLeft | Qt::AlignTop, title_);
        }
        return;
    }
    const QList<int> channels = visibleChannels();
    const bool colour_overlay = !parade_ && channels.size() > 1;
    const auto lanes = parade_ ? std::max<int>(1, static_cast<int>(channels.size())) : 1;
    const int top = static_cast<int>(std::lround(area.top() * dpr));
    const int bottom = static_cast<int>(std::lround(area.bottom() * dpr));
    const double height = bottom - top;

    PlotRaster raster;
    raster.background = kBackground;
    raster.top = top;
    raster.bottom = bottom;
    raster.grid = kGrid;
    raster.frame = kFrame;
    for (int i = 1; i < 4; ++i)
        raster.grid_rows.push_back(bottom -
                                   static_cast<int>(std::lround(height * kHeadroom * i / 4)));
    struct Marker {
        double x0, x1;  // device columns
        QColor color;
    };
    std::vector<Marker> markers;
    struct Curve {
        int channel;
        int left, columns;
    };
    std::vector<Curve> curves;
    std::vector<double> values;
    for (int lane = 0; lane < lanes; ++lane) {
        const QRectF la = laneArea(lane, lanes);
        const int left = static_cast<int>(std::lround(la.left() * dpr));
        const int columns = static_cast<int>(std::lround(la.right() * dpr)) - left;
        if (columns <= 0) continue;
        raster.lanes.emplace_back(left, left + columns);
        QList<int> lane_channels = parade_ ? QList<int>{channels.value(lane, -1)} : channels;
        lane_channels.removeAll(-1);
        std::vector<std::vector<double>> series;
        // The highest of the curves' ceilings, each curve setting aside its own spikes' columns
        // (the log scale is there to show spikes whole: nothing is set aside).
        double ceiling = 0.0;
        const std::size_t spikes = spike_columns(columns, last_ - first_);
        for (int c : lane_channels) {
            column_means(model_->prefixSums(c), first_, last_, columns, values);
            if (model_->logScale())
                for (double& v : values) v = std::log10(1.0 + v);
            ceiling = std::max(ceiling, model_->logScale()
                                            ? *std::max_element(values.begin(), values.end())
                                            : plot_ceiling(values, spikes));
            series.push_back(values);
        }
        if (ceiling <= 0.0) ceiling = 1.0;
        // Whole pixels for the full height, and the fraction of it snapped to 1e-9: columns
        // whose sums differ only by rounding (a flat histogram's) get the same height.
        const double usable = std::floor(height * kHeadroom);
        for (std::size_t i = 0; i < series.size(); ++i) {
            const int c = lane_channels[static_cast<int>(i)];
            const QString name = model_->channelName(c);
            const ChannelPaint paint = paint_of(name, colour_overlay && !is_colour(name));
            PlotFill fill;
            fill.left = left;
            fill.fill = paint.fill;
            fill.edge = paint.edge;
            fill.edge_rows = std::max(1, static_cast<int>(std::lround(dpr)));
            fill.top.resize(static_cast<std::size_t>(columns));
            for (int x = 0; x < columns; ++x) {
                const double v = series[i][static_cast<std::size_t>(x)];
                const double fraction = std::round(v / ceiling * 1e9) / 1e9;
                int t = bottom - static_cast<int>(std::lround(fraction * usable));
                // Any count shows: at least one row.
                if (v > 0.0) t = std::min(t, bottom - 1);
                fill.top[static_cast<std::size_t>(x)] = std::max(t, top);
                if (fraction * usable > height) {  // above the headroom too: cut
                    ++clipped_columns_;
                    if (!markers.empty() && markers.back().x1 == left + x &&
                        markers.back().color == channel_color(name))
                        markers.back().x1 = left + x + 1;
                    else
                        markers.push_back({static_cast<double>(left + x),
                                           static_cast<double>(left + x + 1), channel_color(name)});
                }
            }
            raster.fills.push_back(std::move(fill));
            if (model_->cumulative()) curves.push_back({c, left, columns});
        }
    }
    paint_plot(plot_, raster);

    QPainter p(&plot_);
    p.setRenderHint(QPainter::Antialiasing);
    // The cumulative distribution, 0 at the bottom to 1 at the top, at each column's right edge.
    for (const Curve& curve : curves) {
        const std::vector<double>& prefix = model_->prefixSums(curve.channel);
        const double total = prefix.back();
        if (total <= 0.0) continue;
        QPolygonF line;
        line.reserve(curve.columns + 1);
        const double w = static_cast<double>(last_ - first_) / curve.columns;
        for (int x = 0; x <= curve.columns; ++x) {
            const double f = count_below(prefix, first_ + w * x) / total;
            line << QPointF((curve.left + x) / dpr, (bottom - height * f) / dpr);
        }
        p.setPen(QPen(channel_color(model_->channelName(curve.channel)).lighter(120), 1.4,
                      Qt::DashLine));
        p.drawPolyline(line);
    }
    // Spikes cut at the top: a small triangle over each run of cut columns.
    const double tri = fontMetrics().height() * 0.35;
    p.setPen(Qt::NoPen);
    for (const Marker& m : markers) {
        const double cx = (m.x0 + m.x1) / 2.0 / dpr;
        const double y = top / dpr;
        p.setBrush(m.color);
        p.drawPolygon(QPolygonF{QPointF(cx - tri, y + tri * 1.4), QPointF(cx + tri, y + tri * 1.4),
                                QPointF(cx, y)});
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    paintLevels(p, lanes);
    paintAxes(p, channels);
}

std::vector<HistogramView::LevelLabel> HistogramView::levelLabels(int lanes) const {
    std::vector<LevelLabel> out;
    if (!model_ || model_->empty()) return out;
    const HistogramData& d = model_->histogram();
    if (d.markers.isEmpty() || d.upper <= d.lower || last_ <= first_) return out;
    const QFontMetrics fm = fontMetrics();
    for (int lane = 0; lane < lanes; ++lane) {
        const QRectF la = laneArea(lane, lanes);
        for (const LevelMarker& m : d.markers) {
            // The middle of the code value's bin, in bins.
            const double bin = (m.value + 0.5 - static_cast<double>(d.lower)) * d.bins /
                               static_cast<double>(d.upper - d.lower);
            if (bin < first_ || bin > last_) continue;
            const double x = la.left() + (bin - first_) / (last_ - first_) * la.width();
            const double w = fm.horizontalAdvance(m.label) + 6;
            // Right of the line, or left of it where it would leave the lane.
            const double left = x + w + 2 > la.right() ? x - w - 2 : x + 2;
            QRectF box(left, la.top() + 2, w, fm.height());
            // A label that would cover one drawn before goes a row lower.
            while (std::any_of(out.begin(), out.end(),
                               [&](const LevelLabel& l) { return l.box.intersects(box); }))
                box.translate(0, fm.height());
            out.push_back({box, x, la, m.label});
        }
    }
    return out;
}

int HistogramView::laneCount() const {
    return parade_ ? std::max<int>(1, static_cast<int>(visibleChannels().size())) : 1;
}

QList<QRectF> HistogramView::levelLabelRects() const {
    QList<QRectF> out;
    for (const LevelLabel& l : levelLabels(laneCount())) out << l.box;
    return out;
}

void HistogramView::paintLevels(QPainter& p, int lanes) const {
    const QColor colour(250, 200, 90);
    for (const LevelLabel& l : levelLabels(lanes)) {
        p.setPen(QPen(colour, 1.0, Qt::DashLine));
        p.drawLine(QPointF(l.x, l.lane.top()), QPointF(l.x, l.lane.bottom()));
        p.fillRect(l.box, QColor(10, 10, 12, 200));
        p.setPen(colour);
        p.drawText(l.box, Qt::AlignCenter, l.text);
    }
}

void HistogramView::paintAxes(QPainter& p, const QList<int>& channels) const {
    const HistogramData& d = model_->histogram();
    const QFontMetrics fm = fontMetrics();
    p.setPen(kText);
    // Bin-edge ticks under the plot, or under each lane of the parade (each lane spans the
    // same bin range). A label that would touch the previous one is left out (the end of one
    // lane and the start of the next), and every lane but the last omits its end label.
    const auto lanes = parade_ ? std::max<int>(1, static_cast<int>(channels.size())) : 1;
    const int ticks = lanes == 1 ? 4 : (lanes == 2 ? 2 : 1);
    double drawn_right = -1e9;
    for (int lane = 0; lane < lanes; ++lane) {
        const QRectF la = laneArea(lane, lanes);
        for (int i = 0; i <= ticks; ++i) {
            const double x = la.left() + la.width() * i / ticks;
            p.drawLine(QPointF(x, la.bottom()), QPointF(x, la.bottom() + fm.height() * 0.2));
            if (i == ticks && lane + 1 < lanes) continue;
            const int bin = first_ + (last_ - first_) * i / ticks;
            // A float image's axis counts stops: "-8 EV".
            QString label = QString::number(d.bin_lower(bin), 'g', 6);
            if (!d.unit.isEmpty()) label += QLatin1Char(' ') + d.unit;
            const double w = fm.horizontalAdvance(label);
            const double lx = std::clamp(x - w / 2, la.left(), la.right() - w);
            if (lx < drawn_right + fm.height() * 0.5) continue;
            p.drawText(QPointF(lx, la.bottom() + fm.ascent() + fm.height() * 0.25), label);
            drawn_right = lx + w;
        }
        if (parade_ && lane < channels.size()) {
            // The lane's name above it, in the text colour after a swatch of its own.
            const QString name = model_->channelName(channels[lane]);
            const double s = fm.height() * 0.6;
            const double y = la.top() - fm.height() * 1.3;
            p.fillRect(QRectF(la.left(), y + (fm.height() - s) / 2, s, s), channel_color(name));
            p.drawText(QRectF(la.left() + s + 4, y, la.width() - s - 4, fm.height()),
                       Qt::AlignLeft | Qt::AlignVCenter, name);
        }
    }
    // The title and the scale in the left margin, and whether spikes are cut.
    const QRectF area = plotArea();
    const QRectF margin(0, area.top(), area.left() - fm.height() * 0.4, fm.height());
    auto line = [&](int row, const QString& text, bool bold) {
        QFont f = font();
        f.setBold(bold);
        p.setFont(f);
        p.drawText(
            margin.translated(0, fm.height() * 1.15 * row), Qt::AlignRight | Qt::AlignTop,
            QFontMetrics(f).elidedText(text, Qt::ElideRight, static_cast<int>(margin.width())));
    };
    int row = 0;
    if (!title_.isEmpty()) line(row++, title_, true);
    if (!note_.isEmpty()) {
        p.setPen(QColor(240, 190, 90));
        line(row++, note_, false);
        p.setPen(kText);
    }
    line(row++, model_->logScale() ? tr("log") : tr("linear"), false);
    if (clipped_columns_ > 0) {
        p.setPen(kText.darker(130));
        line(row++, tr("spikes cut"), false);
    }
    p.setFont(font());
}

HistogramView::Readout HistogramView::readoutLayout() const {
    Readout out;
    const QString text = readout(hover_.first, hover_.second);
    if (text.isEmpty()) return out;
    const QRectF area = plotArea();
    const QFontMetrics fm = fontMetrics();
    // One line when it fits inside the plot, else the range above the counts.
    out.text = text;
    const qsizetype split = text.indexOf(QLatin1String("  "));
    if (fm.horizontalAdvance(text) + 12 > area.width() && split > 0)
        out.text = text.left(split) + QLatin1Char('\n') + text.mid(split + 2);
    // The same width and flags to measure and to draw, so the box holds every line.
    out.width = std::max(1, static_cast<int>(area.width()) - 20);
    const QRect bounds = fm.boundingRect(QRect(0, 0, out.width, 10000), kReadoutFlags, out.text);
    const QSizeF size(bounds.width() + 12, bounds.height() + 6);
    // At the plot's top left or top right, whichever is higher once below every level label
    // it would cover (a camera raw mosaic's black level sits at the left, its white level at
    // the right): the box hides none of them.
    const std::vector<LevelLabel> labels = levelLabels(laneCount());
    const auto place = [&](double left) {
        QRectF box(QPointF(left, area.top() + 4), size);
        for (bool moved = true; moved;) {
            moved = false;
            for (const LevelLabel& l : labels)
                if (l.box.intersects(box)) {
                    box.moveTop(l.box.bottom() + 2);
                    moved = true;
                }
        }
        return box;
    };
    const QRectF at_left = place(area.left() + 4);
    const QRectF at_right = place(std::max(area.left() + 4, area.right() - 4 - size.width()));
    out.box = at_right.top() < at_left.top() ? at_right : at_left;
    return out;
}

QRectF HistogramView::readoutRect() const {
    return readoutLayout().box;
}

void HistogramView::paintReadout(QPainter& p) const {
    const Readout r = readoutLayout();
    if (r.text.isEmpty()) return;
    p.fillRect(r.box, QColor(10, 10, 12, 215));
    p.setPen(kText);
    p.drawText(QRectF(r.box.left() + 6, r.box.top() + 3, r.width, r.box.height() - 6),
               kReadoutFlags, r.text);
}

void HistogramView::paintEvent(QPaintEvent*) {
    if (plot_stale_ || plot_.size() != (QSizeF(size()) * devicePixelRatioF()).toSize())
        renderPlot();
    QPainter p(this);
    p.drawImage(QPointF(0, 0), plot_);
    if (!model_ || model_->empty()) return;
    const QRectF area = plotArea();
    if (drag_start_ >= 0.0 && drag_now_ >= 0.0) {
        QColor sel(64, 140, 230, 70);
        p.fillRect(QRectF(QPointF(std::min(drag_start_, drag_now_), area.top()),
                          QPointF(std::max(drag_start_, drag_now_), area.bottom())),
                   sel);
    }
    if (hover_.first >= 0) {
        p.setPen(QPen(QColor(64, 140, 230), 0));
        p.drawLine(QPointF(hover_x_, area.top()), QPointF(hover_x_, area.bottom()));
        paintReadout(p);
    }
}

void HistogramView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    plot_stale_ = true;
}

void HistogramView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) invalidate();
}

QString HistogramView::readout(int first, int last) const {
    if (!model_ || model_->empty() || first < 0 || first >= model_->rowCount()) return {};
    if (last < 0) last = first + 1;
    last = std::clamp(last, first + 1, model_->rowCount());
    const HistogramData& d = model_->histogram();
    QString text = QStringLiteral("[%1, %2)").arg(d.bin_lower(first)).arg(d.bin_lower(last));
    if (!d.unit.isEmpty()) text += QLatin1Char(' ') + d.unit;
    for (int c : visibleChannels()) {
        std::uint64_t n = 0;
        for (int b = first; b < last; ++b) n += model_->count(b, c);
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
    const auto bins = columnBins(x);
    hover_x_ = x;
    if (bins != hover_) {
        hover_ = bins;
        emit hoverChanged(readout(bins.first, bins.second));
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
    hover_ = {-1, -1};
    emit hoverChanged(QString());
    update();
}

}  // namespace hs::ui
