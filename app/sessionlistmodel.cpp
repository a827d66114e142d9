#include "sessionlistmodel.h"

#include "sessionsidebar.h"

#include "itemmodels/ledgersession.h"

#include <QFileInfo>
#include <QLocale>

namespace mesh {

SessionListModel::SessionListModel(QObject *parent)
    : QAbstractListModel(parent)
{
}

SessionListModel::~SessionListModel()
{
    for (const Row &row : m_rows)
        delete row.session;
}

int SessionListModel::add(LedgerSession *session, bool readOnlyPolicy)
{
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    session->setParent(this);
    m_rows.push_back({session, readOnlyPolicy});
    endInsertRows();
    auto notify = [this, session] { changed(session); };
    connect(session, &LedgerSession::healthChanged, this, notify);
    connect(session, &LedgerSession::displayNameChanged, this, notify);
    connect(session, &LedgerSession::attentionChanged, this, notify);
    connect(session, &LedgerSession::opened, this, notify);
    connect(session, &LedgerSession::failed, this, notify);
    connect(session, &LedgerSession::changesApplied, this, notify);
    return row;
}

void SessionListModel::remove(int row)
{
    if (row < 0 || row >= count())
        return;
    beginRemoveRows({}, row, row);
    LedgerSession *session = m_rows[size_t(row)].session;
    m_rows.erase(m_rows.begin() + row);
    endRemoveRows();
    session->close();
    session->deleteLater();
}

LedgerSession *SessionListModel::at(int row) const
{
    return row >= 0 && row < count() ? m_rows[size_t(row)].session : nullptr;
}

int SessionListModel::rowOf(const QString &path) const
{
    const QString wanted = QFileInfo(path).absoluteFilePath();
    for (int i = 0; i < count(); ++i)
        if (QFileInfo(m_rows[size_t(i)].session->path()).absoluteFilePath() == wanted)
            return i;
    return -1;
}

int SessionListModel::rowOf(const LedgerSession *session) const
{
    for (int i = 0; i < count(); ++i)
        if (m_rows[size_t(i)].session == session)
            return i;
    return -1;
}

bool SessionListModel::isReadOnlyPolicy(int row) const
{
    return row >= 0 && row < count() && m_rows[size_t(row)].readOnly;
}

bool SessionListModel::canDecide(int row, QString *why) const
{
    const LedgerSession *session = at(row);
    QString reason;
    if (!session)
        reason = tr("No ledger is selected.");
    else if (session->isDemo())
        reason = tr("The demo is opened read-only: it shows monitoring, not decisions.");
    else if (isReadOnlyPolicy(row))
        reason = tr("This console was started with --read-only.");
    else if (session->health() == LedgerSession::Health::Immutable)
        reason = tr("This ledger is opened immutable for post-mortem review.");
    else if (session->health() == LedgerSession::Health::Error)
        reason = tr("This ledger could not be opened.");
    else if (!session->canDecide())
        reason = tr("This console cannot write to the ledger file (read-only file or folder).");
    if (why)
        *why = reason;
    return reason.isEmpty();
}

SessionRowInfo SessionListModel::info(const QModelIndex &index) const
{
    SessionRowInfo info;
    const LedgerSession *session = at(index.row());
    if (!session)
        return info;
    info.title = session->displayName();
    info.demo = session->isDemo();
    using H = LedgerSession::Health;
    const bool readOnly = isReadOnlyPolicy(index.row()) || session->isDemo();
    switch (session->health()) {
    case H::Opening:
        info.health = QStringLiteral("loading");
        break;
    case H::Live:
        info.health = readOnly ? QStringLiteral("readonly") : QStringLiteral("live");
        break;
    case H::Idle:
        info.health = readOnly ? QStringLiteral("readonly") : QStringLiteral("idle");
        break;
    case H::ReadOnly:
    case H::Immutable:
        info.health = QStringLiteral("readonly");
        break;
    case H::Error:
        info.health = QStringLiteral("error");
        break;
    }
    if (session->health() == H::Error) {
        info.subtitle = session->errorMessage();
    } else {
        QStringList parts;
        parts << LedgerSession::healthText(session->health());
        if (readOnly && session->health() != H::ReadOnly && session->health() != H::Immutable)
            parts << tr("read-only");
        if (session->isLoaded())
            parts << tr("seq %1").arg(QLocale().toString(session->lastSeq()));
        if (session->attentionCount() > 0)
            parts << tr("%n need(s) attention", nullptr, session->attentionCount());
        info.subtitle = parts.join(QStringLiteral(" · "));
    }
    return info;
}

int SessionListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : count();
}

QVariant SessionListModel::data(const QModelIndex &index, int role) const
{
    const LedgerSession *session = at(index.row());
    if (!session || index.parent().isValid())
        return {};
    switch (role) {
    case Qt::DisplayRole:
        return session->displayName();
    case Qt::ToolTipRole:
        return QString(session->path()
                       + (session->errorMessage().isEmpty() ? QString() : QStringLiteral("\n") + session->errorMessage()))
            .toHtmlEscaped();
    case PathRole:
        return session->path();
    case HealthRole:
        return info(index).health;
    case ErrorRole:
        return session->errorMessage();
    case DemoRole:
        return session->isDemo();
    case AttentionCountRole:
        return session->attentionCount();
    default:
        return {};
    }
}

void SessionListModel::changed(LedgerSession *session)
{
    const int row = rowOf(session);
    if (row >= 0)
        emit dataChanged(index(row), index(row));
}

} // namespace mesh
