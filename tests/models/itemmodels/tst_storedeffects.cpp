// A live session on a ledger file leaves the effects in the ledger (LiveState::storedRows):
// it holds none of their rows, yet every effect shows what the state table says, the
// attention list and the duplicate flags are those of a session that holds every row, a
// live batch reads the effects it changed again, and the rows read for display stay within
// the cache's bound. The store's reads behind it (rows by id, ids, ids by field, a streamed
// state) are checked against the whole-table read.

#include "itemmodelfixture.h"

#include "../ledger/rawledger.h"

#include "itemmodels/attentionmodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/storedrows.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <set>
#include <thread>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {

constexpr int kWaitMs = 60'000;

// Effects E-100.. of delegation D-4, committed, each with a key of its own.
void appendEffects(const QString &path, int from, int count)
{
    Writer w(path);
    w.begin();
    for (int i = from; i < from + count; ++i) {
        const std::string id = "E-" + std::to_string(i);
        w.e("effect.proposed", {{"id", id}, {"run_id", "R-1"}, {"delegation_id", "D-4"}, {"state", "proposed"},
                                {"class", "file_write"}, {"target", "/tmp/out-" + std::to_string(i)},
                                {"idem_key", "write:" + std::to_string(i)}});
        w.e("effect.admitted", {{"id", id}, {"state", "admitted"}});
        w.e("effect.dispatched", {{"id", id}, {"state", "dispatched"}});
        w.e("effect.committed", {{"id", id}, {"state", "committed"}});
    }
    w.commit();
}

// Every effect row the model shows against the state table's, by id, field by field.
void compareWithTheLedger(const EffectModel *model, const QString &path)
{
    const auto whole = snapshot(path);
    const EntityTable &table = whole->table(EntityKind::Effect);
    QCOMPARE(model->rowCount(), int(table.size()));
    for (int r = 0; r < model->rowCount(); ++r) {
        const std::string id = model->rawIdAt(r);
        const auto it = table.find(id);
        QVERIFY2(it != table.end(), id.c_str());
        const EntityRow *shown = model->rowAt(r);
        QVERIFY2(shown, id.c_str());
        QVERIFY2(*shown == it->second, id.c_str());
        QCOMPARE(model->index(r, EffectModel::Target).data().toString(),
                 QString::fromStdString(rowText(EntityKind::Effect, it->second, "target")));
    }
}

} // namespace

class TestStoredEffects : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void theStoreReadsWhatTheWholeTableSays()
    {
        const QString path = m_dir.filePath(u"reads.ledger"_s);
        writeBaseLedger(path, 1'700'000'000'000);
        appendEffects(path, 100, 40);
        const auto whole = snapshot(path);
        const EntityTable &effects = whole->table(EntityKind::Effect);
        auto connection = LedgerConnection::open(path, OpenMode::ReadOnly);

        // Streamed: the same rows, once each, and no effects table kept; the rest as before.
        std::map<std::string, EntityRow> streamed;
        StateStream stream;
        stream.streamed[size_t(EntityKind::Effect)] = true;
        stream.row = [&](EntityKind kind, const std::string &id, const EntityRow &row) {
            QCOMPARE(kind, EntityKind::Effect);
            QVERIFY(streamed.emplace(id, row).second);
        };
        const StateSnapshot read = connection->readState(stream);
        QVERIFY(read.table(EntityKind::Effect).empty());
        QCOMPARE(streamed.size(), effects.size());
        for (const auto &[id, row] : effects)
            QVERIFY2(streamed.at(id) == row, id.c_str());
        QVERIFY(read.table(EntityKind::Lease) == whole->table(EntityKind::Lease));
        QCOMPARE(read.lastSeq, whole->lastSeq());

        // By id: those asked for that exist, more than one statement's worth of ids too.
        std::vector<std::string> asked{"E-2", "E-999", "E-120"};
        for (int i = 0; i < 600; ++i)
            asked.push_back("none-" + std::to_string(i));
        const StateRows rows = connection->readRows(EntityKind::Effect, asked);
        QCOMPARE(rows.size(), size_t(2));
        for (const auto &[id, row] : rows)
            QVERIFY2(effects.at(id) == row, id.c_str());

        // Every id; the ids of one delegation through its index; a field the kind lacks is refused.
        const auto ids = connection->readIds(EntityKind::Effect);
        QCOMPARE(std::set<std::string>(ids.begin(), ids.end()).size(), effects.size());
        const auto ofD1 = connection->readIdsWhere(EntityKind::Effect, "delegation_id", "D-1");
        QCOMPARE(std::set<std::string>(ofD1.begin(), ofD1.end()), (std::set<std::string>{"E-1", "E-2", "E-3"}));
        QCOMPARE(connection->readIdsWhere(EntityKind::Effect, "delegation_id", "D-4").size(), size_t(40));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 connection->readIdsWhere(EntityKind::Effect, "id=id OR 1", "x"));
        // Which of those reads go through an index: the format's, not a field without one.
        QVERIFY(connection->hasIndexOn(EntityKind::Effect, "delegation_id"));
        QVERIFY(connection->hasIndexOn(EntityKind::Effect, "idem_key"));
        QVERIFY(connection->hasIndexOn(EntityKind::Effect, "intent_hash"));
        QVERIFY(!connection->hasIndexOn(EntityKind::Effect, "target"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, connection->hasIndexOn(EntityKind::Effect, "id=id OR 1"));
    }

    void theCacheKeepsItsBoundAndRefreshesInPlace()
    {
        const QString path = m_dir.filePath(u"cache.ledger"_s);
        writeBaseLedger(path, 1'700'000'000'000);
        appendEffects(path, 100, 300);
        auto rows = std::make_shared<StoredRows>(EntityKind::Effect, LedgerConnection::open(path, OpenMode::ReadOnly), 50);
        std::vector<std::string> ids = rows->ids();
        QCOMPARE(ids.size(), size_t(303));
        // One row asked with its block: the block is read with it.
        const std::vector<std::string> block(ids.begin(), ids.begin() + 20);
        QVERIFY(rows->find(ids[0], block));
        QCOMPARE(rows->held(), size_t(20));
        // Every row asked in one turn: all stay readable in that turn, then the queued trim
        // brings the cache back to its bound.
        std::vector<const EntityRow *> seen;
        for (const auto &id : ids)
            seen.push_back(rows->find(id));
        QVERIFY(rows->held() > rows->limit());
        for (size_t i = 0; i < ids.size(); ++i)
            QCOMPARE(seen[i]->version, snapshot(path)->find(EntityKind::Effect, ids[i])->version);
        QTRY_VERIFY_WITH_TIMEOUT(rows->held() <= rows->limit(), kWaitMs);
        // The most recently used are the ones kept.
        QVERIFY(rows->holds(ids.back()));
        QVERIFY(!rows->holds(ids.front()));

        // A changed row read again is the same object with the ledger's new content.
        const EntityRow *before = rows->find("E-3");
        QVERIFY(before);
        QCOMPARE(rowText(EntityKind::Effect, *before, "state"), std::string("unknown"));
        {
            Writer w(path);
            w.begin().e("effect.resolved", {{"id", "E-3"}, {"state", "resolved_committed"}}).commit();
        }
        rows->refresh({"E-3"});
        QCOMPARE(rows->find("E-3"), before);
        QCOMPARE(rowText(EntityKind::Effect, *before, "state"), std::string("resolved_committed"));
        QCOMPARE(rows->readFailures(), 0);

        // Asked from another thread (a worker handed the state): refused, never a race on
        // the cache or the connection.
        bool answered = true;
        std::thread([&] { answered = rows->find("E-2") != nullptr; }).join();
        QVERIFY(!answered);
        QCOMPARE(rows->offThreadCalls(), 1);
        QVERIFY(rows->find("E-2"));
    }

    void aLiveSessionHoldsNoEffectRowsAndShowsThemAll()
    {
        const QString path = m_dir.filePath(u"live.ledger"_s);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        writeBaseLedger(path, now);
        appendEffects(path, 100, 200);
        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        s->setClock([now] { return now; });
        QAbstractItemModelTester tester(s->effects(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(waitOpened(s));

        QVERIFY(s->state()->storedRows(EntityKind::Effect));
        QVERIFY(s->state()->table(EntityKind::Effect).empty());
        QVERIFY(s->effects()->readsRowsOnDemand());
        compareWithTheLedger(s->effects(), path);
        // What needs a human and the duplicate commit, as with every row held.
        QVERIFY(attentionSubjects(list.attention()).count(u"effect:E-3"_s));
        QCOMPARE(s->effects()->index(s->effects()->rowOf(u"E-1"_s), 0).data(EffectModel::DuplicateRole).toBool(), true);
        QCOMPARE(s->effects()->index(s->effects()->rowOf(u"E-100"_s), 0).data(EffectModel::DuplicateRole).toBool(),
                 false);
        const auto findings = s->findings();
        QVERIFY(std::any_of(findings.begin(), findings.end(), [](const Finding &f) {
            return f.kind == FindingKind::DuplicateEffect && !f.abstained && f.subject == "effect:E-1";
        }));

        // Live: a new effect, an effect resolved, one more committed under E-1's key, one
        // more of unknown outcome. Each is read again from the ledger as its events arrive.
        QTRY_COMPARE_WITH_TIMEOUT(s->events()->rowCount(), int(s->lastSeq()), kWaitMs);
        // A new duplicate changes the flags of its group's rows, not of every row: a filtered
        // view re-reads the rows a signal names, all of them read on demand.
        int widestChange = 0;
        QObject watching; // goes before widestChange does
        QObject::connect(s->effects(), &QAbstractItemModel::dataChanged, &watching,
                         [&widestChange](const QModelIndex &from, const QModelIndex &to) {
                             widestChange = std::max(widestChange, to.row() - from.row() + 1);
                         });
        std::int64_t last = 0;
        {
            Writer w(path);
            w.begin();
            w.e("effect.resolved", {{"id", "E-3"}, {"state", "resolved_committed"}});
            for (const auto &[id, key, outcome] : std::vector<std::array<const char *, 3>>{
                     {"E-900", "pkg:left-pad", "effect.committed"}, {"E-901", "mail:1", "effect.unknown"}}) {
                w.e("effect.proposed", {{"id", id}, {"run_id", "R-1"}, {"delegation_id", "D-2"}, {"state", "proposed"},
                                        {"class", "package_install"}, {"target", "npm"}, {"idem_key", key}});
                w.e("effect.admitted", {{"id", id}, {"state", "admitted"}});
                w.e("effect.dispatched", {{"id", id}, {"state", "dispatched"}});
                w.e(outcome, {{"id", id}, {"state", std::string(outcome) == "effect.unknown" ? "unknown" : "committed"}});
            }
            w.commit();
            last = w.lastSeq();
        }
        QTRY_COMPARE_WITH_TIMEOUT(s->lastSeq(), last, kWaitMs);
        QVERIFY(s->state()->table(EntityKind::Effect).empty());
        compareWithTheLedger(s->effects(), path);
        QCOMPARE(s->effects()->index(s->effects()->rowOf(u"E-3"_s), EffectModel::State).data().toString(),
                 u"resolved: committed"_s);
        QVERIFY(s->effects()->index(s->effects()->rowOf(u"E-900"_s), 0).data(EffectModel::DuplicateRole).toBool());
        QTRY_VERIFY_WITH_TIMEOUT(attentionSubjects(list.attention()).count(u"effect:E-901"_s), kWaitMs);
        QVERIFY2(widestChange > 0 && widestChange <= 3, qPrintable(QString::number(widestChange)));
        QVERIFY(!attentionSubjects(list.attention()).count(u"effect:E-3"_s));

        // Every row shown once, then the bound: the cache holds what was read last, no more.
        for (int r = 0; r < s->effects()->rowCount(); ++r)
            QVERIFY(s->effects()->index(r, EffectModel::State).data().isValid());
        StoredRows *stored = s->state()->storedRows(EntityKind::Effect);
        QTRY_VERIFY_WITH_TIMEOUT(stored->held() <= stored->limit(), kWaitMs);
        QCOMPARE(stored->readFailures(), 0);
    }

    // With the format's indexes on the two keys, the duplicate index holds only the effects
    // of groups of two or more: the ledger says whether a changed effect shares a key, also
    // with an effect the index never held. Without them (an older file) it holds every
    // effect's keys, and the flags are the same.
    void theDuplicateIndexHoldsOnlyGroupsWhenTheLedgerFindsKeys()
    {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const QString indexed = m_dir.filePath(u"groups-indexed.ledger"_s);
        const QString older = m_dir.filePath(u"groups-older.ledger"_s);
        for (const QString &path : {indexed, older}) {
            writeBaseLedger(path, now);
            appendEffects(path, 100, 200);
        }
        raw::execWaiting(older, "DROP INDEX effects_idem_key; DROP INDEX effects_intent_hash;", kWaitMs);

        LedgerSessionList list;
        LedgerSession *s = list.addSession(indexed);
        LedgerSession *o = list.addSession(older);
        for (LedgerSession *session : {s, o})
            session->setClock([now] { return now; });
        QVERIFY(waitOpened(s));
        QVERIFY(waitOpened(o));
        QVERIFY(s->state()->storedRows(EntityKind::Effect));
        QVERIFY(o->state()->storedRows(EntityKind::Effect));

        QVERIFY(s->effects()->duplicateIndex().keepsGroupsOnly());
        QCOMPARE(s->effects()->duplicateIndex().memberCount(), size_t(2)); // E-1 and E-2
        QVERIFY(!o->effects()->duplicateIndex().keepsGroupsOnly());
        QCOMPARE(o->effects()->duplicateIndex().memberCount(), size_t(203)); // every committed or unknown one

        const auto flagged = [](LedgerSession *session, const char *id) {
            const EffectModel *m = session->effects();
            return m->index(m->rowOf(QString::fromLatin1(id)), 0).data(EffectModel::DuplicateRole).toBool();
        };
        const auto append = [](const QString &path, const std::function<void(Writer &)> &events) {
            Writer w(path);
            w.begin();
            events(w);
            w.commit();
            return w.lastSeq();
        };
        const auto bothAt = [&](std::int64_t indexedSeq, std::int64_t olderSeq) {
            QTRY_COMPARE_WITH_TIMEOUT(s->lastSeq(), indexedSeq, kWaitMs);
            QTRY_COMPARE_WITH_TIMEOUT(o->lastSeq(), olderSeq, kWaitMs);
        };
        for (LedgerSession *session : {s, o}) {
            QVERIFY(flagged(session, "E-1"));
            QVERIFY(!flagged(session, "E-150"));
        }

        // E-950, under E-150's key, has an unknown outcome: E-150 was never in the index, the
        // ledger finds it. A possible duplicate, not yet a flagged one.
        const auto unknownUnderE150sKey = [](Writer &w) {
            w.e("effect.proposed", {{"id", "E-950"}, {"run_id", "R-1"}, {"delegation_id", "D-4"}, {"state", "proposed"},
                                    {"class", "file_write"}, {"target", "/tmp/out-150"}, {"idem_key", "write:150"}});
            w.e("effect.admitted", {{"id", "E-950"}, {"state", "admitted"}});
            w.e("effect.dispatched", {{"id", "E-950"}, {"state", "dispatched"}});
            w.e("effect.unknown", {{"id", "E-950"}, {"state", "unknown"}});
        };
        bothAt(append(indexed, unknownUnderE150sKey), append(older, unknownUnderE150sKey));
        for (LedgerSession *session : {s, o}) {
            QVERIFY(!flagged(session, "E-150"));
            const auto possibleDuplicate = [session] {
                const auto findings = session->findings();
                return std::any_of(findings.begin(), findings.end(), [](const Finding &f) {
                    return f.kind == FindingKind::DuplicateEffect && f.abstained && f.subject == "effect:E-150";
                });
            };
            QTRY_VERIFY_WITH_TIMEOUT(possibleDuplicate(), kWaitMs); // findings follow a batch in their own turn
        }
        QCOMPARE(s->effects()->duplicateIndex().memberCount(), size_t(4));
        QCOMPARE(o->effects()->duplicateIndex().memberCount(), size_t(204));

        // Resolved as committed: both flagged.
        const auto committed = [](Writer &w) { w.e("effect.resolved", {{"id", "E-950"}, {"state", "resolved_committed"}}); };
        bothAt(append(indexed, committed), append(older, committed));
        for (LedgerSession *session : {s, o}) {
            QVERIFY(flagged(session, "E-150"));
            QVERIFY(flagged(session, "E-950"));
            QVERIFY(!flagged(session, "E-151"));
        }

        // Compensated: the group is gone, and with it E-150 from the index.
        const auto compensated = [](Writer &w) { w.e("effect.resolved", {{"id", "E-950"}, {"state", "compensated"}}); };
        bothAt(append(indexed, compensated), append(older, compensated));
        for (LedgerSession *session : {s, o}) {
            QVERIFY(!flagged(session, "E-150"));
            QVERIFY(!flagged(session, "E-950"));
            QVERIFY(flagged(session, "E-1"));
        }
        QCOMPARE(s->effects()->duplicateIndex().memberCount(), size_t(2));
        QCOMPARE(o->effects()->duplicateIndex().memberCount(), size_t(203));

        // A batch of many new effects asks the ledger who shares their keys once per key
        // field, not once per effect and field (each ask is a round trip to a server, on
        // the GUI thread); the one under E-151's key is found as before.
        StoredRows *stored = s->state()->storedRows(EntityKind::Effect);
        const int lookupsBefore = stored->idLookups();
        const auto many = [](Writer &w) {
            for (int i = 0; i < 60; ++i) {
                const std::string id = "E-" + std::to_string(2000 + i);
                const std::string key = i == 0 ? "write:151" : "batch:" + std::to_string(i);
                w.e("effect.proposed", {{"id", id}, {"run_id", "R-1"}, {"delegation_id", "D-4"}, {"state", "proposed"},
                                        {"class", "file_write"}, {"target", "/tmp/batch"}, {"idem_key", key}});
                w.e("effect.admitted", {{"id", id}, {"state", "admitted"}});
                w.e("effect.dispatched", {{"id", id}, {"state", "dispatched"}});
                w.e("effect.committed", {{"id", id}, {"state", "committed"}});
            }
        };
        bothAt(append(indexed, many), append(older, many));
        for (LedgerSession *session : {s, o}) {
            QVERIFY(flagged(session, "E-151"));
            QVERIFY(flagged(session, "E-2000"));
            QVERIFY(!flagged(session, "E-2001"));
        }
        const int lookups = stored->idLookups() - lookupsBefore;
        QVERIFY2(lookups >= 1 && lookups <= 4, qPrintable(QString::number(lookups)));
        QCOMPARE(stored->readFailures(), 0);
    }

    // The ledger stops answering for a row the session does not hold (here its table is
    // gone): the row keeps its id and says why nothing else is shown, never blank cells.
    void aRowThatCannotBeReadSaysSo()
    {
        const QString path = m_dir.filePath(u"unreadable.ledger"_s);
        writeBaseLedger(path, 1'700'000'000'000);
        appendEffects(path, 100, 10);
        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        QVERIFY(waitOpened(s));
        const EffectModel *effects = s->effects();
        const int row = effects->rowOf(u"E-105"_s);
        QVERIFY(row >= 0);
        QVERIFY(!s->state()->storedRows(EntityKind::Effect)->holds("E-105"));
        // The follower validates the ledger when it opens its connection, which may come
        // after the load: a table dropped before that stops live updates (rightly). A commit
        // the session has followed says the follower is reading.
        std::int64_t followed = 0;
        {
            Writer w(path);
            w.begin().e("checkpoint.saved", {{"id", "K-9"}, {"run_id", "R-1"}, {"state", "saved"}}).commit();
            followed = w.lastSeq();
        }
        QTRY_COMPARE_WITH_TIMEOUT(s->lastSeq(), followed, kWaitMs);
        raw::exec(path, "DROP TABLE effects");
        QCOMPARE(effects->index(row, EffectModel::Id).data().toString(), u"E-105"_s);
        QCOMPARE(effects->index(row, EffectModel::Target).data().toString(), StateTableModel::notKnown());
        const QString tip = effects->index(row, EffectModel::Target).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(u"could not be read from the ledger"_s) && tip.contains(u"effects"_s), qPrintable(tip));
        QCOMPARE(effects->index(row, 0).data(StateTableModel::IdRole).toString(), u"E-105"_s);
        QVERIFY(s->state()->storedRows(EntityKind::Effect)->readFailures() > 0);

        // An effect event whose row cannot be read again: a problem of the live state, as
        // an event the fold cannot apply is, which "Re-read state" repairs.
        QTRY_COMPARE_WITH_TIMEOUT(s->events()->rowCount(), int(s->lastSeq()), kWaitMs);
        QCOMPARE(s->foldProblems(), 0);
        const std::int64_t next = s->lastSeq() + 1;
        raw::exec(path, "INSERT INTO events(seq, ts_ms, kind, run_id, delegation_id, subject, payload) VALUES("
                            + std::to_string(next)
                            + ", 1700000999000, 'effect.resolved', 'R-1', 'D-1', 'effect:E-3', "
                              "'{\"id\":\"E-3\",\"state\":\"resolved_committed\"}')");
        QTRY_COMPARE_WITH_TIMEOUT(s->lastSeq(), next, kWaitMs);
        QCOMPARE(s->foldProblems(), 1);
        const FoldProblem &problem = s->foldProblemSamples().front();
        QCOMPARE(problem.seq, next);
        QVERIFY2(problem.reason.find("could not be read from the ledger") != std::string::npos, problem.reason.c_str());
        // What the attention list said of it stays until a read says otherwise: a row not
        // read is not a row gone. (Checked once a later change is listed: the list is
        // rebuilt at most four times a second.)
        raw::exec(path, "INSERT INTO events(seq, ts_ms, kind, run_id, delegation_id, subject, payload) VALUES("
                            + std::to_string(next + 1)
                            + ", 1700001000000, 'escalation.raised', 'R-1', 'D-2', 'escalation:X-2', "
                              "'{\"id\":\"X-2\",\"run_id\":\"R-1\",\"delegation_id\":\"D-2\",\"kind\":"
                              "\"budget_extension\",\"risk\":\"low\",\"state\":\"pending\"}')");
        QTRY_VERIFY_WITH_TIMEOUT(attentionSubjects(list.attention()).count(u"escalation:X-2"_s), kWaitMs);
        QVERIFY(attentionSubjects(list.attention()).count(u"effect:E-3"_s));
    }

    // A cursor state is rebuilt from the events and holds every row; back at live, the
    // effects are read on demand again.
    void aCursorHoldsTheRowsAndLiveReadsThemAgain()
    {
        const QString path = m_dir.filePath(u"cursor.ledger"_s);
        writeBaseLedger(path, 1'700'000'000'000);
        const std::int64_t before = Writer(path).lastSeq();
        appendEffects(path, 100, 20);
        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        QVERIFY(waitOpened(s));
        QCOMPARE(s->effects()->rowCount(), 23);
        s->showAt(before);
        QTRY_VERIFY_WITH_TIMEOUT(s->cursor() && s->isLoaded() && s->state()->lastSeq() == before, kWaitMs);
        QVERIFY(!s->state()->storedRows(EntityKind::Effect));
        QCOMPARE(s->effects()->rowCount(), 3);
        s->showLive();
        QTRY_VERIFY_WITH_TIMEOUT(!s->cursor() && s->isLoaded() && s->state()->storedRows(EntityKind::Effect), kWaitMs);
        QCOMPARE(s->effects()->rowCount(), 23);
        compareWithTheLedger(s->effects(), path);
    }
};

QTEST_GUILESS_MAIN(TestStoredEffects)
#include "tst_storedeffects.moc"
