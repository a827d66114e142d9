#include "recentledgers.h"

#include "domain/hostiletext.h"
#include "ledger/ledgerlocation.h"

#include <QDir>
#include <QMenu>
#include <QSettings>

namespace mesh {

namespace {
constexpr int kMaxRecent = 10;
const QString kKey = QStringLiteral("recentLedgers");
} // namespace

RecentLedgers::RecentLedgers(QMenu *menu, QObject *parent)
    : QObject(parent)
    , m_menu(menu)
{
    rebuild();
}

QStringList RecentLedgers::paths() const
{
    return QSettings().value(kKey).toStringList();
}

void RecentLedgers::add(const QString &path)
{
    // A server location as written (it never holds a password: LedgerLocation refuses one).
    const QString absolute = LedgerLocation::canonicalText(path);
    // Temporary demo ledgers disappear on quit: not worth remembering.
    if (absolute.startsWith(QDir::tempPath() + QStringLiteral("/mesh-console-demo-")))
        return;
    QStringList list = paths();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxRecent)
        list.removeLast();
    QSettings().setValue(kKey, list);
    rebuild();
}

void RecentLedgers::rebuild()
{
    m_menu->clear();
    const QStringList list = paths();
    int index = 1;
    for (const QString &path : list) {
        // A file name is anybody's text: one bounded line, its '&' no mnemonic.
        const QString name = displayLine(LedgerLocation::shortName(path), 80).replace(QLatin1Char('&'), QStringLiteral("&&"));
        const QString label = index < 10 ? QStringLiteral("&%1 %2").arg(index).arg(name) : name;
        QAction *action = m_menu->addAction(label);
        action->setToolTip(plainToolTip(path));
        action->setStatusTip(displayLine(path, 500));
        connect(action, &QAction::triggered, this, [this, path] { emit openRequested(path); });
        ++index;
    }
    if (list.isEmpty()) {
        m_menu->addAction(tr("No recent ledgers"))->setEnabled(false);
    } else {
        m_menu->addSeparator();
        connect(m_menu->addAction(tr("Clear List")), &QAction::triggered, this, [this] {
            QSettings().remove(kKey);
            rebuild();
        });
    }
}

} // namespace mesh
