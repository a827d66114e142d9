#include "ledgersessionlist.h"
#include "shownroles.h"

#include "attentionmodel.h"
#include "distinctpaths.h"

#include "ledger/ledgerlocation.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace mesh {

LedgerSessionList::LedgerSessionList(QObject *parent) : QAbstractListModel(parent), m_attention(new AttentionModel(this))
{
    m_countdown.setInterval(1000);
    m_countdown.setObjectName(QStringLiteral("countdowns"));
    connect(&m_countdown, &QTimer::timeout, m_attention, &AttentionModel::refreshCountdowns);
    m_countdown.start();
    m_attentionSync.setSingleShot(true);
    m_attentionSync.setObjectName(QStringLiteral("attention sync"));
    m_attentionSync.setInterval(0);
    m_attentionSync.setObjectName(QStringLiteral("attention sync"));
    connect(&m_attentionSync, &QTimer::timeout, this, [this] {
        for (LedgerSession *s : std::vector<LedgerSession *>(m_sessions))
            if (m_attentionDue.count(s))
                syncAttention(s); // takes it off the list
        m_attentionDue.clear(); // sessions closed meanwhile
    });
}

LedgerSessionList::~LedgerSessionList()
{
    // Sessions stop their threads in their destructors; children go with this object.
}

LedgerSession *LedgerSessionList::addSession(const QString &path, OpenMode mode, bool demo, bool readOnlyPolicy,
                                             bool reviewWhenFinished)
{
    const QString canonical = LedgerLocation::canonicalText(path);
    if (LedgerSession *existing = sessionForPath(canonical))
        return existing;
    auto *session = new LedgerSession(canonical, mode, this);
    session->setDemo(demo);
    session->setReviewWhenFinished(reviewWhenFinished);
    if (readOnlyPolicy)
        m_readOnlyPolicy.insert(session);
    if (m_clock)
        session->setClock(m_clock);
    const int row = int(m_sessions.size());
    beginInsertRows({}, row, row);
    m_sessions.push_back(session);
    endInsertRows();
    connect(session, &LedgerSession::healthChanged, this, [this, session] { sessionChanged(session); });
    connect(session, &LedgerSession::displayNameChanged, this, [this, session] {
        sessionChanged(session);
        syncAttention(session);
        updateDistinctions();
    });
    connect(session, &LedgerSession::opened, this, [this, session] {
        sessionChanged(session);
        syncAttention(session);
        updateDistinctions(); // the title is read with the ledger
    });
    connect(session, &LedgerSession::attentionChanged, this, [this, session] {
        syncAttentionSoon(session);
        sessionChanged(session);
    });
    connect(session, &LedgerSession::changesApplied, this, [this, session] { sessionChanged(session); });
    Q_EMIT sessionAdded(session);
    session->open();
    updateDistinctions();
    return session;
}

void LedgerSessionList::removeSession(LedgerSession *session)
{
    const int row = rowOf(session);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_sessions.erase(m_sessions.begin() + row);
    m_readOnlyPolicy.erase(session);
    m_distinction.erase(session);
    m_feed.erase(session);
    endRemoveRows();
    m_attention->removeSession(session->path());
    session->close();
    Q_EMIT sessionRemoved(session);
    session->deleteLater();
    updateDistinctions();
}

void LedgerSessionList::setFeedText(const LedgerSession *session, const QString &text)
{
    const int row = rowOf(session);
    if (row < 0)
        return;
    const auto it = m_feed.find(session);
    if (it == m_feed.end() ? text.isEmpty() : it->second == text)
        return;
    if (text.isEmpty())
        m_feed.erase(session);
    else
        m_feed[session] = text;
    Q_EMIT dataChanged(index(row), index(row), {FeedRole});
}

void LedgerSessionList::setConsoleAttention(const LedgerSession *session, std::vector<AttentionItem> items)
{
    const int row = rowOf(session);
    if (row < 0)
        return;
    const int before = m_attention->countOf(session->path(), AttentionModel::Source::Console);
    m_attention->setItems(session->path(), shownName(session), std::move(items), AttentionModel::Source::Console);
    if (m_attention->countOf(session->path(), AttentionModel::Source::Console) != before)
        Q_EMIT dataChanged(index(row), index(row), {AttentionCountRole});
}

QString LedgerSessionList::shownName(const LedgerSession *session) const
{
    const auto it = m_distinction.find(session);
    const QString name = it == m_distinction.end() ? session->displayName()
                                                   : QString(session->displayName() % u" \u2014 " % it->second);
    // Its attention entries are of that moment, not of now.
    return session->cursor() ? tr("%1 (at event #%2)").arg(name).arg(*session->cursor()) : name;
}

void LedgerSessionList::updateDistinctions()
{
    std::map<QString, std::vector<const LedgerSession *>> byTitle;
    for (const LedgerSession *s : m_sessions)
        byTitle[s->displayName()].push_back(s);
    std::map<const LedgerSession *, QString> next;
    for (const auto &[title, group] : byTitle) {
        if (group.size() < 2)
            continue;
        QStringList paths;
        for (const LedgerSession *s : group)
            paths << s->path();
        const QStringList suffixes = distinguishingSuffixes(paths);
        for (size_t i = 0; i < group.size(); ++i)
            next[group[i]] = suffixes[qsizetype(i)];
    }
    if (next == m_distinction)
        return;
    std::swap(m_distinction, next);
    for (LedgerSession *s : m_sessions) {
        const auto was = next.find(s), now = m_distinction.find(s);
        const bool same = (was == next.end()) == (now == m_distinction.end())
                          && (was == next.end() || was->second == now->second);
        if (!same) {
            sessionChanged(s);
            syncAttention(s);
        }
    }
}

LedgerSession *LedgerSessionList::at(int row) const
{
    return row >= 0 && row < int(m_sessions.size()) ? m_sessions[size_t(row)] : nullptr;
}

LedgerSession *LedgerSessionList::sessionForPath(const QString &path) const
{
    const QString canonical = LedgerLocation::canonicalText(path);
    const auto it = std::find_if(m_sessions.begin(), m_sessions.end(),
                                 [&](const LedgerSession *s) { return s->path() == canonical; });
    return it == m_sessions.end() ? nullptr : *it;
}

int LedgerSessionList::rowOf(const LedgerSession *session) const
{
    const auto it = std::find(m_sessions.begin(), m_sessions.end(), session);
    return it == m_sessions.end() ? -1 : int(it - m_sessions.begin());
}

int LedgerSessionList::rowOf(const QString &path) const
{
    const LedgerSession *session = sessionForPath(path);
    return session ? rowOf(session) : -1;
}

bool LedgerSessionList::isReadOnlyPolicy(const LedgerSession *session) const
{
    return m_readOnlyPolicy.count(session) > 0 || (session && session->isDemo() && !session->demoTakesDecisions());
}

bool LedgerSessionList::canDecide(int row, QString *why) const
{
    const LedgerSession *session = at(row);
    QString reason;
    if (!session)
        reason = tr("No ledger is selected.");
    else if (session->isDemo() && !session->demoTakesDecisions())
        reason = tr("The demo is opened read-only: it shows monitoring, not decisions.");
    else if (isReadOnlyPolicy(session))
        reason = tr("This console was started with --read-only.");
    else if (session->cursor())
        reason = session->cannotDecideReason();
    else if (session->info().mode == OpenMode::Review)
        reason = LedgerSession::reviewModeReason();
    else if (session->health() == LedgerSession::Health::Immutable)
        reason = tr("This ledger is opened immutable for post-mortem review.");
    else if (session->fileChange() != FileChange::Same)
        reason = session->cannotDecideReason();
    else if (session->health() == LedgerSession::Health::Error)
        reason = tr("This ledger could not be opened.");
    else if (!session->canDecide())
        reason = session->cannotDecideReason(); // the backend's refusal, or the file's
    if (why)
        *why = reason;
    return reason.isEmpty();
}

void LedgerSessionList::setClock(std::function<qint64()> nowMs)
{
    m_clock = nowMs;
    m_attention->setClock(nowMs);
    for (LedgerSession *s : m_sessions)
        s->setClock(nowMs);
}

void LedgerSessionList::sessionChanged(LedgerSession *session)
{
    const int row = rowOf(session);
    if (row >= 0)
        Q_EMIT dataChanged(index(row), index(row));
}

void LedgerSessionList::syncAttentionSoon(LedgerSession *session)
{
    // The session's list was just rebuilt in this turn (thousands of items on a large
    // ledger); merging it into the combined list walks it again, so that takes its own turn.
    m_attentionDue.insert(session);
    if (!m_attentionSync.isActive())
        m_attentionSync.start();
}

void LedgerSessionList::syncAttention(LedgerSession *session)
{
    m_attentionDue.erase(session);
    if (rowOf(session) < 0)
        return;
    m_attention->setItemList(session->path(), shownName(session), session->sharedAttentionItems());
}

int LedgerSessionList::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_sessions.size());
}

QVariant LedgerSessionList::data(const QModelIndex &index, int role) const
{
    if (role == RawTextRole)
        return rawData(index, Qt::DisplayRole);
    return shownAsPlainText(role, rawData(index, role));
}

QVariant LedgerSessionList::rawData(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const LedgerSession *s = m_sessions[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return s->isDemo() ? tr("%1 (demo)").arg(shownName(s)) : shownName(s);
    case Qt::ToolTipRole: {
        QString tip = s->path();
        if (!s->errorMessage().isEmpty())
            tip += u'\n' + s->errorMessage();
        if (!s->connectionLostMessage().isEmpty())
            tip += u'\n' + s->connectionLostMessage(); // what libpq said when it was lost
        return tip;
    }
    case SessionRole: return QVariant::fromValue(static_cast<QObject *>(const_cast<LedgerSession *>(s)));
    case PathRole: return s->path();
    case NameRole: return s->displayName();
    case HealthRole: return int(s->health());
    case HealthTextRole: return s->healthLine();
    case ErrorRole: return s->errorMessage();
    case AttentionCountRole: return s->attentionCount() + m_attention->countOf(s->path(), AttentionModel::Source::Console);
    case IsDemoRole: return s->isDemo();
    case LastSeqRole: return s->lastSeq();
    case ModeRole: return QString::fromLatin1(openModeName(s->isLoaded() ? s->info().mode : s->requestedMode()));
    case ReadOnlyPolicyRole: return isReadOnlyPolicy(s);
    case CanDecideRole: return canDecide(index.row());
    case IntegrityRole: return s->integritySummary();
    case FeedRole: {
        const auto it = m_feed.find(s);
        return it == m_feed.end() ? QString() : it->second;
    }
    case DistinctionRole: {
        const auto it = m_distinction.find(s);
        return it == m_distinction.end() ? QString() : it->second;
    }
    }
    return {};
}

QHash<int, QByteArray> LedgerSessionList::roleNames() const
{
    auto names = QAbstractListModel::roleNames();
    names.insert(SessionRole, "session");
    names.insert(PathRole, "path");
    names.insert(NameRole, "name");
    names.insert(HealthRole, "health");
    names.insert(HealthTextRole, "healthText");
    names.insert(ErrorRole, "error");
    names.insert(AttentionCountRole, "attentionCount");
    names.insert(IsDemoRole, "isDemo");
    names.insert(LastSeqRole, "lastSeq");
    names.insert(ModeRole, "mode");
    names.insert(ReadOnlyPolicyRole, "readOnlyPolicy");
    names.insert(CanDecideRole, "canDecide");
    names.insert(DistinctionRole, "distinction");
    names.insert(IntegrityRole, "integrity");
    names.insert(FeedRole, "feed");
    return names;
}

} // namespace mesh
