#include "histoscope/ui/stats_model.hpp"

namespace hs::ui {

StatsModel::StatsModel(QObject* parent) : QAbstractTableModel(parent) {}

int StatsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int StatsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(channels_.size());
}

QVariant StatsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Horizontal)
        return section < channels_.size() ? channels_[section] : QVariant();
    return section < rows_.size() ? rows_[section] : QVariant();
}

QVariant StatsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    if (role == Qt::TextAlignmentRole) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    return cell(stats_[static_cast<std::size_t>(index.column())], index.row());
}

QString StatsModel::cell(const hs::Stats& s, int row) const {
    const auto n_pct = static_cast<int>(s.percentiles.size());
    switch (row) {
        case 0:
            return QString::number(s.count);
        case 1:
            return QString::number(s.mean, 'f', 2);
        case 2:
            return QString::number(s.stddev, 'f', 2);
        case 3:
            return QString::number(s.min);
        case 4:
            return QString::number(s.max);
        case 5:
            return QString::number(s.median);
        default:
            break;
    }
    const int p = row - 6;
    if (p >= 0 && p < n_pct)
        return QString::number(s.percentiles[static_cast<std::size_t>(p)].second);
    const double count = s.count > 0 ? static_cast<double>(s.count) : 1.0;
    auto with_pct = [count](std::uint64_t v) {
        return QStringLiteral("%1 (%2%)")
            .arg(v)
            .arg(100.0 * static_cast<double>(v) / count, 0, 'f', 2);
    };
    if (row == 6 + n_pct) return with_pct(s.clipped_low);
    return with_pct(s.clipped_high);
}

void StatsModel::setStats(const QStringList& channels, const std::vector<hs::Stats>& stats) {
    beginResetModel();
    channels_ = channels;
    stats_ = stats;
    rows_ = QStringList{tr("count"), tr("mean"), tr("std dev"), tr("min"), tr("max"), tr("median")};
    if (!stats_.empty()) {
        for (const auto& [p, v] : stats_.front().percentiles) rows_ << tr("p%1").arg(p);
    }
    rows_ << tr("clipped low") << tr("clipped high");
    if (stats_.empty()) rows_.clear();
    endResetModel();
}

}  // namespace hs::ui
