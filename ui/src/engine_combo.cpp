#include "engine_combo.hpp"

#include <QComboBox>
#include <QSignalBlocker>
#include <QStandardItemModel>

namespace hs::ui {

void fill_engine_combo(QComboBox* combo, const QVector<EngineInfo>& engines,
                       const QString& auto_tip, const QString& wanted) {
    const QSignalBlocker block(combo);
    combo->clear();
    combo->addItem(QObject::tr("auto"), QStringLiteral("auto"));
    combo->setItemData(0, auto_tip, Qt::ToolTipRole);
    auto* model = qobject_cast<QStandardItemModel*>(combo->model());
    for (const EngineInfo& e : engines) {
        if (e.name == QLatin1String("auto")) {
            // The registry's own "auto" engine: what the entry does, and that engine's own
            // description (or why it cannot run here).
            combo->setItemData(
                0,
                QStringLiteral("%1.\n\n%2")
                    .arg(auto_tip, e.available ? e.description
                                               : QObject::tr("Unavailable here: %1").arg(e.reason)),
                Qt::ToolTipRole);
            continue;
        }
        combo->addItem(e.available ? e.name : QObject::tr("%1 (unavailable)").arg(e.name), e.name);
        const int row = combo->count() - 1;
        combo->setItemData(row, e.available ? e.description : e.reason, Qt::ToolTipRole);
        if (!e.available && model != nullptr) model->item(row)->setEnabled(false);
    }
    const int index = combo->findData(wanted);
    combo->setCurrentIndex(index >= 0 ? index : 0);
}

}  // namespace hs::ui
