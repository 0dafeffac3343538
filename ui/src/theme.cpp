#include "histoscope/ui/theme.hpp"

#include <QApplication>
#include <QPalette>
#include <QStyleFactory>

// Q_INIT_RESOURCE must be used outside any namespace.
static void hs_init_qrc() {
    Q_INIT_RESOURCE(histoscope);
}

namespace hs::ui {

void init_resources() {
    hs_init_qrc();
}

void apply_dark_theme(QApplication& app) {
    app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QPalette p;
    const QColor window(45, 46, 50), base(30, 31, 34), text(225, 225, 228);
    const QColor disabled(125, 125, 130), highlight(64, 140, 230);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(38, 39, 43));
    p.setColor(QPalette::ToolTipBase, QColor(20, 20, 22));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(55, 56, 61));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(255, 90, 90));
    p.setColor(QPalette::Link, highlight);
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Light, QColor(70, 71, 76));
    p.setColor(QPalette::Midlight, QColor(60, 61, 66));
    p.setColor(QPalette::Mid, QColor(80, 81, 86));
    p.setColor(QPalette::Dark, QColor(22, 22, 24));
    p.setColor(QPalette::Shadow, QColor(10, 10, 10));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    app.setPalette(p);
}

}  // namespace hs::ui
