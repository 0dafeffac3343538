#include "histoscope/ui/controls_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <algorithm>
#include <cmath>

#include "engine_combo.hpp"
#include "histoscope/ui/histogram_view.hpp"

namespace hs::ui {

namespace {

QString channel_label(const QString& name) {
    if (name == QLatin1String("r")) return QObject::tr("R");
    if (name == QLatin1String("g")) return QObject::tr("G");
    if (name == QLatin1String("g1")) return QObject::tr("G1");
    if (name == QLatin1String("g2")) return QObject::tr("G2");
    if (name == QLatin1String("b")) return QObject::tr("B");
    if (name == QLatin1String("a")) return QObject::tr("A");
    if (name == QLatin1String("luma")) return QObject::tr("Luma");
    if (name == QLatin1String("luma709")) return QObject::tr("Luminance");
    if (name == QLatin1String("gray")) return QObject::tr("Gray");
    return name;
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
      engines_(new QComboBox(this)),
      exposure_row_(new QWidget(this)),
      exposure_(new QSlider(Qt::Horizontal, exposure_row_)),
      exposure_value_(new QLabel(exposure_row_)) {
    auto* channels_layout = new QHBoxLayout(channel_box_);
    channels_layout->setContentsMargins(0, 0, 0, 0);
    log_->setToolTip(tr("Plot log10(1 + count) (L)"));
    cumulative_->setToolTip(tr("Overlay the cumulative distribution, 0 to 100% (U)"));
    parade_->setToolTip(tr("Each channel in its own lane instead of overlaid (P)"));
    bins_->setToolTip(tr("Number of even bins over the full range of the image's depth"));
    engines_->setToolTip(
        tr("Histogram kernel; auto: the registry's auto engine (the CLI's --kernel auto) when "
           "it can run the request, else the CPU reference"));
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
    // A float image's exposure for viewing: -8..+8 EV in tenths.
    exposure_->setObjectName(QStringLiteral("exposureSlider"));
    exposure_->setRange(-80, 80);
    exposure_->setSingleStep(1);
    exposure_->setPageStep(10);
    exposure_->setToolTip(
        tr("Exposure of the float (HDR) image as shown: 2^EV times its linear light, clipped at "
           "white, sRGB-encoded (view only: histograms, statistics and samples keep the file's "
           "values); double-click for 0 EV"));
    exposure_value_->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("+8.0 EV ")));
    auto* row3 = new QHBoxLayout(exposure_row_);
    row3->setContentsMargins(0, 0, 0, 0);
    row3->addWidget(new QLabel(tr("Exposure"), exposure_row_));
    row3->addWidget(exposure_, 1);
    row3->addWidget(exposure_value_);
    exposure_row_->setVisible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(row1);
    layout->addLayout(row2);
    layout->addWidget(exposure_row_);
    setExposure(0.0);
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
    connect(exposure_, &QSlider::valueChanged, this, [this](int tenths) {
        exposure_value_->setText(QString::asprintf("%+.1f EV", tenths / 10.0));
        emit exposureChanged(tenths / 10.0);
    });
}

double ControlsPanel::exposure() const {
    return exposure_->value() / 10.0;
}

void ControlsPanel::setExposure(double ev) {
    const QSignalBlocker block(exposure_);
    exposure_->setValue(static_cast<int>(std::lround(std::clamp(ev, -8.0, 8.0) * 10.0)));
    exposure_value_->setText(QString::asprintf("%+.1f EV", exposure_->value() / 10.0));
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

void ControlsPanel::setBitDepth(int bit_depth, bool floating) {
    const QSignalBlocker block(bins_);
    bins_->clear();
    // A float image's bins are stops over -16..+16 EV (the controller's float_window_spec).
    const int most = floating ? 4096 : 1 << std::min(bit_depth, 24);
    for (int bins = 16; bins <= most; bins *= 2) bins_->addItem(QString::number(bins), bins);
    bins_->setToolTip(floating ? tr("Number of bins over -16..+16 EV (stops of the linear "
                                    "luminance and of each channel; 256: an eighth of a stop)")
                               : tr("Number of even bins over the full range of the image's "
                                    "depth"));
    exposure_row_->setVisible(floating);
    // What the controller uses too: the wanted count, at most one bin per code value.
    const int index = bins_->findData(std::min(wanted_bins_, most));
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
                      tr("The registry's auto engine (the CLI's --kernel auto) when this build "
                         "has one and it can run the request, else the CPU reference"),
                      wanted_engine_);
}

void ControlsPanel::selectEngine(const QString& name) {
    wanted_engine_ = name;
    const QSignalBlocker block(engines_);
    const int index = engines_->findData(name);
    if (index >= 0) engines_->setCurrentIndex(index);
}

}  // namespace hs::ui
