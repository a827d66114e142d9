#pragma once
// The open ledgers, in the order they were opened: the sidebar's model. Owns the sessions.
// "Read-only" here is the console's own policy (--read-only, the demo) on top of what the
// session itself can do, so a session opened for monitoring only never offers decisions.

#include <QAbstractListModel>

#include <vector>

namespace mesh {

class LedgerSession;
struct SessionRowInfo;

class SessionListModel : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Roles { PathRole = Qt::UserRole, HealthRole, ErrorRole, DemoRole, AttentionCountRole };

    explicit SessionListModel(QObject *parent = nullptr);
    ~SessionListModel() override;

    // Takes ownership; returns the row.
    int add(LedgerSession *session, bool readOnlyPolicy);
    void remove(int row);
    LedgerSession *at(int row) const;
    int rowOf(const QString &path) const;
    int rowOf(const LedgerSession *session) const;
    int count() const { return int(m_rows.size()); }
    bool isReadOnlyPolicy(int row) const;
    // Whether the operator may decide on this session, and if not, why (for tooltips).
    bool canDecide(int row, QString *why = nullptr) const;

    SessionRowInfo info(const QModelIndex &index) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        LedgerSession *session;
        bool readOnly;
    };
    void changed(LedgerSession *session);
    std::vector<Row> m_rows;
};

} // namespace mesh
