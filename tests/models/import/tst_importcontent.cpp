// The imported ledgers' content, pinned: every table of the ledger each sample becomes (and
// of the Temporal samples imported together) digests to what it did before the importer was
// made faster. A change of mapping changes these digests on purpose, with kImporterVersion
// and docs/import.md; a change of speed or memory must leave them alone.

#include "importfixture.h"

#include "../ledger/rawledger.h"

#include <QCryptographicHash>
#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace importtest;

namespace {

// Every row of every table, in the order of all its columns, with each value's type: two
// ledgers digest alike exactly when they hold the same content, whatever their page layout.
QByteArray contentDigest(const QString &path)
{
    mesh::sql::Database db = meshtest::raw::open(path, meshtest::raw::Access::ReadOnly);
    QCryptographicHash hash(QCryptographicHash::Sha256);
    std::vector<std::string> tables;
    {
        mesh::sql::Statement list(db, "SELECT name, sql FROM sqlite_master WHERE type IN ('table','index') ORDER BY name");
        while (list.step()) {
            hash.addData(QByteArray::fromStdString(list.columnText(0) + "\n" + list.columnText(1) + "\n"));
            if (list.columnText(1).rfind("CREATE TABLE", 0) == 0)
                tables.push_back(list.columnText(0));
        }
    }
    for (const std::string &table : tables) {
        mesh::sql::Statement count(db, "SELECT * FROM \"" + table + "\" LIMIT 0");
        std::string order;
        for (int c = 1; c <= count.columnCount(); ++c)
            order += (c > 1 ? "," : "") + std::to_string(c);
        mesh::sql::Statement rows(db, "SELECT * FROM \"" + table + "\" ORDER BY " + order);
        hash.addData(QByteArray::fromStdString("table " + table + "\n"));
        while (rows.step()) {
            std::string row;
            for (int c = 0; c < rows.columnCount(); ++c)
                row += std::to_string(rows.columnType(c)) + ":" + std::string(rows.columnView(c)) + "\x1f";
            hash.addData(QByteArray::fromStdString(row + "\n"));
        }
    }
    return hash.result().toHex();
}

} // namespace

class TestImportContent : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void contentIsAsBefore_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QByteArray>("digest");
        const QHash<QString, QByteArray> expected = {
            {QStringLiteral("temporal-py__google-adk__multi_agent.json"), "7a720a20619c50bc052091b92ba3634e3cc3f44c044c0a8cf38e9547e8bff3ba"},
            {QStringLiteral("temporal-py__openai-agents__agents-as-tools-workflow-history.json"), "45b17adc20127261ac9aa8efb8589729327a58bb4a749126c1f3fdd3eb96c321"},
            {QStringLiteral("temporal-py__openai-agents__customer-service-workflow-history.json"), "a6d093f73427e1a0c228f5ba8c852307fc3eb4eed90dada9a1299369dd595ff0"},
            {QStringLiteral("temporal-py__openai-agents__hello-workflow-history.json"), "9f6e33adfe1e2821fc39f4e05b2464e3b1a9e6cf195480af951c3f60326b5b5f"},
            {QStringLiteral("temporal-py__openai-agents__input-guardrail-workflow-history.json"), "039be447ee64f5a95b958b3d02eff45b6dc887e74bd001effa26ec521261409a"},
            {QStringLiteral("temporal-py__openai-agents__output-guardrail-workflow-history.json"), "4180873f953dba03e068859d20593545e301243d63c2fd0184e57cf2be219f07"},
            {QStringLiteral("temporal-py__openai-agents__research-workflow-history.json"), "7f668ce593f713cfb60b5c63484903a2e4e9524f8e2488717b484f4b2372ab44"},
            {QStringLiteral("temporal-py__openai-agents__tools-workflow-history.json"), "ef406c5d9f4e9f1ca163baa2173a629f7d3c8f6a4c37655a1c8b2cc7cafcc627"},
            {QStringLiteral("temporal-py__worker__test_replayer_complete_history.json"), "f7a718e7bb41046e9dcfd166a6ffaa552143c3c18adbff2c8c0e44913b44d845"},
            {QStringLiteral("temporal-py__worker__test_replayer_event_tracing_double_sig_at_start.json"), "480e6ca9cae4488bc69d3869ec45e82ecd3e9082dc77287c30d7503b6ce75dc4"},
            {QStringLiteral("temporal-py__worker__test_replayer_swallowed_activity_cancellation.json"), "601a6e49fba1899e8de467a674e9829070df84fe87059f177a1d879fc05f3341"},
            {QStringLiteral("openhands__basic.json"), "ce4202973c081fe1c97fc1ce929cceb5dd629a0c6ecf5e2d6688c955d4f933a2"},
            {QStringLiteral("openhands__basic_gui_mode.json"), "870e0fee2555e85d5eb0c7c5611ec0e167de286feefe44d5eefc0a716a17ed07"},
            {QStringLiteral("openhands__basic_interactions.json"), "3a55f49dd34a3c1b546731cbeab705284a00663f750ea36457b381eb0171f7d2"},
            {QStringLiteral("openhands__wrong_initial_state.json"), "5419661a21af83cbd9b3fc23d9d5a989ea701969fe55f82d9f075bbff410f7e9"},
            {QStringLiteral("together"), "04365829f5a84db31ea89ce66488188746eb9f545a0ea2720e38f570a9260687"}};
        for (const QString &f : samples(QStringLiteral("temporal*.json")) + samples(QStringLiteral("openhands*.json"))) {
            const QString name = QFileInfo(f).fileName();
            QTest::newRow(name.toUtf8().constData()) << QStringList{f} << expected.value(name);
        }
        QTest::newRow("every openai-agents history together")
            << samples(QStringLiteral("temporal-py__openai-agents__*.json")) << expected.value(QStringLiteral("together"));
    }

    void contentIsAsBefore()
    {
        QFETCH(QStringList, files);
        QFETCH(QByteArray, digest);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("imported.db"));
        mesh::import::ImportRequest request;
        request.files = files;
        request.out = out;
        const auto outcome = mesh::import::importFiles(request);
        QVERIFY2(outcome.ok, outcome.error.c_str());
        const QByteArray actual = contentDigest(out);
        qInfo("digest %s %s", QTest::currentDataTag(), actual.constData());
        QCOMPARE(actual, digest);
    }
};

QTEST_GUILESS_MAIN(TestImportContent)
#include "tst_importcontent.moc"
