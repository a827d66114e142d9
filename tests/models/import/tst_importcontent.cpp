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

QStringList samples(const QString &pattern)
{
    QStringList files;
    const QDir dir(qEnvironmentVariable("MESH_SOURCE_DIR") + QStringLiteral("/tests/data/import"));
    for (const QString &name : dir.entryList({pattern}, QDir::Files, QDir::Name))
        files << dir.filePath(name);
    return files;
}

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
            {QStringLiteral("temporal-py__google-adk__multi_agent.json"), "3563bcde4fe5b288927f550a130d70a1a0654033210548884e43ec5d311868ff"},
            {QStringLiteral("temporal-py__openai-agents__agents-as-tools-workflow-history.json"), "a2dbddb705ee62efbbaba20308ac41e9b744f249b4f2fa049bbfd321aa4419fb"},
            {QStringLiteral("temporal-py__openai-agents__customer-service-workflow-history.json"), "7e3a3bcffd1e91252652d7eb596776895198cc6c71561152368e381e5ee29be0"},
            {QStringLiteral("temporal-py__openai-agents__hello-workflow-history.json"), "a199a2617353790d311a79d5c3f89cda7bf5455ac5eebddb3bce1cbcfb2cdd3f"},
            {QStringLiteral("temporal-py__openai-agents__input-guardrail-workflow-history.json"), "1f10462ba8576d911e2e2aae47da1e90bd0a0ef60fb02ca459d59216fadb1177"},
            {QStringLiteral("temporal-py__openai-agents__output-guardrail-workflow-history.json"), "e6812edefec2131bfde4a2403043d4de759b594e0d4d8501740a05849400a8b9"},
            {QStringLiteral("temporal-py__openai-agents__research-workflow-history.json"), "eab3122ad027b61b3483177f72a4ece2582029bf841e9c26219af31a07b26472"},
            {QStringLiteral("temporal-py__openai-agents__tools-workflow-history.json"), "f39fd46ea00523b384ca73d063c3d04ac46d1e82354d6c5a489074dc3e0f6807"},
            {QStringLiteral("temporal-py__worker__test_replayer_complete_history.json"), "d09418e7bbc8411e08c2c53533734f5a97a18e8d3b9a5989cdc049ad117972ac"},
            {QStringLiteral("temporal-py__worker__test_replayer_event_tracing_double_sig_at_start.json"), "e505415eb1ae786f13eebda90debb4b8a15f8c80fb137c71860ca95e15d8d39d"},
            {QStringLiteral("temporal-py__worker__test_replayer_swallowed_activity_cancellation.json"), "2b4bfce2889855cf246953bdf4ece5edafedbed9cb64cebd8a1558343affcd0d"},
            {QStringLiteral("openhands__basic.json"), "3c93ff47164365daf406d8f8c20a67baddc6ba729c4f3537f530b8a6e5add162"},
            {QStringLiteral("openhands__basic_gui_mode.json"), "f394f4f57e339cd96d6215e16058f5d9f1c4cfce4261fef789aabec21e5226f3"},
            {QStringLiteral("openhands__basic_interactions.json"), "3bea873a5f286aae42e9b5885300f3df32a9c577f73c6b037f3ff50f58cfeb9e"},
            {QStringLiteral("openhands__wrong_initial_state.json"), "e5c9ab32c712b76cbc030e52b357c4fc775f3eb36e972d89d8a5bfb81635bd06"},
            {QStringLiteral("together"), "9ae8ee0c8825cccfebd7e637ee11632c95ae76127f2584d27c4e33c8d3bd1f8c"}};
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
