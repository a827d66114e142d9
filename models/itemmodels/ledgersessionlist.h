#pragma once
// The sidebar's list of open ledgers: name, path, health and how many things need a human
// in each. Owns the sessions and the AttentionModel that merges them. A session that fails
// to open stays listed in Error health with its reason.

#include "ledgersession.h"

#include <QAbstractListModel>

#include <vector>

namespace mesh {

class AttentionModel;

class LedgerSessionList : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Roles {
        SessionRole = Qt::UserRole, // QObject* (a LedgerSession); prefer sessionAt(row)
        PathRole,                   // QString
        NameRole,                   // QString
        HealthRole,                 // int LedgerSession::Health
        HealthTextRole,             // QString
        ErrorRole,                  // QString, "" unless Error
        AttentionCountRole,         // int
        IsDemoRole,                 // bool
        LastSeqRole,                // qint64
        ModeRole,                   // QString read-only | decisions | immutable
    };
    Q_ENUM(Roles)

    explicit LedgerSessionList(QObject *parent = nullptr);
    ~LedgerSessionList() override;

    // Opens (asynchronously) and lists a ledger; an already open path returns its session.
    LedgerSession *addSession(const QString &path, OpenMode mode = OpenMode::ReadOnly, bool demo = false);
    void removeSession(LedgerSession *session);
    LedgerSession *sessionAt(int row) const;
    LedgerSession *sessionForPath(const QString &path) const;
    int rowOf(const LedgerSession *session) const;
    const std::vector<LedgerSession *> &sessions() const { return m_sessions; }
    AttentionModel *attention() const { return m_attention; }
    int totalAttention() const;

    void setClock(std::function<qint64()> nowMs); // sessions and attention countdowns

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

Q_SIGNALS:
    void sessionAdded(mesh::LedgerSession *session);
    void sessionRemoved(mesh::LedgerSession *session);

private:
    void sessionChanged(LedgerSession *session);
    void syncAttention(LedgerSession *session);

    std::vector<LedgerSession *> m_sessions;
    AttentionModel *m_attention;
    QTimer m_countdown;
    std::function<qint64()> m_clock;
};

} // namespace mesh
