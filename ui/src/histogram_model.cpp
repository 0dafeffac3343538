#include "histoscope/ui/histogram_model.hpp"

#include <cmath>
#include <numeric>

#include "histoscope/ui/histogram_columns.hpp"

namespace hs::ui {

HistogramModel::HistogramModel(QObject* parent) : QAbstractTableModel(parent) {}

int HistogramModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || data_.counts.empty() ? 0 : data_.bins;
}

int HistogramModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(data_.counts.size());
}

QVariant HistogramModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || (role != Qt::DisplayRole && role != Qt::UserRole)) return {};
    return QVariant::fromValue<qulonglong>(count(index.row(), index.column()));
}

QVariant HistogramModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Horizontal) return channelName(section);
    return QStringLiteral("[%1, %2)")
        .arg(data_.bin_lower(section))
        .arg(data_.bin_lower(section + 1));
}

void HistogramModel::setHistogram(const HistogramData& data) {
    beginResetModel();
    data_ = data;
    totals_.clear();
    prefix_.clear();
    for (const auto& counts : data_.counts) {
        totals_.push_back(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}));
        prefix_.push_back(prefix_sums(counts));
    }
    endResetModel();
    emit displayChanged();
}

std::uint64_t HistogramModel::count(int bin, int channel) const {
    if (channel < 0 || channel >= columnCount() || bin < 0 || bin >= rowCount()) return 0;
    return data_.counts[static_cast<std::size_t>(channel)][static_cast<std::size_t>(bin)];
}

std::uint64_t HistogramModel::total(int channel) const {
    return channel >= 0 && channel < totals_.size() ? totals_[channel] : 0;
}

QString HistogramModel::channelName(int channel) const {
    return channel >= 0 && channel < data_.channel_names.size() ? data_.channel_names[channel]
                                                                : QString();
}

const std::vector<double>& HistogramModel::prefixSums(int channel) const {
    static const std::vector<double> none{0.0};
    return channel >= 0 && channel < columnCount() ? prefix_[static_cast<std::size_t>(channel)]
                                                   : none;
}

bool HistogramModel::channelVisible(const QString& name) const {
    return !hidden_.contains(name);
}

void HistogramModel::setLogScale(bool on) {
    if (log_ == on) return;
    log_ = on;
    emit displayChanged();
}

void HistogramModel::setCumulative(bool on) {
    if (cumulative_ == on) return;
    cumulative_ = on;
    emit displayChanged();
}

void HistogramModel::setChannelVisible(const QString& name, bool visible) {
    if (channelVisible(name) == visible) return;
    if (visible)
        hidden_.removeAll(name);
    else
        hidden_ << name;
    emit displayChanged();
}

QVector<double> HistogramModel::series(int channel) const {
    QVector<double> out;
    if (channel < 0 || channel >= columnCount()) return out;
    const auto& counts = data_.counts[static_cast<std::size_t>(channel)];
    out.reserve(static_cast<qsizetype>(counts.size()));
    for (const std::uint64_t c : counts) {
        const auto v = static_cast<double>(c);
        out.push_back(log_ ? std::log10(1.0 + v) : v);
    }
    return out;
}

QVector<double> HistogramModel::cumulativeSeries(int channel) const {
    QVector<double> out;
    if (!cumulative_ || channel < 0 || channel >= columnCount()) return out;
    const auto& counts = data_.counts[static_cast<std::size_t>(channel)];
    const double sum = static_cast<double>(total(channel));
    std::uint64_t running = 0;
    out.reserve(static_cast<qsizetype>(counts.size()));
    for (const std::uint64_t c : counts) {
        running += c;
        out.push_back(sum > 0.0 ? static_cast<double>(running) / sum : 0.0);
    }
    return out;
}

}  // namespace hs::ui
