#pragma once
// Tools > Compare kernels: every available engine's benchmark() on the loaded image, run in
// the controller's thread with progress and cancel; a bar chart of Gpix/s, a table (median ms,
// Gpix/s, verified against the CPU reference) and CSV/JSON export.

#include <QDialog>
#include <QVector>

#include "histoscope/ui/types.hpp"

class QChart;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace hs::ui {

class Controller;

class CompareDialog : public QDialog {
    Q_OBJECT

  public:
    CompareDialog(Controller* controller, const QString& input, QWidget* parent = nullptr);

    const QVector<BenchRow>& rows() const { return rows_; }
    QTableWidget* table() const { return table_; }
    bool running() const { return running_; }
    int chartBars() const;  // bars currently in the chart

  public slots:
    void start();
    void cancel();

  signals:
    void runRequested(int runs);
    void finished(bool cancelled);

  private:
    void onStarted(int engines);
    void onProgress(int done, int total, const QString& engine);
    void onRow(const BenchRow& row);
    void onFinished(bool cancelled);
    void rebuildChart();
    void exportAs(bool json);
    void setRunning(bool running);

    Controller* controller_;
    QString input_;
    QVector<BenchRow> rows_;
    bool running_ = false;
    QSpinBox* runs_;
    QPushButton* run_button_;
    QPushButton* cancel_button_;
    QPushButton* csv_button_;
    QPushButton* json_button_;
    QProgressBar* progress_;
    QLabel* status_;
    QTableWidget* table_;
    QChart* chart_;
};

}  // namespace hs::ui
