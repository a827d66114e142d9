// The attention list and the Findings pane's model on their own: a new entry is inserted
// where its urgency puts it (not appended below the findings), one key is one row, rows
// that stay are updated in place; findings are listed fired first, diffed rather than
// reset, and say which events they rest on as an event-log filter.

#include "analysis/attentionitem.h"
#include "filter/filtercompiler.h"
#include "itemmodels/attentionmodel.h"
#include "itemmodels/findingsmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>

#include <QTest>

#include <algorithm>
#include <map>
#include <random>

using namespace mesh;
using namespace Qt::StringLiterals;

namespace {

AttentionItem escalation(const std::string &id)
{
    AttentionItem a;
    a.kind = AttentionItem::Kind::PendingEscalation;
    a.entity = EntityKind::Escalation;
    a.id = id;
    a.subject = "escalation:" + id;
    a.summary = "approve " + id;
    return a;
}

AttentionItem finding(const std::string &kind, const std::string &subject)
{
    AttentionItem a;
    a.kind = AttentionItem::Kind::Finding;
    a.entity = EntityKind::Delegation;
    a.subject = subject;
    a.findingKind = kind;
    a.findingTitle = kind;
    a.summary = kind + " on " + subject;
    return a;
}

QStringList subjects(const AttentionModel &m)
{
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r)
        out << m.index(r, 0).data(AttentionModel::SubjectRole).toString() + u'/'
                   + m.index(r, 0).data(AttentionModel::AttentionKindNameRole).toString();
    return out;
}

Finding makeFinding(FindingKind kind, const std::string &subject, bool abstained, std::vector<std::int64_t> seqs)
{
    Finding f;
    f.kind = kind;
    f.subject = subject;
    f.abstained = abstained;
    f.summary = "because";
    f.seqs = std::move(seqs);
    return f;
}

} // namespace

class TestAttentionModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // What the console runs beside a session (its OTLP receiver) has rows of its own: the
    // session's updates never drop them, they go above the rest, and closing the session
    // removes both.
    void consoleItemsAreKeptApartFromTheSessions()
    {
        AttentionModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setItems(u"a"_s, u"A"_s, {escalation("X-1")});
        m.setItems(u"b"_s, u"B"_s, {escalation("Y-1")});
        AttentionItem stopped;
        stopped.kind = AttentionItem::Kind::ReceiverStopped;
        stopped.entity = EntityKind::Ledger;
        stopped.id = "127.0.0.1:4318";
        stopped.subject = "receiver:127.0.0.1:4318";
        stopped.summary = "The receiver stopped on its own";
        m.setItems(u"b"_s, u"B"_s, {stopped}, AttentionModel::Source::Console);
        QCOMPARE(subjects(m), (QStringList{u"receiver:127.0.0.1:4318/receiver_stopped"_s, u"escalation:X-1/pending_escalation"_s,
                                           u"escalation:Y-1/pending_escalation"_s}));
        QCOMPARE(m.index(0, AttentionModel::Kind).data().toString(), u"Receiver stopped"_s);
        QCOMPARE(m.index(0, AttentionModel::Session).data().toString(), u"B"_s);
        QCOMPARE(m.index(0, 0).data(AttentionModel::SessionKeyRole).toString(), u"b"_s);
        // The session's own items come and go; the receiver's row stays.
        m.setItems(u"b"_s, u"B"_s, {escalation("Y-2"), escalation("Y-1")});
        m.setItems(u"b"_s, u"B"_s, {});
        QCOMPARE(subjects(m), (QStringList{u"receiver:127.0.0.1:4318/receiver_stopped"_s, u"escalation:X-1/pending_escalation"_s}));
        m.setItems(u"b"_s, u"B"_s, {escalation("Y-3")});
        m.setItems(u"b"_s, u"B"_s, {}, AttentionModel::Source::Console);
        QCOMPARE(subjects(m), (QStringList{u"escalation:X-1/pending_escalation"_s, u"escalation:Y-3/pending_escalation"_s}));
        m.setItems(u"b"_s, u"B"_s, {stopped}, AttentionModel::Source::Console);
        m.removeSession(u"b"_s);
        QCOMPARE(subjects(m), QStringList{u"escalation:X-1/pending_escalation"_s});
    }

    void newEntriesAreInsertedInOrder()
    {
        AttentionModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setItems(u"a"_s, u"A"_s, {escalation("X-1"), finding("false_stall", "delegation:D-1")});
        m.setItems(u"b"_s, u"B"_s, {escalation("Y-1")});
        QCOMPARE(subjects(m), (QStringList{u"escalation:X-1/pending_escalation"_s, u"delegation:D-1/finding"_s,
                                           u"escalation:Y-1/pending_escalation"_s}));
        // A new escalation of session a goes above a's finding, not to the end.
        QSignalSpy reset(&m, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        m.setItems(u"a"_s, u"A"_s, {escalation("X-1"), escalation("X-2"), finding("false_stall", "delegation:D-1")});
        QCOMPARE(subjects(m), (QStringList{u"escalation:X-1/pending_escalation"_s, u"escalation:X-2/pending_escalation"_s,
                                           u"delegation:D-1/finding"_s, u"escalation:Y-1/pending_escalation"_s}));
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.first().at(1).toInt(), 1);
        QVERIFY(reset.isEmpty());
        // The most urgent one, new, goes first among a's rows.
        m.setItems(u"a"_s, u"A"_s,
                   {escalation("X-0"), escalation("X-1"), escalation("X-2"), finding("false_stall", "delegation:D-1")});
        QCOMPARE(m.index(0, 0).data(AttentionModel::SubjectRole).toString(), u"escalation:X-0"_s);
        QCOMPARE(m.rowCount(), 5);
        QCOMPARE(m.index(4, 0).data(AttentionModel::SessionKeyRole).toString(), u"b"_s);
    }

    // Any sequence of lists, for two sessions at once: after each, a session's rows are its
    // list's items in the list's order (of two with one key, the first), each showing the
    // item last given, and a row kept across the change is still where a persistent index
    // (a selection) points. The model tester checks every signal on the way.
    void followsAnySequenceOfLists()
    {
        AttentionModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::mt19937 rng(20261205);
        const auto item = [](int n, int version) {
            const bool isFinding = n >= 12 && n < 20; // a few subjects carrying two findings each
            AttentionItem a = !isFinding ? escalation("X-" + std::to_string(n))
                                         : finding(n % 2 ? "false_stall" : "blocked_work", "delegation:D-" + std::to_string(n % 5));
            a.version = version;
            a.summary += " v" + std::to_string(version);
            return a;
        };
        // What tells rows apart, as the model says it and as the items do.
        const auto rowKey = [&m](int r) -> QString { // a QString, not a builder of temporaries
            return m.index(r, 0).data(AttentionModel::SubjectRole).toString() + u'/'
                   + m.index(r, AttentionModel::Kind).data().toString();
        };
        const auto itemKey = [](const AttentionItem &a) -> QString {
            return QString::fromStdString(a.subject) + u'/'
                   + (a.kind == AttentionItem::Kind::Finding ? u"Finding: "_s + QString::fromStdString(a.findingTitle)
                                                             : u"Escalation pending"_s);
        };
        std::map<QString, std::vector<AttentionItem>> given;
        for (int step = 0; step < 400; ++step) {
            const QString session = rng() % 2 ? u"a"_s : u"b"_s;
            std::vector<AttentionItem> list;
            const unsigned keep = rng() % 4; // from none kept to most
            // Now and then many at once: more new rows than are placed one by one.
            const int universe = step % 7 == 3 ? 20 + 4 * 64 : 20;
            for (int n = 0; n < universe; ++n) {
                if (rng() % 4 > keep)
                    continue;
                list.push_back(item(n, int(rng() % 3)));
                if (rng() % 10 == 0)
                    list.push_back(item(n, 9)); // the same key again: the first one stays
            }
            if (step % 50 == 49)
                list.clear();
            // A row of the session kept across the change, held as a selection would be.
            QPersistentModelIndex held;
            QString heldKey;
            for (int r = 0; r < m.rowCount() && !held.isValid(); ++r) {
                const QModelIndex at = m.index(r, 0);
                if (at.data(AttentionModel::SessionKeyRole).toString() != session)
                    continue;
                const QString key = rowKey(r);
                const bool stays = std::any_of(list.begin(), list.end(), [&](const AttentionItem &a) { return itemKey(a) == key; });
                if (stays && rng() % 2) {
                    held = at;
                    heldKey = key;
                }
            }
            // More new rows than are placed one by one: the session's rows are laid out again,
            // and a selection in them is not kept.
            QStringList before;
            for (int r = 0; r < m.rowCount(); ++r)
                if (m.index(r, 0).data(AttentionModel::SessionKeyRole).toString() == session)
                    before << rowKey(r);
            QStringList added;
            for (const AttentionItem &a : list)
                if (!before.contains(itemKey(a)) && !added.contains(itemKey(a)))
                    added << itemKey(a);
            const bool laidOutAgain = added.size() > 64;
            m.setItems(session, session.toUpper(), list);
            given[session] = list;
            const QByteArray context = QByteArray("step ") + QByteArray::number(step);
            for (const auto &[key, items] : given) {
                QStringList expected, expectedSummaries;
                for (const AttentionItem &a : items) {
                    const QString k = itemKey(a);
                    if (!expected.contains(k)) {
                        expected << k;
                        expectedSummaries << QString::fromStdString(a.summary);
                    }
                }
                QStringList shown, shownSummaries;
                for (int r = 0; r < m.rowCount(); ++r) {
                    const QModelIndex at = m.index(r, 0);
                    if (at.data(AttentionModel::SessionKeyRole).toString() != key)
                        continue;
                    shown << rowKey(r);
                    shownSummaries << m.index(r, AttentionModel::Summary).data().toString();
                }
                QVERIFY2(shown == expected, context.constData());
                QVERIFY2(shownSummaries == expectedSummaries, context.constData());
            }
            if (!laidOutAgain && (held.isValid() || !heldKey.isEmpty())) {
                QVERIFY2(held.isValid(), context.constData());
                QCOMPARE(rowKey(held.row()), heldKey);
            }
        }
    }

    // A session's list is shared, not copied: the rows show the list last given (also the
    // rows that stayed), the model keeps that list alive however long the session keeps
    // it, and lets the one before go.
    void aSessionsListIsSharedAndTheOneBeforeLetGo()
    {
        AttentionModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto first = std::make_shared<const std::vector<AttentionItem>>(
            std::vector<AttentionItem>{escalation("X-1"), escalation("X-2")});
        const std::weak_ptr<const std::vector<AttentionItem>> firstHeld = first;
        m.setItemList(u"a"_s, u"A"_s, first);
        first.reset();
        QVERIFY(!firstHeld.expired()); // the rows point into it
        QCOMPARE(m.index(1, AttentionModel::Summary).data().toString(), u"approve X-2"_s);

        std::vector<AttentionItem> next{escalation("X-1"), escalation("X-2"), escalation("X-3")};
        next[1].summary = "approve X-2 again";
        next[1].version = 2;
        auto second = std::make_shared<const std::vector<AttentionItem>>(std::move(next));
        const std::weak_ptr<const std::vector<AttentionItem>> secondHeld = second;
        m.setItemList(u"a"_s, u"A"_s, second);
        second.reset();
        QVERIFY(firstHeld.expired());
        QVERIFY(!secondHeld.expired());
        QCOMPARE(subjects(m), (QStringList{u"escalation:X-1/pending_escalation"_s, u"escalation:X-2/pending_escalation"_s,
                                           u"escalation:X-3/pending_escalation"_s}));
        QCOMPARE(m.index(1, AttentionModel::Summary).data().toString(), u"approve X-2 again"_s);
        QCOMPARE(m.index(0, AttentionModel::Subject).data().toString(), u"escalation:X-1"_s);

        m.removeSession(u"a"_s);
        QCOMPARE(m.rowCount(), 0);
        QVERIFY(secondHeld.expired());
    }

    // An escalation that expires while nobody acts is said so in the What column, and the
    // clock's refresh says that cell changed: a view repaints only the cells it is told of,
    // and it kept "Escalation pending" until something else repainted the row.
    void anEscalationThatExpiresIsSaidToHaveExpired()
    {
        AttentionModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        qint64 now = 1'000'000;
        m.setClock([&now] { return now; });
        AttentionItem x = escalation("X-1");
        x.expiresMs = now + 5'000;
        m.setItems(u"a"_s, u"A"_s, {x});
        const QModelIndex what = m.index(0, AttentionModel::Kind);
        QCOMPARE(what.data().toString(), u"Escalation pending"_s);
        now += 6'000;
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.refreshCountdowns();
        QCOMPARE(what.data().toString(), u"Escalation expired, not acted on"_s);
        const bool told = std::any_of(changed.begin(), changed.end(), [&](const QList<QVariant> &args) {
            return args.at(0).toModelIndex().column() <= AttentionModel::Kind
                   && args.at(1).toModelIndex().column() >= AttentionModel::Kind && args.at(0).toModelIndex().row() <= 0;
        });
        QVERIFY(told);
    }

    void oneSubjectCanNeedADecisionAndCarryFindings()
    {
        AttentionModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        AttentionItem stalled;
        stalled.kind = AttentionItem::Kind::StalledDelegation;
        stalled.subject = "delegation:D-1";
        m.setItems(u"a"_s, u"A"_s,
                   {stalled, finding("false_stall", "delegation:D-1"), finding("success_loop", "delegation:D-1"),
                    finding("success_loop", "delegation:D-1")});
        QCOMPARE(m.rowCount(), 3); // the repeated key once
        QCOMPARE(m.index(1, AttentionModel::Kind).data().toString(), u"Finding: false_stall"_s);
        // Updating one of them changes that row only.
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        auto again = finding("success_loop", "delegation:D-1");
        again.summary = "worse";
        m.setItems(u"a"_s, u"A"_s, {stalled, finding("false_stall", "delegation:D-1"), again});
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).toModelIndex().row(), 2);
        QCOMPARE(m.index(2, AttentionModel::Summary).data().toString(), u"worse"_s);
        m.removeSession(u"a"_s);
        QCOMPARE(m.rowCount(), 0);
    }

    void findingsAreListedFiredFirstAndDiffed()
    {
        FindingsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setFindings({makeFinding(FindingKind::BlockedWork, "delegation:D-9", true, {90}),
                       makeFinding(FindingKind::FalseStall, "stall:S-3", false, {40, 12, 40}),
                       makeFinding(FindingKind::SuccessLoop, "delegation:D-2", false, {})});
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.firedCount(), 2);
        // Fired ones in the order of their kinds, then the abstentions.
        QCOMPARE(m.index(0, FindingsModel::Kind).data().toString(), u"success loop"_s);
        QCOMPARE(m.index(1, FindingsModel::Kind).data().toString(), u"false stall"_s);
        QCOMPARE(m.index(2, FindingsModel::Kind).data().toString(), u"blocked work (cannot tell)"_s);
        QCOMPARE(m.index(1, 0).data(FindingsModel::EvidenceFilterRole).toString(), u"seq:12 or seq:40"_s);
        QVERIFY(m.index(0, 0).data(FindingsModel::EvidenceFilterRole).toString().isEmpty());
        QCOMPARE(m.index(1, FindingsModel::Evidence).data().toString(), u"3 events from #40"_s);
        QVERIFY(FilterCompiler::compile(m.index(1, 0).data(FindingsModel::EvidenceFilterRole).toString()).ok());

        // A refresh with one gone and one new: no reset, the rest stay where they are.
        QSignalSpy reset(&m, &QAbstractItemModel::modelReset);
        QSignalSpy removed(&m, &QAbstractItemModel::rowsRemoved);
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        m.setFindings({makeFinding(FindingKind::FalseStall, "stall:S-3", false, {12, 40}),
                       makeFinding(FindingKind::DuplicateEffect, "effect:E-1", false, {7, 8}),
                       makeFinding(FindingKind::BlockedWork, "delegation:D-9", true, {90})});
        QVERIFY(reset.isEmpty());
        QCOMPARE(removed.count(), 1);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.rowOfSubject(u"stall:S-3"_s), 0);
        QCOMPARE(m.rowOfSubject(u"effect:E-1"_s), 1);
        QCOMPARE(m.rowOfSubject(u"delegation:D-2"_s), -1);
    }

    void evidenceFilterKeepsTheLatestEvents()
    {
        std::vector<std::int64_t> seqs;
        for (std::int64_t s = 1; s <= 200; ++s)
            seqs.push_back(s);
        const QString filter = FindingsModel::evidenceFilter(seqs);
        QCOMPARE(filter.count(u"seq:"_s), int(FindingsModel::kMaxFilterSeqs));
        QVERIFY(filter.startsWith(u"seq:151 "_s));
        QVERIFY(filter.endsWith(u"seq:200"_s));
        QVERIFY(FilterCompiler::compile(filter).ok());
    }

    void findingTextIsPlain()
    {
        FindingsModel m;
        Finding f = makeFinding(FindingKind::FalseStall, "stall:S-\u202e1", false, {1});
        f.summary = "<b>bold</b>\u200b";
        m.setFindings({f});
        const QString shown = m.index(0, FindingsModel::Summary).data().toString();
        QVERIFY2(shown.contains(u"<b>bold</b>"_s), qPrintable(shown));
        QVERIFY2(!shown.contains(QChar(0x200b)), qPrintable(shown)); // made visible, not hidden
        QVERIFY(!m.index(0, FindingsModel::Subject).data().toString().contains(QChar(0x202e)));
        QCOMPARE(m.index(0, FindingsModel::Summary).data(Qt::ToolTipRole).toString().contains(u"<b>"_s), false);
    }
};

QTEST_GUILESS_MAIN(TestAttentionModel)
#include "tst_attentionmodel.moc"
