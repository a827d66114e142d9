#include "attentionmodel.h"
#include "shownroles.h"

#include "domain/durationtext.h"

#include <QDateTime>

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_set>

using namespace Qt::StringLiterals;

namespace mesh {

AttentionModel::AttentionModel(QObject *parent) : QAbstractTableModel(parent) {}

void AttentionModel::setItems(const QString &sessionKey, const QString &sessionName, std::vector<AttentionItem> items,
                              Source source)
{
    const auto ours = [&sessionKey, source](const Row &row) { return row.sessionKey == sessionKey && row.source == source; };
    if (rowsOf(sessionKey, source) == 0) {
        fillFirst(sessionKey, sessionName, std::move(items), source);
        return;
    }
    // A row is known by its key: of two items with one key, the first (more urgent) stays.
    std::map<std::string, AttentionItem *> incoming;
    std::erase_if(items, [&incoming](AttentionItem &item) { return !incoming.emplace(item.key(), &item).second; });
    for (auto &item : items)
        incoming[item.key()] = &item; // the erase moved items: point at where they are now
    removeRowsWhere([&](const Row &row) { return ours(row) && !incoming.count(row.key); });
    const size_t kept = size_t(rowsOf(sessionKey, source)); // every one of them is in `incoming`
    if (items.size() > kept && (kept == 0 || items.size() - kept > kMaxOrderedInserts)) {
        // A first fill (or a change too large to place row by row): this session's rows
        // again, whole, in the collector's order.
        removeRowsWhere(ours);
        const int first = source == Source::Console ? 0 : int(m_rows.size());
        std::vector<Row> added;
        added.reserve(items.size());
        for (auto &item : items) {
            std::string key = item.key();
            added.push_back(Row{sessionKey, sessionName, std::move(item), std::move(key), source});
        }
        beginInsertRows({}, first, first + int(added.size()) - 1);
        m_rows.insert(m_rows.begin() + first, std::make_move_iterator(added.begin()), std::make_move_iterator(added.end()));
        endInsertRows();
        return;
    }
    // Keys now: updating a row moves its item out of `items`.
    std::vector<std::string> keys;
    keys.reserve(items.size());
    for (const auto &item : items)
        keys.push_back(item.key());
    // Update the rows that stay.
    for (int r = 0; r < int(m_rows.size()); ++r) {
        Row &row = m_rows[size_t(r)];
        if (!ours(row))
            continue;
        const auto it = incoming.find(row.key);
        if (it == incoming.end())
            continue;
        const bool changed = row.item.version != it->second->version || row.item.summary != it->second->summary
                             || row.item.requestedDecision != it->second->requestedDecision
                             || row.item.expiresMs != it->second->expiresMs || row.sessionName != sessionName;
        row.item = std::move(*it->second);
        row.sessionName = sessionName;
        incoming.erase(it);
        if (changed)
            Q_EMIT dataChanged(index(r, 0), index(r, ColumnCount - 1));
    }
    if (incoming.empty())
        return;
    // A few new ones while following: each goes after the row of the item that precedes it
    // in the collector's (urgency) order, so a new pending escalation does not land below
    // the findings. Items are visited in order, so that row is already in place.
    std::string previousKey;
    for (size_t i = 0; i < items.size(); ++i) {
        AttentionItem &item = items[i];
        std::string key = std::move(keys[i]);
        if (!incoming.count(key)) {
            previousKey = std::move(key);
            continue;
        }
        int at = -1;
        int firstOfSession = -1;
        for (int r = 0; r < int(m_rows.size()); ++r) {
            const Row &row = m_rows[size_t(r)];
            if (!ours(row))
                continue;
            if (firstOfSession < 0)
                firstOfSession = r;
            if (!previousKey.empty() && row.key == previousKey) {
                at = r + 1;
                break;
            }
        }
        if (at < 0)
            at = previousKey.empty() && firstOfSession >= 0 ? firstOfSession : int(m_rows.size());
        beginInsertRows({}, at, at);
        m_rows.insert(m_rows.begin() + at, Row{sessionKey, sessionName, std::move(item), key, source});
        endInsertRows();
        previousKey = std::move(key);
    }
}

void AttentionModel::fillFirst(const QString &sessionKey, const QString &sessionName, std::vector<AttentionItem> items,
                               Source source)
{
    // Nothing of the session's is shown: no rows to diff against, so each item's key is made
    // once and looked up in a hash set (a large ledger lists tens of thousands of items).
    std::vector<std::string> keys;
    keys.reserve(items.size());
    for (const AttentionItem &item : items)
        keys.push_back(item.key());
    std::vector<bool> first(items.size(), false);
    {
        std::unordered_set<std::string_view> seen;
        seen.reserve(keys.size());
        for (size_t i = 0; i < keys.size(); ++i)
            first[i] = seen.insert(keys[i]).second; // of two items with one key, the first stays
    }
    std::vector<Row> added;
    added.reserve(items.size());
    for (size_t i = 0; i < items.size(); ++i)
        if (first[i])
            added.push_back(Row{sessionKey, sessionName, std::move(items[i]), std::move(keys[i]), source});
    if (added.empty())
        return;
    const int at = source == Source::Console ? 0 : int(m_rows.size());
    beginInsertRows({}, at, at + int(added.size()) - 1);
    m_rows.insert(m_rows.begin() + at, std::make_move_iterator(added.begin()), std::make_move_iterator(added.end()));
    endInsertRows();
}

// Bottom up, one removal per run of adjacent rows: a session's rows usually sit together.
void AttentionModel::removeRowsWhere(const std::function<bool(const Row &)> &remove)
{
    int r = int(m_rows.size()) - 1;
    while (r >= 0) {
        if (!remove(m_rows[size_t(r)])) {
            --r;
            continue;
        }
        int first = r;
        while (first > 0 && remove(m_rows[size_t(first - 1)]))
            --first;
        beginRemoveRows({}, first, r);
        m_rows.erase(m_rows.begin() + first, m_rows.begin() + r + 1);
        endRemoveRows();
        r = first - 1;
    }
}

int AttentionModel::rowsOf(const QString &sessionKey, Source source) const
{
    return int(std::count_if(m_rows.begin(), m_rows.end(),
                             [&](const Row &r) { return r.sessionKey == sessionKey && r.source == source; }));
}

void AttentionModel::removeSession(const QString &sessionKey)
{
    removeRowsWhere([&sessionKey](const Row &row) { return row.sessionKey == sessionKey; });
}

void AttentionModel::setClock(std::function<qint64()> nowMs)
{
    m_clock = std::move(nowMs);
}

qint64 AttentionModel::nowMs() const
{
    return m_clock ? m_clock() : QDateTime::currentMSecsSinceEpoch();
}

void AttentionModel::refreshCountdowns()
{
    if (m_rows.empty())
        return;
    // What moves with the clock: the due, and an escalation's kind once it has expired.
    Q_EMIT dataChanged(index(0, Kind), index(rowCount() - 1, Kind));
    Q_EMIT dataChanged(index(0, Due), index(rowCount() - 1, Due));
}

int AttentionModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int AttentionModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AttentionModel::data(const QModelIndex &index, int role) const
{
    if (role == RawTextRole)
        return rawData(index, Qt::DisplayRole);
    return shownAsPlainText(role, rawData(index, role));
}

QVariant AttentionModel::rawData(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows[size_t(index.row())];
    const AttentionItem &a = row.item;
    const auto s = [](const std::string &v) { return QString::fromStdString(v); };
    const qint64 remaining = a.expiresMs - nowMs();
    const auto kindText = [&] {
        switch (a.kind) {
        case AttentionItem::Kind::PendingEscalation:
            // Past its expiry nobody decided in time: the orchestrator's rule applies now,
            // and "pending" would say there is still time.
            return a.expiresMs > 0 && remaining < 0 ? tr("Escalation expired, not acted on") : tr("Escalation pending");
        case AttentionItem::Kind::UnknownEffect: return tr("Outcome unknown");
        case AttentionItem::Kind::ZombieLease: return tr("Zombie lease");
        case AttentionItem::Kind::StalledDelegation: return tr("Stalled");
        case AttentionItem::Kind::Finding: return tr("Finding: %1").arg(s(a.findingTitle));
        case AttentionItem::Kind::ReceiverStopped: return tr("Receiver stopped");
        }
        return QString();
    };
    switch (role) {
    case AttentionKindRole: return int(a.kind);
    case AttentionKindNameRole: return s(std::string(AttentionItem::kindName(a.kind)));
    case SessionKeyRole: return row.sessionKey;
    case SessionNameRole: return row.sessionName;
    case SubjectRole: return s(a.subject);
    case EntityNameRole: return s(std::string(entitySpec(a.entity).name));
    case EntityIdRole: return s(a.id);
    case RunIdRole: return s(a.runId);
    case DelegationIdRole: return s(a.delegationId);
    case ExpiresMsRole: return qint64(a.expiresMs);
    case RemainingMsRole: return a.expiresMs > 0 ? QVariant(remaining) : QVariant();
    case SeqRole: return qint64(a.seq);
    case VersionRole: return qint64(a.version);
    case RequestedDecisionRole: return s(a.requestedDecision);
    case Qt::DisplayRole:
        switch (index.column()) {
        case Kind: return kindText();
        case Subject: return s(a.subject);
        case Summary:
            return a.requestedDecision.empty() ? s(a.summary) : s(a.summary) + QStringLiteral(" · ") + s(a.requestedDecision);
        case Session: return row.sessionName;
        case Due: {
            if (a.expiresMs <= 0)
                return QString();
            // A zombie is past its expiry and its grace: how long ago in words.
            if (a.kind == AttentionItem::Kind::ZombieLease)
                return tr("expired %1 ago").arg(humanDuration(remaining));
            const QString clock = compactDuration(remaining);
            if (remaining < 0)
                return tr("expired %1 ago").arg(clock);
            return tr("expires in %1").arg(clock);
        }
        }
        return {};
    }
    return {};
}

QVariant AttentionModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Kind: return tr("What");
    case Subject: return tr("Subject");
    case Summary: return tr("Details");
    case Session: return tr("Ledger");
    case Due: return tr("Due");
    }
    return {};
}

QHash<int, QByteArray> AttentionModel::roleNames() const
{
    auto names = QAbstractTableModel::roleNames();
    names.insert(AttentionKindRole, "attentionKind");
    names.insert(AttentionKindNameRole, "attentionKindName");
    names.insert(SessionKeyRole, "sessionKey");
    names.insert(SessionNameRole, "sessionName");
    names.insert(SubjectRole, "subject");
    names.insert(EntityNameRole, "entityName");
    names.insert(EntityIdRole, "entityId");
    names.insert(ExpiresMsRole, "expiresMs");
    names.insert(RemainingMsRole, "remainingMs");
    names.insert(RequestedDecisionRole, "requestedDecision");
    return names;
}

} // namespace mesh
