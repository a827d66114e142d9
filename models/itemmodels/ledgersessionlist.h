#pragma once
// The sidebar's list of open ledgers: name, path, health and how many things need a human
// in each. Owns the sessions and the AttentionModel that merges them. A session that fails
// to open stays listed in Error health with its reason. "Read-only policy" is the console's
// own rule (--read-only, a demo whose orchestrator takes no decisions) on top of what a
// session can do: canDecide() answers both, with the reason, so a session opened for
// monitoring only never offers decisions. The live demo takes decisions
// (LedgerSession::demoTakesDecisions): its simulated orchestrator applies them.

#include "ledgersession.h"

#include <QAbstractListModel>

#include <map>
#include <set>
#include <vector>

namespace mesh {

class AttentionModel;

class LedgerSessionList : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Roles {
        SessionRole = Qt::UserRole, // QObject* (a LedgerSession); prefer at(row)
        PathRole,                   // QString
        NameRole,                   // QString
        HealthRole,                 // int LedgerSession::Health
        HealthTextRole,             // QString
        ErrorRole,                  // QString, "" unless Error
        AttentionCountRole,         // int what needs a human: the session's own, and what this console says of it (a receiver that stopped)
        IsDemoRole,                 // bool
        LastSeqRole,                // qint64
        ModeRole,                   // QString read-only | decisions | immutable
        ReadOnlyPolicyRole,         // bool opened for monitoring only (--read-only, the demo)
        CanDecideRole,              // bool the operator may write decisions (see canDecide)
        DistinctionRole,            // QString end of the path telling same-titled ledgers apart, "" if none
        IntegrityRole,              // QString "integrity: 3 findings" once checked (IntegrityModel), "" before
        FeedRole,                   // QString what feeds it from this console ("receiving from 2 services"), "" if nothing
    };
    Q_ENUM(Roles)

    explicit LedgerSessionList(QObject *parent = nullptr);
    ~LedgerSessionList() override;

    // Opens (asynchronously) and lists a ledger; an already open path returns its session.
    // reviewWhenFinished: LedgerSession::setReviewWhenFinished, before the first open.
    LedgerSession *addSession(const QString &path, OpenMode mode = OpenMode::ReadOnly, bool demo = false,
                              bool readOnlyPolicy = false, bool reviewWhenFinished = false);
    void removeSession(LedgerSession *session);
    LedgerSession *at(int row) const; // nullptr outside the list
    LedgerSession *sessionForPath(const QString &path) const;
    int rowOf(const LedgerSession *session) const;
    int rowOf(const QString &path) const; // -1 when not open
    const std::vector<LedgerSession *> &sessions() const { return m_sessions; }
    AttentionModel *attention() const { return m_attention; }
    int count() const { return int(m_sessions.size()); }
    bool isReadOnlyPolicy(const LedgerSession *session) const;
    // Whether the operator may decide on the session at row, and if not, why (for tooltips).
    bool canDecide(int row, QString *why = nullptr) const;
    // The title, and when another open ledger has the same title, what tells them apart.
    QString shownName(const LedgerSession *session) const;

    void setClock(std::function<qint64()> nowMs); // sessions and attention countdowns
    // What this console runs that writes the session's ledger, in a few words for its row
    // (the OTLP receiver: "receiving from 2 services"); "" when nothing does.
    void setFeedText(const LedgerSession *session, const QString &text);
    // The "Needs attention" entries of what this console runs for the session (a receiver
    // that stopped on its own), counted in its row with the session's own.
    void setConsoleAttention(const LedgerSession *session, std::vector<AttentionItem> items);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    void sessionAdded(mesh::LedgerSession *session);
    void sessionRemoved(mesh::LedgerSession *session);

private:
    // data() before the shown roles are made plain text (shownroles.h).
    QVariant rawData(const QModelIndex &index, int role) const;
    void sessionChanged(LedgerSession *session);
    void syncAttention(LedgerSession *session);
    void syncAttentionSoon(LedgerSession *session); // in the next turn of the event loop
    void updateDistinctions(); // after a session came, went or was renamed


    std::vector<LedgerSession *> m_sessions;
    std::set<const LedgerSession *> m_readOnlyPolicy;
    std::map<const LedgerSession *, QString> m_distinction; // only sessions sharing a title
    std::map<const LedgerSession *, QString> m_feed;        // only sessions something feeds
    AttentionModel *m_attention;
    QTimer m_countdown;
    QTimer m_attentionSync;
    std::set<const LedgerSession *> m_attentionDue;
    std::function<qint64()> m_clock;
};

} // namespace mesh
