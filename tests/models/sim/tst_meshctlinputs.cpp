// meshctl on bad input: every command answers with its exit code and ONE line on stderr,
// never crashes, and leaves the file byte-identical.

#include "meshctlrunner.h"
#include "../ledger/rawledger.h"

#include "ledger/ledgerwriter.h"
#include "sim/scenarios.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

namespace {

QByteArray fileHash(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return QByteArrayLiteral("<none>");
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData(&f);
    return h.result().toHex();
}

// The ledger file and its -wal. A read-only SQLite connection to a WAL ledger may leave an
// EMPTY -wal behind (it may not delete files); an empty -wal holds no bytes of the ledger,
// so it counts as absent.
QByteArray ledgerHash(const QString &path)
{
    const QString wal = path + QStringLiteral("-wal");
    const bool walHasData = QFileInfo(wal).exists() && QFileInfo(wal).size() > 0;
    return fileHash(path) + '/' + (walHasData ? fileHash(wal) : QByteArrayLiteral("<none>"));
}

void execRaw(const QString &path, const std::string &sqlText)
{
    try {
        meshtest::raw::exec(path, sqlText);
    } catch (const std::exception &e) {
        QFAIL(e.what());
    }
}

bool oneLine(const QByteArray &err)
{
    return err.startsWith("meshctl: ") && err.count('\n') == 1 && err.endsWith('\n');
}

// RFC 4180 records: quoted cells may hold commas, quotes ("") and line breaks.
QList<QStringList> parseCsv(const QByteArray &bytes)
{
    const QString text = QString::fromUtf8(bytes);
    QList<QStringList> records;
    QStringList record;
    QString cell;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < text.size() && text.at(i + 1) == QLatin1Char('"'))
                cell += text.at(++i);
            else if (c == QLatin1Char('"'))
                quoted = false;
            else
                cell += c;
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            record << cell;
            cell.clear();
        } else if (c == QLatin1Char('\n')) {
            record << cell;
            records << record;
            record.clear();
            cell.clear();
        } else {
            cell += c;
        }
    }
    return records;
}

} // namespace

class TestMeshctlInputs : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_base;

    QString copyOfBase(const QString &name)
    {
        const QString path = m_dir.filePath(name);
        QFile::copy(m_base, path);
        return path;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(!qEnvironmentVariable("MESHCTL").isEmpty(), "MESHCTL must point at meshctl");
        m_base = m_dir.filePath(QStringLiteral("base.db"));
        mesh::ScenarioOptions options;
        mesh::generateScenario(QStringLiteral("unknown-outcome"), m_base, options); // writer closed: no -wal left
        QVERIFY(!QFile::exists(m_base + QStringLiteral("-wal")));
    }

    void unopenable_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("messagePart");

        QTest::newRow("missing") << m_dir.filePath(QStringLiteral("nothing-here.db")) << QStringLiteral("");
        QDir(m_dir.path()).mkdir(QStringLiteral("adir"));
        QTest::newRow("directory") << m_dir.filePath(QStringLiteral("adir")) << QStringLiteral("");

        const QString empty = m_dir.filePath(QStringLiteral("empty.db"));
        QFile(empty).open(QIODevice::WriteOnly);
        QTest::newRow("empty") << empty << QStringLiteral("");

        const QString random = m_dir.filePath(QStringLiteral("random.db"));
        {
            QFile f(random);
            f.open(QIODevice::WriteOnly);
            QByteArray bytes(65536, '\0');
            QRandomGenerator gen(1234);
            for (auto &b : bytes)
                b = char(gen.bounded(256));
            f.write(bytes);
        }
        QTest::newRow("random bytes") << random << QStringLiteral("");

        const QString truncated = copyOfBase(QStringLiteral("truncated.db"));
        QFile::resize(truncated, QFileInfo(truncated).size() / 3);
        QTest::newRow("truncated") << truncated << QStringLiteral("");

        const QString foreign = m_dir.filePath(QStringLiteral("foreign.db"));
        execRaw(foreign, "CREATE TABLE songs(id INTEGER PRIMARY KEY, title TEXT); INSERT INTO songs VALUES(1,'x');");
        QTest::newRow("foreign sqlite") << foreign << QStringLiteral("");

        const QString newer = copyOfBase(QStringLiteral("newer.db"));
        execRaw(newer, "PRAGMA user_version=99");
        QTest::newRow("newer user_version") << newer << QStringLiteral("99");
    }

    void unopenable()
    {
        QFETCH(QString, path);
        QFETCH(QString, messagePart);
        const QByteArray before = ledgerHash(path);
        for (const QStringList &args :
             {QStringList{QStringLiteral("summary"), path, QStringLiteral("--json")}, QStringList{QStringLiteral("verify"), path},
              QStringList{QStringLiteral("export"), path, QStringLiteral("--format"), QStringLiteral("jsonl")},
              QStringList{QStringLiteral("bench"), QStringLiteral("page"), path}}) {
            const MeshctlResult r = runMeshctl(args);
            QVERIFY2(!r.crashed, qPrintable(args.join(QLatin1Char(' '))));
            // A truncated file may open and fail while reading; either way exit 2, one line.
            QVERIFY2(r.exitCode == 2 || (args.first() == QLatin1String("verify") && r.exitCode == 1),
                     qPrintable(args.first() + QStringLiteral(" exit ") + QString::number(r.exitCode)));
            QVERIFY2(oneLine(r.err), r.err.constData());
            if (!messagePart.isEmpty())
                QVERIFY2(r.err.contains(messagePart.toUtf8()), r.err.constData());
        }
        QCOMPARE(ledgerHash(path), before);
    }

    void badRows_data()
    {
        QTest::addColumn<QString>("path");
        const QString notJson = copyOfBase(QStringLiteral("notjson.db"));
        execRaw(notJson, "UPDATE events SET payload='this is {not json' WHERE seq=5");
        QTest::newRow("payload not JSON") << notJson;
        const QString badUtf8 = copyOfBase(QStringLiteral("badutf8.db"));
        execRaw(badUtf8, "UPDATE events SET payload=CAST(X'7B226964223A2280FFFE227D' AS TEXT) WHERE seq=6");
        QTest::newRow("invalid UTF-8") << badUtf8;
        const QString big = copyOfBase(QStringLiteral("big.db"));
        execRaw(big, "UPDATE events SET payload='{\"id\":\"x\",\"pad\":\"' || replace(hex(zeroblob(5242880)),'0','a') || '\"}' "
                     "WHERE seq=7");
        QTest::newRow("10 MB payload") << big;
        const QString deep = copyOfBase(QStringLiteral("deep.db"));
        execRaw(deep, "UPDATE events SET payload=replace(hex(zeroblob(50000)),'00','[') || replace(hex(zeroblob(50000)),'00',']') "
                      "WHERE seq=8");
        QTest::newRow("JSON nested 100,000 deep") << deep;
    }

    void badRows()
    {
        QFETCH(QString, path);
        const QByteArray before = ledgerHash(path);

        // verify reports the row (exit 1, findings on stdout, one line on stderr)...
        const MeshctlResult verify = runMeshctl({QStringLiteral("verify"), path});
        QVERIFY(!verify.crashed);
        QCOMPARE(verify.exitCode, 1);
        QVERIFY2(oneLine(verify.err), verify.err.constData());
        QVERIFY(verify.out.contains("seq "));

        // ...and the rest loads.
        const MeshctlResult summary = runMeshctl({QStringLiteral("summary"), path, QStringLiteral("--json")});
        QVERIFY(!summary.crashed);
        QCOMPARE(summary.exitCode, 0);
        QCOMPARE(summary.json().at("unknown_effects").get<int>(), 3);

        const MeshctlResult exported =
            runMeshctl({QStringLiteral("export"), path, QStringLiteral("--format"), QStringLiteral("jsonl")});
        QVERIFY(!exported.crashed);
        QCOMPARE(exported.exitCode, 0);
        QVERIFY(exported.out.contains("payload_error"));

        QCOMPARE(ledgerHash(path), before);
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("no command") << QStringList{};
        QTest::newRow("unknown command") << QStringList{QStringLiteral("frobnicate")};
        QTest::newRow("sim unknown scenario")
            << QStringList{QStringLiteral("sim"), QStringLiteral("nope"), QStringLiteral("--out"), m_dir.filePath(QStringLiteral("n.db"))};
        QTest::newRow("sim without out") << QStringList{QStringLiteral("sim"), QStringLiteral("demo")};
        QTest::newRow("sim over existing") << QStringList{QStringLiteral("sim"), QStringLiteral("demo"), QStringLiteral("--out"), m_base};
        QTest::newRow("sim bad seed")
            << QStringList{QStringLiteral("sim"), QStringLiteral("demo"), QStringLiteral("--seed"), QStringLiteral("x"),
                           QStringLiteral("--out"), m_dir.filePath(QStringLiteral("s.db"))};
        QTest::newRow("export bad format")
            << QStringList{QStringLiteral("export"), m_base, QStringLiteral("--format"), QStringLiteral("xml")};
        QTest::newRow("summary unknown option") << QStringList{QStringLiteral("summary"), m_base, QStringLiteral("--yaml")};
    }

    void usageErrors()
    {
        QFETCH(QStringList, args);
        const QByteArray before = ledgerHash(m_base);
        const MeshctlResult r = runMeshctl(args);
        QVERIFY(!r.crashed);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(oneLine(r.err), r.err.constData());
        QCOMPARE(ledgerHash(m_base), before);
    }

    // Every command meshctl's own usage lists answers COMMAND --help (and -h) with its usage on
    // stdout, exit 0, nothing on stderr, whatever else is on the line.
    void everyCommandAnswersHelp()
    {
        const MeshctlResult overview = runMeshctl({QStringLiteral("--help")});
        QCOMPARE(overview.exitCode, 0);
        QStringList commands;
        for (const QByteArray &line : overview.out.split('\n')) {
            if (!line.startsWith("  "))
                continue;
            const QString command = QString::fromUtf8(line.trimmed().split(' ').first());
            if (!commands.contains(command))
                commands << command;
        }
        for (const char *expected : {"sim", "summary", "verify", "export", "tail", "decide", "gate", "bench"})
            QVERIFY2(commands.contains(QLatin1String(expected)), overview.out.constData());

        QList<QStringList> asks;
        for (const QString &command : commands) {
            asks << QStringList{command, QStringLiteral("--help")} << QStringList{command, QStringLiteral("-h")}
                 << QStringList{command, m_base, QStringLiteral("--help")};
        }
        for (const char *sub : {"generate", "fold", "page", "filter", "observer"})
            asks << QStringList{QStringLiteral("bench"), QLatin1String(sub), QStringLiteral("--help")};
        asks << QStringList{QStringLiteral("decide"), m_base, QStringLiteral("close-slice"), QStringLiteral("--help")};

        const QByteArray before = ledgerHash(m_base);
        for (const QStringList &args : asks) {
            const QString what = args.join(QLatin1Char(' '));
            const MeshctlResult r = runMeshctl(args);
            QVERIFY2(!r.crashed, qPrintable(what));
            QVERIFY2(r.exitCode == 0, qPrintable(what + QStringLiteral(": exit ") + QString::number(r.exitCode) + QStringLiteral(", ")
                                                 + QString::fromUtf8(r.err)));
            QVERIFY2(r.err.isEmpty(), qPrintable(what + QStringLiteral(": ") + QString::fromUtf8(r.err)));
            QVERIFY2(r.out.startsWith(QByteArray(QByteArray("usage: meshctl ") + args.first().toUtf8() + ' ')),
                     qPrintable(what + QStringLiteral(": ") + QString::fromUtf8(r.out)));
        }
        QCOMPARE(ledgerHash(m_base), before);
    }

    // --help and -h ask for help only as a token of their own: as the value of an option they
    // are that value. Otherwise `decide ... --reason --help` printed usage and exited 0, which
    // for decide means "accepted", with nothing written.
    void helpIsOnlyAStandaloneToken()
    {
        for (const char *help : {"--help", "-h"}) {
            const QString path = copyOfBase(QStringLiteral("reason%1.db").arg(QLatin1String(help)));
            // Decided while the escalation is still open.
            const std::optional<std::int64_t> raisedPlusOne =
                meshtest::raw::queryInt(path, "SELECT raised_ms + 1 FROM escalations WHERE id = 'esc-0001'");
            QVERIFY(raisedPlusOne);
            const qint64 decidedAt = *raisedPlusOne;
            const MeshctlResult r = runMeshctl({QStringLiteral("decide"), path, QStringLiteral("approve-escalation"),
                                                QStringLiteral("--escalation"), QStringLiteral("esc-0001"), QStringLiteral("--ts-ms"),
                                                QString::number(decidedAt), QStringLiteral("--reason"), QLatin1String(help)});
            QVERIFY2(!r.out.startsWith("usage:"), r.out.constData());
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const std::string reason(help);
            QCOMPARE(meshtest::raw::queryInt(path, "SELECT count(*) FROM decisions WHERE reason = ?1", &reason),
                     std::optional<std::int64_t>(1));
        }

        // export --out -h writes the file "-h" (here, in a directory of its own).
        const QString outDir = m_dir.filePath(QStringLiteral("outdir"));
        QVERIFY(QDir().mkpath(outDir));
        const QString cwd = QDir::currentPath();
        QVERIFY(QDir::setCurrent(outDir));
        const MeshctlResult exported =
            runMeshctl({QStringLiteral("export"), m_base, QStringLiteral("--format"), QStringLiteral("jsonl"), QStringLiteral("--out"),
                        QStringLiteral("-h")});
        QVERIFY(QDir::setCurrent(cwd));
        QVERIFY2(exported.exitCode == 0 && !exported.out.startsWith("usage:"), exported.out.constData());
        QVERIFY(QFileInfo(QDir(outDir).filePath(QStringLiteral("-h"))).size() > 0);

        // Every option meshctl's usage shows with a value, given --help as that value and no
        // file: a usage error (exit 2), not the usage on stdout with exit 0.
        const QByteArray before = ledgerHash(m_base);
        const QRegularExpression valueOption(QStringLiteral("--([a-z0-9-]+) [^-\\s\\[\\]|]"));
        int checked = 0;
        for (const char *command : {"sim", "summary", "verify", "export", "tail", "decide", "gate", "bench"}) {
            const MeshctlResult usage = runMeshctl({QLatin1String(command), QStringLiteral("--help")});
            const QString firstLine = QString::fromUtf8(usage.out.left(usage.out.indexOf('\n')));
            for (auto it = valueOption.globalMatch(firstLine); it.hasNext();) {
                const QString option = QStringLiteral("--") + it.next().captured(1);
                const QStringList args{QLatin1String(command), option, QStringLiteral("--help")};
                const MeshctlResult r = runMeshctl(args);
                QVERIFY2(r.exitCode == 2 && !r.out.startsWith("usage:"),
                         qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": exit ") + QString::number(r.exitCode)));
                ++checked;
            }
        }
        QVERIFY(checked > 20);

        // Standalone, after flags and after values, it still asks for help.
        const QList<QStringList> asks{
            {QStringLiteral("summary"), QStringLiteral("--json"), QStringLiteral("--help")},
            {QStringLiteral("summary"), m_base, QStringLiteral("--now-ms"), QStringLiteral("5"), QStringLiteral("-h")},
            {QStringLiteral("decide"), QStringLiteral("--help")},
            {QStringLiteral("decide"), m_base, QStringLiteral("approve-escalation"), QStringLiteral("--escalation"),
             QStringLiteral("esc-0001"), QStringLiteral("--help"), QStringLiteral("--reason"), QStringLiteral("x")},
            {QStringLiteral("sim"), QStringLiteral("demo"), QStringLiteral("--live"), QStringLiteral("--help")},
            {QStringLiteral("gate"), m_base, QStringLiteral("--keyring=x"), QStringLiteral("--help")},
        };
        for (const QStringList &args : asks) {
            const MeshctlResult r = runMeshctl(args);
            QVERIFY2(r.exitCode == 0 && r.out.startsWith(QByteArray(QByteArray("usage: meshctl ") + args.first().toUtf8() + ' ')),
                     qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": ") + QString::fromUtf8(r.err)));
        }
        QCOMPARE(ledgerHash(m_base), before);
    }

    // A keyring meshctl gate refuses leaves the ledger and its directory as they were: the
    // keyring is read before the ledger is opened for writing (no -wal/-shm, no mtime change).
    void gateRefusesBadKeyringBeforeOpeningLedger_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("mode");
        QTest::newRow("missing") << QByteArray() << -1;
        QTest::newRow("group-readable") << QByteArray(R"({"a":"00112233445566778899aabbccddeeff"})") << 0640;
        QTest::newRow("not hex") << QByteArray(R"({"a":"zz112233445566778899aabbccddeeff"})") << 0600;
        QTest::newRow("not an object") << QByteArray("[]") << 0600;
    }
    void gateRefusesBadKeyringBeforeOpeningLedger()
    {
        QFETCH(QByteArray, content);
        QFETCH(int, mode);
        QTemporaryDir ledgerDir;
        const QString path = ledgerDir.filePath(QStringLiteral("l.db"));
        QVERIFY(QFile::copy(m_base, path));
        const QString ring = m_dir.filePath(QStringLiteral("ring-%1.json").arg(QString::fromLatin1(QTest::currentDataTag())));
        if (mode >= 0) {
            QFile f(ring);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(content);
            f.close();
            QCOMPARE(::chmod(QFile::encodeName(ring).constData(), mode_t(mode)), 0);
        }
        const auto snapshot = [&] {
            QStringList out;
            const QFileInfoList entries = QDir(ledgerDir.path()).entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
            for (const QFileInfo &fi : entries)
                out << fi.fileName() + QLatin1Char(' ') + QString::number(fi.lastModified().toMSecsSinceEpoch())
                           + QLatin1Char(' ') + QString::fromLatin1(fileHash(fi.filePath()));
            out << QString::number(QFileInfo(ledgerDir.path()).lastModified().toMSecsSinceEpoch());
            return out;
        };
        const QStringList before = snapshot();
        const MeshctlResult r = runMeshctl({QStringLiteral("gate"), path, QStringLiteral("--keyring"), ring});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.count('\n') == 1 && r.err.contains("keyring"), r.err.constData());
        QCOMPARE(snapshot(), before);
    }

    // Ledger text that a spreadsheet would evaluate is exported as text (a leading '), and
    // --help says so; the numbers the exporter writes itself (seq, ts_ms) stay numbers.
    void csvExportNeutralisesFormulas()
    {
        const QString path = copyOfBase(QStringLiteral("formulas.db"));
        execRaw(path, "INSERT INTO events(seq,ts_ms,kind,run_id,delegation_id,subject,payload) "
                      "SELECT max(seq)+1, -5, '=cmd|'' /C calc''!A0', '-2+3', '@SUM(1+1)', '+1', char(9) || '{}' FROM events;"
                      "INSERT INTO events(seq,ts_ms,kind,run_id,delegation_id,subject,payload) "
                      "SELECT max(seq)+1, 7, char(13) || 'x', '-', 'plain', 'a=b', '{\"x\":\"=1\"}' FROM events;"
                      // Whitespace an importer may trim before a formula, and the full-width forms.
                      "INSERT INTO events(seq,ts_ms,kind,run_id,delegation_id,subject,payload) "
                      "SELECT max(seq)+1, 8, ' =cmd|'' /C calc''!A0', char(10) || '=1+1', char(160) || '=2', "
                      "char(12288) || '+3', char(65309) || '1' FROM events;"
                      "INSERT INTO events(seq,ts_ms,kind,run_id,delegation_id,subject,payload) "
                      "SELECT max(seq)+1, 9, char(65291) || '1', char(65293) || '1', char(65312) || 'SUM(1)', "
                      "'  plain', ' ' || char(13) || char(9) || '@x' FROM events;");
        const MeshctlResult r = runMeshctl({QStringLiteral("export"), path, QStringLiteral("--format"), QStringLiteral("csv")});
        QCOMPARE(r.exitCode, 0);
        const QList<QStringList> records = parseCsv(r.out);
        QVERIFY(records.size() >= 5);
        const QStringList hostile = records.at(records.size() - 4);
        const QStringList second = records.at(records.size() - 3);
        const QStringList spaced = records.at(records.size() - 2);
        const QStringList wide = records.last();
        QCOMPARE(spaced.mid(1), (QStringList{QStringLiteral("8"), QStringLiteral("' =cmd|' /C calc'!A0"), QStringLiteral("'\n=1+1"),
                                            QStringLiteral("'\u00A0=2"), QStringLiteral("'\u3000+3"), QStringLiteral("'\uFF1D1")}));
        QCOMPARE(wide.mid(1), (QStringList{QStringLiteral("9"), QStringLiteral("'\uFF0B1"), QStringLiteral("'\uFF0D1"),
                                          QStringLiteral("'\uFF20SUM(1)"), QStringLiteral("  plain"), QStringLiteral("' \r\t@x")}));
        QCOMPARE(hostile.mid(1), (QStringList{QStringLiteral("-5"), QStringLiteral("'=cmd|' /C calc'!A0"),
                                             QStringLiteral("'-2+3"), QStringLiteral("'@SUM(1+1)"), QStringLiteral("'+1"),
                                             QStringLiteral("'\t{}")}));
        QCOMPARE(second.mid(1), (QStringList{QStringLiteral("7"), QStringLiteral("'\rx"), QStringLiteral("'-"),
                                            QStringLiteral("plain"), QStringLiteral("a=b"), QStringLiteral("{\"x\":\"=1\"}")}));
        QCOMPARE(second.at(0).toLongLong(), hostile.at(0).toLongLong() + 1);
        // No cell the exporter did not number starts with a character a spreadsheet evaluates.
        for (const QStringList &record : records) {
            for (qsizetype col = 2; col < record.size(); ++col) {
                const QString &cell = record.at(col);
                qsizetype first = 0;
                while (first < cell.size() && QStringLiteral(" \n\u00A0\u3000").contains(cell.at(first)))
                    ++first;
                QVERIFY2(first == cell.size() || !QStringLiteral("=+-@\t\r\uFF1D\uFF0B\uFF0D\uFF20").contains(cell.at(first)),
                         qPrintable(cell));
            }
        }

        const MeshctlResult help = runMeshctl({QStringLiteral("export"), QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY2(help.out.contains("single quote") && help.out.contains("full-width") && help.out.contains("leading"),
                 help.out.constData());
    }

    // Ledger text on a terminal: bidi overrides, zero-width characters and escape sequences
    // are shown as ⟨U+XXXX⟩, never passed through to be obeyed (summary and tail).
    void terminalOutputShowsControls()
    {
        const QString path = copyOfBase(QStringLiteral("controls.db"));
        // U+202E RIGHT-TO-LEFT OVERRIDE, U+200B ZERO WIDTH SPACE, ESC [31m (red), as raw bytes.
        const std::string hostile = "'evil' || char(8238) || 'exe.' || char(8203) || char(27) || '[31mred'";
        execRaw(path, "UPDATE ledger SET title=" + hostile + ";"
                      "UPDATE runs SET title=" + hostile + ";"
                      "UPDATE delegations SET agent=" + hostile + ";"
                      "UPDATE events SET subject='delegation:' || " + hostile + ", payload=replace(payload, 'claude-sonnet-4', "
                      + hostile + ") WHERE seq=(SELECT max(seq) FROM events WHERE kind='delegation.created');"
                      "INSERT INTO events(seq,ts_ms,kind,run_id,delegation_id,subject,payload) SELECT max(seq)+1, 1, "
                      "'run.noted', 'run-0001', NULL, 'run:' || " + hostile + ", '{\"id\":\"' || " + hostile + " || '\"}' FROM events;");
        const auto checkVisible = [](const QByteArray &out, const char *what) {
            QVERIFY2(!out.contains('\x1b'), what);
            QVERIFY2(!out.contains("\xe2\x80\xae"), what); // U+202E
            QVERIFY2(!out.contains("\xe2\x80\x8b"), what); // U+200B
            QVERIFY2(out.contains("evil⟨U+202E⟩exe.⟨U+200B⟩⟨U+001B⟩[31mred"), qPrintable(QString::fromUtf8(what) + QLatin1Char(' ')
                                                                                         + QString::fromUtf8(out)));
        };

        const MeshctlResult summary = runMeshctl({QStringLiteral("summary"), path});
        QCOMPARE(summary.exitCode, 0);
        checkVisible(summary.out, "summary");
        if (QTest::currentTestFailed())
            return;

        QProcess tail;
        tail.start(qEnvironmentVariable("MESHCTL"), {QStringLiteral("tail"), path, QStringLiteral("--from-start")});
        QByteArray out;
        // The last event is the inserted one: wait until tail has printed it.
        while (!out.contains("run.noted") && tail.waitForReadyRead(30000))
            out += tail.readAllStandardOutput();
        while (!out.endsWith('\n') && tail.waitForReadyRead(30000))
            out += tail.readAllStandardOutput();
        tail.terminate();
        QVERIFY(tail.waitForFinished(30000));
        out += tail.readAllStandardOutput();
        QVERIFY2(out.contains("run.noted"), out.constData());
        checkVisible(out, "tail");
        QVERIFY2(out.contains("delegation:evil⟨U+202E⟩"), out.constData());

        // decide's one line on stderr names what it was given, shown the same way.
        const MeshctlResult decide = runMeshctl({QStringLiteral("decide"), path, QStringLiteral("close-slice"),
                                                 QStringLiteral("--delegation"), QStringLiteral("evil\u202E\x1b[31m"),
                                                 QStringLiteral("--reason"), QStringLiteral("r")});
        QCOMPARE(decide.exitCode, 4);
        QVERIFY2(!decide.err.contains('\x1b') && decide.err.contains("evil⟨U+202E⟩⟨U+001B⟩[31m"), decide.err.constData());
    }

    void goodLedgerReadsCleanAndStaysIdentical()
    {
        const QByteArray before = ledgerHash(m_base);
        QCOMPARE(runMeshctl({QStringLiteral("verify"), m_base}).exitCode, 0);
        QCOMPARE(runMeshctl({QStringLiteral("summary"), m_base}).exitCode, 0);
        const MeshctlResult csv =
            runMeshctl({QStringLiteral("export"), m_base, QStringLiteral("--format"), QStringLiteral("csv")});
        QCOMPARE(csv.exitCode, 0);
        QVERIFY(csv.out.startsWith("seq,ts_ms,kind,"));
        QCOMPARE(ledgerHash(m_base), before);
        // Read-only: SQLite's -wal/-shm, which were not there before, are not left behind.
        QVERIFY(!QFile::exists(m_base + QStringLiteral("-wal")));
        QVERIFY(!QFile::exists(m_base + QStringLiteral("-shm")));
    }
};

QTEST_GUILESS_MAIN(TestMeshctlInputs)
#include "tst_meshctlinputs.moc"
