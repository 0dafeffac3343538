#include "histoscope/ui/controls_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <algorithm>

#include "histoscope/ui/histogram_view.hpp"

namespace hs::ui {

namespace {

QString channel_label(const QString& name) {
    if (name == QLatin1String("r")) return QObject::tr("R");
    if (name == QLatin1String("g")) return QObject::tr("G");
    if (name == QLatin1String("b")) return QObject::tr("B");
    if (name == QLatin1String("luma")) return QObject::tr("Luma");
    if (name == QLatin1String("gray")) return QObject::tr("Gray");
    return name;
}

void fill_engine_combo(QComboBox* combo, const QVector<EngineInfo>& engines,
                       const QString& auto_tip, const QString& wanted) {
    const QSignalBlocker block(combo);
    combo->clear();
    combo->addItem(QObject::tr("auto"), QStringLiteral("auto"));
    combo->setItemData(0, auto_tip, Qt::ToolTipRole);
    auto* model = qobject_cast<QStandardItemModel*>(combo->model());
    for (const EngineInfo& e : engines) {
        if (e.name == QLatin1String("auto")) {  // a registry "auto" engine replaces ours
            combo->setItemData(0, e.description, Qt::ToolTipRole);
            continue;
        }
        combo->addItem(e.available ? e.name : QObject::tr("%1 (unavailable)").arg(e.name), e.name);
        const int row = combo->count() - 1;
        combo->setItemData(row, e.available ? e.description : e.reason, Qt::ToolTipRole);
        if (!e.available && model != nullptr) model->item(row)->setEnabled(false);
    }
    const int index = combo->findData(wanted);
    combo->setCurrentIndex(index >= 0 ? index : 0);
}

}  // namespace

// --- ControlsPanel

ControlsPanel::ControlsPanel(QWidget* parent)
    : QWidget(parent),
      channel_box_(new QWidget(this)),
      log_(new QCheckBox(tr("&Log"), this)),
      cumulative_(new QCheckBox(tr("C&umulative"), this)),
      parade_(new QCheckBox(tr("&Parade"), this)),
      bins_(new QComboBox(this)),
      engines_(new QComboBox(this)) {
    auto* channels_layout = new QHBoxLayout(channel_box_);
    channels_layout->setContentsMargins(0, 0, 0, 0);
    log_->setToolTip(tr("Plot log10(1 + count) (L)"));
    cumulative_->setToolTip(tr("Overlay the cumulative distribution, 0 to 100% (U)"));
    parade_->setToolTip(tr("Each channel in its own lane instead of overlaid (P)"));
    bins_->setToolTip(tr("Number of even bins over the full range of the image's depth"));
    engines_->setToolTip(
        tr("Histogram kernel; auto picks the fastest available GPU kernel, else the CPU "
           "reference"));
    engines_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    // Wide enough for "65536" whatever the depth of the first image.
    bins_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    bins_->setMinimumContentsLength(5);

    auto* row1 = new QHBoxLayout;
    row1->addWidget(new QLabel(tr("Channels"), this));
    row1->addWidget(channel_box_);
    row1->addSpacing(fontMetrics().height());
    row1->addWidget(log_);
    row1->addWidget(cumulative_);
    row1->addWidget(parade_);
    row1->addStretch();
    auto* row2 = new QHBoxLayout;
    row2->addWidget(new QLabel(tr("Bins"), this));
    row2->addWidget(bins_);
    row2->addSpacing(fontMetrics().height());
    row2->addWidget(new QLabel(tr("Kernel"), this));
    row2->addWidget(engines_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(row1);
    layout->addLayout(row2);
    setBitDepth(8);
    engines_->addItem(tr("auto"), QStringLiteral("auto"));

    connect(log_, &QCheckBox::toggled, this, &ControlsPanel::logToggled);
    connect(cumulative_, &QCheckBox::toggled, this, &ControlsPanel::cumulativeToggled);
    connect(parade_, &QCheckBox::toggled, this, &ControlsPanel::paradeToggled);
    connect(bins_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        wanted_bins_ = bins_->itemData(index).toInt();
        emit binsChanged(wanted_bins_);
    });
    connect(engines_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        wanted_engine_ = engines_->itemData(index).toString();
        emit engineChanged(wanted_engine_);
    });
}

QCheckBox* ControlsPanel::channelCheck(const QString& name) const {
    for (QCheckBox* box : channel_checks_)
        if (box->property("channel").toString() == name) return box;
    return nullptr;
}

void ControlsPanel::setChannels(const QStringList& names) {
    QStringList current;
    for (QCheckBox* box : channel_checks_) current << box->property("channel").toString();
    if (current == names) return;
    qDeleteAll(channel_checks_);
    channel_checks_.clear();
    for (const QString& name : names) {
        auto* box = new QCheckBox(channel_label(name), channel_box_);
        box->setProperty("channel", name);
        box->setChecked(true);
        box->setToolTip(tr("Show the %1 histogram").arg(channel_label(name)));
        QPalette pal = box->palette();
        pal.setColor(QPalette::WindowText, channel_color(name));
        box->setPalette(pal);
        connect(box, &QCheckBox::toggled, this,
                [this, name](bool on) { emit channelToggled(name, on); });
        channel_box_->layout()->addWidget(box);
        channel_checks_ << box;
    }
}

int ControlsPanel::bins() const {
    return wanted_bins_;
}
QString ControlsPanel::engine() const {
    return wanted_engine_;
}

void ControlsPanel::setBitDepth(int bit_depth) {
    const QSignalBlocker block(bins_);
    bins_->clear();
    for (int bins = 16; bins <= (1 << bit_depth); bins *= 2)
        bins_->addItem(QString::number(bins), bins);
    // What the controller uses too: the wanted count, at most one bin per code value.
    const int index = bins_->findData(std::min(wanted_bins_, 1 << bit_depth));
    bins_->setCurrentIndex(index >= 0 ? index : bins_->findData(256));
}

void ControlsPanel::selectBins(int bins) {
    wanted_bins_ = bins;
    const QSignalBlocker block(bins_);
    const int index = bins_->findData(bins);
    if (index >= 0) bins_->setCurrentIndex(index);
}

void ControlsPanel::setEngines(const QVector<EngineInfo>& engines) {
    fill_engine_combo(engines_, engines,
                      tr("The fastest available GPU kernel serving the request, else the CPU "
                         "reference"),
                      wanted_engine_);
}

void ControlsPanel::selectEngine(const QString& name) {
    wanted_engine_ = name;
    const QSignalBlocker block(engines_);
    const int index = engines_->findData(name);
    if (index >= 0) engines_->setCurrentIndex(index);
}

// --- EqualizePanel

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
    reference_->setToolTip(tr("The image whose histogram match mode reproduces"));
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

void EqualizePanel::setImageChannels(int channels) {
    channels_ = channels;
    updateEnabled();
}

void EqualizePanel::updateEnabled() {
    const auto mode = static_cast<EqualizeSettings::Mode>(mode_->currentData().toInt());
    const bool on = mode != EqualizeSettings::Mode::Off;
    space_->setEnabled(on && channels_ != 1);
    space_->setToolTip(channels_ == 1
                           ? tr("A gray image is equalized as it is")
                           : tr("Equalize the luminance (Y of YCrCb) or each colour channel"));
    strength_->setEnabled(on);
    equalizers_->setEnabled(on);
    for (QWidget* w : std::initializer_list<QWidget*>{clip_, tiles_x_, tiles_y_})
        w->setEnabled(mode == EqualizeSettings::Mode::Clahe);
    reference_->setEnabled(mode == EqualizeSettings::Mode::Match);
    strength_label_->setText(QStringLiteral("%1%").arg(strength_->value()));
}

void EqualizePanel::changed() {
    updateEnabled();
    if (!quiet_) emit settingsChanged(settings());
}

}  // namespace hs::ui
