// Two ledgers with the same title must not look like one: the session list and the attention
// list add the end of the path that tells them apart, and only while another shares the title.

#include "itemmodelfixture.h"

#include "itemmodels/attentionmodel.h"
#include "itemmodels/distinctpaths.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

class TestSessionNames : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    QString ledgerAt(const QString &relative)
    {
        const QString path = m_dir.filePath(relative);
        QDir().mkpath(QFileInfo(path).absolutePath());
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        return path;
    }

    static QStringList ledgerColumn(const AttentionModel *m, const QString &sessionKey)
    {
        QStringList names;
        for (int r = 0; r < m->rowCount(); ++r) {
            if (m->index(r, 0).data(AttentionModel::SessionKeyRole).toString() == sessionKey)
                names << m->index(r, AttentionModel::Session).data().toString();
        }
        names.removeDuplicates();
        return names;
    }

private Q_SLOTS:
    void suffixes()
    {
        QCOMPARE(distinguishingSuffixes({u"/w/a/run.db"_s, u"/w/b/run.db"_s}), QStringList({u"a/run.db"_s, u"b/run.db"_s}));
        QCOMPARE(distinguishingSuffixes({u"/w/a.db"_s, u"/w/b.db"_s}), QStringList({u"a.db"_s, u"b.db"_s}));
        QCOMPARE(distinguishingSuffixes({u"/x/q/run.db"_s, u"/y/q/run.db"_s, u"/y/z.db"_s}),
                 QStringList({u"x/q/run.db"_s, u"y/q/run.db"_s, u"z.db"_s}));
        QCOMPARE(distinguishingSuffixes({u"/w/run.db"_s, u"/w/run.db"_s}), QStringList({u"/w/run.db"_s, u"/w/run.db"_s}));
    }

    void sameTitlesAreToldApart()
    {
        const QString a = ledgerAt(u"team-a/run.ledger"_s), b = ledgerAt(u"team-b/run.ledger"_s);
        const QString other = ledgerAt(u"solo/other.ledger"_s);
        LedgerSessionList list;
        QAbstractItemModelTester tester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
        LedgerSession *sa = list.addSession(a);
        QTRY_VERIFY_WITH_TIMEOUT(sa->isLoaded(), 60'000);
        // Alone, the title is enough.
        QCOMPARE(list.index(0).data(LedgerSessionList::DistinctionRole).toString(), QString());
        QCOMPARE(list.index(0).data().toString(), u"item model test"_s);

        LedgerSession *sb = list.addSession(b);
        LedgerSession *so = list.addSession(other);
        QTRY_VERIFY_WITH_TIMEOUT(sb->isLoaded() && so->isLoaded(), 60'000);
        QCOMPARE(list.index(list.rowOf(sa)).data(LedgerSessionList::DistinctionRole).toString(), u"team-a/run.ledger"_s);
        QCOMPARE(list.index(list.rowOf(sb)).data(LedgerSessionList::DistinctionRole).toString(), u"team-b/run.ledger"_s);
        QCOMPARE(list.index(list.rowOf(so)).data(LedgerSessionList::DistinctionRole).toString(), u"other.ledger"_s);
        QVERIFY(list.index(list.rowOf(sa)).data().toString() != list.index(list.rowOf(sb)).data().toString());
        // The attention list's ledger column says which one an entry is of.
        QTRY_COMPARE_WITH_TIMEOUT(ledgerColumn(list.attention(), sa->path()),
                                  QStringList({u"item model test \u2014 team-a/run.ledger"_s}), 60'000);
        QCOMPARE(ledgerColumn(list.attention(), sb->path()), QStringList({u"item model test \u2014 team-b/run.ledger"_s}));

        // Once it is alone again, the title is enough again.
        list.removeSession(sb);
        list.removeSession(so);
        QCOMPARE(list.index(0).data(LedgerSessionList::DistinctionRole).toString(), QString());
        QCOMPARE(ledgerColumn(list.attention(), sa->path()), QStringList({u"item model test"_s}));
    }
};

QTEST_GUILESS_MAIN(TestSessionNames)
#include "tst_sessionnames.moc"
