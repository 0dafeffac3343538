#pragma once
// The Scopes panel: the histogram, the waveform, the RGB parade and the vectorscope of the frame
// shown (of the region when there is one), side by side, updating with every frame while a clip
// plays. The scopes are computed in the frame stream with the histograms (on the GPU when it
// runs) and arrive as pictures (core's scope_picture: log brightness over a graticule), which
// each ScopeView scales to its size: nothing is counted or rendered on the UI thread. Only the
// scopes switched on are computed. The panel forwards the user's choices through
// settingsChanged() and owns no data.

#include <QImage>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include "histoscope/ui/types.hpp"

class QComboBox;
class QGridLayout;
class QLabel;
class QToolButton;

namespace hs::ui {

class HistogramModel;
class HistogramView;

// One scope's picture scaled to the widget (a vectorscope kept square), its title in the
// corner; the placeholder without one.
class ScopeView : public QWidget {
    Q_OBJECT

  public:
    explicit ScopeView(QWidget* parent = nullptr);
    // `note` follows the title ("region 10,20 300x200", "preview").
    void setScope(const ScopeImage& scope, const QString& note = {});
    void clear(const QString& placeholder);
    const ScopeImage& scope() const { return scope_; }
    // Where the picture is drawn, in widget coordinates.
    QRectF pictureArea() const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    ScopeImage scope_;
    QString note_;
    QString placeholder_;
};

class ScopesPanel : public QWidget {
    Q_OBJECT

  public:
    // The histogram it shows is `histogram`'s (the window's original histogram).
    explicit ScopesPanel(HistogramModel* histogram, QWidget* parent = nullptr);

    ScopeSettings settings() const;
    void setSettings(const ScopeSettings& settings);  // without emitting settingsChanged
    // The channels the image has: a gray image has neither parade nor vectorscope.
    void setImageChannels(int channels);
    // The scopes of the frame shown (those not among them keep their placeholder), and what
    // their titles note ("region 10,20 300x200", "preview"); the histogram's title is the
    // window's to set, as for its other plots.
    void setScopes(const QVector<ScopeImage>& scopes, const QString& note = {});

    QToolButton* button(const QString& kind) const;  // "histogram", "waveform", ...
    ScopeView* view(const QString& kind) const;      // "waveform", "parade", "vectorscope"
    HistogramView* histogramView() const { return histogram_; }
    QComboBox* channelCombo() const { return channel_; }
    QComboBox* matrixCombo() const { return matrix_; }

  signals:
    void settingsChanged(const hs::ui::ScopeSettings& settings);

  private:
    void changed();
    void relayout();

    HistogramView* histogram_;
    QVector<QToolButton*> buttons_;  // histogram, waveform, parade, vectorscope
    QStringList tips_;               // theirs
    QVector<ScopeView*> views_;      // waveform, parade, vectorscope
    QComboBox* channel_;
    QComboBox* matrix_;
    QLabel* gray_;    // in place of the channel choice on a gray image
    QLabel* chroma_;  // the matrix choice's label
    QGridLayout* grid_;
    QLabel* empty_;
    int channels_ = 3;
};

}  // namespace hs::ui
