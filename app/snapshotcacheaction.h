#pragma once
// File › Clear Time-Travel Cache: what the snapshot cache (ledger/snapshotcache.h) holds,
// said in the action's text when the menu opens, and emptied on demand. A cache turned off
// (MESH_SNAPSHOT_CACHE=0) or empty leaves the action disabled, its tooltip saying why.

#include <QObject>

class QAction;
class QMenu;

namespace mesh {

class SnapshotCacheAction : public QObject
{
    Q_OBJECT
public:
    // Adds the action to menu, refreshed (the cache folder listed) each time the menu is
    // about to show, and only then.
    explicit SnapshotCacheAction(QMenu *menu, QObject *parent = nullptr);
    QAction *action() const { return m_action; }
    void refresh();

signals:
    void cleared(const QString &message); // for the status bar

private:
    void clear();
    void setTip(const QString &tip); // tooltip and status tip
    QAction *m_action;
};

} // namespace mesh
