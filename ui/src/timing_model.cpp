#include "histoscope/ui/timing_model.hpp"

namespace hs::ui {

TimingModel::TimingModel(int capacity, QObject* parent)
    : QAbstractTableModel(parent), capacity_(capacity) {}

int TimingModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(entries_.size());
}

int TimingModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TimingModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
    switch (section) {
        case Frame:
            return tr("Frame");
        case Kernel:
            return tr("Kernel");
        case Equalizer:
            return tr("Equalizer");
        case Stages:
            return tr("Stages (ms)");
        case Histogram:
            return tr("Histogram ms");
        case Gpix:
            return tr("Gpix/s");
        case PctBandwidth:
            return tr("% read BW");
        case Total:
            return tr("Frame ms");
        default:
            return {};
    }
}

QVariant TimingModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const FrameTiming& e = entries_[static_cast<std::size_t>(index.row())];
    if (role == Qt::ToolTipRole && index.column() == Stages) return data(index, Qt::DisplayRole);
    if (role == Qt::TextAlignmentRole && index.column() != Kernel && index.column() != Equalizer &&
        index.column() != Stages)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case Frame:  // counted from 0, as the video bar counts
            if (e.frame >= 0) return QVariant(static_cast<qlonglong>(e.frame));
            return e.preview ? tr("preview") : tr("photo");
        case Kernel:
            return e.engine;
        case Equalizer:
            return e.equalizer.isEmpty() ? tr("off") : e.equalizer;
        case Stages: {
            QStringList parts;
            for (const auto& s : e.stages)
                parts << QStringLiteral("%1 %2").arg(s.name).arg(s.ms, 0, 'f', 3);
            return parts.join(QStringLiteral(", "));
        }
        case Histogram:
            return QString::number(e.histogram_ms, 'f', 3);
        case Gpix:
            return QString::number(e.gpix_per_s, 'f', 3);
        case PctBandwidth:
            return e.read_bandwidth_gbs > 0.0 ? QString::number(e.pct_read_bw, 'f', 1)
                                              : QStringLiteral("-");
        case Total:
            return QString::number(e.total_ms, 'f', 2);
        default:
            return {};
    }
}

void TimingModel::add(const FrameTiming& timing) {
    beginInsertRows({}, 0, 0);
    entries_.push_front(timing);
    endInsertRows();
    if (static_cast<int>(entries_.size()) > capacity_) {
        const int last = static_cast<int>(entries_.size()) - 1;
        beginRemoveRows({}, last, last);
        entries_.pop_back();
        endRemoveRows();
    }
}

void TimingModel::clear() {
    beginResetModel();
    entries_.clear();
    endResetModel();
}

}  // namespace hs::ui
