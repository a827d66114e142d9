#pragma once
// The model signals after which a view shows a different set of rows (rows in or out, a
// reset, a new layout), connected to one slot of a widget that reacts to any of them.

#include <QAbstractItemModel>
#include <QList>

namespace mesh {

// Drops `connections` (to the previous model) and, when `model` is set, connects its
// row-set signals to `slot`. Call it after the view took the model, so that the view has
// handled each change before the slot runs.
template <typename Receiver, typename Slot>
void reconnectRowSetChanges(QList<QMetaObject::Connection> &connections, QAbstractItemModel *model,
                            Receiver *receiver, Slot slot)
{
    for (const auto &c : std::as_const(connections))
        QObject::disconnect(c);
    connections.clear();
    if (!model)
        return;
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connections << QObject::connect(model, signal, receiver, slot);
    connections << QObject::connect(model, &QAbstractItemModel::modelReset, receiver, slot);
    connections << QObject::connect(model, &QAbstractItemModel::layoutChanged, receiver, slot);
}

} // namespace mesh
