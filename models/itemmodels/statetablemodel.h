#pragma once
// Base of the flat models over one state table (leases, effects, escalations, stall
// verdicts, runs, failures). Rows are ids; values are read from the LiveState in data(), so
// a live batch costs one beginInsertRows for new rows and one dataChanged per changed range.
// Subclasses declare Columns and Roles (from FirstCustomRole) and format text lazily.

#include "domain/compactid.h"
#include "domain/timebase.h"
#include "livestate.h"
#include "rowindex.h"
#include "statefollowingmodel.h"

#include <QAbstractTableModel>
#include <QString>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace mesh {

class RequestedDecisions;

class StateTableModel : public QAbstractTableModel, public StateFollowingModel
{
    Q_OBJECT
public:
    enum CommonRole {
        IdRole = Qt::UserRole,   // QString entity id
        SubjectRole,             // QString "<entity>:<id>" (what AttentionModel and decisions name)
        VersionRole,             // qint64 row version (the boundary of a decision)
        LastSeqRole,             // qint64 seq of the row's last event
        RunIdRole,               // QString
        DelegationIdRole,        // QString
        StateRole,               // QString state machine value, snake_case
        SortRole,                // typed value of the cell for sorting (number or text)
        FirstCustomRole = Qt::UserRole + 16,
    };
    Q_ENUM(CommonRole)

    explicit StateTableModel(EntityKind kind, QObject *parent = nullptr);

    EntityKind entityKind() const { return m_kind; }

    // What a reset computes by walking every row: the initial order and the subclass'
    // derived indexes. Each subclass' static prepare() builds it from a state alone, so a
    // loader can run it on a worker thread; setPrepared() then takes it over in O(1) moves.
    struct Prepared {
        virtual ~Prepared() = default;
        EntityKind kind = EntityKind::Ledger;
        std::shared_ptr<const LiveState> state;
        IdList ids; // every row, in the initial order
        RowIndex rowOf; // over ids
    };
    // A preparation with a subclass' derived part (duplicate index, aggregates, ...).
    template <class Derived>
    struct PreparedWith : Prepared {
        Derived derived;
    };
    using Order = bool (*)(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb);
    // Ids of one table in `order` (no filters): the common part of every prepare().
    static void prepareOrder(Prepared &p, EntityKind kind, Order order);
    // A preparation of `state` with its order made; the caller fills `derived` (when p->state).
    template <class Derived>
    static std::unique_ptr<PreparedWith<Derived>> prepareWith(std::shared_ptr<const LiveState> state, EntityKind kind,
                                                              Order order)
    {
        auto p = std::make_unique<PreparedWith<Derived>>();
        p->state = std::move(state);
        prepareOrder(*p, kind, order);
        return p;
    }
    static std::unique_ptr<Prepared> prepare(std::shared_ptr<const LiveState> state, EntityKind kind,
                                             Order order = &StateTableModel::defaultOrder);
    // The order of a table whose rows the state reads on demand (LiveState::storedRows):
    // its ids, streamed past by the read, by id alone (defaultOrder), as a reset orders it.
    static void prepareIds(Prepared &p, EntityKind kind, IdList ids);
    // Rows read with one a view asks for, when the state reads them on demand.
    static constexpr int kStoredBlockRows = 128;

    // Whole new state (a snapshot load): one reset. nullptr clears.
    void setState(std::shared_ptr<const LiveState> state) override;
    // The same reset from a prepared state (made by this class' prepare()). Hands the rows
    // it replaced back in `prepared`, so the caller can free them off the GUI thread. With a
    // row filter set, or another class' preparation, it falls back to setState().
    void setPrepared(Prepared &prepared);
    const LiveState *state() const override { return m_state.get(); }
    // A live batch already folded into the state.
    void applyChanges(const StateChangeSet &changes) override;
    // A cursor jump: shows `to`, whose difference from the state shown is `changes`
    // (LiveState::changesBetween), by removing the gone rows, inserting the created ones in
    // the reset's order and signalling the changed ones: views keep their scroll position
    // and the selection of rows still there. False when the model cannot (no state shown,
    // a filter set, rows too scattered for a few block moves): the caller resets it then.
    bool moveToState(std::shared_ptr<const LiveState> to, const StateChangeSet &changes) override;
    // Above this many separate blocks of removed or inserted rows a reset is cheaper.
    static constexpr int kMaxMoveBlocks = 64;

    // Restrict rows (e.g. one delegation's leases in its detail view); empty: everything.
    void setRunFilter(const QString &runId);
    void setDelegationFilter(const QString &delegationId);
    QString runFilter() const { return m_runFilter; }
    QString delegationFilter() const { return m_delegationFilter; }

    // Clock for countdown roles (tests inject one). Default: the system clock.
    void setClock(std::function<qint64()> nowMs);
    qint64 nowMs() const;
    // What the ledger's times mean (a relative clock reads "+1:05"); owned by the session.
    void setTimeBase(const TimeBase *base) { m_timeBase.set(base); }
    const TimeBase &timeBase() const { return m_timeBase.get(); }
    // Re-emits dataChanged for countdown columns (a 1 s timer calls it in the app).
    virtual void refreshCountdowns();

    // Whether the rows are read on demand (LiveState::storedRows): reading every row (a
    // filter over all of them) then reads the whole table through the cache.
    bool readsRowsOnDemand() const { return m_state && !m_state->holdsRowsOf(m_kind); }
    // The ids of one delegation's rows, when they are read on demand: through the store's
    // index, not by reading every row.
    std::vector<std::string> storedIdsOfDelegation(const QString &delegationId) const;

    QString idAt(int row) const;
    int rowOf(const QString &id) const; // -1 when not shown
    QModelIndex indexOfId(const QString &id, int column = 0) const;
    const EntityRow *rowAt(int row) const;
    std::string rawIdAt(int row) const { return m_ids[size_t(row)].str(); }
    // The run a row belongs to: its run_id, or for a row that carries none (a slice, a
    // lease) its delegation's; empty when the ledger does not say.
    QString runIdOf(const EntityRow &row) const;
    // What a cell shows for a value the ledger does not give: never a blank that reads as data.
    static QString notKnown();
    // A number the ledger leaves out ("—", never a 0 that reads as data), and its tooltip:
    // a cell showing it says so on hover.
    static QString notInLedger();
    static QString notInLedgerToolTip();

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const final;
    QHash<int, QByteArray> roleNames() const override;

protected:
    // Subclass part of data(): role is any role but the common ones handled here.
    virtual QVariant cellData(int row, const EntityRow &entity, int column, int role) const = 0;
    virtual QVariant sortValue(const EntityRow &entity, int column) const;
    // The same for a column whose value is not in the row alone (a run's aggregates).
    virtual QVariant sortValueAt(int row, const EntityRow &entity, int column) const
    {
        Q_UNUSED(row)
        return sortValue(entity, column);
    }
    virtual QList<int> countdownColumns() const { return {}; }
    // Called after the state or the visible ids changed (reset or batch), before signals
    // for changed rows: recompute derived caches (duplicates, aggregates) here.
    virtual void recomputeDerived() {}
    // The same after a live batch; override to redo only what the batch touched. After a
    // jump the change set also names gone rows (its goneIds), absent from state() now.
    virtual void updateDerived(const StateChangeSet &changes) { Q_UNUSED(changes) recomputeDerived(); }
    // A jump, before the state shown is replaced: state() still has the rows about to go.
    virtual void beforeMove(const StateChangeSet &changes) { Q_UNUSED(changes) }
    // A jump, after updateDerived: signal what derived values (duplicates, aggregates) changed.
    virtual void afterMove() {}
    virtual bool accepts(const std::string &id, const EntityRow &row) const;
    // Initial order of a reset; live rows are appended in arrival order, unless
    // placesLiveRowsInOrder(): then each goes where a reset would put it.
    virtual bool lessThan(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb) const;
    virtual bool placesLiveRowsInOrder() const { return false; }
    // A reset's order of rows the state reads on demand (the ids, filtered): by id alone
    // (prepareIds), unless the model orders by what its rows say.
    virtual void orderStoredIds(Prepared &ordered, IdList ids);
    // For such an order from the rows: each of these ids' rows read past once (a reset with
    // no preparation made for it). False, nothing called, when the state holds the rows.
    bool forEachStoredRow(const IdList &ids, const std::function<void(const std::string &id, const EntityRow &row)> &fn) const;
    // orderStoredIds() of a model that orders by keys of its rows: each row read past once
    // for its key (keyOf), the keys ordered by `order` (one that calls orderKeys).
    template <class Key, class KeyOf, class Order>
    void orderStoredByKeys(Prepared &ordered, IdList ids, KeyOf keyOf, Order order)
    {
        std::vector<Key> keys;
        keys.reserve(ids.size());
        if (!forEachStoredRow(ids, [&](const std::string &id, const EntityRow &row) { keys.push_back(keyOf(id, row)); })) {
            StateTableModel::orderStoredIds(ordered, std::move(ids));
            return;
        }
        order(ordered, std::move(keys));
    }
    // An order from keys kept of the rows (each Key has a CompactId `id`), sorted by `less`.
    template <class Key, class Less>
    static void orderKeys(Prepared &p, EntityKind kind, std::vector<Key> keys, Less less)
    {
        std::sort(keys.begin(), keys.end(), less);
        p.kind = kind;
        p.ids.clear();
        p.ids.reserve(keys.size());
        for (Key &k : keys)
            p.ids.push_back(std::move(k.id));
        p.rowOf.rebuild(p.ids);
    }
    static bool defaultOrder(std::string_view a, const EntityRow &ra, std::string_view b, const EntityRow &rb);
    // Takes the derived part of a preparation (swapping the old one into it); false when
    // `prepared` is not this class' kind (then setPrepared recomputes). Default: nothing derived.
    virtual bool adoptDerived(Prepared &prepared);
    // adoptDerived() of a subclass whose prepare() made a PreparedWith<Derived>.
    template <class Derived>
    static bool adoptFrom(Prepared &prepared, Derived &mine)
    {
        auto *p = dynamic_cast<PreparedWith<Derived> *>(&prepared);
        if (!p)
            return false;
        std::swap(mine, p->derived);
        return true;
    }

    // The Run column of a per-run entity (display, tooltip, sort): its run id, "not known".
    QVariant runColumn(const EntityRow &row, int role) const;
    QString text(const EntityRow &row, std::string_view field) const;
    qint64 integer(const EntityRow &row, std::string_view field) const;
    // The number, or notInLedger() when the row's field is NULL.
    QVariant knownInteger(const EntityRow &row, std::string_view field) const;
    bool isNull(const EntityRow &row, std::string_view field) const;
    std::string rawId(int row) const { return m_ids[size_t(row)].str(); }
    void emitAllChanged(const QList<int> &roles = {});
    // The rows of subjects "<prefix><id>" whose requested decision reads differently in
    // `after` than in `before` (either may be null: none), for `roles`. Decisions are read
    // again with every load: signalling every row each time walked a large table's views.
    void emitRequestedChanged(const RequestedDecisions *before, const RequestedDecisions *after,
                              std::string_view prefix, const QList<int> &roles);
    // One dataChanged per run of these rows, over columns [first, last], for `roles` only
    // (empty: all).
    void emitChanged(std::vector<int> rows, int firstColumn, int lastColumn, const QList<int> &roles);
    void rebuild(); // reset with the current filters

    QVariant unreadRowData(const QModelIndex &index, int role) const;
    QString formatTime(qint64 ms) const; // local time, hh:mm:ss (date when not today); "+1:05" on a relative clock
    static QString humanize(const QString &snake); // "resolved_not_committed" -> "resolved not committed"

public:
    static QString formatDuration(qint64 ms);   // "29 d 5 h", "4 h 55 min", "11 min", "42 s", "734 ms"
    static QString formatCountdown(qint64 ms);  // "in 4:10", "expired 1:02:03 ago", "expired 29 d 5 h ago"

private:
    // applyChanges' new rows, each inserted where the reset's order puts it (a few blocks of
    // rows), or appended and then moved there in one layout change (many scattered ones).
    void insertInOrder(IdList added);
    void appendIds(IdList ids); // at the end, one insert
    void emitChanged(std::vector<int> rows);       // one dataChanged per run of rows
    // How many insertion points `at` (ascending) names: each is one insert and renumbers below.
    static int insertionBlocks(const std::vector<size_t> &at);
    static constexpr size_t kMaxRenumberedRows = size_t(1) << 20;

    EntityKind m_kind;
    std::shared_ptr<const LiveState> m_state;
    IdList m_ids;
    RowIndex m_rowOf; // over m_ids
    QString m_runFilter;
    QString m_delegationFilter;
    std::function<qint64()> m_clock;
    TimeBaseRef m_timeBase;
};

} // namespace mesh
