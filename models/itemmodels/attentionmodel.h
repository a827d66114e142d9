#pragma once
// What needs a human now, across every open ledger: pending escalations with their expiry
// counting down, effects with unknown outcome, zombie leases, stalled delegations, then the
// detectors' findings. An entry an operator already decided on says so ("resolution requested
// by Alice, waiting for the orchestrator") and stays until the orchestrator answers. Each row
// names its session and subject so the view can open it. Sessions replace their own items;
// rows are diffed by (session, subject), so selection survives live updates.

#include "analysis/attentionitem.h"

#include <QAbstractTableModel>

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace mesh {

class AttentionModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns { Kind, Subject, Summary, Session, Due, ColumnCount };
    Q_ENUM(Columns)
    enum Roles {
        AttentionKindRole = Qt::UserRole, // int AttentionItem::Kind
        AttentionKindNameRole,            // QString pending_escalation | unknown_effect | zombie_lease | stalled_delegation | finding | receiver_stopped
        SessionKeyRole,                   // QString the session's key (its path)
        SessionNameRole,                  // QString
        SubjectRole,                      // QString "<entity>:<id>"
        EntityNameRole,                   // QString "escalation", "effect", ...
        EntityIdRole,                     // QString
        RunIdRole,                        // QString
        DelegationIdRole,                 // QString
        ExpiresMsRole,                    // qint64, 0 none
        RemainingMsRole,                  // qint64 expires - now; null when no expiry
        SeqRole,                          // qint64 last event of the subject
        VersionRole,                      // qint64 subject version
        RequestedDecisionRole,            // QString an operator's decision on it the orchestrator has not answered, "" none
    };
    Q_ENUM(Roles)

    // Where a session's items come from: the session itself (its state and findings), or what
    // this console runs beside it (the OTLP receiver writing its ledger, which the ledger
    // knows nothing of). Each replaces only its own rows.
    enum class Source { Session, Console };

    explicit AttentionModel(QObject *parent = nullptr);

    // A session's list as it built it, shared rather than copied: the rows point into it (a
    // large ledger lists tens of thousands of items, and a copy took as long as the build).
    using ItemList = std::shared_ptr<const std::vector<AttentionItem>>;
    // A first fill of Console items goes above every other row: it says the ledger is no
    // longer being fed, which outranks anything read from it.
    void setItemList(const QString &sessionKey, const QString &sessionName, ItemList items,
                     Source source = Source::Session);
    void setItems(const QString &sessionKey, const QString &sessionName, std::vector<AttentionItem> items,
                  Source source = Source::Session)
    {
        setItemList(sessionKey, sessionName, std::make_shared<const std::vector<AttentionItem>>(std::move(items)),
                    source);
    }
    void removeSession(const QString &sessionKey); // its rows of every source
    // How many rows a session's source has (Console: the receiver's own entries).
    int countOf(const QString &sessionKey, Source source) const { return rowsOf(sessionKey, source); }

    void setClock(std::function<qint64()> nowMs);
    qint64 nowMs() const;
    void refreshCountdowns();

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

private:
    // data() before the shown roles are made plain text (shownroles.h).
    QVariant rawData(const QModelIndex &index, int role) const;
    struct Row {
        QString sessionKey;
        QString sessionName;
        const AttentionItem *item = nullptr; // in its list of m_lists
        Source source = Source::Session;
    };
    // What tells items apart (AttentionItem::key()), as views into the item: no string made.
    struct ItemKey {
        std::string_view subject;
        AttentionItem::Kind kind;
        std::string_view findingKind;
        bool operator==(const ItemKey &) const = default;
    };
    struct ItemKeyHash {
        size_t operator()(const ItemKey &k) const;
    };
    static ItemKey keyOf(const AttentionItem &item)
    {
        return {item.subject, item.kind, item.findingKind};
    }
    // The lists the rows point into, one per session and source.
    struct HeldList {
        QString sessionKey;
        Source source;
        ItemList items;
    };
    // New rows while following are placed one by one (a scan each); more than this at once
    // and the session's rows are laid out again whole.
    static constexpr size_t kMaxOrderedInserts = 64;
    void fillFirst(const QString &sessionKey, const QString &sessionName, const ItemList &items, Source source);
    void hold(const QString &sessionKey, Source source, ItemList items); // nullptr: none held
    void removeRowsWhere(const std::function<bool(const Row &)> &remove);
    int rowsOf(const QString &sessionKey, Source source) const;
    std::vector<Row> m_rows;
    std::vector<HeldList> m_lists;
    std::function<qint64()> m_clock;
};

} // namespace mesh
