#include "histoscope/ui/scopes_panel.hpp"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "histoscope/core/scope_picture.hpp"
#include "histoscope/ui/histogram_view.hpp"
#include "histoscope/ui/theme.hpp"

namespace hs::ui {

namespace {

const QColor kBackground(kPlotBackground);
const QColor kText(kPlotText);

const QStringList kKinds{QStringLiteral("histogram"), QStringLiteral("waveform"),
                         QStringLiteral("parade"), QStringLiteral("vectorscope")};

}  // namespace

// --- ScopeView

ScopeView::ScopeView(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void ScopeView::setScope(const ScopeImage& scope, const QString& note) {
    scope_ = scope;
    note_ = note;
    setToolTip(tr("%1 of %2 pixels, log brightness").arg(scope.detail).arg(scope.pixels));
    update();
}

void ScopeView::clear(const QString& placeholder) {
    scope_ = {};
    placeholder_ = placeholder;
    setToolTip({});
    update();
}

QRectF ScopeView::pictureArea() const {
    const int title = fontMetrics().height() + 4;
    QRectF area = QRectF(rect()).adjusted(2, title, -2, -2);
    if (scope_.kind == QLatin1String("vectorscope")) {
        // Square: a colour at equal Cb and Cr distances stays on its circle.
        const double side = std::max(0.0, std::min(area.width(), area.height()));
        area = QRectF(area.center().x() - side / 2, area.center().y() - side / 2, side, side);
    }
    return area;
}

QSize ScopeView::sizeHint() const {
    const int em = fontMetrics().height();
    return {em * 22, em * 12};
}

QSize ScopeView::minimumSizeHint() const {
    const int em = fontMetrics().height();
    return {em * 8, em * 6};
}

void ScopeView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), kBackground);
    p.setPen(kText);
    if (scope_.picture.isNull()) {
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, placeholder_);
        return;
    }
    const QRectF area = pictureArea();
    const QImage& pic = scope_.picture;
    // A parade's planes get equal thirds of the area with a fixed gap, whatever their width.
    const bool parade = scope_.kind == QLatin1String("parade");
    const int planes = parade ? 3 : 1;
    const int gap = parade ? hs::kScopeGap : 0;
    const double plane_w = (pic.width() - (planes - 1) * gap) / static_cast<double>(planes);
    const double shown_gap = parade ? 6.0 : 0.0;
    const double target_w = (area.width() - (planes - 1) * shown_gap) / planes;
    // Reduced, bins are averaged smoothly; enlarged (a narrow region), each bin stays sharp.
    p.setRenderHint(QPainter::SmoothPixmapTransform, plane_w > target_w);
    for (int i = 0; i < planes; ++i)
        p.drawImage(
            QRectF(area.left() + i * (target_w + shown_gap), area.top(), target_w, area.height()),
            pic, QRectF(i * (plane_w + gap), 0, plane_w, pic.height()));
    p.drawText(
        QRectF(rect()).adjusted(6, 2, -6, 0), Qt::AlignLeft | Qt::AlignTop,
        note_.isEmpty() ? scope_.title : scope_.title + QStringLiteral("  \u00b7  ") + note_);
}

// --- ScopesPanel

ScopesPanel::ScopesPanel(HistogramModel* histogram, QWidget* parent)
    : QWidget(parent),
      histogram_(new HistogramView(this)),
      channel_(new QComboBox(this)),
      matrix_(new QComboBox(this)),
      gray_(new QLabel(this)),
      chroma_(new QLabel(tr("Chroma"), this)),
      grid_(new QGridLayout),
      empty_(new QLabel(this)) {
    histogram_->setModel(histogram);
    histogram_->setTitle(tr("Original"));
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    const QStringList labels{tr("&Histogram"), tr("&Waveform"), tr("&Parade"), tr("&Vectorscope")};
    tips_ = QStringList{
        tr("The histogram of the frame (of the region), as in the plots"),
        tr("A histogram per column: where each column's values lie, bottom 0, top the maximum"),
        tr("The waveforms of R, G and B side by side"),
        tr("The 2-D histogram of the chroma pair (Cb right, Cr up), with the 75% colour-bar "
           "targets")};
    for (int i = 0; i < kKinds.size(); ++i) {
        auto* b = new QToolButton(this);
        b->setText(labels[i]);
        b->setToolTip(tips_[i]);
        b->setCheckable(true);
        b->setObjectName(kKinds[i] + QStringLiteral("Button"));
        // On and off at a glance.
        b->setStyleSheet(
            QStringLiteral("QToolButton:checked:enabled { background: palette(highlight); color: "
                           "palette(highlighted-text); }"));
        connect(b, &QToolButton::toggled, this, [this] {
            relayout();
            changed();
        });
        bar->addWidget(b);
        buttons_ << b;
    }
    bar->addSpacing(fontMetrics().height());
    bar->addWidget(new QLabel(tr("Waveform of"), this));
    gray_->setText(tr("gray"));
    gray_->hide();
    bar->addWidget(gray_);
    for (const auto& [name, text] :
         {std::pair{QStringLiteral("luma"), tr("luma (Rec.601)")},
          std::pair{QStringLiteral("luma709"), tr("luma (Rec.709)")},
          std::pair{QStringLiteral("r"), tr("red")}, std::pair{QStringLiteral("g"), tr("green")},
          std::pair{QStringLiteral("b"), tr("blue")}})
        channel_->addItem(text, name);
    bar->addWidget(channel_);
    bar->addWidget(chroma_);
    matrix_->addItem(tr("Rec.601"), false);
    matrix_->addItem(tr("Rec.709"), true);
    matrix_->setToolTip(tr("The matrix of the vectorscope's Cb and Cr"));
    bar->addWidget(matrix_);
    bar->addStretch(1);
    auto* shows = new QLabel(tr("of the original frame (of the region when one is drawn)"), this);
    shows->setEnabled(false);
    bar->addWidget(shows);
    connect(channel_, &QComboBox::currentIndexChanged, this, [this] { changed(); });
    connect(matrix_, &QComboBox::currentIndexChanged, this, [this] { changed(); });
    for (int i = 1; i < kKinds.size(); ++i) {
        auto* v = new ScopeView(this);
        v->setObjectName(kKinds[i] + QStringLiteral("View"));
        v->clear(tr("Waiting for a frame..."));
        views_ << v;
    }
    empty_->setWordWrap(true);
    empty_->setAlignment(Qt::AlignCenter);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addLayout(grid_, 1);
    relayout();
}

QToolButton* ScopesPanel::button(const QString& kind) const {
    const auto i = kKinds.indexOf(kind);
    return i < 0 ? nullptr : buttons_[i];
}

ScopeView* ScopesPanel::view(const QString& kind) const {
    const auto i = kKinds.indexOf(kind);
    return i < 1 ? nullptr : views_[i - 1];
}

ScopeSettings ScopesPanel::settings() const {
    // As chosen: a gray image's frames have no parade or vectorscope (scope_specs() leaves them
    // out) and the choice stays for the next colour image.
    ScopeSettings s;
    s.histogram = buttons_[0]->isChecked();
    s.waveform = buttons_[1]->isChecked();
    s.parade = buttons_[2]->isChecked();
    s.vectorscope = buttons_[3]->isChecked();
    s.waveform_channel = channel_->currentData().toString();
    s.rec709 = matrix_->currentData().toBool();
    return s;
}

void ScopesPanel::setSettings(const ScopeSettings& s) {
    const bool on[] = {s.histogram, s.waveform, s.parade, s.vectorscope};
    for (int i = 0; i < buttons_.size(); ++i) {
        const QSignalBlocker block(buttons_[i]);
        buttons_[i]->setChecked(on[i]);
    }
    {
        const QSignalBlocker block(channel_);
        channel_->setCurrentIndex(std::max(0, channel_->findData(s.waveform_channel)));
    }
    {
        const QSignalBlocker block(matrix_);
        matrix_->setCurrentIndex(s.rec709 ? 1 : 0);
    }
    relayout();
}

void ScopesPanel::setImageChannels(int channels) {
    if (channels == channels_) return;
    channels_ = channels;
    const bool colour = channels >= 3;
    for (int i : {2, 3}) {
        buttons_[i]->setEnabled(colour);
        buttons_[i]->setToolTip(colour ? tips_[i]
                                       : tr("A gray image has no colour: no %1")
                                             .arg(buttons_[i]->text().remove(QLatin1Char('&'))));
    }
    // A gray image's waveform is of its one sample, and it has no chroma: the choices that do
    // not apply are hidden rather than shown stale (they come back with a colour image).
    channel_->setVisible(colour);
    gray_->setVisible(!colour);
    chroma_->setVisible(colour);
    matrix_->setVisible(colour);
    relayout();
}

void ScopesPanel::setScopes(const QVector<ScopeImage>& scopes, const QString& note) {
    for (int i = 1; i < kKinds.size(); ++i) {
        const auto it = std::find_if(scopes.begin(), scopes.end(),
                                     [&](const ScopeImage& s) { return s.kind == kKinds[i]; });
        if (it != scopes.end()) views_[i - 1]->setScope(*it, note);
    }
}

void ScopesPanel::changed() {
    emit settingsChanged(settings());
}

void ScopesPanel::relayout() {
    const ScopeSettings s = settings();
    const bool colour = channels_ >= 3;
    const bool on[] = {s.histogram, s.waveform, colour && s.parade, colour && s.vectorscope};
    QVector<QWidget*> shown;
    for (int i = 0; i < kKinds.size(); ++i) {
        QWidget* w = i == 0 ? static_cast<QWidget*>(histogram_) : views_[i - 1];
        grid_->removeWidget(w);
        w->setVisible(on[i]);
        if (on[i]) shown << w;
        // A scope switched off shows a placeholder until its next frame when switched on again.
        if (!on[i] && i > 0) views_[i - 1]->clear(tr("Waiting for a frame..."));
    }
    // Each choice is live only while its scope is shown.
    channel_->setEnabled(s.waveform);
    matrix_->setEnabled(on[3]);
    grid_->removeWidget(empty_);
    empty_->setText(!colour && (s.parade || s.vectorscope)
                        ? tr("A gray image has no colour, so no RGB parade or vectorscope: "
                             "choose the histogram or the waveform above.")
                        : tr("Choose the scopes to show above: each one shown is computed with "
                             "every frame, of the region when one is drawn (Shift+drag on the "
                             "image)."));
    empty_->setVisible(shown.isEmpty());
    if (shown.isEmpty()) grid_->addWidget(empty_, 0, 0);
    // One row, as a scope monitor under the image; the waveforms take the width they need.
    for (int i = 0; i < shown.size(); ++i) {
        grid_->addWidget(shown[i], 0, i);
        grid_->setColumnStretch(i, shown[i] == views_[2] ? 2 : 3);
    }
    for (int i = static_cast<int>(shown.size()); i < kKinds.size(); ++i)
        grid_->setColumnStretch(i, 0);
}

}  // namespace hs::ui
