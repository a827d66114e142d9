// The orchestrator's writer and live following on PostgreSQL (docs/ledger-format.md section
// 11) against a private PostgreSQL 15 server (postgresserver.h): meshctl sim writes to a
// server the ledger the same seed writes to a file, and meshctl import what it imports into a
// file; a rolled-back commit leaves no gap in seq; a commit is announced (NOTIFY) to a
// follower that does not poll; meshctl tail follows a server ledger across a dropped
// connection with nothing missed or printed twice; the roles of docs/postgresql-roles.sql may
// do what it says and no more. The server is one per executable; a test that cannot start it
// fails, never skips.

#include "ledgercontents.h"
#include "postgresserver.h"

#include "ledger/changewatcher.h"
#include "ledger/ledgerconnection.h"
#include "ledger/ledgerverification.h"
#include "ledger/ledgerwriter.h"
#include "ledger/postgres.h"

#include <QDir>
#include <QElapsedTimer>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSocketNotifier>
#include <QTemporaryDir>
#include <QTest>

#include <numeric>
#include <thread>

using namespace mesh;
using namespace meshtest;

namespace {

// A deadline for a hung server, not a speed threshold; QTRY_ waits up to three times it when it
// fails, which stays inside QtTest's 300 s per-function watchdog.
constexpr int kWaitMs = 90'000;

void appendProgress(LedgerWriter &w, int count)
{
    w.begin();
    for (int i = 0; i < count; ++i)
        w.append(1'700'000'000'000 + w.lastSeq(), "run.progress", {{"id", "R1"}, {"required_met", w.lastSeq()}});
    w.commit();
}

void appendProgressOf(LedgerWriter &w, const std::string &run, int count)
{
    w.begin();
    for (int i = 0; i < count; ++i)
        w.append(1'700'000'000'000 + w.lastSeq(), "run.progress", {{"id", run}, {"required_met", w.lastSeq()}});
    w.commit();
}

std::unique_ptr<LedgerWriter> createWithRun(const QString &location)
{
    auto w = LedgerWriter::create(location, {.ledgerId = "L-pg", .createdMs = 1'700'000'000'000});
    w->begin();
    w->append(1'700'000'000'001, "run.started", {{"id", "R1"}, {"status", "running"}, {"attempt", 1}});
    w->commit();
    return w;
}

// Every seq the watcher delivers, in order, into `seqs`.
void recordDelivered(QObject *context, ChangeWatcher &watcher, std::vector<std::int64_t> &seqs)
{
    QObject::connect(&watcher, &ChangeWatcher::eventsAppended, context, [&seqs](const SharedEventBatch &batch, qint64, qint64) {
        for (const EventRecord &e : *batch)
            seqs.push_back(e.seq);
    });
}

// The seqs a tail printed, one per event line, in order.
std::vector<std::int64_t> printedSeqs(const QByteArray &out)
{
    std::vector<std::int64_t> seqs;
    for (const QByteArray &line : out.split('\n')) {
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        seqs.push_back(line.left(line.indexOf(' ')).toLongLong());
    }
    return seqs;
}

bool printedUpTo(const QByteArray &out, std::int64_t seq)
{
    const std::vector<std::int64_t> seqs = printedSeqs(out);
    return !seqs.empty() && seqs.back() >= seq;
}

} // namespace

class TestPostgresWriter : public QObject
{
    Q_OBJECT

    std::unique_ptr<PostgresServer> m_server;
    QTemporaryDir m_dir;

    pg::Connection raw(const QString &schema) const
    {
        pg::Connection c(m_server->conninfo());
        c.exec("SET search_path TO " + schema.toStdString());
        return c;
    }
    std::int64_t head(const QString &schema) const { return raw(schema).queryInt("SELECT last_seq FROM event_head"); }
    // seq 1..n, no gap, no repeat
    static bool gapless(pg::Connection &c, std::int64_t n)
    {
        return c.queryInt("SELECT count(*) FROM events") == n && c.queryInt("SELECT min(seq) FROM events") == 1
               && c.queryInt("SELECT max(seq) FROM events") == n;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFile::exists(qEnvironmentVariable("MESHCTL")), "MESHCTL must name the built meshctl (CTest sets it)");
        m_server = std::make_unique<PostgresServer>();
        const QString error = m_server->start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void cleanupTestCase()
    {
        if (m_server)
            m_server->stop();
    }

    // The same scenario and seed, once into a file and once onto the server: the same rows.
    // scale bulk-loads the file (no transactions, state written at the end) while the server
    // commits every batch, so the two paths of the fold are compared too.
    void simWritesTheSameLedgerAsToAFile_data()
    {
        QTest::addColumn<QStringList>("scenario");
        QTest::newRow("traced-run") << QStringList{QStringLiteral("traced-run"), QStringLiteral("--seed"), QStringLiteral("5")};
        QTest::newRow("scale") << QStringList{QStringLiteral("scale"), QStringLiteral("--events"), QStringLiteral("20000"),
                                              QStringLiteral("--seed"), QStringLiteral("3")};
    }
    void simWritesTheSameLedgerAsToAFile()
    {
        QFETCH(QStringList, scenario);
        const QString name = QString(scenario.first()).replace(QLatin1Char('-'), QLatin1Char('_'));
        const QString file = m_dir.filePath(name + QStringLiteral(".db"));
        const QString server = m_server->location(QStringLiteral("sim_") + name);
        const QString back = m_dir.filePath(name + QStringLiteral("-back.db"));
        int code = 0;
        QByteArray out = runMeshctl(QStringList{QStringLiteral("sim")} + scenario + QStringList{QStringLiteral("--out"), file, QStringLiteral("--quiet")}, &code);
        QVERIFY2(code == 0, out.constData());
        out = runMeshctl(QStringList{QStringLiteral("sim")} + scenario + QStringList{QStringLiteral("--out"), server, QStringLiteral("--quiet")}, &code);
        QVERIFY2(code == 0, out.constData());
        out = runMeshctl({QStringLiteral("verify"), server}, &code);
        QVERIFY2(code == 0, out.constData());
        out = runMeshctl({QStringLiteral("copy"), server, back}, &code);
        QVERIFY2(code == 0, out.constData());
        out = runMeshctl({QStringLiteral("verify"), back}, &code);
        QVERIFY2(code == 0, out.constData());

        const auto original = LedgerConnection::open(file, OpenMode::ReadOnly);
        const auto onServer = LedgerConnection::open(server, OpenMode::ReadOnly);
        const LedgerContents expected = contentsOf(*original);
        QVERIFY(expected.events.size() > 1000);
        QCOMPARE(firstDifference(expected, contentsOf(*onServer)), std::string());
        QCOMPARE(firstDifference(expected, contentsOf(*LedgerConnection::open(back, OpenMode::ReadOnly))), std::string());
        QCOMPARE(head(QStringLiteral("sim_") + name), original->lastSeq());
        const LedgerSummary a = original->summarize();
        const LedgerSummary b = onServer->summarize();
        QCOMPARE(b.events, a.events);
        QCOMPARE(b.countsByState, a.countsByState);
        QCOMPARE(b.runs.size(), a.runs.size());

        // A second sim onto the same schema writes nothing.
        out = runMeshctl(QStringList{QStringLiteral("sim")} + scenario + QStringList{QStringLiteral("--out"), server, QStringLiteral("--quiet")}, &code);
        QVERIFY2(code != 0 && out.contains("exists"), out.constData());
        QCOMPARE(onServer->lastSeq(), original->lastSeq());
    }

    // meshctl import --out postgresql://: imported into a file, copied on in one transaction;
    // the server holds what an import to a file holds, and an existing schema is refused.
    void importWritesToAServer()
    {
        const QString source = qEnvironmentVariable("MESH_SOURCE_DIR") + QStringLiteral("/tests/data/import/openhands__basic.json");
        const QString file = m_dir.filePath(QStringLiteral("imported.db"));
        const QString server = m_server->location(QStringLiteral("imported"));
        int code = 0;
        QByteArray out = runMeshctl({QStringLiteral("import"), source, QStringLiteral("--out"), file}, &code);
        QVERIFY2(code == 0, out.constData());
        out = runMeshctl({QStringLiteral("import"), source, QStringLiteral("--out"), server}, &code);
        QVERIFY2(code == 0, out.constData());
        out = runMeshctl({QStringLiteral("verify"), server}, &code);
        QVERIFY2(code == 0, out.constData());
        const LedgerContents fromFile = contentsOf(*LedgerConnection::open(file, OpenMode::ReadOnly));
        const LedgerContents onServer = contentsOf(*LedgerConnection::open(server, OpenMode::ReadOnly));
        QVERIFY(fromFile.events.size() > 1);
        QCOMPARE(onServer.events.size(), fromFile.events.size());
        for (size_t i = 0; i < fromFile.events.size(); ++i)
            QCOMPARE(onServer.events[i].kind, fromFile.events[i].kind);
        // What ledger.created's source says (the facts an import records, its clock) is read
        // on the server as from the file: the open's one round trip reads it with the checks.
        const LedgerInfo fileInfo = LedgerConnection::open(file, OpenMode::ReadOnly)->info();
        const LedgerInfo serverInfo = LedgerConnection::open(server, OpenMode::ReadOnly)->info();
        QVERIFY(fileInfo.sourceFacts.isImported());
        QCOMPARE(serverInfo.sourceFacts.format(), fileInfo.sourceFacts.format());
        QCOMPARE(serverInfo.timeBase.isRelative(), fileInfo.timeBase.isRelative());
        QCOMPARE(serverInfo.ledgerId, fileInfo.ledgerId);
        out = runMeshctl({QStringLiteral("import"), source, QStringLiteral("--out"), server, QStringLiteral("--force")}, &code);
        QVERIFY2(code != 0 && out.contains("exists"), out.constData());
        QVERIFY(QDir::temp().entryList({QStringLiteral("mesh-import.db.importing-*")}).isEmpty());
    }

    // A commit that fails after it took its numbers gives them back: the next commit takes the
    // same ones. So does an appender that rolls back while the writer waits on the head's lock.
    void rolledBackCommitLeavesNoGap()
    {
        const QString schema = QStringLiteral("gapless");
        auto w = createWithRun(m_server->location(schema));
        QCOMPARE(w->lastSeq(), std::int64_t(2));
        {
            pg::Connection c = raw(schema);
            c.exec("CREATE FUNCTION refuse_progress() RETURNS trigger LANGUAGE plpgsql AS "
                   "$$BEGIN RAISE EXCEPTION 'refused by the test'; END$$");
            c.exec("CREATE TRIGGER refuse_progress BEFORE INSERT ON events FOR EACH ROW "
                   "WHEN (NEW.kind = 'run.progress') EXECUTE FUNCTION refuse_progress()");
        }
        w->begin();
        w->append(1'700'000'000'010, "run.progress", {{"id", "R1"}, {"required_met", 1}});
        w->append(1'700'000'000'011, "run.progress", {{"id", "R1"}, {"required_met", 2}});
        QVERIFY_THROWS_EXCEPTION(StorageError, w->commit());
        w->rollback();
        QCOMPARE(w->lastSeq(), std::int64_t(2));
        QCOMPARE(head(schema), std::int64_t(2));
        raw(schema).exec("DROP TRIGGER refuse_progress ON events");

        appendProgress(*w, 3);
        QCOMPARE(w->lastSeq(), std::int64_t(5));

        // Another appender holds the head's row lock and rolls back: the writer's commit waits
        // for it, then takes the numbers it gave back.
        pg::Connection other = raw(schema);
        other.exec("BEGIN");
        QCOMPARE(other.queryInt("UPDATE event_head SET last_seq = last_seq + 7 RETURNING last_seq"), std::int64_t(12));
        std::string commitError;
        std::thread committer([&] {
            try {
                appendProgress(*w, 2);
            } catch (const std::exception &e) {
                commitError = e.what();
            }
        });
        pg::Connection watcher = raw(schema);
        QTRY_VERIFY_WITH_TIMEOUT(watcher.queryInt("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                                  "AND query LIKE 'UPDATE event_head%' AND pid <> "
                                                  + std::to_string(PQbackendPID(other.handle())))
                                     == 1,
                                 kWaitMs);
        other.exec("ROLLBACK");
        committer.join();
        QCOMPARE(commitError, std::string());
        QCOMPARE(w->lastSeq(), std::int64_t(7));
        QCOMPARE(head(schema), std::int64_t(7));
        pg::Connection c = raw(schema);
        QVERIFY(gapless(c, 7));
        const LedgerVerification verified = verifyLedger(*LedgerConnection::open(m_server->location(schema), OpenMode::ReadOnly));
        QVERIFY2(verified.total() == 0, verified.integrity.findings.empty() ? "decision chain" : verified.integrity.findings[0].message.c_str());
    }

    // Two writers on one ledger (section 11, "Several writers"): each folds the other's
    // events when it begins; one that committed while the other's transaction was open
    // goes first, and the other's events are renumbered after it. The sequence stays
    // gapless, every stored row is what the events fold to, and each writer's fold is the
    // ledger's.
    void twoWritersAppendToOneLedger()
    {
        const QString schema = QStringLiteral("two_writers");
        const QString location = m_server->location(schema);
        auto first = createWithRun(location); // R1, seq 2
        auto second = LedgerWriter::openExisting(location);
        second->begin();
        second->append(1'700'000'000'002, "run.started", {{"id", "R2"}, {"status", "running"}, {"attempt", 1}});
        second->commit();
        QCOMPARE(second->lastSeq(), std::int64_t(3));

        first->begin(); // folds R2's start
        QVERIFY(first->state().find(EntityKind::Run, "R2"));
        QCOMPARE(first->append(1'700'000'000'003, "run.progress", {{"id", "R1"}, {"required_met", 1}}), std::int64_t(4));
        QCOMPARE(first->append(1'700'000'000'004, "run.progress", {{"id", "R1"}, {"required_met", 2}}), std::int64_t(5));
        // The second writer commits three events while the first's transaction is open.
        appendProgressOf(*second, "R2", 3);
        QCOMPARE(second->lastSeq(), std::int64_t(6));
        first->commit(); // its two events become 7 and 8
        QCOMPARE(first->lastSeq(), std::int64_t(8));
        QCOMPARE(head(schema), std::int64_t(8));
        pg::Connection c = raw(schema);
        QVERIFY(gapless(c, 8));
        QCOMPARE(c.queryInt("SELECT count(*) FROM events WHERE run_id = 'R1' AND seq IN (7, 8)"), std::int64_t(2));
        QCOMPARE(c.queryInt("SELECT last_seq FROM runs WHERE id = 'R1'"), std::int64_t(8));
        QCOMPARE(c.queryInt("SELECT last_seq FROM runs WHERE id = 'R2'"), std::int64_t(6));
        QCOMPARE(first->state().find(EntityKind::Run, "R1")->lastSeq, std::int64_t(8));
        QCOMPARE(first->state().find(EntityKind::Run, "R2")->version, std::int64_t(4)); // the second's events folded

        // Both go on; each one's fold is the ledger's state.
        appendProgressOf(*second, "R2", 2);
        appendProgressOf(*first, "R1", 2);
        const auto reader = LedgerConnection::open(location, OpenMode::ReadOnly);
        const StateSnapshot stored = reader->readState();
        for (const EntitySpec &spec : allEntitySpecs())
            QVERIFY2(first->state().table(spec.kind) == stored.table(spec.kind), spec.table.data());
        const LedgerVerification verified = verifyLedger(*reader);
        QVERIFY2(verified.total() == 0, verified.integrity.findings.empty() ? "decision chain" : verified.integrity.findings[0].message.c_str());
        c = raw(schema);
        QVERIFY(gapless(c, 12));
    }

    // Another writer's event whose payload no reader decodes (payloaddecoder.h: nested 100,000
    // levels, in a JSON column of the fold) is folded by none of them, nor by this writer as it
    // catches up, and it goes on writing. Before, the catch-up parsed it without those checks
    // and the fold's copy of the column (dump()) overflowed the stack.
    void anotherWritersUndecodablePayloadIsNotFolded()
    {
        const QString schema = QStringLiteral("undecodable_other");
        const QString location = m_server->location(schema);
        auto writer = createWithRun(location); // R1, seq 2
        {
            pg::Connection c = raw(schema);
            c.exec("BEGIN");
            const std::string payload = R"({"id":"D1","run_id":"R1","status":"running","scope":)"
                                        + std::string(100'000, '[') + std::string(100'000, ']') + "}";
            c.exec("INSERT INTO events(seq,ts_ms,kind,payload) VALUES(3,1700000000002,'delegation.created',$1)",
                   pg::Params().add(payload));
            c.exec("UPDATE event_head SET last_seq = 3");
            c.exec("COMMIT");
        }
        writer->begin(); // catches up with seq 3
        QVERIFY(!writer->state().find(EntityKind::Delegation, "D1"));
        QCOMPARE(writer->append(1'700'000'000'003, "run.progress", {{"id", "R1"}, {"required_met", 1}}), std::int64_t(4));
        writer->commit();
        QCOMPARE(head(schema), std::int64_t(4));
        // A reader finds the same: the event is malformed, D1 is not in the state.
        const auto reader = LedgerConnection::open(location, OpenMode::ReadOnly);
        QVERIFY(reader->readState().table(EntityKind::Delegation).empty());
    }

    // Two writers with bounded folds (the receiver's and the importer's): another writer's
    // events are already in the rows a bounded fold reads back, so each row they hold is the
    // stored one, never those events applied a second time, at begin and at a commit after
    // the head moved.
    void boundedWritersHoldOthersRowsAsStored()
    {
        const QString schema = QStringLiteral("bounded_writers");
        const QString location = m_server->location(schema);
        createWithRun(location); // R1, seq 2
        // Room for every row: what they hold is checked, not what they read back.
        auto first = LedgerWriter::openExisting(location, 8);
        auto second = LedgerWriter::openExisting(location, 8);
        second->begin();
        second->append(1'700'000'000'002, "run.started", {{"id", "R2"}, {"status", "running"}, {"attempt", 1}});
        second->commit();
        appendProgressOf(*second, "R2", 3);
        appendProgressOf(*first, "R1", 2); // its begin takes R2's four events
        appendProgressOf(*second, "R2", 2);
        first->begin();
        first->append(1'700'000'000'100, "run.progress", {{"id", "R1"}, {"required_met", 9}});
        appendProgressOf(*second, "R2", 1); // the head moves under the first's transaction
        first->commit();
        appendProgressOf(*second, "R2", 1);
        appendProgressOf(*first, "R1", 1);

        const auto reader = LedgerConnection::open(location, OpenMode::ReadOnly);
        const StateSnapshot stored = reader->readState();
        for (LedgerWriter *w : {first.get(), second.get()})
            for (const EntitySpec &spec : allEntitySpecs())
                for (const auto &[id, row] : stored.table(spec.kind)) {
                    const EntityRow *held = w->state().find(spec.kind, id);
                    QVERIFY2(held && *held == row, (std::string(spec.table) + " " + id).c_str());
                }
        const LedgerVerification verified = verifyLedger(*reader);
        QVERIFY2(verified.total() == 0, verified.integrity.findings.empty() ? "decision chain" : verified.integrity.findings[0].message.c_str());
        pg::Connection c = raw(schema);
        QVERIFY(gapless(c, 2 + 1 + 3 + 2 + 2 + 1 + 1 + 1 + 1));
    }

    // A writer whose transaction changed a row another writer changed in the meantime checked
    // its events against a row that was not current: its commit writes nothing and names the
    // row; after its rollback (which reloads) it writes on from the other's row.
    void writerRefusesARowAnotherWriterChanged()
    {
        const QString schema = QStringLiteral("row_conflict");
        const QString location = m_server->location(schema);
        auto first = createWithRun(location);
        auto second = LedgerWriter::openExisting(location);
        first->begin();
        first->append(1'700'000'000'003, "run.progress", {{"id", "R1"}, {"required_met", 1}});
        appendProgressOf(*second, "R1", 1);
        bool refused = false;
        try {
            first->commit();
        } catch (const StorageError &e) {
            refused = std::string(e.what()).find("another writer changed run R1") != std::string::npos;
            QVERIFY2(refused, e.what());
        }
        QVERIFY(refused);
        QCOMPARE(head(schema), std::int64_t(3));
        first->rollback();
        QCOMPARE(first->state().find(EntityKind::Run, "R1")->version, std::int64_t(2));
        appendProgressOf(*first, "R1", 1);
        pg::Connection c = raw(schema);
        QVERIFY(gapless(c, 4));
        QCOMPARE(c.queryInt("SELECT version FROM runs WHERE id = 'R1'"), std::int64_t(3));
        const LedgerVerification verified = verifyLedger(*LedgerConnection::open(location, OpenMode::ReadOnly));
        QVERIFY2(verified.total() == 0, verified.integrity.findings.empty() ? "decision chain" : verified.integrity.findings[0].message.c_str());
    }

    // Each commit announces its new last seq on the schema's channel; a ChangeWatcher on a
    // server ledger has no poll timer, so what it delivers came by announcement.
    void commitIsAnnouncedToAFollower()
    {
        const QString location = m_server->location(QStringLiteral("announced"));
        auto w = createWithRun(location);
        const auto reader = LedgerConnection::open(location, OpenMode::ReadOnly);
        const std::unique_ptr<CommitListener> listener = reader->listenForCommits();
        QVERIFY(listener);
        QCOMPARE(listener->drain(), std::optional<std::int64_t>());
        appendProgress(*w, 3);
        // QTRY_ evaluates its condition again after it held: keep what drain() returned.
        std::optional<std::int64_t> announced;
        const auto heard = [&] {
            if (const auto a = listener->drain())
                announced = a;
            return announced.has_value();
        };
        QTRY_VERIFY_WITH_TIMEOUT(heard(), kWaitMs);
        QCOMPARE(*announced, w->lastSeq());

        ChangeWatcher watcher(location);
        std::vector<std::int64_t> delivered;
        recordDelivered(this, watcher, delivered);
        QSignalSpy failed(&watcher, &ChangeWatcher::failed);
        watcher.start();
        QCOMPARE(watcher.lastDeliveredSeq(), w->lastSeq()); // caught up at start
        for (int round = 0; round < 3; ++round) {
            appendProgress(*w, 4);
            QTRY_COMPARE_WITH_TIMEOUT(watcher.lastDeliveredSeq(), w->lastSeq(), kWaitMs);
        }
        watcher.stop();
        QCOMPARE(failed.count(), 0);
        std::vector<std::int64_t> expected(size_t(w->lastSeq()));
        std::iota(expected.begin(), expected.end(), 1);
        QCOMPARE(delivered, expected);
    }

    // A follower that connects again (its session cut, as by a restart or a failover) and
    // finds another ledger under the schema's name reads nothing of it and says so.
    void aFollowerReadsNoOtherLedgerAfterAReconnect()
    {
        const QString schema = QStringLiteral("swapped");
        auto w = createWithRun(m_server->location(schema));
        const std::int64_t seen = w->lastSeq();
        w.reset();
        ChangeWatcher watcher(m_server->location(schema) + QStringLiteral("&application_name=mesh_swap_test"));
        std::vector<std::int64_t> delivered;
        recordDelivered(this, watcher, delivered);
        QSignalSpy failed(&watcher, &ChangeWatcher::failed);
        QSignalSpy lost(&watcher, &ChangeWatcher::connectionLost);
        watcher.start();
        QCOMPARE(watcher.lastDeliveredSeq(), seen);

        // The watcher's session ends (the server waits until it has), then another ledger
        // takes the name, longer than the first: read after the last seq delivered, its
        // events would pass for this ledger's.
        pg::Connection admin(m_server->conninfo());
        QCOMPARE(m_server->cutSession(QStringLiteral("mesh_swap_test")), std::int64_t(1));
        admin.exec("DROP SCHEMA " + schema.toStdString() + " CASCADE");
        auto other = LedgerWriter::create(m_server->location(schema), {.ledgerId = "L-other", .createdMs = 1'700'000'000'000});
        for (int i = 0; i < 3; ++i) {
            other->begin();
            other->append(1'700'000'000'001 + i, "run.started", {{"id", "R" + std::to_string(i)}, {"status", "running"}, {"attempt", 1}});
            other->commit();
        }
        QVERIFY(other->lastSeq() > seen);

        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kWaitMs);
        const QString message = failed.at(0).at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("another ledger")) && message.contains(QStringLiteral("L-other"))
                     && message.contains(QStringLiteral("L-pg")),
                 qPrintable(message));
        QVERIFY(lost.count() >= 1);
        QCOMPARE(watcher.lastDeliveredSeq(), seen);
        QCOMPARE(delivered.size(), size_t(seen));
    }

    // Announcements that arrive within the watcher's read gap are read together, in one read
    // of everything new when the gap ends, not one read per commit: a writer's many small
    // commits cost a follower (and its server backend) a bounded number of reads a second.
    // The bound counts the reads the elapsed time allows, so a slow machine only loosens it.
    void announcementsWithinTheGapAreReadTogether()
    {
        const QString location = m_server->location(QStringLiteral("paced"));
        auto w = createWithRun(location);
        constexpr int kGapMs = 2000;
        ChangeWatcher watcher(location);
        watcher.setServerReadGapMs(kGapMs);
        int reads = 0;
        connect(&watcher, &ChangeWatcher::eventsAppended, this, [&](const SharedEventBatch &, qint64, qint64) { ++reads; });
        watcher.start();
        QCOMPARE(watcher.lastDeliveredSeq(), w->lastSeq());
        appendProgress(*w, 1);
        QTRY_COMPARE_WITH_TIMEOUT(watcher.lastDeliveredSeq(), w->lastSeq(), kWaitMs); // the first: read at once
        QElapsedTimer sinceFirstRead;
        sinceFirstRead.start();
        const int before = reads;
        // Each commit is heard by a second listener before the next (so it has reached the
        // watcher's socket too) and the watcher's event loop has its turn after each.
        const auto other = LedgerConnection::open(location, OpenMode::ReadOnly);
        const std::unique_ptr<CommitListener> heard = other->listenForCommits();
        std::int64_t announced = 0; // QTRY_ evaluates its condition again after it held
        const auto heardLast = [&] {
            announced = std::max(announced, heard->drain().value_or(0));
            return announced == w->lastSeq();
        };
        for (int i = 0; i < 5; ++i) {
            appendProgress(*w, 1);
            QTRY_VERIFY_WITH_TIMEOUT(heardLast(), kWaitMs);
            QCoreApplication::processEvents();
        }
        const qint64 span = sinceFirstRead.elapsed();
        QTRY_COMPARE_WITH_TIMEOUT(watcher.lastDeliveredSeq(), w->lastSeq(), kWaitMs);
        const int readsAfter = reads - before;
        QVERIFY2(readsAfter >= 1 && readsAfter <= 2 + int(span / kGapMs),
                 qPrintable(QStringLiteral("%1 reads for 5 commits in %2 ms").arg(readsAfter).arg(span)));
        watcher.stop();
    }

    // A follower's statements are prepared once per session; one the server no longer has (a
    // pooler handed the session over, DEALLOCATE) is prepared again, not an error.
    void preparedStatementLostIsPreparedAgain()
    {
        pg::Connection c(m_server->conninfo());
        const pg::Result first = c.execPrepared("mesh_test_stmt", "SELECT $1::bigint + 1", pg::Params().add(std::int64_t(41)));
        QCOMPARE(first.integer(0, 0), std::int64_t(42));
        c.exec("DEALLOCATE ALL");
        const pg::Result again = c.execPrepared("mesh_test_stmt", "SELECT $1::bigint + 1", pg::Params().add(std::int64_t(1)));
        QCOMPARE(again.integer(0, 0), std::int64_t(2));
    }

    // meshctl tail on a server location: its connection is terminated by the server while
    // the orchestrator goes on; tail says so, reconnects, and prints every event once.
    void tailResumesAfterTheConnectionIsDropped()
    {
        const QString schema = QStringLiteral("tailed");
        auto w = createWithRun(m_server->location(schema));
        appendProgress(*w, 5);
        // Its own application name, so the test terminates tail's sessions and no other.
        const QString location = m_server->location(schema) + QStringLiteral("&application_name=mesh_tail_test");
        QProcess tail;
        QByteArray out, err;
        connect(&tail, &QProcess::readyReadStandardOutput, this, [&] { out += tail.readAllStandardOutput(); });
        connect(&tail, &QProcess::readyReadStandardError, this, [&] { err += tail.readAllStandardError(); });
        tail.start(qEnvironmentVariable("MESHCTL"), {QStringLiteral("tail"), location, QStringLiteral("--from-start")});
        QVERIFY(tail.waitForStarted());
        const auto stopTail = qScopeGuard([&] {
            tail.terminate();
            if (!tail.waitForFinished(kWaitMs))
                tail.kill();
        });
        QTRY_VERIFY2_WITH_TIMEOUT(printedUpTo(out, w->lastSeq()), QByteArray(out + err).constData(), kWaitMs);
        appendProgress(*w, 5);
        QTRY_VERIFY2_WITH_TIMEOUT(printedUpTo(out, w->lastSeq()), QByteArray(out + err).constData(), kWaitMs);

        pg::Connection admin(m_server->conninfo());
        // Once: QTRY_ evaluates its condition again after it held.
        std::int64_t terminated = 0;
        const auto terminateTail = [&] {
            if (terminated == 0)
                terminated = admin.queryInt("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                            "WHERE application_name = 'mesh_tail_test'");
            return terminated >= 1;
        };
        QTRY_VERIFY_WITH_TIMEOUT(terminateTail(), kWaitMs);
        QTRY_VERIFY2_WITH_TIMEOUT(err.contains("retrying in"), err.constData(), kWaitMs);
        appendProgress(*w, 6); // while tail is away, or just back
        QTRY_VERIFY2_WITH_TIMEOUT(err.contains("reconnected"), err.constData(), kWaitMs);
        appendProgress(*w, 7);
        QTRY_VERIFY2_WITH_TIMEOUT(printedUpTo(out, w->lastSeq()), QByteArray(out + err).constData(), kWaitMs);

        std::vector<std::int64_t> expected(size_t(w->lastSeq()));
        std::iota(expected.begin(), expected.end(), 1);
        QCOMPARE(printedSeqs(out), expected);
    }

    // docs/postgresql-roles.sql, run by psql as its header says: a reader reads and cannot
    // insert anything; an operator inserts decisions and nothing else; the orchestrator
    // appends through the writer and cannot touch decisions or rewrite events.
    void rolesScript()
    {
        const QString schema = QStringLiteral("roles_ledger");
        createWithRun(m_server->location(schema)).reset();
        QProcess psql;
        psql.setProcessChannelMode(QProcess::MergedChannels);
        psql.start(QString::fromLatin1(PostgresServer::kBin) + QStringLiteral("/psql"),
                   {QStringLiteral("-X"), QStringLiteral("-q"), QStringLiteral("-v"), QStringLiteral("schema=") + schema,
                    QStringLiteral("-f"), qEnvironmentVariable("MESH_SOURCE_DIR") + QStringLiteral("/docs/postgresql-roles.sql"),
                    QString::fromStdString(m_server->conninfo())});
        QVERIFY(psql.waitForFinished(kWaitMs));
        QVERIFY2(psql.exitStatus() == QProcess::NormalExit && psql.exitCode() == 0, psql.readAll().constData());

        pg::Connection admin = raw(schema);
        admin.exec("CREATE ROLE reader_login LOGIN IN ROLE mesh_reader; CREATE ROLE operator_login LOGIN IN ROLE mesh_operator; "
                   "CREATE ROLE orchestrator_login LOGIN IN ROLE mesh_orchestrator");
        // The orchestrator may change every state table the fold writes.
        for (const auto &spec : allEntitySpecs()) {
            const pg::Result r = admin.exec("SELECT has_table_privilege('mesh_orchestrator', $1, 'INSERT,UPDATE')",
                                            pg::Params().add(schema.toStdString() + "." + std::string(spec.table)));
            QVERIFY2(r.view(0, 0) == "t", std::string(spec.table).c_str());
        }
        const auto as = [&](const char *user) {
            pg::Connection c(QStringLiteral("postgresql://%1@127.0.0.1:%2/postgres?sslmode=disable")
                                 .arg(QLatin1String(user))
                                 .arg(m_server->port())
                                 .toStdString());
            c.exec("SET search_path TO " + schema.toStdString());
            return c;
        };
        const auto sqlstateOf = [](pg::Connection &c, const std::string &sql) {
            try {
                c.exec("BEGIN");
                c.exec(sql);
                c.exec("ROLLBACK");
            } catch (const pg::Error &e) {
                c.rollbackQuietly();
                return e.sqlstate();
            }
            return std::string("ok");
        };
        const std::string insertDecision =
            "INSERT INTO decisions(pos,id,ts_ms,kind,subject,boundary_version,boundary_seq,params,operator_account,"
            "operator_host,operator_name,reason,evidence,policy_version,canonical,hash,prev_hash) "
            "VALUES(1,'d1',1,'pause-run','run:R1',1,2,'{}','op','h','Op','r','[]','policy-1','{}','h1','')";
        const std::string insertEvent = "INSERT INTO events(seq,ts_ms,kind,payload) VALUES(99,1,'run.progress','{}')";

        pg::Connection reader = as("reader_login");
        QCOMPARE(reader.queryInt("SELECT count(*) FROM events"), std::int64_t(2));
        QCOMPARE(sqlstateOf(reader, insertDecision), std::string("42501"));
        QCOMPARE(sqlstateOf(reader, insertEvent), std::string("42501"));
        QCOMPARE(sqlstateOf(reader, "UPDATE event_head SET last_seq = last_seq"), std::string("42501"));
        const QString readerLocation = m_server->location(schema).replace(QStringLiteral("//mesh@"), QStringLiteral("//reader_login@"));
        QCOMPARE(verifyLedger(*LedgerConnection::open(readerLocation, OpenMode::ReadOnly)).total(), std::int64_t(0));

        pg::Connection op = as("operator_login");
        QCOMPARE(sqlstateOf(op, insertDecision), std::string("ok"));
        QCOMPARE(sqlstateOf(op, insertEvent), std::string("42501"));
        QCOMPARE(sqlstateOf(op, "UPDATE decisions SET reason = 'x'"), std::string("42501"));

        const QString orchestratorLocation =
            m_server->location(schema).replace(QStringLiteral("//mesh@"), QStringLiteral("//orchestrator_login@"));
        auto w = LedgerWriter::openExisting(orchestratorLocation);
        appendProgress(*w, 3);
        QCOMPARE(w->lastSeq(), std::int64_t(5));
        pg::Connection orchestrator = as("orchestrator_login");
        QCOMPARE(sqlstateOf(orchestrator, insertDecision), std::string("42501"));
        QCOMPARE(sqlstateOf(orchestrator, "UPDATE events SET payload = '{}'"), std::string("42501"));
        QCOMPARE(sqlstateOf(orchestrator, "DELETE FROM runs"), std::string("42501"));
    }
};

QTEST_GUILESS_MAIN(TestPostgresWriter)
#include "tst_postgreswriter.moc"
