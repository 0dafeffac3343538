#pragma once
// Tools > Compare Kernels: every available engine's benchmark() on the loaded image, run in
// the controller's thread with progress per run and a cancel heard within about a second; a
// bar chart of Gpix/s, a table (median ms, Gpix/s, verified against the CPU reference; the
// engines that cannot run, with why) and CSV/JSON export with what makes the run
// reproducible. Its size and the chart/table split are remembered.

#include <QDialog>
#include <QVector>

#include "histoscope/ui/types.hpp"

class QChart;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTableWidget;

namespace hs::ui {

class Controller;

class CompareDialog : public QDialog {
    Q_OBJECT

  public:
    // `input`: the path of the file the kernels run on (named in the dialog; exports never
    // replace it).
    CompareDialog(Controller* controller, const QString& input, QWidget* parent = nullptr);

    const QVector<BenchRow>& rows() const { return rows_; }
    const BenchContext& context() const { return context_; }
    QProgressBar* progressBar() const { return progress_; }
    QSplitter* splitter() const { return splitter_; }
    QTableWidget* table() const { return table_; }
    QChart* chart() const { return chart_; }
    QString statusText() const;  // the line under the table
    bool running() const { return running_; }
    int chartBars() const;  // bars currently in the chart

  public slots:
    void start();
    void cancel();

  signals:
    void runRequested(int runs);
    void finished(bool cancelled);

  protected:
    void hideEvent(QHideEvent* event) override;

  private:
    void onStarted(const BenchContext& context, int total_runs);
    void onProgress(int done, int total, const QString& engine);
    void onRow(const BenchRow& row);
    void onFinished(bool cancelled);
    // "N engines timed, M verified exact ...; W x H, D-bit, B bins, R runs" of the rows shown.
    QString summary() const;
    void rebuildChart();
    void exportAs(bool json);
    void setRunning(bool running);

    Controller* controller_;
    QString input_;
    QVector<BenchRow> rows_;     // shown: the last run's, or the one running once it has a row
    BenchContext context_;       // of the rows shown
    BenchContext next_context_;  // of the run in progress, until its first row
    bool replaced_ = true;       // the rows shown are the running run's (or there are none)
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
    QSplitter* splitter_;
};

}  // namespace hs::ui
