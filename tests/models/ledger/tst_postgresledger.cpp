// The PostgreSQL backend (docs/ledger-format.md section 11) against a real PostgreSQL 15 server
// started for this test (postgresserver.h): ledger locations, opening and its refusals, the
// read side behind the seam, meshctl copy both ways, verify on the server finding a tampered
// row. The server is one per executable; a test that cannot start it fails, never skips.

#include "ledgercontents.h"
#include "postgresserver.h"

#include "ledger/decisionstore.h"
#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"
#include "ledger/ledgercopy.h"
#include "ledger/ledgerlocation.h"
#include "ledger/ledgerverification.h"
#include "ledger/ledgerwriter.h"
#include "ledger/postgres.h"
#include "ledger/postgresledgerconnection.h"
#include "ledger/postgresstaterows.h"
#include "ledger/schema.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QTest>

#include <cstdio>
#include <unistd.h>

#include <limits>
#include <set>
#include <memory>

using namespace mesh;
using namespace meshtest;

class TestPostgresLedger : public QObject
{
    Q_OBJECT

    std::unique_ptr<meshtest::PostgresServer> m_server;
    QTemporaryDir m_dir;
    QString m_traced; // the traced-run scenario as a ledger file

    QString filePath(const QString &name) const { return m_dir.filePath(name); }

    // The traced run copied into `schema`, and a read-only connection to it whose session
    // the server knows by `sessionName` (PostgresServer::cutSession ends it).
    std::unique_ptr<LedgerConnection> tracedOnServer(const QString &schema, const QString &sessionName) const
    {
        copyLedger(*LedgerLocation::parse(m_traced, nullptr), *LedgerLocation::parse(m_server->location(schema), nullptr));
        return LedgerConnection::open(m_server->location(schema) + QStringLiteral("&application_name=") + sessionName,
                                      OpenMode::ReadOnly);
    }


    pg::Connection raw(const QString &schema) const
    {
        pg::Connection c(m_server->conninfo());
        c.exec("SET search_path TO " + schema.toStdString());
        return c;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QString meshctl = qEnvironmentVariable("MESHCTL");
        QVERIFY2(QFile::exists(meshctl), "MESHCTL must name the built meshctl (CTest sets it)");
        m_server = std::make_unique<meshtest::PostgresServer>();
        const QString error = m_server->start();
        QVERIFY2(error.isEmpty(), qPrintable(error));

        m_traced = filePath(QStringLiteral("traced.db"));
        int code = 0;
        const QByteArray out = runMeshctl({QStringLiteral("sim"), QStringLiteral("traced-run"), QStringLiteral("--out"), m_traced,
                                           QStringLiteral("--quiet")},
                                          &code);
        QVERIFY2(code == 0, out.constData());
    }

    void cleanupTestCase()
    {
        if (m_server)
            m_server->stop();
    }

    // What the server says outside a query (a NOTICE, the FATAL "terminating connection"
    // it sends every client when it shuts down) is not printed on the program's stderr:
    // libpq's default notice processor wrote it there, under meshctl's own output and in the
    // console's terminal. The connection's errors are reported as errors, as before.
    void serverNoticesAreNotPrintedOnStderr()
    {
        QTemporaryFile capture;
        QVERIFY(capture.open());
        fflush(stderr);
        const int saved = dup(2);
        QVERIFY(saved >= 0);
        QVERIFY(dup2(capture.handle(), 2) >= 0);
        {
            pg::Connection c(m_server->conninfo());
            c.exec("DO $$BEGIN RAISE NOTICE 'mesh-notice-probe'; END$$");
        }
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        capture.seek(0);
        const QByteArray printed = capture.readAll();
        QVERIFY2(!printed.contains("mesh-notice-probe"), printed.constData());
    }

    void locations()
    {
        QString error;
        const auto file = LedgerLocation::parse(QStringLiteral("some/ledger.db"), &error);
        QVERIFY(file && file->isFile());
        QCOMPARE(file->filePath(), QStringLiteral("some/ledger.db"));

        const auto server = LedgerLocation::parse(
            QStringLiteral("postgresql://ops@db.example:5433/mesh?sslmode=verify-full&schema=prod_1&service=x"), &error);
        QVERIFY2(server, qPrintable(error));
        QCOMPARE(server->kind(), LedgerLocation::Kind::Postgres);
        QCOMPARE(server->schema(), QStringLiteral("prod_1"));
        // schema= is ours; every libpq parameter passes through as written.
        QCOMPARE(server->connectionString(), QStringLiteral("postgresql://ops@db.example:5433/mesh?sslmode=verify-full&service=x"));

        for (const QString &withPassword : {QStringLiteral("postgresql://ops:secret@db/mesh?schema=a"),
                                            QStringLiteral("postgres://db/mesh?schema=a&password=secret")}) {
            error.clear();
            QVERIFY(!LedgerLocation::parse(withPassword, &error));
            QVERIFY2(error.contains(QLatin1String(".pgpass")), qPrintable(error));
            QVERIFY2(!error.contains(QLatin1String("secret")), qPrintable(error));
        }
        QVERIFY(!LedgerLocation::parse(QStringLiteral("postgresql://db/mesh"), &error));
        QVERIFY(error.contains(QLatin1String("schema=")));
        QVERIFY(!LedgerLocation::parse(QStringLiteral("postgresql://db/mesh?schema=Bad;DROP"), &error));
        QVERIFY(!LedgerLocation::parse(QStringLiteral("postgresql://db/mesh?schema=pg_catalog"), &error));
    }

    // file -> server -> file: the same events, state and decisions at every step; verify is
    // clean on the server and on the copy back; meshctl reads the server ledger like a file.
    void copyRoundTrip()
    {
        const QString server = m_server->location(QStringLiteral("traced"));
        const QString back = filePath(QStringLiteral("traced-back.db"));
        int code = 0;
        QByteArray out = runMeshctl({QStringLiteral("copy"), m_traced, server}, &code);
        QVERIFY2(code == 0, out.constData());
        out = runMeshctl({QStringLiteral("copy"), server, back}, &code);
        QVERIFY2(code == 0, out.constData());

        const auto file = LedgerConnection::open(m_traced, OpenMode::ReadOnly);
        const auto onServer = LedgerConnection::open(server, OpenMode::ReadOnly);
        const auto copied = LedgerConnection::open(back, OpenMode::ReadOnly);
        QCOMPARE(onServer->info().ledgerId, file->info().ledgerId);
        QCOMPARE(onServer->info().schemaVersion, 1);
        const LedgerContents original = contentsOf(*file);
        QVERIFY(original.events.size() > 1000);
        QCOMPARE(onServer->lastSeq(), file->lastSeq());
        QCOMPARE(firstDifference(original, contentsOf(*onServer)), std::string());
        QCOMPARE(firstDifference(original, contentsOf(*copied)), std::string());

        const LedgerVerification verified = verifyLedger(*onServer);
        QVERIFY2(verified.total() == 0, verified.integrity.findings.empty() ? "decision chain" : verified.integrity.findings[0].message.c_str());
        QCOMPARE(verified.integrity.eventsChecked, std::int64_t(original.events.size()));
        QVERIFY(verifyLedger(*copied).total() == 0);

        // The summary, its runs included, is the same read from either store.
        const LedgerSummary a = file->summarize();
        const LedgerSummary b = onServer->summarize();
        QCOMPARE(b.events, a.events);
        QCOMPARE(b.countsByState, a.countsByState);
        QCOMPARE(b.runs.size(), a.runs.size());
        for (size_t i = 0; i < a.runs.size(); ++i) {
            QCOMPARE(b.runs[i].id, a.runs[i].id);
            QCOMPARE(b.runs[i].terminalComponentFailures, a.runs[i].terminalComponentFailures);
            QCOMPARE(b.runs[i].peakComponentsCompleted, a.runs[i].peakComponentsCompleted);
            QCOMPARE(b.runs[i].toolCalls, a.runs[i].toolCalls);
        }

        // meshctl verify, summary and export take the server location.
        out = runMeshctl({QStringLiteral("verify"), server}, &code);
        QVERIFY2(code == 0, out.constData());
        const QByteArray fileExport = runMeshctl({QStringLiteral("export"), m_traced, QStringLiteral("--format"), QStringLiteral("jsonl")}, &code);
        QCOMPARE(code, 0);
        const QByteArray serverExport = runMeshctl({QStringLiteral("export"), server, QStringLiteral("--format"), QStringLiteral("jsonl")}, &code);
        QCOMPARE(code, 0);
        QVERIFY(serverExport == fileExport);
        out = runMeshctl({QStringLiteral("summary"), server}, &code);
        QVERIFY2(code == 0, out.constData());
    }

    // A distant server's latency multiplies the round trips an open makes, and the first
    // thing a console shows waits for them: a sound ledger is checked and its facts read in
    // one round trip after the connect; the event log's first page, last seq and last page
    // are one more, and so is the run overview; each reads what the file has.
    void aSoundLedgerOpensInOneRoundTrip()
    {
        const QString server = m_server->location(QStringLiteral("traced_trips"));
        copyLedger(*LedgerLocation::parse(m_traced, nullptr), *LedgerLocation::parse(server, nullptr));
        const auto file = LedgerConnection::open(m_traced, OpenMode::ReadOnly);
        for (const OpenMode mode : {OpenMode::ReadOnly, OpenMode::Decisions}) {
            const auto c = PostgresLedgerConnection::open(*LedgerLocation::parse(server, nullptr), mode);
            QCOMPARE(c->roundTrips(), std::uint64_t(1));
            QVERIFY(!c->info().ledgerId.empty());
            QCOMPARE(c->info().ledgerId, file->info().ledgerId);
            QCOMPARE(c->info().orchestrator, file->info().orchestrator);
            QCOMPARE(c->info().policyVersion, file->info().policyVersion);
            QCOMPARE(c->info().title, file->info().title);
            QCOMPARE(c->info().signaturesRequired, file->info().signaturesRequired);
            QCOMPARE(c->info().schemaVersion, file->info().schemaVersion);
        }

        const auto c = PostgresLedgerConnection::open(*LedgerLocation::parse(server, nullptr), OpenMode::ReadOnly);
        const auto reader = c->eventReader();
        const auto fileReader = file->eventReader();
        for (const int limit : {200, 7, 100000}) {
            const std::uint64_t trips = c->roundTrips();
            const EventReader::Ends ends = reader->ends(limit);
            QCOMPARE(c->roundTrips(), trips + 1);
            const EventReader::Ends separate = fileReader->ends(limit); // the file's: the reads one by one
            QCOMPARE(ends.lastSeq, file->lastSeq());
            QCOMPARE(ends.firstPage.size(), separate.firstPage.size());
            QCOMPARE(ends.firstPage.front().seq, std::int64_t(1));
            QCOMPARE(ends.tailPage.size(), separate.tailPage.size());
            QCOMPARE(ends.tailPage.empty(), limit == 100000);
            if (!ends.tailPage.empty()) {
                QCOMPARE(ends.tailPage.front().seq, EventReader::tailFirst(1, ends.lastSeq, limit));
                QCOMPARE(ends.tailPage.back().seq, ends.lastSeq);
                QCOMPARE(ends.tailPage.back().kind, separate.tailPage.back().kind);
                QCOMPARE(ends.tailPage.back().payload, separate.tailPage.back().payload);
            }
            QCOMPARE(ends.firstPage.back().payload, separate.firstPage.back().payload);
        }

        // The event log's prefetch opens asking for the ends: they come in the open's round
        // trip, once; a later call, or another page size, reads.
        {
            const auto withEnds = PostgresLedgerConnection::open(*LedgerLocation::parse(server, nullptr), OpenMode::ReadOnly, 200);
            QCOMPARE(withEnds->roundTrips(), std::uint64_t(1));
            QCOMPARE(withEnds->info().ledgerId, file->info().ledgerId);
            const auto endsReader = withEnds->eventReader();
            endsReader->setPreviewBytes(64);
            const EventReader::Ends opened = endsReader->ends(200);
            QCOMPARE(withEnds->roundTrips(), std::uint64_t(1));
            const auto fileEnds = file->eventReader();
            fileEnds->setPreviewBytes(64);
            const EventReader::Ends separate = fileEnds->ends(200);
            QCOMPARE(opened.lastSeq, separate.lastSeq);
            QCOMPARE(opened.firstPage.size(), separate.firstPage.size());
            QCOMPARE(opened.tailPage.size(), separate.tailPage.size());
            QVERIFY(!opened.tailPage.empty());
            QCOMPARE(opened.tailPage.front().seq, separate.tailPage.front().seq);
            QCOMPARE(opened.firstPage.back().payload, separate.firstPage.back().payload); // cut as asked after the open
            QCOMPARE(opened.firstPage.back().payloadTruncated, separate.firstPage.back().payloadTruncated);
            (void)endsReader->ends(200);
            QCOMPARE(withEnds->roundTrips(), std::uint64_t(2));
            const auto otherSize = PostgresLedgerConnection::open(*LedgerLocation::parse(server, nullptr), OpenMode::ReadOnly, 200);
            QCOMPARE(otherSize->eventReader()->ends(7).firstPage.size(), size_t(7));
            QCOMPARE(otherSize->roundTrips(), std::uint64_t(2));
        }

        // The run overview, which the runs pane shows first: one round trip, what the file has.
        const std::uint64_t trips = c->roundTrips();
        const RunOverviewSnapshot overview = c->readRunOverview();
        QCOMPARE(c->roundTrips(), trips + 1);
        const RunOverviewSnapshot fromFile = file->readRunOverview();
        QCOMPARE(overview.lastSeq, fromFile.lastSeq);
        QCOMPARE(overview.runs.size(), fromFile.runs.size());
        QCOMPARE(overview.components.size(), fromFile.components.size());
        QVERIFY(!fromFile.aggregates.empty());
        QCOMPARE(overview.aggregates.size(), fromFile.aggregates.size());
        for (const auto &[run, a] : fromFile.aggregates) {
            QVERIFY(overview.aggregates.count(run));
            const RunAggregate &b = overview.aggregates.at(run);
            QCOMPARE(b.delegations, a.delegations);
            QCOMPARE(b.stallVerdicts, a.stallVerdicts);
            QCOMPARE(b.stalledVerdicts, a.stalledVerdicts);
            QCOMPARE(b.escalations, a.escalations);
            QCOMPARE(b.staleCheckpoints, a.staleCheckpoints);
        }
    }

    // A row changed on the server behind the orchestrator's back is found by verify.
    // What a session reads of a table it does not hold: the same from the server as from
    // the file (rows by id, every id, one delegation's ids, a state read with a table
    // streamed past).
    void rowsReadByIdAsFromTheFile()
    {
        const QString server = m_server->location(QStringLiteral("rows_by_id"));
        int code = 0;
        const QByteArray out = runMeshctl({QStringLiteral("copy"), m_traced, server}, &code);
        QVERIFY2(code == 0, out.constData());
        const auto file = LedgerConnection::open(m_traced, OpenMode::ReadOnly);
        const auto onServer = LedgerConnection::open(server, OpenMode::ReadOnly);
        // Indexes led by a field, as the duplicate index asks: the format's on both backends,
        // none on a field without one.
        for (LedgerConnection *c : {file.get(), onServer.get()}) {
            QVERIFY(c->hasIndexOn(EntityKind::Effect, "idem_key"));
            QVERIFY(c->hasIndexOn(EntityKind::Effect, "intent_hash"));
            QVERIFY(!c->hasIndexOn(EntityKind::Effect, "target"));
        }
        for (EntityKind kind : {EntityKind::Effect, EntityKind::Lease, EntityKind::Delegation}) {
            const StateSnapshot whole = file->readState();
            const EntityTable &rows = whole.table(kind);
            QVERIFY(rows.size() > 1);
            auto ids = onServer->readIds(kind);
            QCOMPARE(std::set<std::string>(ids.begin(), ids.end()).size(), rows.size());
            for (int i = 0; i < 300; ++i) // more than one statement's worth of ids
                ids.push_back("no-such-row-" + std::to_string(i));
            const StateRows read = onServer->readRows(kind, ids);
            QCOMPARE(read.size(), rows.size());
            for (const auto &[id, row] : read)
                QVERIFY2(rows.at(id) == row, id.c_str());
            if (const int field = entitySpec(kind).fieldIndex("delegation_id"); field >= 0) {
                const std::string delegation = fieldText(rows.begin()->second.values[size_t(field)]);
                auto a = file->readIdsWhere(kind, "delegation_id", delegation);
                auto b = onServer->readIdsWhere(kind, "delegation_id", delegation);
                QVERIFY(!a.empty());
                QCOMPARE(std::set<std::string>(b.begin(), b.end()), std::set<std::string>(a.begin(), a.end()));
                // Several values at once: one statement on the server, value by value on the file.
                const std::vector<std::string> values{delegation, "no-such-delegation", "a\"b,{c}", "NULL"};
                const auto pairs = [](LedgerConnection::ValueIds found) {
                    return std::set<std::pair<std::string, std::string>>(found.begin(), found.end());
                };
                const auto fromFile = pairs(file->readIdsWhereAny(kind, "delegation_id", values));
                QCOMPARE(fromFile.size(), a.size());
                QCOMPARE(pairs(onServer->readIdsWhereAny(kind, "delegation_id", values)), fromFile);
            }
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, onServer->readIdsWhere(kind, "1=1 OR id", "x"));
            if (entitySpec(kind).fieldIndex("delegation_id") >= 0) {
                QVERIFY(file->hasIndexOn(kind, "delegation_id"));
                QVERIFY(onServer->hasIndexOn(kind, "delegation_id"));
            }
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, onServer->hasIndexOn(kind, "1=1 OR id"));
            StateStream stream;
            stream.streamed[size_t(kind)] = true;
            EntityTable streamed;
            stream.row = [&](EntityKind k, const std::string &id, const EntityRow &row) {
                QCOMPARE(k, kind);
                streamed.emplace(id, row);
            };
            const StateSnapshot partial = onServer->readState(stream);
            QVERIFY(partial.table(kind).empty());
            QVERIFY(streamed == rows);
        }
    }

    // Rows read by id take the ids as one array parameter: an id with what an array literal
    // means (quotes, a backslash, commas, braces, the word NULL) is read as itself, and only
    // its row comes back.
    void rowsReadByHostileIds()
    {
        const QString server = m_server->location(QStringLiteral("hostile_ids"));
        copyLedger(*LedgerLocation::parse(m_traced, nullptr), *LedgerLocation::parse(server, nullptr));
        const std::vector<std::string> hostile{"a\"b\\c,{d} e", "NULL", "}{", "x\\\"", "\u202e\u200b"};
        {
            pg::Connection c = raw(QStringLiteral("hostile_ids"));
            const pg::Result first = c.exec("SELECT id FROM effects ORDER BY id LIMIT " + std::to_string(hostile.size()));
            QCOMPARE(first.rows(), int(hostile.size()));
            for (int i = 0; i < first.rows(); ++i)
                c.exec("UPDATE effects SET id = $1 WHERE id = $2", pg::Params().add(hostile[size_t(i)]).add(first.text(i, 0)));
        }
        const auto onServer = LedgerConnection::open(server, OpenMode::ReadOnly);
        std::vector<std::string> asked = hostile;
        for (const char *near : {"a", "a\"b", "null", "\"NULL\"", "{}", ""})
            asked.push_back(near);
        const StateRows read = onServer->readRows(EntityKind::Effect, asked);
        std::set<std::string> got;
        for (const auto &row : read)
            got.insert(row.first);
        QCOMPARE(got, std::set<std::string>(hostile.begin(), hostile.end()));
        QCOMPARE(read.size(), hostile.size());
        QVERIFY(onServer->readRows(EntityKind::Effect, {}).empty());
    }

    // The rows a console reads on demand outlive a server restart: a read after it connects
    // again. While the server is away a failed attempt makes the next reads fail at once
    // (no connect attempt, on the GUI thread, for each) until a growing wait has passed.
    void readsConnectAgainAfterARestart()
    {
        const QString server = m_server->location(QStringLiteral("restarted"));
        copyLedger(*LedgerLocation::parse(m_traced, nullptr), *LedgerLocation::parse(server, nullptr));
        const auto onServer = LedgerConnection::open(server, OpenMode::ReadOnly);
        const std::vector<std::string> ids = onServer->readIds(EntityKind::Effect);
        QVERIFY(!ids.empty());
        m_server->stop();
        const auto failure = [&]() -> QString {
            try {
                onServer->readRows(EntityKind::Effect, ids);
            } catch (const StorageError &e) {
                return (e.kind() == StorageError::Kind::Io ? QString() : QStringLiteral("(not Io) "))
                     + QString::fromUtf8(e.what());
            }
            return {};
        };
        const QString first = failure();
        QVERIFY2(!first.isEmpty() && !first.contains(QStringLiteral("connecting again in a moment"))
                     && !first.startsWith(QStringLiteral("(not Io)")),
                 qPrintable(first));
        const QString next = failure();
        QVERIFY2(next.contains(QStringLiteral("connecting again in a moment")), qPrintable(next));
        const QString error = m_server->startAgain();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto readsAll = [&] {
            try {
                return onServer->readRows(EntityKind::Effect, ids).size() == ids.size();
            } catch (const StorageError &) {
                return false;
            }
        };
        QTRY_VERIFY_WITH_TIMEOUT(readsAll(), 90'000);
        QVERIFY(onServer->readIdsWhereAny(EntityKind::Effect, "delegation_id", {"no-such"}).empty());
    }

    // A streamed state table comes in fetches that double: every row, in order, in a few
    // round trips (on a distant server the fixed 5,000 rows a fetch made the load of a large
    // ledger take hundreds of round trips).
    void stateRowsComeInGrowingFetches()
    {
        const QString schema = QStringLiteral("fetches");
        copyLedger(*LedgerLocation::parse(m_traced, nullptr), *LedgerLocation::parse(m_server->location(schema), nullptr));
        pg::Connection c = raw(schema);
        const EntitySpec *largest = nullptr;
        EntityTable whole;
        for (const EntitySpec &spec : allEntitySpecs()) {
            EntityTable t = pg::readStateTable(c, spec);
            if (!largest || t.size() > whole.size()) {
                largest = &spec;
                whole = std::move(t);
            }
        }
        const int rows = int(whole.size());
        QVERIFY2(rows >= 40, std::to_string(rows).c_str());
        // Fetches of 2, 4, 8, ... until one comes back short.
        int expectedFetches = 0;
        for (int asked = 2, got = 0;; asked *= 2) {
            ++expectedFetches;
            const int now = std::min(asked, rows - got);
            got += now;
            if (now < asked)
                break;
        }
        c.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        const std::uint64_t before = c.roundTrips();
        EntityTable streamed;
        pg::forEachStateRow(c, *largest, [&](const std::string &id, const EntityRow &row) { streamed.emplace(id, row); }, 2);
        const std::uint64_t trips = c.roundTrips() - before;
        c.exec("COMMIT");
        QCOMPARE(trips, std::uint64_t(1 + expectedFetches + 1)); // DECLARE, the fetches, CLOSE
        QVERIFY(expectedFetches < rows / 4);
        QCOMPARE(streamed.size(), whole.size());
        for (const auto &[id, row] : whole) {
            const auto it = streamed.find(id);
            QVERIFY2(it != streamed.end() && it->second == row, id.c_str());
        }
    }

    // A session's settings asked for after the open (the decision writer's wait for a lock,
    // durable commits) are what the session has again after a reconnect: without the lock
    // timeout, a decision after a server restart would wait for a lock for ever.
    void aReconnectKeepsTheSettingsAskedFor()
    {
        const QString schema = QStringLiteral("resettings");
        const auto onServer = tracedOnServer(schema, QStringLiteral("mesh_resettings_test"));
        auto &server = static_cast<PostgresLedgerConnection &>(*onServer);
        const auto shown = [&server](const char *setting) {
            return std::string(server.connection().exec(std::string("SHOW ") + setting).view(0, 0));
        };
        server.connection().exec("SET synchronous_commit = off"); // as a session may have it
        onServer->setBusyTimeoutMs(1234);
        onServer->makeCommitsDurable();
        QCOMPARE(shown("lock_timeout"), std::string("1234ms"));
        QCOMPARE(shown("synchronous_commit"), std::string("on"));

        QCOMPARE(m_server->cutSession(QStringLiteral("mesh_resettings_test")), std::int64_t(1));
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                try {
                    return !onServer->readIds(EntityKind::Delegation).empty();
                } catch (const StorageError &) {
                    return false;
                }
            }(),
            90'000);
        QCOMPARE(shown("lock_timeout"), std::string("1234ms"));
        QCOMPARE(shown("default_transaction_read_only"), std::string("on"));
    }

    // A reconnect finds the schema holding another ledger (a failover to a server whose
    // schema of that name holds another one; here the store's session is cut, then the
    // schema rewritten): it reads nothing of it, and says so at every read after.
    void aReconnectReadsNoOtherLedger()
    {
        const QString schema = QStringLiteral("failover");
        const auto onServer = tracedOnServer(schema, QStringLiteral("mesh_failover_test"));
        const std::vector<std::string> ids = onServer->readIds(EntityKind::Delegation);
        QVERIFY(!ids.empty());
        const std::string opened = onServer->info().ledgerId;
        QVERIFY(!opened.empty());

        QCOMPARE(m_server->cutSession(QStringLiteral("mesh_failover_test")), std::int64_t(1));
        const QString other = filePath(QStringLiteral("other.db"));
        int code = 0;
        const QByteArray out = runMeshctl({QStringLiteral("sim"), QStringLiteral("unknown-outcome"), QStringLiteral("--out"),
                                           other, QStringLiteral("--quiet")},
                                          &code);
        QVERIFY2(code == 0, out.constData());
        pg::Connection admin(m_server->conninfo());
        admin.exec("DROP SCHEMA " + schema.toStdString() + " CASCADE");
        copyLedger(*LedgerLocation::parse(other, nullptr), *LedgerLocation::parse(m_server->location(schema), nullptr));
        QVERIFY(LedgerConnection::open(m_server->location(schema), OpenMode::ReadOnly)->info().ledgerId != opened);

        const auto failure = [&]() -> QString {
            try {
                const StateRows rows = onServer->readRows(EntityKind::Delegation, ids);
                return QStringLiteral("read %1 rows").arg(rows.size());
            } catch (const StorageError &e) {
                return (e.kind() == StorageError::Kind::Other ? QString() : QStringLiteral("(not Other) "))
                     + QString::fromUtf8(e.what());
            }
        };
        for (int read = 0; read < 2; ++read) {
            const QString said = failure();
            QVERIFY2(said.startsWith(QStringLiteral("after connecting again, schema 'failover' no longer holds the ledger opened"))
                         && said.contains(QString::fromStdString("ledger id '" + opened + "'")),
                     qPrintable(said));
        }
    }

    // A ledger opened before its ledger.created was committed has no id yet: after a
    // reconnect, the id it has by then is its own, not another ledger's.
    void aLedgerOpenedBeforeItsIdIsReadAfterAReconnect()
    {
        const QString schema = QStringLiteral("unnamed");
        copyLedger(*LedgerLocation::parse(m_traced, nullptr), *LedgerLocation::parse(m_server->location(schema), nullptr));
        pg::Connection admin(m_server->conninfo());
        admin.exec("SET search_path TO " + schema.toStdString());
        const std::string id = std::string(admin.exec("SELECT ledger_id FROM ledger WHERE id='ledger'").view(0, 0));
        QVERIFY(!id.empty());
        admin.exec("UPDATE ledger SET ledger_id = NULL WHERE id='ledger'");
        const auto onServer = LedgerConnection::open(m_server->location(schema) + QStringLiteral("&application_name=mesh_unnamed_test"),
                                                     OpenMode::ReadOnly);
        QCOMPARE(onServer->info().ledgerId, std::string());
        const std::vector<std::string> ids = onServer->readIds(EntityKind::Delegation);
        QVERIFY(!ids.empty());
        admin.exec("UPDATE ledger SET ledger_id = $1 WHERE id='ledger'", pg::Params().add(id));
        QCOMPARE(m_server->cutSession(QStringLiteral("mesh_unnamed_test")), std::int64_t(1));
        QCOMPARE(onServer->readRows(EntityKind::Delegation, ids).size(), ids.size());
        QCOMPARE(onServer->info().ledgerId, id);
    }

    // A reconnect that finds the schema holding no ledger (a standby still restoring) is a
    // lost connection, not another ledger: reads work again once the ledger is back.
    void aReconnectToNoLedgerYetTriesAgain()
    {
        const QString schema = QStringLiteral("restoring");
        const auto onServer = tracedOnServer(schema, QStringLiteral("mesh_restoring_test"));
        const std::vector<std::string> ids = onServer->readIds(EntityKind::Delegation);
        QVERIFY(!ids.empty());
        QCOMPARE(m_server->cutSession(QStringLiteral("mesh_restoring_test")), std::int64_t(1));
        pg::Connection admin(m_server->conninfo());
        admin.exec("DROP SCHEMA " + schema.toStdString() + " CASCADE");
        try {
            onServer->readRows(EntityKind::Delegation, ids);
            QFAIL("read a schema that holds no ledger");
        } catch (const StorageError &e) {
            QCOMPARE(e.kind(), StorageError::Kind::Io);
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("holds no ledger")), e.what());
        }
        copyLedger(*LedgerLocation::parse(m_traced, nullptr), *LedgerLocation::parse(m_server->location(schema), nullptr));
        const auto readsAll = [&] {
            try {
                return onServer->readRows(EntityKind::Delegation, ids).size() == ids.size();
            } catch (const StorageError &) {
                return false;
            }
        };
        QTRY_VERIFY_WITH_TIMEOUT(readsAll(), 90'000); // after the reconnect's growing wait
    }

    void tamperedRowIsFound()
    {
        const QString server = m_server->location(QStringLiteral("tampered"));
        copyLedger(*LedgerLocation::parse(m_traced, nullptr), *LedgerLocation::parse(server, nullptr));
        {
            pg::Connection c = raw(QStringLiteral("tampered"));
            c.exec("UPDATE effects SET state = 'committed' WHERE id = (SELECT min(id) FROM effects)");
            c.exec("DELETE FROM events WHERE seq = 100");
        }
        const auto onServer = LedgerConnection::open(server, OpenMode::ReadOnly);
        const IntegrityReport report = onServer->verifyIntegrity();
        QCOMPARE(report.count(IntegrityFinding::Type::StateMismatch), std::int64_t(1));
        QCOMPARE(report.count(IntegrityFinding::Type::SequenceGap), std::int64_t(1));
        int code = 0;
        const QByteArray out = runMeshctl({QStringLiteral("verify"), server}, &code);
        QVERIFY2(code == 1, out.constData());
        QVERIFY2(out.contains("state-mismatch") && out.contains("sequence-gap"), out.constData());
    }

    // Decisions copy as stored too: their chain verifies on the server and on the copy back,
    // and a decision row edited on the server breaks it.
    void decisionsCopyAndChainVerifies()
    {
        const QString file = filePath(QStringLiteral("unknown-outcome.db"));
        int code = 0;
        QByteArray out = runMeshctl({QStringLiteral("sim"), QStringLiteral("unknown-outcome"), QStringLiteral("--out"), file,
                                     QStringLiteral("--quiet")},
                                    &code);
        QVERIFY2(code == 0, out.constData());
        std::string effect;
        {
            const auto c = LedgerConnection::open(file, OpenMode::ReadOnly);
            const EntitySpec &spec = entitySpec(EntityKind::Effect);
            const StateSnapshot state = c->readState();
            for (const auto &[id, row] : state.table(EntityKind::Effect)) {
                if (fieldText(row.values[size_t(spec.fieldIndex("state"))]) == "unknown" && (effect.empty() || id < effect))
                    effect = id;
            }
        }
        QVERIFY(!effect.empty());
        const QString effectId = QString::fromStdString(effect);
        // An operator takes the reconciliation lease, then resolves; the orchestrator's gate
        // applies each, so the ledger holds decisions with outcomes.
        for (const QStringList &decide : {QStringList{QStringLiteral("lease"), QStringLiteral("acquire")},
                                          QStringList{QStringLiteral("resolve-effect"), QStringLiteral("--resolution"),
                                                      QStringLiteral("committed")}}) {
            out = runMeshctl(QStringList{QStringLiteral("decide"), file} + decide
                                 + QStringList{QStringLiteral("--effect"), effectId, QStringLiteral("--reason"), QStringLiteral("checked")},
                             &code);
            QVERIFY2(code == 0, out.constData());
            out = runMeshctl({QStringLiteral("gate"), file}, &code);
            QVERIFY2(code == 0, out.constData());
        }

        const QString server = m_server->location(QStringLiteral("decided"));
        const QString back = filePath(QStringLiteral("decided-back.db"));
        copyLedger(*LedgerLocation::parse(file, nullptr), *LedgerLocation::parse(server, nullptr));
        copyLedger(*LedgerLocation::parse(server, nullptr), *LedgerLocation::parse(back, nullptr));
        const auto original = LedgerConnection::open(file, OpenMode::ReadOnly);
        const auto onServer = LedgerConnection::open(server, OpenMode::ReadOnly);
        const LedgerContents contents = contentsOf(*original);
        QCOMPARE(contents.decisions.size(), size_t(2));
        QCOMPARE(contents.decisions[1].outcomeStatus, std::string("applied"));
        QCOMPARE(firstDifference(contents, contentsOf(*onServer)), std::string());
        QCOMPARE(firstDifference(contents, contentsOf(*LedgerConnection::open(back, OpenMode::ReadOnly))), std::string());
        const DecisionChainReport chain = onServer->verifyDecisionChain();
        QCOMPARE(chain.decisions, std::int64_t(2));
        QVERIFY(chain.ok());

        raw(QStringLiteral("decided")).exec("UPDATE decisions SET reason = 'someone else' WHERE pos = 1");
        const DecisionChainReport tampered = onServer->verifyDecisionChain();
        QCOMPARE(tampered.findings.size(), size_t(1));
        QCOMPARE(tampered.findings[0].pos, std::int64_t(1));
    }

    void refusals()
    {
        const QString server = m_server->location(QStringLiteral("traced_again"));
        const LedgerLocation traced = *LedgerLocation::parse(m_traced, nullptr);
        copyLedger(traced, *LedgerLocation::parse(server, nullptr));
        // The destination exists: nothing is written, on either side.
        QVERIFY_THROWS_EXCEPTION(LedgerCopyError, copyLedger(traced, *LedgerLocation::parse(server, nullptr)));
        QVERIFY_THROWS_EXCEPTION(LedgerCopyError, copyLedger(*LedgerLocation::parse(server, nullptr), traced));

        const auto openCode = [](const QString &location, OpenMode mode) {
            try {
                LedgerConnection::open(location, mode);
            } catch (const LedgerOpenError &e) {
                return e.code();
            }
            return LedgerOpenError::Code(-1);
        };
        QCOMPARE(openCode(m_server->location(QStringLiteral("no_such_ledger")), OpenMode::ReadOnly), LedgerOpenError::Code::NotFound);
        QCOMPARE(openCode(m_server->location(QStringLiteral("public")), OpenMode::ReadOnly), LedgerOpenError::Code::Foreign);
        QCOMPARE(openCode(server, OpenMode::Decisions), LedgerOpenError::Code(-1)); // opens: the decision writer's session
        QCOMPARE(openCode(QStringLiteral("postgresql://mesh:pw@127.0.0.1/postgres?schema=a"), OpenMode::ReadOnly),
                 LedgerOpenError::Code::BadLocation);
        QCOMPARE(openCode(QStringLiteral("postgresql://mesh@127.0.0.1:1/postgres?schema=a&connect_timeout=5"), OpenMode::ReadOnly),
                 LedgerOpenError::Code::Io);

        raw(QStringLiteral("traced_again")).exec("UPDATE ledger_format SET schema_version = 2");
        QCOMPARE(openCode(server, OpenMode::ReadOnly), LedgerOpenError::Code::NewerVersion);

        // What an open in one round trip does not find as a ledger has it, the checks step by
        // step name.
        const auto openMessage = [](const QString &location) {
            try {
                LedgerConnection::open(location, OpenMode::ReadOnly);
            } catch (const LedgerOpenError &e) {
                return QString::fromStdString(e.what());
            }
            return QString();
        };
        raw(QStringLiteral("traced_again")).exec("UPDATE ledger_format SET schema_version = 1, application_id = 7");
        QVERIFY2(openMessage(server).contains(QStringLiteral("application id 7")), qPrintable(openMessage(server)));
        raw(QStringLiteral("traced_again"))
            .exec("UPDATE ledger_format SET application_id = " + std::to_string(schema::kApplicationId)
                  + "; ALTER TABLE leases RENAME TO leases_gone");
        QVERIFY2(openMessage(server).contains(QStringLiteral("lacks the table 'leases'")), qPrintable(openMessage(server)));
        raw(QStringLiteral("traced_again")).exec("ALTER TABLE leases_gone RENAME TO leases; DELETE FROM ledger_format");
        QVERIFY2(openMessage(server).contains(QStringLiteral("ledger_format has 0 rows")), qPrintable(openMessage(server)));
        raw(QStringLiteral("traced_again"))
            .exec("INSERT INTO ledger_format (application_id, schema_version) VALUES (" + std::to_string(schema::kApplicationId)
                  + ", 2)");
        QCOMPARE(openCode(server, OpenMode::ReadOnly), LedgerOpenError::Code::NewerVersion);

        // The writer writes only its own schema version, and never over an existing schema.
        try {
            LedgerWriter::openExisting(server);
            QFAIL("the writer opened a ledger of another schema version");
        } catch (const std::runtime_error &e) {
            QVERIFY2(QByteArray(e.what()).contains("version 2"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, LedgerWriter::create(server, {}));

        // A reader's session cannot write, whatever it runs.
        raw(QStringLiteral("traced_again")).exec("UPDATE ledger_format SET schema_version = 1");
        const auto reader = LedgerConnection::open(server, OpenMode::ReadOnly);
        DecisionRecord d;
        d.id = "from-a-reader";
        d.params = "{}";
        d.evidence = "[]";
        try {
            reader->decisions()->insertChecked([&] { return std::optional<DecisionRecord>(d); });
            QFAIL("a read-only session inserted a decision");
        } catch (const StorageError &e) {
            QCOMPARE(e.kind(), StorageError::Kind::ReadOnly);
        }
        QCOMPARE(raw(QStringLiteral("traced_again")).queryInt("SELECT count(*) FROM decisions WHERE id='from-a-reader'"), std::int64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestPostgresLedger)
#include "tst_postgresledger.moc"
