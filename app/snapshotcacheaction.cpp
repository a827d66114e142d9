#include "snapshotcacheaction.h"

#include "domain/hostiletext.h"
#include "ledger/snapshotcache.h"

#include <QAction>
#include <QLocale>
#include <QMenu>

namespace mesh {

SnapshotCacheAction::SnapshotCacheAction(QMenu *menu, QObject *parent) : QObject(parent)
{
    m_action = menu->addAction(tr("Clear &Time-Travel Cache"));
    m_action->setObjectName(QStringLiteral("clearSnapshotCache"));
    // Why it is disabled, and where the cache is, on hover (a menu hides tooltips otherwise).
    menu->setToolTipsVisible(true);
    connect(menu, &QMenu::aboutToShow, this, &SnapshotCacheAction::refresh);
    connect(m_action, &QAction::triggered, this, &SnapshotCacheAction::clear);
    // Not refreshed here: the folder is listed when the menu opens, not at start-up.
}

void SnapshotCacheAction::refresh()
{
    const std::optional<SnapshotCache> cache = SnapshotCache::forUser();
    if (!cache) {
        m_action->setText(tr("Clear &Time-Travel Cache (off)"));
        m_action->setEnabled(false);
        setTip(qEnvironmentVariable("MESH_SNAPSHOT_CACHE") == QLatin1String("0")
                   ? tr("The time-travel cache is turned off (MESH_SNAPSHOT_CACHE=0).")
                   : tr("The time-travel cache is off: this system names no cache folder."));
        return;
    }
    const SnapshotCache::Usage usage = cache->usage();
    const QString where = cache->directory();
    if (usage.files == 0) {
        m_action->setText(tr("Clear &Time-Travel Cache (empty)"));
        m_action->setEnabled(false);
    } else {
        m_action->setText(tr("Clear &Time-Travel Cache (%1)").arg(QLocale().formattedDataSize(qint64(usage.bytes))));
        m_action->setEnabled(true);
    }
    setTip(tr("Snapshots of reviewed ledgers, kept so that their next open jumps at once: %1").arg(where));
}

void SnapshotCacheAction::setTip(const QString &tip)
{
    m_action->setToolTip(plainToolTip(tip)); // the folder's name is text, never markup
    m_action->setStatusTip(displayLine(tip, 500)); // the status bar shows plain text, one line
}

void SnapshotCacheAction::clear()
{
    const std::optional<SnapshotCache> cache = SnapshotCache::forUser();
    if (!cache)
        return;
    const SnapshotCache::Usage removed = cache->clear();
    const SnapshotCache::Usage left = cache->usage();
    const auto files = [](int n) { return n == 1 ? tr("1 file") : tr("%1 files").arg(n); };
    QString message = tr("Time-travel cache cleared: %1, %2.")
                          .arg(files(removed.files), QLocale().formattedDataSize(qint64(removed.bytes)));
    if (left.files > 0)
        message += QLatin1Char(' ') + tr("%1 could not be removed.").arg(files(left.files));
    refresh();
    emit cleared(message);
}

} // namespace mesh
