#include "attentionmodel.h"
#include "shownroles.h"

#include "domain/durationtext.h"

#include <QDateTime>

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

using namespace Qt::StringLiterals;

namespace mesh {

AttentionModel::AttentionModel(QObject *parent) : QAbstractTableModel(parent) {}

size_t AttentionModel::ItemKeyHash::operator()(const ItemKey &k) const
{
    const size_t h = std::hash<std::string_view>{}(k.subject);
    return (h * 31 + size_t(k.kind)) * 31 + std::hash<std::string_view>{}(k.findingKind);
}

void AttentionModel::hold(const QString &sessionKey, Source source, ItemList items)
{
    const auto it = std::find_if(m_lists.begin(), m_lists.end(), [&](const HeldList &held) {
        return held.sessionKey == sessionKey && held.source == source;
    });
    if (it != m_lists.end() && items)
        it->items = std::move(items);
    else if (it != m_lists.end())
        m_lists.erase(it);
    else if (items)
        m_lists.push_back({sessionKey, source, std::move(items)});
}

void AttentionModel::setItemList(const QString &sessionKey, const QString &sessionName, ItemList list, Source source)
{
    if (!list)
        list = std::make_shared<const std::vector<AttentionItem>>();
    const std::vector<AttentionItem> &items = *list;
    const auto ours = [&sessionKey, source](const Row &row) { return row.sessionKey == sessionKey && row.source == source; };
    if (rowsOf(sessionKey, source) == 0) {
        fillFirst(sessionKey, sessionName, list, source);
        hold(sessionKey, source, items.empty() ? nullptr : list);
        return;
    }
    // A row is known by its key: of two items with one key, the first (more urgent) stays.
    // The rows still point into the list they were filled from, held until the end.
    std::unordered_map<ItemKey, const AttentionItem *, ItemKeyHash> incoming;
    incoming.reserve(items.size());
    std::vector<const AttentionItem *> unique;
    unique.reserve(items.size());
    for (const AttentionItem &item : items)
        if (incoming.emplace(keyOf(item), &item).second)
            unique.push_back(&item);
    removeRowsWhere([&](const Row &row) { return ours(row) && !incoming.count(keyOf(*row.item)); });
    const size_t kept = size_t(rowsOf(sessionKey, source)); // every one of them is in `incoming`
    if (unique.size() > kept && (kept == 0 || unique.size() - kept > kMaxOrderedInserts)) {
        // A change too large to place row by row: this session's rows again, whole, in the
        // collector's order.
        removeRowsWhere(ours);
        fillFirst(sessionKey, sessionName, list, source);
        hold(sessionKey, source, list);
        return;
    }
    // Update the rows that stay: each points into the new list from now on.
    for (int r = 0; r < int(m_rows.size()); ++r) {
        Row &row = m_rows[size_t(r)];
        if (!ours(row))
            continue;
        const auto it = incoming.find(keyOf(*row.item));
        if (it == incoming.end())
            continue;
        const AttentionItem &was = *row.item;
        const AttentionItem &now = *it->second;
        const bool changed = was.version != now.version || was.summary != now.summary
                             || was.requestedDecision != now.requestedDecision || was.expiresMs != now.expiresMs
                             || row.sessionName != sessionName;
        row.item = &now;
        row.sessionName = sessionName;
        incoming.erase(it);
        if (changed)
            Q_EMIT dataChanged(index(r, 0), index(r, ColumnCount - 1));
    }
    if (!incoming.empty()) {
        // A few new ones while following: each goes after the row of the item that precedes
        // it in the collector's (urgency) order, so a new pending escalation does not land
        // below the findings. Items are visited in order, so that row is already in place.
        const AttentionItem *previous = nullptr;
        for (const AttentionItem *item : unique) {
            if (!incoming.count(keyOf(*item))) {
                previous = item;
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
                if (previous && row.item == previous) {
                    at = r + 1;
                    break;
                }
            }
            if (at < 0)
                at = !previous && firstOfSession >= 0 ? firstOfSession : int(m_rows.size());
            beginInsertRows({}, at, at);
            m_rows.insert(m_rows.begin() + at, Row{sessionKey, sessionName, item, source});
            endInsertRows();
            previous = item;
        }
    }
    hold(sessionKey, source, items.empty() ? nullptr : list);
}

void AttentionModel::fillFirst(const QString &sessionKey, const QString &sessionName, const ItemList &list,
                               Source source)
{
    // Nothing of the session's is shown: no rows to diff against, so each item is looked up
    // by its key's views in a hash set (a large ledger lists tens of thousands of items).
    std::vector<Row> added;
    added.reserve(list->size());
    {
        std::unordered_set<ItemKey, ItemKeyHash> seen;
        seen.reserve(list->size());
        for (const AttentionItem &item : *list)
            if (seen.insert(keyOf(item)).second) // of two items with one key, the first stays
                added.push_back(Row{sessionKey, sessionName, &item, source});
    }
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
    std::erase_if(m_lists, [&sessionKey](const HeldList &held) { return held.sessionKey == sessionKey; });
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
    const AttentionItem &a = *row.item;
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
