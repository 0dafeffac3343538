#pragma once
// A label of the status bar that gives way: as much of its text as its width shows, elided at
// the right, the whole of it in its tooltip. Its minimum is a few characters, so that a layout
// short of room takes it from this label first.

#include <QLabel>

namespace hs::ui {

class ElidedLabel : public QLabel {
  public:
    explicit ElidedLabel(QWidget* parent = nullptr);
    // The text, and its tooltip: `tooltip`, or the text itself when empty.
    void setWhole(const QString& text, const QString& tooltip = {});
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;
};

}  // namespace hs::ui
