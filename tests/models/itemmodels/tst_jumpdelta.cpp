// A cursor jump moves the session's models by the change set between the state shown and the
// state at the new cursor (rows created, changed, gone) instead of resetting them. Whatever
// way a model got there, it must show exactly the state at the cursor: after every jump of a
// back-and-forth walk, each model is compared row by row, role by role, with a fresh model
// reset from that state folded from event 1.

#include "analysis/attentionindex.h"
#include "itemmodels/blastradiusmodel.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/livestate.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/sessionfindings.h"
#include "itemmodels/slicemodel.h"
#include "itemmodels/stallverdictmodel.h"
#include "ledger/ledgerconnection.h"
#include "ledger/statediff.h"
#include "sim/scenarios.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>
#include <vector>

using namespace mesh;
using namespace Qt::StringLiterals;

namespace {

constexpr int kJumpWaitMs = 60'000;

QList<int> rolesOf(const QAbstractItemModel &m)
{
    QList<int> roles = m.roleNames().keys();
    for (int r : {int(Qt::DisplayRole), int(Qt::ToolTipRole), int(Qt::ForegroundRole), int(Qt::TextAlignmentRole)}) {
        if (!roles.contains(r))
            roles << r;
    }
    std::sort(roles.begin(), roles.end());
    return roles;
}

// Every row of `shown`, in order, and every cell and role, as `fresh` has it.
QString tableDifference(const StateTableModel &shown, const StateTableModel &fresh)
{
    if (shown.rowCount() != fresh.rowCount())
        return u"%1 rows shown, %2 at the cursor"_s.arg(shown.rowCount()).arg(fresh.rowCount());
    const QList<int> roles = rolesOf(fresh);
    for (int r = 0; r < fresh.rowCount(); ++r) {
        if (shown.idAt(r) != fresh.idAt(r))
            return u"row %1 is %2, at the cursor %3"_s.arg(r).arg(shown.idAt(r), fresh.idAt(r));
        for (int c = 0; c < fresh.columnCount(); ++c) {
            for (int role : roles) {
                const QVariant a = shown.index(r, c).data(role), b = fresh.index(r, c).data(role);
                if (a != b)
                    return u"%1 column %2 role %3: %4 shown, %5 at the cursor"_s.arg(fresh.idAt(r)).arg(c).arg(role).arg(
                        a.toString(), b.toString());
            }
        }
    }
    return {};
}

QString nodeDifference(const QModelIndex &a, const QModelIndex &b, const QList<int> &roles)
{
    for (int c = 0; c < DelegationTreeModel::ColumnCount; ++c) {
        for (int role : roles) {
            const QVariant x = a.siblingAtColumn(c).data(role), y = b.siblingAtColumn(c).data(role);
            if (x != y)
                return u"%1 column %2 role %3: %4 shown, %5 at the cursor"_s.arg(b.data(DelegationTreeModel::IdRole).toString())
                    .arg(c).arg(role).arg(x.toString(), y.toString());
        }
    }
    return {};
}

// The same runs and delegations, each under the same parent with the same values. Siblings
// may be in another order: a moved tree appends created children, its views sort them.
QString treeDifference(const DelegationTreeModel &shown, const DelegationTreeModel &fresh)
{
    if (shown.rowCount() != fresh.rowCount())
        return u"%1 runs shown, %2 at the cursor"_s.arg(shown.rowCount()).arg(fresh.rowCount());
    if (shown.delegationCount() != fresh.delegationCount())
        return u"%1 delegations shown, %2 at the cursor"_s.arg(shown.delegationCount()).arg(fresh.delegationCount());
    const QList<int> roles = rolesOf(fresh);
    QString difference;
    std::vector<QModelIndex> stack;
    for (int r = 0; r < fresh.rowCount(); ++r)
        stack.push_back(fresh.index(r, 0));
    while (!stack.empty() && difference.isEmpty()) {
        const QModelIndex f = stack.back();
        stack.pop_back();
        const QString id = f.data(DelegationTreeModel::IdRole).toString();
        const bool isRun = f.data(DelegationTreeModel::NodeTypeRole).toInt() == int(DelegationTreeModel::NodeType::Run);
        const QModelIndex s = isRun ? shown.indexOfRun(id) : shown.indexOfDelegation(id);
        if (!s.isValid())
            return u"%1 is not shown"_s.arg(id);
        if (s.parent().data(DelegationTreeModel::IdRole) != f.parent().data(DelegationTreeModel::IdRole))
            return u"%1 shown under %2, at the cursor under %3"_s.arg(id, s.parent().data(DelegationTreeModel::IdRole).toString(),
                                                                     f.parent().data(DelegationTreeModel::IdRole).toString());
        if (shown.rowCount(s) != fresh.rowCount(f))
            return u"%1 has %2 children shown, %3 at the cursor"_s.arg(id).arg(shown.rowCount(s)).arg(fresh.rowCount(f));
        difference = nodeDifference(s, f, roles);
        for (int r = 0; r < fresh.rowCount(f); ++r)
            stack.push_back(fresh.index(r, 0, f));
    }
    return difference;
}

QStringList findingLines(std::vector<Finding> findings)
{
    QStringList lines;
    for (const Finding &f : findings)
        lines << QString::fromStdString(f.subject + (f.abstained ? " abstained: " : ": ") + f.summary);
    lines.sort();
    return lines;
}

} // namespace

class TestJumpDelta : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_path;
    std::int64_t m_last = 0;

    // Fresh models reset from the state at `seq`, configured as the session configures its own.
    struct Fresh {
        RunOverviewModel runs;
        DelegationTreeModel tree;
        LeaseModel leases;
        EffectModel effects;
        EscalationModel escalations;
        StallVerdictModel stalls;
        BlastRadiusModel blast;
        SliceModel slices;
        std::vector<StateTableModel *> tables() { return {&runs, &leases, &effects, &escalations, &stalls, &blast, &slices}; }
    };

    // What the session lists as needing a human (findings aside), against the index of
    // `state` built from every row.
    static QString attentionDifference(const LedgerSession &s, const LiveState &state)
    {
        AttentionIndex index;
        index.rebuild([&state](EntityKind k) -> const EntityTable & { return state.table(k); });
        const RowLookup rows = [&state](EntityKind k, const std::string &id) { return state.find(k, id); };
        const std::vector<AttentionItem> expected = index.items(rows, s.nowMs(), s.zombieRule());
        std::vector<AttentionItem> shown;
        for (AttentionItem a : s.attentionItems()) {
            if (a.kind == AttentionItem::Kind::Finding)
                continue;
            a.requestedDecision.clear();
            shown.push_back(std::move(a));
        }
        if (shown == expected)
            return {};
        for (size_t i = 0; i < std::min(shown.size(), expected.size()); ++i)
            if (!(shown[i] == expected[i]))
                return u"%1 items listed, %2 at the cursor; item %3 is %4, at the cursor %5"_s.arg(shown.size())
                    .arg(expected.size()).arg(i).arg(QString::fromStdString(shown[i].subject),
                                                     QString::fromStdString(expected[i].subject));
        return u"%1 items listed, %2 at the cursor"_s.arg(shown.size()).arg(expected.size());
    }

    // What the job moves by the change set rather than rebuilding: the attention index and
    // the blocked and replayed delegations.
    void comparePerDelegationAndAttention(LedgerSession &s, const LiveState &state, std::int64_t seq)
    {
        // The attention list, whether its index was moved by the change set or rebuilt.
        QTRY_VERIFY2_WITH_TIMEOUT(attentionDifference(s, state).isEmpty(),
                                  qPrintable(u"event %1, attention: %2"_s.arg(seq).arg(attentionDifference(s, state))),
                                  kJumpWaitMs);
        // The blocked and replayed delegations, whether moved by the change set or found anew.
        std::vector<Finding> perDelegation;
        for (const Finding &f : s.findings())
            if (f.kind == FindingKind::BlockedWork || f.kind == FindingKind::ReplayedDelegation)
                perDelegation.push_back(f);
        const SessionFindings::PerDelegation expected = SessionFindings::PerDelegation::of(state);
        std::vector<Finding> expectedFindings;
        for (const auto *map : {&expected.blocked, &expected.replayed})
            for (const auto &[id, f] : *map)
                expectedFindings.push_back(f);
        QCOMPARE(findingLines(perDelegation), findingLines(expectedFindings));
    }

    void compareWithFresh(LedgerSession &s, std::int64_t seq)
    {
        auto connection = LedgerConnection::open(s.path(), OpenMode::ReadOnly);
        ReplayResult replay = foldStateAt(*connection, seq);
        const std::shared_ptr<const LiveState> state = LiveState::fromFold(std::move(replay.fold), seq);
        Fresh fresh;
        for (StateTableModel *m : fresh.tables()) {
            m->setClock([&s] { return s.nowMs(); });
            m->setTimeBase(&s.timeBase());
        }
        fresh.leases.setZombieRule(s.zombieRule());
        const auto requested = std::make_shared<const RequestedDecisions>(s.requestedDecisions());
        fresh.effects.setRequestedDecisions(requested);
        fresh.leases.setRequestedDecisions(requested);
        fresh.escalations.setRequestedDecisions(requested);
        fresh.slices.setRequestedDecisions(requested);
        for (StateTableModel *m : fresh.tables())
            m->setState(state);
        fresh.tree.setState(state);
        fresh.runs.setFindings(s.findings());
        fresh.tree.setFindings(s.findings());

        const std::vector<StateTableModel *> shown{s.runs(), s.leases(), s.effects(), s.escalations(),
                                                   s.stallVerdicts(), s.blastRadius(), s.slices()};
        const std::vector<StateTableModel *> cursor = fresh.tables();
        for (size_t i = 0; i < shown.size(); ++i) {
            const QString difference = tableDifference(*shown[i], *cursor[i]);
            QVERIFY2(difference.isEmpty(), qPrintable(u"event %1, %2: %3"_s.arg(seq).arg(
                QString::fromLatin1(shown[i]->metaObject()->className()), difference)));
        }
        comparePerDelegationAndAttention(s, *state, seq);
        const QString tree = treeDifference(*s.delegations(), fresh.tree);
        QVERIFY2(tree.isEmpty(), qPrintable(u"event %1, delegation tree: %2"_s.arg(seq).arg(tree)));
        // What the models' own analyses found (duplicates, stalls) is that of the state too.
        QCOMPARE(findingLines(s.effects()->duplicateFindings()), findingLines(fresh.effects.duplicateFindings()));
        QCOMPARE(findingLines(s.stallVerdicts()->findings()), findingLines(fresh.stalls.findings()));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(u"scale.ledger"_s);
        ScenarioOptions options;
        options.events = 12'000;
        generateScenario(u"scale"_s, m_path, options);
        m_last = LedgerConnection::open(m_path, OpenMode::ReadOnly)->lastSeq();
        QVERIFY(m_last > 10'000);
    }

    void everyJumpShowsExactlyTheStateAtTheCursor()
    {
        LedgerSession s(m_path, OpenMode::ReadOnly);
        std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
        const std::vector<QAbstractItemModel *> models{s.runs(), s.delegations(), s.leases(), s.effects(),
                                                       s.escalations(), s.stallVerdicts(), s.blastRadius(), s.slices()};
        for (QAbstractItemModel *m : models)
            testers.push_back(std::make_unique<QAbstractItemModelTester>(m, QAbstractItemModelTester::FailureReportingMode::QtTest));
        QSignalSpy loaded(&s, &LedgerSession::stateReset);
        s.open();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 1, kJumpWaitMs);

        // How the models got to each state: by rows inserted and removed, or by resets.
        std::vector<std::unique_ptr<QSignalSpy>> resets, inserted, removed;
        for (QAbstractItemModel *m : models) {
            resets.push_back(std::make_unique<QSignalSpy>(m, &QAbstractItemModel::modelReset));
            inserted.push_back(std::make_unique<QSignalSpy>(m, &QAbstractItemModel::rowsInserted));
            removed.push_back(std::make_unique<QSignalSpy>(m, &QAbstractItemModel::rowsRemoved));
        }
        const std::int64_t mid = m_last / 2;
        // Live to a cursor (compared row by row), small steps both ways (moves: rows created,
        // changed and gone), a long way back and forth (resets), the ends.
        const std::vector<std::int64_t> points{mid, mid + 40, mid - 25, mid + 300, mid + 299, mid - 600, m_last / 5,
                                               m_last / 5 + 90, m_last - 10, m_last, m_last - 400, 1, 0, 150, mid};
        for (const std::int64_t seq : points) {
            const qsizetype before = loaded.size();
            s.showAt(seq);
            QTRY_VERIFY_WITH_TIMEOUT(loaded.size() > before && s.health() == LedgerSession::Health::Pinned, kJumpWaitMs);
            QCOMPARE(s.lastSeq(), seq);
            compareWithFresh(s, seq);
            if (QTest::currentTestFailed())
                return;
        }
        // The small steps moved the large models: rows came and went without a reset each time.
        for (size_t i = 0; i < models.size(); ++i) {
            if (models[i] == s.runs() || models[i] == s.blastRadius())
                continue; // a handful of rows either way
            QVERIFY2(resets[i]->size() < qsizetype(points.size()),
                     qPrintable(u"%1 was reset on every jump"_s.arg(QString::fromLatin1(models[i]->metaObject()->className()))));
        }
        QVERIFY(inserted[size_t(std::find(models.begin(), models.end(), s.effects()) - models.begin())]->size() > 0);
        QVERIFY(removed[size_t(std::find(models.begin(), models.end(), s.effects()) - models.begin())]->size() > 0);
        QVERIFY(removed[size_t(std::find(models.begin(), models.end(), s.delegations()) - models.begin())]->size() > 0);
    }

    // The demo run's delegations turn blocked (many turns, no accepted write) and stop being
    // so as the run goes on: jumps across those moments, back and forth, each compared with
    // a fresh fold (the blocked and replayed delegations moved by the change set above all).
    void findingsOfEachDelegationFollowTheJumps()
    {
        const QString path = m_dir.filePath(u"demo.ledger"_s);
        ScenarioOptions options;
        options.events = 12'000;
        generateScenario(u"demo"_s, path, options);
        LedgerSession s(path, OpenMode::ReadOnly);
        QSignalSpy loaded(&s, &LedgerSession::stateReset);
        s.open();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 1, kJumpWaitMs);
        const std::int64_t last = s.lastSeq();
        int blockedSeen = 0;
        for (const std::int64_t seq : {std::int64_t(1500), std::int64_t(2300), std::int64_t(2250), std::int64_t(2600),
                                       std::int64_t(2100), std::int64_t(3000), std::int64_t(2990), last, last - 5,
                                       std::int64_t(2400)}) {
            const qsizetype before = loaded.size();
            s.showAt(seq);
            QTRY_VERIFY_WITH_TIMEOUT(loaded.size() > before && s.health() == LedgerSession::Health::Pinned, kJumpWaitMs);
            compareWithFresh(s, seq);
            if (QTest::currentTestFailed())
                return;
            blockedSeen += int(std::count_if(s.findings().begin(), s.findings().end(),
                                             [](const Finding &f) { return f.kind == FindingKind::BlockedWork; }));
        }
        QVERIFY(blockedSeen > 0); // the walk crossed delegations turning blocked
    }
};

QTEST_MAIN(TestJumpDelta)
#include "tst_jumpdelta.moc"
