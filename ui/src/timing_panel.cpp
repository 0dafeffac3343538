#include "histoscope/ui/timing_panel.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QTableView>
#include <QTextDocument>
#include <QVBoxLayout>
#include <algorithm>

namespace hs::ui {

namespace {

QColor stage_color(const QString& name) {
    if (name.contains(QLatin1String("upload"))) return {230, 160, 60};
    if (name.contains(QLatin1String("download"))) return {200, 120, 220};
    if (name == QLatin1String("histogram")) return {80, 170, 250};
    if (name.contains(QLatin1String("histogram"))) return {80, 130, 200};
    if (name.contains(QLatin1String("lut")) || name.contains(QLatin1String("reference")))
        return {110, 210, 130};
    return {150, 200, 110};  // apply / equalize / conversions
}

}  // namespace

// --- StageBars

StageBars::StageBars(TimingModel* model, QWidget* parent) : QWidget(parent), model_(model) {
    auto changed = [this] {
        // One readable row per stage: the widget asks for the height they need.
        const int rows = model_->entries().empty()
                             ? 0
                             : static_cast<int>(model_->entries().front().stages.size());
        if (rows != rows_) {
            rows_ = rows;
            setMinimumHeight(rowHeight() * std::max(rows_, 1));
            updateGeometry();
        }
        update();
    };
    connect(model_, &QAbstractItemModel::rowsInserted, this, changed);
    connect(model_, &QAbstractItemModel::modelReset, this, changed);
}

int StageBars::rowHeight() const {
    return fontMetrics().height() + 4;
}

QSize StageBars::sizeHint() const {
    const int em = fontMetrics().height();
    return {em * 24, rowHeight() * std::max(rows_, 3)};
}

QSize StageBars::minimumSizeHint() const {
    const int em = fontMetrics().height();
    return {em * 12, rowHeight() * std::max(rows_, 1)};
}

void StageBars::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const auto& entries = model_->entries();
    if (entries.empty()) return;
    const auto& stages = entries.front().stages;
    if (stages.isEmpty()) return;
    double max = 0.0;
    for (const auto& s : stages) max = std::max(max, s.ms);
    const QFontMetrics fm = fontMetrics();
    int label_w = 0;
    for (const auto& s : stages) label_w = std::max(label_w, fm.horizontalAdvance(s.name));
    const int value_w = fm.horizontalAdvance(QStringLiteral("00000.000 ms"));
    const double row_h = rowHeight();
    const double bar_left = label_w + 8;
    const double bar_w = std::max(10.0, width() - bar_left - value_w - 8);
    for (int i = 0; i < stages.size(); ++i) {
        const auto& s = stages[i];
        const double y = i * row_h;
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRectF(0, y, label_w, row_h), Qt::AlignRight | Qt::AlignVCenter, s.name);
        const double w = max > 0.0 ? bar_w * s.ms / max : 0.0;
        p.fillRect(QRectF(bar_left, y + row_h * 0.2, std::max(w, 1.0), row_h * 0.6),
                   stage_color(s.name));
        p.drawText(QRectF(bar_left + w + 6, y, value_w, row_h), Qt::AlignLeft | Qt::AlignVCenter,
                   QStringLiteral("%1 ms").arg(s.ms, 0, 'f', 3));
    }
}

// --- Sparkline

Sparkline::Sparkline(TimingModel* model, QWidget* parent) : QWidget(parent), model_(model) {
    setToolTip(tr("Histogram milliseconds of the recent frames (oldest left)"));
    connect(model_, &QAbstractItemModel::rowsInserted, this, qOverload<>(&QWidget::update));
    connect(model_, &QAbstractItemModel::modelReset, this, qOverload<>(&QWidget::update));
}

QSize Sparkline::sizeHint() const {
    const int em = fontMetrics().height();
    return {em * 16, em * 2};
}

void Sparkline::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    QColor frame = palette().color(QPalette::Mid);
    p.setPen(frame);
    p.drawRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5));
    const auto& entries = model_->entries();
    if (entries.size() < 2) return;
    double max = 0.0;
    for (const auto& e : entries) max = std::max(max, e.histogram_ms);
    if (max <= 0.0) return;
    const QRectF area = QRectF(rect()).adjusted(3, 3, -3, -3);
    QPolygonF line;
    const double span = std::max(1, model_->capacity() - 1);
    const double start =
        area.right() - area.width() * static_cast<double>(entries.size() - 1) / span;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const auto& e = entries[entries.size() - 1 - i];  // oldest first
        line << QPointF(start + area.width() * static_cast<double>(i) / span,
                        area.bottom() - area.height() * e.histogram_ms / max);
    }
    p.setPen(QPen(palette().color(QPalette::Highlight), 1.5));
    p.drawPolyline(line);
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(area, Qt::AlignLeft | Qt::AlignTop, QStringLiteral("%1 ms").arg(max, 0, 'f', 3));
}

// --- TimingPanel

TimingPanel::TimingPanel(TimingModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      summary_(new QLabel(this)),
      bars_(new StageBars(model, this)),
      sparkline_(new Sparkline(model, this)),
      table_(new QTableView(this)) {
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_->setModel(model_);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    // Rows of one line of text, and room for two of them whole (a photo's preview and its full
    // resolution) under the header: the style's taller rows left the second cut in half.
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() +
                             2 * (fontMetrics().height() + 6) + 2 * table_->frameWidth());
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(summary_);
    // The stages and the recent frames side by side: the table below keeps its rows.
    auto* row = new QHBoxLayout;
    row->addWidget(bars_, 3);
    row->addWidget(sparkline_, 1);
    layout->addLayout(row);
    layout->addWidget(table_, 1);
    connect(model_, &QAbstractItemModel::rowsInserted, this, &TimingPanel::refresh);
    connect(model_, &QAbstractItemModel::modelReset, this, &TimingPanel::refresh);
    refresh();
}

QString TimingPanel::summary() const {
    QTextDocument doc;
    doc.setHtml(summary_->text());
    return doc.toPlainText();
}

void TimingPanel::refresh() {
    const auto& entries = model_->entries();
    if (entries.empty()) {
        summary_->setText(tr("No frames yet"));
        return;
    }
    const FrameTiming& e = entries.front();
    const QString bw = e.read_bandwidth_gbs > 0.0 ? tr("%1% of the %2 read bandwidth (%3 GB/s)")
                                                        .arg(e.pct_read_bw, 0, 'f', 1)
                                                        .arg(e.bandwidth_device)
                                                        .arg(e.read_bandwidth_gbs, 0, 'f', 1)
                                                  : tr("read bandwidth unknown");
    const QString counted =
        e.values > 0 ? tr("%1 code values counted, %2 bins shown").arg(e.values).arg(e.bins)
                     : tr("%1 float bins counted").arg(e.bins);
    QString text = tr("<b>%1</b>, %2: histogram <b>%3 ms</b>, <b>%4 Gpix/s</b>, %5 GB/s, %6")
                       .arg(e.engine)
                       .arg(counted)
                       .arg(e.histogram_ms, 0, 'f', 3)
                       .arg(e.gpix_per_s, 0, 'f', 3)
                       .arg(e.gb_per_s, 0, 'f', 2)
                       .arg(bw);
    text += tr("<br>equalizer: %1 &middot; frame %2 ms")
                .arg(e.equalizer.isEmpty() ? tr("off") : e.equalizer)
                .arg(e.total_ms, 0, 'f', 2);
    if (e.frame >= 0) {
        // The source as it is: a clip, a file of raw frames, or standard input.
        const QString frame = e.frame_kind == QLatin1String("raw") ? tr("raw frame %1")
                              : e.frame_kind == QLatin1String("live")
                                  ? tr("frame %1 of standard input")
                                  : tr("video frame %1");
        text += tr(" &middot; %1, dropped %2").arg(frame.arg(e.frame)).arg(e.dropped);
    }
    if (!e.stream.isEmpty()) text += tr(" &middot; '%1' frame stream").arg(e.stream);
    summary_->setText(text);
}

}  // namespace hs::ui
