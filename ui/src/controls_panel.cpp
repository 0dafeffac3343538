#include "histoscope/ui/controls_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <algorithm>

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
      engines_(new QComboBox(this)) {
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
