#include "histoscope/ui/equalize_panel.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <algorithm>
#include <cmath>

#include "engine_combo.hpp"

namespace hs::ui {

EqualizePanel::EqualizePanel(QWidget* parent)
    : QWidget(parent),
      mode_(new QComboBox(this)),
      space_(new QComboBox(this)),
      strength_(new QSlider(Qt::Horizontal, this)),
      strength_label_(new QLabel(this)),
      clip_(new QDoubleSpinBox(this)),
      tiles_x_(new QSpinBox(this)),
      tiles_y_(new QSpinBox(this)),
      reference_(new QPushButton(tr("&Reference..."), this)),
      reference_label_(new QLabel(tr("none"), this)),
      equalizers_(new QComboBox(this)) {
    mode_->addItem(tr("Off"), static_cast<int>(EqualizeSettings::Mode::Off));
    mode_->addItem(tr("Global"), static_cast<int>(EqualizeSettings::Mode::Global));
    mode_->addItem(tr("CLAHE"), static_cast<int>(EqualizeSettings::Mode::Clahe));
    mode_->addItem(tr("Match reference"), static_cast<int>(EqualizeSettings::Mode::Match));
    mode_->setToolTip(
        tr("Equalization: global histogram equalization, CLAHE (contrast-limited, "
           "adaptive) or matching the histogram of a reference image"));
    space_->addItem(tr("Luminance"), true);
    space_->addItem(tr("Per channel (R, G, B)"), false);
    strength_->setRange(0, 100);
    strength_->setValue(100);
    strength_->setToolTip(tr("Blend between the original (0%) and the equalized image (100%)"));
    strength_label_->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("100%")) + 4);
    clip_->setRange(0.1, 100.0);
    clip_->setSingleStep(0.5);
    clip_->setDecimals(1);
    clip_->setValue(2.0);
    clip_->setToolTip(tr("CLAHE clip limit (OpenCV's clipLimit)"));
    for (QSpinBox* s : {tiles_x_, tiles_y_}) {
        s->setRange(1, 64);
        s->setValue(8);
    }
    tiles_x_->setToolTip(tr("CLAHE tiles across"));
    tiles_y_->setToolTip(tr("CLAHE tiles down"));
    reference_->setToolTip(
        tr("The image whose histogram match mode reproduces: a photo, a video's first frame or a "
           "camera raw file, of any depth"));
    equalizers_->addItem(tr("auto"), QStringLiteral("auto"));
    equalizers_->setToolTip(tr("Equalization engine"));

    auto* strength_row = new QHBoxLayout;
    strength_row->addWidget(strength_, 1);
    strength_row->addWidget(strength_label_);
    auto* clahe_row = new QHBoxLayout;
    clahe_row->addWidget(new QLabel(tr("clip"), this));
    clahe_row->addWidget(clip_);
    clahe_row->addWidget(new QLabel(tr("tiles"), this));
    clahe_row->addWidget(tiles_x_);
    clahe_row->addWidget(new QLabel(QStringLiteral("x"), this));
    clahe_row->addWidget(tiles_y_);
    clahe_row->addStretch();
    auto* ref_row = new QHBoxLayout;
    ref_row->addWidget(reference_);
    ref_row->addWidget(reference_label_, 1);
    auto* mode_row = new QHBoxLayout;
    mode_row->addWidget(mode_);
    mode_row->addWidget(space_);
    mode_row->addWidget(new QLabel(tr("Engine"), this));
    mode_row->addWidget(equalizers_);
    mode_row->addStretch();
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Equalize"), mode_row);
    form->addRow(tr("Strength"), strength_row);
    form->addRow(tr("CLAHE"), clahe_row);
    form->addRow(tr("Match"), ref_row);

    connect(mode_, &QComboBox::currentIndexChanged, this, &EqualizePanel::changed);
    connect(space_, &QComboBox::currentIndexChanged, this, &EqualizePanel::changed);
    connect(strength_, &QSlider::valueChanged, this, &EqualizePanel::changed);
    connect(clip_, &QDoubleSpinBox::valueChanged, this, &EqualizePanel::changed);
    connect(tiles_x_, &QSpinBox::valueChanged, this, &EqualizePanel::changed);
    connect(tiles_y_, &QSpinBox::valueChanged, this, &EqualizePanel::changed);
    connect(reference_, &QPushButton::clicked, this, &EqualizePanel::referenceRequested);
    connect(equalizers_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0) emit equalizerChanged(equalizers_->itemData(index).toString());
    });
    updateEnabled();
}

EqualizeSettings EqualizePanel::settings() const {
    EqualizeSettings s;
    s.mode = static_cast<EqualizeSettings::Mode>(mode_->currentData().toInt());
    s.luma = space_->currentData().toBool();
    s.strength = strength_->value() / 100.0;
    s.clip = clip_->value();
    s.tiles_x = tiles_x_->value();
    s.tiles_y = tiles_y_->value();
    return s;
}

void EqualizePanel::setSettings(const EqualizeSettings& s) {
    quiet_ = true;
    mode_->setCurrentIndex(std::max(0, mode_->findData(static_cast<int>(s.mode))));
    space_->setCurrentIndex(s.luma ? 0 : 1);
    strength_->setValue(static_cast<int>(std::lround(s.strength * 100.0)));
    clip_->setValue(s.clip);
    tiles_x_->setValue(s.tiles_x);
    tiles_y_->setValue(s.tiles_y);
    quiet_ = false;
    updateEnabled();
}

void EqualizePanel::setEqualizers(const QVector<EngineInfo>& equalizers) {
    const QString current = equalizers_->currentData().toString();
    fill_engine_combo(equalizers_, equalizers,
                      tr("A GPU equalizer when one can run, else the CPU reference"),
                      current.isEmpty() ? QStringLiteral("auto") : current);
}

void EqualizePanel::setReferenceName(const QString& name) {
    reference_label_->setText(name);
    reference_label_->setToolTip(name);
}

void EqualizePanel::setImageChannels(int channels, bool floating) {
    channels_ = channels;
    floating_ = floating;
    updateEnabled();
}

void EqualizePanel::updateEnabled() {
    const auto mode = static_cast<EqualizeSettings::Mode>(mode_->currentData().toInt());
    const bool on = mode != EqualizeSettings::Mode::Off && !floating_;
    mode_->setEnabled(!floating_);
    mode_->setToolTip(floating_ ? tr("A float (HDR) image is tone mapped rather than equalized "
                                     "(histoscope-cli equalize): the exposure slider sets how it "
                                     "is shown")
                                : QString());
    space_->setEnabled(on && channels_ != 1);
    space_->setToolTip(channels_ == 1
                           ? tr("A gray image is equalized as it is")
                           : tr("Equalize the luminance (Y of YCrCb) or each colour channel"));
    strength_->setEnabled(on);
    equalizers_->setEnabled(on);
    for (QWidget* w : std::initializer_list<QWidget*>{clip_, tiles_x_, tiles_y_})
        w->setEnabled(!floating_ && mode == EqualizeSettings::Mode::Clahe);
    reference_->setEnabled(!floating_ && mode == EqualizeSettings::Mode::Match);
    strength_label_->setText(QStringLiteral("%1%").arg(strength_->value()));
}

void EqualizePanel::changed() {
    updateEnabled();
    if (!quiet_) emit settingsChanged(settings());
}

}  // namespace hs::ui
