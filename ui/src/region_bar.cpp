#include "histoscope/ui/region_bar.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <algorithm>

namespace hs::ui {

RegionBar::RegionBar(QWidget* parent) : QWidget(parent), clear_(new QToolButton(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* title = new QLabel(tr("Region"), this);
    title->setToolTip(
        tr("The rectangle histograms, statistics, scopes and the clipping overlay count: "
           "Shift+drag on the image, or type it here"));
    layout->addWidget(title);
    const QString names[] = {tr("x"), tr("y"), tr("w"), tr("h")};
    for (int i = 0; i < 4; ++i) {
        spins_[i] = new QSpinBox(this);
        spins_[i]->setPrefix(names[i] + QLatin1Char(' '));
        spins_[i]->setKeyboardTracking(false);  // a number counts when it is complete
        spins_[i]->setObjectName(QStringLiteral("region") + names[i]);
        spins_[i]->setToolTip(
            i < 2 ? tr("The region's top-left corner, in image pixels (or Shift+drag on the image)")
                  : tr("The region's size in image pixels; kept inside the image"));
        connect(spins_[i], &QSpinBox::valueChanged, this, [this] { edited(); });
        layout->addWidget(spins_[i]);
    }
    clear_->setText(tr("Whole Frame"));
    clear_->setToolTip(tr("Count the whole frame again (Shift+click on the image)"));
    connect(clear_, &QToolButton::clicked, this, [this] {
        setRegion({});
        emit regionEdited({});
    });
    layout->addWidget(clear_);
    state_ = new QLabel(this);
    state_->setToolTip(tr("Shift+drag on the image draws a region, Shift+click clears it"));
    layout->addWidget(state_, 1);
    setImageSize({});
}

void RegionBar::setImageSize(QSize size) {
    size_ = size;
    for (int i = 0; i < 4; ++i) {
        const QSignalBlocker block(spins_[i]);
        const int extent = i % 2 == 0 ? size.width() : size.height();
        spins_[i]->setRange(i < 2 ? 0 : 1, std::max(i < 2 ? 0 : 1, extent - (i < 2 ? 1 : 0)));
        spins_[i]->setEnabled(!size.isEmpty());
    }
    clear_->setEnabled(!size.isEmpty());
    setRegion({});
}

void RegionBar::setRegion(const QRect& region) {
    region_ = region.isEmpty() ? QRect() : region;
    show(region_.isNull() ? QRect(QPoint(0, 0), size_) : region_);
    const qint64 pixels = static_cast<qint64>(region_.width()) * region_.height();
    // Short: its width is the controls' least width, so the image's too.
    state_->setText(region_.isNull() ? tr("whole frame")
                    : pixels == 1    ? tr("1 pixel")
                                     : tr("%1 pixels").arg(pixels));
    clear_->setEnabled(!region_.isNull());
}

void RegionBar::show(const QRect& shown) {
    const int values[] = {shown.x(), shown.y(), shown.width(), shown.height()};
    for (int i = 0; i < 4; ++i) {
        const QSignalBlocker block(spins_[i]);
        spins_[i]->setValue(values[i]);
    }
}

void RegionBar::edited() {
    if (size_.isEmpty()) return;
    // Kept inside the image: the width and height give way to the corner typed.
    const int x = spins_[0]->value(), y = spins_[1]->value();
    const int w = std::min(spins_[2]->value(), size_.width() - x);
    const int h = std::min(spins_[3]->value(), size_.height() - y);
    const QRect r(x, y, std::max(w, 1), std::max(h, 1));
    setRegion(r == QRect(QPoint(0, 0), size_) ? QRect() : r);
    emit regionEdited(region_);
}

}  // namespace hs::ui
