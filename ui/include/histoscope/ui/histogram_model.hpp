#pragma once
// Histogram counts (rows = bins, columns = channels) and the display flags that shape the
// plotted series: which channels are visible, log or linear counts, the cumulative curve.

#include <QAbstractTableModel>
#include <QVector>
#include <cstdint>

#include "histoscope/ui/types.hpp"

namespace hs::ui {

class HistogramModel : public QAbstractTableModel {
    Q_OBJECT

  public:
    explicit HistogramModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void setHistogram(const HistogramData& data);
    const HistogramData& histogram() const { return data_; }
    bool empty() const { return data_.counts.empty(); }

    std::uint64_t count(int bin, int channel) const;
    std::uint64_t total(int channel) const;
    QString channelName(int channel) const;

    // Display flags; each change emits displayChanged().
    bool logScale() const { return log_; }
    bool cumulative() const { return cumulative_; }
    bool channelVisible(const QString& name) const;
    void setLogScale(bool on);
    void setCumulative(bool on);
    void setChannelVisible(const QString& name, bool visible);

    // What the plot draws for `channel`: counts, or log10(1 + count) on a log scale.
    QVector<double> series(int channel) const;
    // The cumulative fraction 0..1 per bin, or empty when the cumulative curve is off.
    QVector<double> cumulativeSeries(int channel) const;
    // Running sums of the counts of `channel` (bins + 1 values, from 0), kept with the data so
    // that the plot resamples any bin range onto its pixel columns without a pass over the bins.
    const std::vector<double>& prefixSums(int channel) const;

  signals:
    void displayChanged();

  private:
    HistogramData data_;
    QVector<std::uint64_t> totals_;
    std::vector<std::vector<double>> prefix_;
    bool log_ = false;
    bool cumulative_ = false;
    QStringList hidden_;
};

}  // namespace hs::ui
