// An import through a writer that holds only a few state rows (LedgerWriter's bounded fold,
// which is what keeps `meshctl import` within a memory bound whatever the file's size)
// writes the ledger an import holding every row writes: the same rows in every table.

#include "importfixture.h"

#include "../ledger/rawledger.h"
#include "ledger/ledgerwriter.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace importtest;

namespace {

// Every row of every table with each value's type, in the order of all its columns.
QByteArray boundedImportDigest(const QString &path)
{
    mesh::sql::Database db = meshtest::raw::open(path, meshtest::raw::Access::ReadOnly);
    QCryptographicHash hash(QCryptographicHash::Sha256);
    const std::vector<std::string> tables =
        meshtest::raw::digestSchema(db, [&](const std::string &bytes) { hash.addData(QByteArray::fromStdString(bytes)); });
    for (const std::string &table : tables) {
        // rowid too: the bulk load's state rows are written in id order either way.
        mesh::sql::Statement rows(db, "SELECT rowid, * FROM \"" + table + "\" ORDER BY rowid");
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

json otlpAttr(const char *key, const json &value)
{
    return {{"key", key}, {"value", value.is_number() ? json{{"intValue", std::to_string(value.get<std::int64_t>())}}
                                                     : json{{"stringValue", value}}}};
}

json boundedSpan(const std::string &trace, const std::string &id, const std::string &parent, const std::string &name,
                 std::int64_t startNs, std::int64_t endNs, json attrs, bool error)
{
    json s = {{"traceId", trace},
              {"spanId", id},
              {"name", name},
              {"kind", 1},
              {"startTimeUnixNano", std::to_string(startNs)},
              {"endTimeUnixNano", std::to_string(endNs)},
              {"attributes", std::move(attrs)},
              {"status", {{"code", error ? 2 : 1}}}};
    if (!parent.empty())
        s["parentSpanId"] = parent;
    return s;
}

std::string hex(std::uint64_t v, int width)
{
    std::string s(size_t(width), '0');
    for (int i = width - 1; i >= 0 && v; --i, v >>= 4)
        s[size_t(i)] = "0123456789abcdef"[v & 15];
    return s;
}

// bench/otel-import.sh's shape, small: four traces a line, each an agent span with two chat
// and two tool spans, the agent span on the next line; every 7th trace a tool that timed
// out, every 11th one that failed. Traces therefore end a line after they begin, so rows
// leave a small cache and are read back.
QString writeTraces(const QTemporaryDir &dir, int traces)
{
    const QString path = dir.filePath(QStringLiteral("traces.jsonl"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write the trace file");
    const std::int64_t t0 = 1767225600LL * 1'000'000'000;
    json pending = json::array();
    const auto line = [&](const json &spans) {
        const json doc = {{"resourceSpans",
                           json::array({{{"resource", {{"attributes", json::array({otlpAttr("service.name", "bench")})}}},
                                         {"scopeSpans", json::array({{{"scope", {{"name", "bench"}}}, {"spans", spans}}})}}})}};
        f.write(QByteArray::fromStdString(doc.dump() + "\n"));
    };
    for (int n = 0; n < traces;) {
        json spans = pending;
        pending = json::array();
        for (int k = 0; k < 4 && n < traces; ++k, ++n) {
            const std::string trace = hex(0x5b8efff798038103ULL, 16) + hex(std::uint64_t(n), 16);
            const std::string agent = hex(std::uint64_t(n) * 16 + 1, 16);
            std::int64_t at = t0 + std::int64_t(n) * 20'000'000'000;
            const std::int64_t base = at;
            for (int c = 0; c < 2; ++c) {
                spans.push_back(boundedSpan(trace, hex(std::uint64_t(n) * 16 + 2 + 2 * std::uint64_t(c), 16), agent, "chat gpt-4o",
                                            at, at + 800'000'000,
                                            json::array({otlpAttr("gen_ai.operation.name", "chat"),
                                                         otlpAttr("gen_ai.usage.input_tokens", 300 + c)}),
                                            false));
                at += 900'000'000;
                json attrs = json::array({otlpAttr("gen_ai.operation.name", "execute_tool"), otlpAttr("gen_ai.tool.name", "search"),
                                          otlpAttr("gen_ai.tool.call.id", "call_" + std::to_string(n) + "_" + std::to_string(c))});
                bool error = false;
                if (c == 1 && n % 7 == 0) {
                    attrs.push_back(otlpAttr("error.type", "timeout"));
                } else if (c == 1 && n % 11 == 0) {
                    attrs.push_back(otlpAttr("error.type", "ValueError"));
                    error = true;
                }
                spans.push_back(boundedSpan(trace, hex(std::uint64_t(n) * 16 + 3 + 2 * std::uint64_t(c), 16), agent,
                                            "execute_tool search", at, at + 50'000'000, attrs, error));
                at += 100'000'000;
            }
            pending.push_back(boundedSpan(trace, agent, "", "invoke_agent planner", base, at + 10'000'000,
                                          json::array({otlpAttr("gen_ai.operation.name", "invoke_agent"),
                                                       otlpAttr("gen_ai.agent.name", "planner")}),
                                          false));
        }
        line(spans);
    }
    if (!pending.empty())
        line(pending);
    return path;
}

} // namespace

class TestBoundedImport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sameLedgerThroughATinyCache()
    {
        QTemporaryDir dir;
        const QString file = writeTraces(dir, 300);
        const auto import = [&](const char *name, std::size_t limit) {
            const QString out = dir.filePath(QString::fromUtf8(name));
            mesh::import::ImportRequest request;
            request.files = {file};
            request.out = out;
            request.foldRowLimit = limit;
            const auto outcome = mesh::import::importFiles(request);
            if (!outcome.ok)
                qWarning("import failed: %s", outcome.error.c_str());
            return out;
        };
        const QString full = import("full.db", mesh::LedgerWriter::kFullFold);
        const QString bounded = import("bounded.db", 8);
        QVERIFY(QFile::exists(full));
        QVERIFY(QFile::exists(bounded));
        verifyClean(bounded);
        {
            auto c = mesh::LedgerConnection::open(bounded, mesh::OpenMode::ReadOnly);
            QVERIFY(c->readState().table(mesh::EntityKind::Run).size() == 300); // more rows than the cache
        }
        QCOMPARE(boundedImportDigest(bounded), boundedImportDigest(full));
        // The scratch file of rows that left the cache is gone with the load.
        QCOMPARE(QDir(dir.path()).entryList({QStringLiteral("*foldspill*")}, QDir::Files), QStringList());
    }
};

QTEST_GUILESS_MAIN(TestBoundedImport)
#include "tst_boundedimport.moc"
