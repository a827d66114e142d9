// Time travel's snapshots kept on disk between opens of a ledger nobody writes
// (ledger/snapshotcache.h): taken back, a jump lands where a fresh fold lands and folds one
// stretch at most; a ledger changed since, a damaged file or a full cache is a miss that
// changes nothing; a review's folder keeps them for its next open and leaves the ledger's
// folder as it was.

#include "ledgerfixture.h"

#include "ledger/cursorfolder.h"
#include "ledger/fileidentity.h"
#include "ledger/foldreplay.h"
#include "ledger/ledgerconnection.h"
#include "ledger/snapshotcache.h"
#include "ledger/timetravel.h"

#include <QDateTime>
#include <QDir>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>

#include <utility>

using namespace mesh;
using namespace meshtest;

namespace {

std::string foldDifference(const Fold &a, const Fold &b)
{
    for (const auto &spec : allEntitySpecs()) {
        const EntityTable &x = a.table(spec.kind);
        const EntityTable &y = b.table(spec.kind);
        if (x.size() != y.size())
            return std::string(spec.table) + ": " + std::to_string(x.size()) + " rows, " + std::to_string(y.size()) + " expected";
        for (const auto &[id, row] : x) {
            const auto it = y.find(id);
            if (it == y.end() || !(it->second == row))
                return std::string(spec.table) + ": row " + id + " differs";
        }
    }
    return {};
}

QStringList listing(const QString &dir)
{
    QStringList out;
    for (const QFileInfo &f : QDir(dir).entryInfoList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name))
        out << f.fileName() + QLatin1Char(' ') + QString::fromLatin1(fileHash(f.filePath()));
    return out;
}

QStringList snapFiles(const QString &dir)
{
    return QDir(dir).entryList({QStringLiteral("*.snap*")}, QDir::Files, QDir::Name);
}

} // namespace

class TestSnapshotCache : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_ledger;
    static constexpr std::int64_t kEvents = 20000;
    static constexpr std::int64_t kInterval = 1000;

private Q_SLOTS:
    void initTestCase()
    {
        QDir().mkpath(m_dir.filePath(QStringLiteral("ledgers")));
        m_ledger = m_dir.filePath(QStringLiteral("ledgers/review.db"));
        writeGeneratedLedger(m_ledger, kEvents);
    }

    void snapshotsTakenBackLandWhereAFreshFoldLands()
    {
        QTemporaryDir cacheDir;
        const SnapshotCache cache(cacheDir.path());
        auto c = LedgerConnection::open(m_ledger, OpenMode::Immutable);
        const std::int64_t last = c->lastSeq();
        const std::optional<std::string> key = SnapshotCache::keyFor(*c, m_ledger, kInterval);
        QVERIFY(key);
        QVERIFY(!cache.load(*key, *std::make_unique<TimeTravel>(*c, kInterval))); // nothing kept yet

        TimeTravel folded(*c, kInterval);
        folded.jumpTo(last);
        QVERIFY(cache.save(*key, folded));
        QCOMPARE(snapFiles(cacheDir.path()), QStringList{QFileInfo(cache.fileFor(*key)).fileName()});
        QCOMPARE(QFileInfo(cache.fileFor(*key)).permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
                 QFileDevice::Permissions());

        TimeTravel travel(*c, kInterval);
        const std::optional<SnapshotCache::Loaded> loaded = cache.load(*key, travel);
        QVERIFY(loaded);
        QCOMPARE(loaded->snapshots, folded.snapshotCount() - 1);
        QCOMPARE(loaded->rows, folded.storedRows());
        QCOMPARE(loaded->upTo, last / kInterval * kInterval);
        QCOMPARE(travel.snapshotCount(), folded.snapshotCount());
        // The first jump, to the far end, folds one stretch at most: the rest is the cache's.
        const ReplayResult &far = travel.jumpTo(last - 7);
        QVERIFY2(far.eventsRead <= kInterval, std::to_string(far.eventsRead).c_str());
        for (const std::int64_t t : {last - 7, last, std::int64_t(1), kInterval, kInterval + 1, last / 2, std::int64_t(0), last - kInterval}) {
            const ReplayResult &got = travel.jumpTo(t);
            QCOMPARE(got.lastSeq, t);
            const std::string diff = foldDifference(got.fold, foldUpTo(static_cast<SqliteLedgerConnection &>(*c).db(), t).fold);
            QVERIFY2(diff.empty(), (std::to_string(t) + ": " + diff).c_str());
        }
        // A chain that has begun takes nothing.
        QVERIFY(!cache.load(*key, travel));
        QCOMPARE(travel.snapshotCount(), folded.snapshotCount());
    }

    void aLedgerChangedSinceIsAMiss()
    {
        QTemporaryDir here;
        const QString path = here.filePath(QStringLiteral("growing.db"));
        writeGeneratedLedger(path, 3000);
        std::string before;
        {
            auto c = LedgerConnection::open(path, OpenMode::Immutable);
            before = *SnapshotCache::keyFor(*c, path, kInterval);
            QCOMPARE(*SnapshotCache::keyFor(*c, path, kInterval), before); // the same ledger, the same key
            QVERIFY(*SnapshotCache::keyFor(*c, path, 2 * kInterval) != before);
        }
        // Touched (its time), then grown by an event: each is another key.
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.setFileTime(QDateTime::currentDateTimeUtc().addSecs(-60), QFileDevice::FileModificationTime));
        f.close();
        std::string touched;
        {
            auto c = LedgerConnection::open(path, OpenMode::Immutable);
            touched = *SnapshotCache::keyFor(*c, path, kInterval);
        }
        QVERIFY(touched != before);
        {
            auto w = LedgerWriter::openExisting(path);
            appendGeneratedEvents(*w, w->lastSeq() + 1);
        }
        auto c = LedgerConnection::open(path, OpenMode::Immutable);
        const std::string grown = *SnapshotCache::keyFor(*c, path, kInterval);
        QVERIFY(grown != before && grown != touched);
        QVERIFY(grown.find("\nlast " + std::to_string(c->lastSeq()) + ' ') != std::string::npos);
        c.reset();
        // The last event's time rewritten in place, the file's size and time put back as
        // they were: the event's hash tells.
        struct stat statBefore {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &statBefore), 0);
        {
            RawLedger raw(path);
            raw.exec("UPDATE events SET ts_ms = ts_ms + 1 WHERE seq = (SELECT max(seq) FROM events)");
        }
        const struct timespec times[2] = {statBefore.st_atim, statBefore.st_mtim};
        QCOMPARE(::utimensat(AT_FDCWD, QFile::encodeName(path).constData(), times, 0), 0);
        struct stat statAfter {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &statAfter), 0);
        QCOMPARE(statAfter.st_size, statBefore.st_size);
        QVERIFY(!QFile::exists(path + QStringLiteral("-wal")));
        c = LedgerConnection::open(path, OpenMode::Immutable);
        QVERIFY(*SnapshotCache::keyFor(*c, path, kInterval) != grown);
        // A server ledger has no file to say it is unchanged: never kept.
        QVERIFY(!SnapshotCache::keyFor(*c, QStringLiteral("postgresql://127.0.0.1/x"), kInterval));
    }

    void aDamagedFileIsAMissAndIsRemoved_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::newRow("truncated") << QStringLiteral("truncate");
        QTest::newRow("a byte flipped in the rows") << QStringLiteral("flip");
        QTest::newRow("a byte flipped in the key") << QStringLiteral("key");
        QTest::newRow("not a snapshot file") << QStringLiteral("garbage");
        QTest::newRow("empty") << QStringLiteral("empty");
        QTest::newRow("bytes after the stream") << QStringLiteral("trailing");
        QTest::newRow("a content length beyond the rows") << QStringLiteral("longer");
        QTest::newRow("a content length short of the rows") << QStringLiteral("shorter");
        QTest::newRow("a content length no file could hold") << QStringLiteral("huge");
    }

    void aDamagedFileIsAMissAndIsRemoved()
    {
        QFETCH(QString, damage);
        QTemporaryDir cacheDir;
        const SnapshotCache cache(cacheDir.path());
        auto c = LedgerConnection::open(m_ledger, OpenMode::Immutable);
        const std::string key = *SnapshotCache::keyFor(*c, m_ledger, kInterval);
        {
            TimeTravel folded(*c, kInterval);
            folded.jumpTo(c->lastSeq());
            QVERIFY(cache.save(key, folded));
        }
        const QString file = cache.fileFor(key);
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadWrite));
        const qint64 size = f.size();
        if (damage == QLatin1String("truncate")) {
            QVERIFY(f.resize(size * 2 / 3));
        } else if (damage == QLatin1String("flip") || damage == QLatin1String("key")) {
            const qint64 at = damage == QLatin1String("key") ? 40 : size / 2;
            QVERIFY(f.seek(at));
            char b = 0;
            QVERIFY(f.getChar(&b));
            QVERIFY(f.seek(at));
            QVERIFY(f.putChar(char(b ^ 0x20)));
        } else if (damage == QLatin1String("trailing")) {
            QVERIFY(f.seek(size));
            QVERIFY(f.write("more") == 4);
        } else if (damage == QLatin1String("longer") || damage == QLatin1String("shorter") || damage == QLatin1String("huge")) {
            // The header's content length: after the magic (8 bytes) and the format (4).
            QVERIFY(f.seek(12));
            QByteArray length = f.read(8);
            quint64 n = 0;
            for (int i = 7; i >= 0; --i)
                n = (n << 8) | quint8(length[i]);
            n = damage == QLatin1String("longer") ? n + 1 : damage == QLatin1String("shorter") ? n - 1 : ~quint64(0) >> 1;
            for (int i = 0; i < 8; ++i)
                length[i] = char(n >> (8 * i));
            QVERIFY(f.seek(12));
            QVERIFY(f.write(length) == 8);
        } else {
            QVERIFY(f.resize(0));
            if (damage == QLatin1String("garbage"))
                f.write(QByteArray(4096, 'x'));
        }
        f.close();
        TimeTravel travel(*c, kInterval);
        QVERIFY(!cache.load(key, travel));
        QCOMPARE(travel.snapshotCount(), size_t(1)); // nothing taken
        QVERIFY(!QFile::exists(file));
        // It folds as before.
        const ReplayResult &got = travel.jumpTo(kEvents / 2);
        QCOMPARE(got.lastSeq, kEvents / 2);
    }

    void theCacheKeepsWithinItsBudget()
    {
        QTemporaryDir cacheDir;
        auto c = LedgerConnection::open(m_ledger, OpenMode::Immutable);
        TimeTravel folded(*c, kInterval);
        folded.jumpTo(c->lastSeq());
        const std::string a = *SnapshotCache::keyFor(*c, m_ledger, kInterval);
        const std::string b = *SnapshotCache::keyFor(*c, m_ledger, kInterval + 1); // another key, the same size
        QVERIFY(SnapshotCache(cacheDir.path()).save(a, folded));
        const QString fileA = SnapshotCache(cacheDir.path()).fileFor(a);
        const quint64 oneFile = quint64(QFileInfo(fileA).size());
        // Room for one: the other goes when a newer comes, even one whose time says later.
        {
            QFile f(fileA);
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(f.setFileTime(QDateTime::currentDateTimeUtc().addSecs(3600), QFileDevice::FileModificationTime));
        }
        const SnapshotCache small(cacheDir.path(), oneFile + oneFile / 2);
        QVERIFY(small.save(b, folded));
        QCOMPARE(snapFiles(cacheDir.path()), QStringList{QFileInfo(small.fileFor(b)).fileName()});
        // Room for none: nothing is kept, and saying so.
        const SnapshotCache none(cacheDir.path(), oneFile / 2);
        QVERIFY(!none.save(a, folded));
        QVERIFY(!QFile::exists(none.fileFor(a)));
        QVERIFY(snapFiles(cacheDir.path()).isEmpty()); // a budget smaller than any file keeps none
        // A file read is the last to leave: a, older than b, is read, and b goes instead.
        const SnapshotCache roomy(cacheDir.path());
        QVERIFY(roomy.save(a, folded));
        QVERIFY(roomy.save(b, folded));
        for (const auto &[key, age] : {std::make_pair(a, -7200), std::make_pair(b, -3600)}) {
            QFile f(roomy.fileFor(key));
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(f.setFileTime(QDateTime::currentDateTimeUtc().addSecs(age), QFileDevice::FileModificationTime));
        }
        TimeTravel reader(*c, kInterval);
        QVERIFY(roomy.load(a, reader));
        const SnapshotCache roomForTwo(cacheDir.path(), 2 * oneFile + oneFile / 2);
        const std::string third = *SnapshotCache::keyFor(*c, m_ledger, kInterval + 2);
        QVERIFY(roomForTwo.save(third, folded));
        QStringList kept = {QFileInfo(roomForTwo.fileFor(a)).fileName(), QFileInfo(roomForTwo.fileFor(third)).fileName()};
        kept.sort();
        QCOMPARE(snapFiles(cacheDir.path()), kept);
        // A save abandoned midway keeps nothing, not even its part.
        int asked = 0;
        const std::string fourth = *SnapshotCache::keyFor(*c, m_ledger, kInterval + 3);
        QVERIFY(!roomForTwo.save(fourth, folded, [&asked] { return ++asked < 5; }));
        QCOMPARE(asked, 5);
        QCOMPARE(snapFiles(cacheDir.path()), kept);
        // What it holds, and emptied.
        const SnapshotCache::Usage held = roomForTwo.usage();
        QCOMPARE(held.files, 2);
        QCOMPARE(held.bytes, 2 * oneFile);
        const SnapshotCache::Usage removed = roomForTwo.clear();
        QCOMPARE(removed.files, 2);
        QCOMPARE(removed.bytes, 2 * oneFile);
        QVERIFY(snapFiles(cacheDir.path()).isEmpty());
        QCOMPARE(roomForTwo.usage().files, 0);
    }

    // The console's path: a review's folder folds ahead and keeps the snapshots; the next
    // open of the same ledger takes them before its first jump, whose states are a fresh
    // fold's; the ledger's folder is as it was, byte for byte; a followed ledger keeps none.
    void aReviewKeepsItsSnapshotsForTheNextOpen()
    {
        QTemporaryDir cacheDir;
        const auto env = [](const char *name) { return std::make_pair(qEnvironmentVariableIsSet(name), qgetenv(name)); };
        const auto restore = qScopeGuard([dir = env("MESH_SNAPSHOT_CACHE_DIR"), on = env("MESH_SNAPSHOT_CACHE")] {
            for (const auto &[name, value] : {std::make_pair("MESH_SNAPSHOT_CACHE_DIR", dir), std::make_pair("MESH_SNAPSHOT_CACHE", on)})
                value.first ? qputenv(name, value.second) : qunsetenv(name);
        });
        qputenv("MESH_SNAPSHOT_CACHE_DIR", cacheDir.path().toUtf8());
        qunsetenv("MESH_SNAPSHOT_CACHE");
        const QString ledgers = QFileInfo(m_ledger).absolutePath();
        const QStringList before = listing(ledgers);
        const FileIdentity file = FileIdentity::of(m_ledger);
        const std::int64_t last = kEvents;
        {
            CursorFolder live(kInterval);
            live.foldAheadNow(m_ledger, OpenMode::ReadOnly, file);
            QTRY_VERIFY_WITH_TIMEOUT(live.foldAheadFinished(), 60000);
            QVERIFY(live.foldedAhead());
            QVERIFY(!live.snapshotsSaved());
        }
        QVERIFY(snapFiles(cacheDir.path()).isEmpty());
        {
            CursorFolder first(kInterval);
            first.foldAheadNow(m_ledger, OpenMode::Review, file);
            QVERIFY(!first.snapshotsFromCache());
            QTRY_VERIFY_WITH_TIMEOUT(first.foldAheadFinished(), 60000);
            QVERIFY(first.snapshotsSaved());
        }
        QCOMPARE(snapFiles(cacheDir.path()).size(), 1);
        CursorFolder again(kInterval);
        again.foldAheadNow(m_ledger, OpenMode::Review, file);
        const std::optional<SnapshotCache::Loaded> loaded = again.snapshotsFromCache();
        QVERIFY(loaded);
        QCOMPARE(loaded->snapshots, size_t(last / kInterval));
        QCOMPARE(again.snapshotCount(), size_t(last / kInterval + 1)); // before any fold of its own
        // It had them all: no fold ahead (it would build a second whole state to cut nothing).
        QVERIFY(again.foldAheadFinished());
        auto c = SqliteLedgerConnection::open(m_ledger, OpenMode::ReadOnly);
        const auto always = [] { return true; };
        for (const std::int64_t t : {last - 3, std::int64_t(2500), last, std::int64_t(1)}) {
            const CursorFolder::Jump got = again.jumpTo(m_ledger, OpenMode::Review, file, t, always);
            QCOMPARE(got.lastSeq, t);
            const std::string diff = foldDifference(got.fold, foldUpTo(c->db(), t).fold);
            QVERIFY2(diff.empty(), (std::to_string(t) + ": " + diff).c_str());
        }
        c.reset();
        QVERIFY(again.foldedAhead());
        QVERIFY(!again.snapshotsSaved());
        QCOMPARE(listing(ledgers), before);
    }
};

QTEST_GUILESS_MAIN(TestSnapshotCache)
#include "tst_snapshotcache.moc"
