#pragma once
// The recent history of processed frames: kernel, per-stage milliseconds, Gpix/s, percent of
// the device's read bandwidth and the frame's total. Newest first; at most `capacity` rows.

#include <QAbstractTableModel>
#include <deque>

#include "histoscope/ui/types.hpp"

namespace hs::ui {

class TimingModel : public QAbstractTableModel {
    Q_OBJECT

  public:
    // The stages last: the longest text, it takes what width is left.
    enum Column {
        Frame,
        Kernel,
        Equalizer,
        Histogram,
        Gpix,
        PctBandwidth,
        Total,
        Stages,
        ColumnCount
    };

    explicit TimingModel(int capacity = 60, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void add(const FrameTiming& timing);
    void clear();
    const std::deque<FrameTiming>& entries() const { return entries_; }
    int capacity() const { return capacity_; }

  private:
    int capacity_;
    std::deque<FrameTiming> entries_;
};

}  // namespace hs::ui
