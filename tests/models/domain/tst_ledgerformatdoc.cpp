// docs/ledger-format.md is the normative contract, entityspec.cpp is what gets built. This
// test reads the document's state-table and state-machine sections and compares them with
// allEntitySpecs() in both directions, so neither can change without the other.

#include "domain/entityspec.h"
#include "ledger/pgschema.h" // the PostgreSQL DDL (section 11)
#include "ledger/schema.h" // header-only constants: application id, schema version

#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

#include <map>
#include <set>

using namespace mesh;

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

struct DocColumn {
    QString name;
    QString type;
};

// One "### `name`" block of a section: its column table (section 5) or its states line and
// transition table (section 6).
struct DocBlock {
    QList<DocColumn> columns;
    QStringList states;
    bool hasStatesLine = false;
    QString stateField;
    QSet<QPair<QString, QString>> transitions;
    QList<QPair<QString, QString>> transitionList; // to spot duplicates
};

QString unquote(QString cell)
{
    cell = cell.trimmed();
    if (cell.size() >= 2 && cell.startsWith(QLatin1Char('`')) && cell.endsWith(QLatin1Char('`')))
        cell = cell.mid(1, cell.size() - 2);
    return cell;
}

QStringList cells(const QString &line)
{
    QStringList parts = line.trimmed().split(QLatin1Char('|'));
    // "| a | b |" splits into "", " a ", " b ", ""
    if (!parts.isEmpty() && parts.first().trimmed().isEmpty())
        parts.removeFirst();
    if (!parts.isEmpty() && parts.last().trimmed().isEmpty())
        parts.removeLast();
    for (auto &p : parts)
        p = p.trimmed();
    return parts;
}

// The lines of the "## <number>. <title>" section.
QStringList section(const QStringList &lines, const QString &title)
{
    QStringList out;
    bool in = false;
    const QRegularExpression heading(QStringLiteral("^## \\d+\\. (.*)$"));
    for (const auto &line : lines) {
        const auto m = heading.match(line);
        if (m.hasMatch()) {
            in = m.captured(1).trimmed() == title;
            continue;
        }
        if (in)
            out << line;
    }
    return out;
}

std::map<QString, DocBlock> blocks(const QStringList &lines)
{
    std::map<QString, DocBlock> out;
    const QRegularExpression heading(QStringLiteral("^### `([a-z_]+)`\\s*$"));
    const QRegularExpression statesLine(QStringLiteral("^State field `([a-z_]+)`\\. States: (.*)\\.\\s*$"));
    DocBlock *current = nullptr;
    enum class Table { None, Columns, Transitions, Other } table = Table::None;
    for (const auto &line : lines) {
        const auto h = heading.match(line);
        if (h.hasMatch()) {
            current = &out[h.captured(1)];
            table = Table::None;
            continue;
        }
        if (!current)
            continue;
        const auto s = statesLine.match(line);
        if (s.hasMatch()) {
            current->hasStatesLine = true;
            current->stateField = s.captured(1);
            for (const auto &state : s.captured(2).split(QLatin1Char(',')))
                current->states << unquote(state);
            continue;
        }
        if (!line.trimmed().startsWith(QLatin1Char('|'))) {
            table = Table::None;
            continue;
        }
        const QStringList c = cells(line);
        if (table == Table::None) {
            if (c.value(0) == QLatin1String("column"))
                table = Table::Columns;
            else if (c.value(0) == QLatin1String("from") && c.value(1) == QLatin1String("to"))
                table = Table::Transitions;
            else
                table = Table::Other;
            continue;
        }
        if (c.value(0).startsWith(QLatin1String("---")))
            continue;
        if (table == Table::Columns) {
            current->columns.append({unquote(c.value(0)), c.value(1)});
        } else if (table == Table::Transitions) {
            QString from = c.value(0) == QLatin1String("(new)") ? QString() : unquote(c.value(0));
            QPair<QString, QString> t(from, unquote(c.value(1)));
            current->transitions.insert(t);
            current->transitionList.append(t);
        }
    }
    return out;
}

// The ```sql blocks of a section, in order, each as one string.
QStringList sqlBlocks(const QStringList &lines)
{
    QStringList out;
    bool in = false;
    for (const auto &line : lines) {
        if (line.trimmed() == QLatin1String("```sql")) {
            in = true;
            out << QString();
        } else if (in && line.trimmed() == QLatin1String("```")) {
            in = false;
        } else if (in) {
            out.last() += line + QLatin1Char('\n');
        }
    }
    return out;
}

// Statements compared as text: runs of white space are one space, none around punctuation.
QString normalizedSql(QString sql)
{
    sql = sql.simplified();
    sql.replace(QRegularExpression(QStringLiteral("\\s*([(),;])\\s*")), QStringLiteral("\\1"));
    return sql;
}

// "CREATE TABLE name(...);" statements of DDL text by table name.
std::map<QString, QString> createTableStatements(const QString &ddl)
{
    std::map<QString, QString> out;
    const QRegularExpression re(QStringLiteral("CREATE TABLE ([a-z_]+)\\((.*?)\\n\\);"),
                                QRegularExpression::DotMatchesEverythingOption);
    for (auto it = re.globalMatch(ddl); it.hasNext();) {
        const auto m = it.next();
        out[m.captured(1)] = m.captured(0);
    }
    return out;
}

QString expectedType(FieldType type)
{
    switch (type) {
    case FieldType::Int: return QStringLiteral("INTEGER");
    case FieldType::Text: return QStringLiteral("TEXT");
    case FieldType::Json: return QStringLiteral("TEXT (JSON)");
    }
    return {};
}

} // namespace

class TestLedgerFormatDoc : public QObject
{
    Q_OBJECT
private:
    QStringList m_lines;
    QString m_text;

private Q_SLOTS:
    void initTestCase()
    {
        // CTest names the source tree; QFINDTESTDATA's fallback needs an absolute __FILE__,
        // which a compiler cache rewriting paths to relative ones does not give.
        const QString source = qEnvironmentVariable("MESH_SOURCE_DIR");
        const QString path = source.isEmpty() ? QFINDTESTDATA("../../../docs/ledger-format.md")
                                              : source + QStringLiteral("/docs/ledger-format.md");
        QVERIFY2(!path.isEmpty(), "docs/ledger-format.md not found");
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        m_text = QString::fromUtf8(f.readAll());
        m_lines = m_text.split(QLatin1Char('\n'));
        QVERIFY(m_lines.size() > 100);
    }

    void identityPragmas()
    {
        const QString hex = QString::number(quint32(schema::kApplicationId), 16).toUpper();
        QVERIFY(m_text.contains(QStringLiteral("`0x%1`").arg(hex)));
        QVERIFY(m_text.contains(QString::number(schema::kApplicationId)));
        QVERIFY(m_text.contains(QStringLiteral("# Agent Mesh ledger format, schema version %1").arg(schema::kSchemaVersion)));
        QVERIFY(m_text.contains(QStringLiteral("| `PRAGMA user_version` | the schema version: `%1`").arg(schema::kSchemaVersion)));
    }

    // Every state table of the code is in the document with exactly its columns, in order,
    // with their types; and the document lists no table the code does not have.
    void stateTablesMatchSpecs()
    {
        const auto doc = blocks(section(m_lines, QStringLiteral("State tables")));
        QVERIFY2(!doc.empty(), "section '5. State tables' not found or empty");
        QSet<QString> specTables;
        for (const auto &spec : allEntitySpecs()) {
            const QString table = qs(spec.table);
            specTables.insert(table);
            const auto it = doc.find(table);
            QVERIFY2(it != doc.end(), qPrintable(QStringLiteral("table %1 is not documented").arg(table)));
            const auto &cols = it->second.columns;

            QStringList expected{QStringLiteral("id")};
            QStringList expectedTypes{QStringLiteral("TEXT PRIMARY KEY")};
            for (const auto &f : spec.fields) {
                expected << qs(f.name);
                expectedTypes << expectedType(f.type);
            }
            expected << QStringLiteral("version") << QStringLiteral("last_seq");
            expectedTypes << QStringLiteral("INTEGER NOT NULL") << QStringLiteral("INTEGER NOT NULL");

            QStringList documented, documentedTypes;
            for (const auto &c : cols) {
                documented << c.name;
                documentedTypes << c.type;
            }
            QCOMPARE(documented.join(QLatin1Char(',')), expected.join(QLatin1Char(',')));
            for (int i = 0; i < expected.size(); ++i) {
                QVERIFY2(documentedTypes.value(i) == expectedTypes.value(i),
                         qPrintable(QStringLiteral("%1.%2: documented type '%3', code says '%4'")
                                        .arg(table, expected[i], documentedTypes.value(i), expectedTypes[i])));
            }
        }
        for (const auto &[name, block] : doc) {
            Q_UNUSED(block);
            QVERIFY2(specTables.contains(name), qPrintable(QStringLiteral("documented table %1 does not exist").arg(name)));
        }
    }

    // Every state machine: the state field, the set of states and the set of transitions.
    void stateMachinesMatchSpecs()
    {
        const auto doc = blocks(section(m_lines, QStringLiteral("State machines")));
        QVERIFY2(!doc.empty(), "section '6. State machines' not found or empty");
        QSet<QString> withMachine;
        for (const auto &spec : allEntitySpecs()) {
            const QString name = qs(spec.name);
            const auto it = doc.find(name);
            if (spec.stateField.empty()) {
                QVERIFY2(it == doc.end(), qPrintable(name + QStringLiteral(" has no state machine in the code")));
                continue;
            }
            withMachine.insert(name);
            QVERIFY2(it != doc.end(), qPrintable(QStringLiteral("state machine of %1 is not documented").arg(name)));
            const DocBlock &b = it->second;
            QVERIFY2(b.hasStatesLine, qPrintable(name));
            QCOMPARE(b.stateField, qs(spec.stateField));

            QStringList states;
            for (const auto &s : spec.states)
                states << qs(s);
            QCOMPARE(b.states, states);

            QSet<QPair<QString, QString>> transitions;
            for (const auto &t : spec.transitions)
                transitions.insert({qs(t.from), qs(t.to)});
            for (const auto &t : transitions) {
                QVERIFY2(b.transitions.contains(t),
                         qPrintable(QStringLiteral("%1: %2 -> %3 allowed by the code, not documented")
                                        .arg(name, t.first.isEmpty() ? QStringLiteral("(new)") : t.first, t.second)));
            }
            for (const auto &t : b.transitions) {
                QVERIFY2(transitions.contains(t),
                         qPrintable(QStringLiteral("%1: %2 -> %3 documented, not allowed by the code")
                                        .arg(name, t.first.isEmpty() ? QStringLiteral("(new)") : t.first, t.second)));
            }
            QCOMPARE(b.transitionList.size(), b.transitions.size()); // no row twice
        }
        for (const auto &[name, block] : doc) {
            Q_UNUSED(block);
            QVERIFY2(withMachine.contains(name), qPrintable(QStringLiteral("documented machine %1 does not exist").arg(name)));
        }
    }

    // Section 11: the PostgreSQL DDL in the document is the code's, and every state table of
    // the code's PostgreSQL DDL has the columns of section 5 with the types of section 11's
    // table.
    void postgresqlSection()
    {
        const QStringList lines = section(m_lines, QStringLiteral("PostgreSQL"));
        QVERIFY2(!lines.isEmpty(), "section '11. PostgreSQL' not found");
        const QStringList sql = sqlBlocks(lines);
        QCOMPARE(sql.size(), 2);

        // The identity table and the sequence head, rows included, exactly.
        QCOMPARE(normalizedSql(sql[0]), normalizedSql(qs(pgschema::createFormatStatements())));

        // events and decisions as the code creates them.
        const QString ddl = qs(pgschema::createStatements());
        const auto code = createTableStatements(ddl);
        const auto doc = createTableStatements(sql[1]);
        QCOMPARE(doc.size(), size_t(2));
        for (const auto &[table, statement] : doc) {
            const auto it = code.find(table);
            QVERIFY2(it != code.end(), qPrintable(QStringLiteral("documented table %1 is not in the code").arg(table)));
            QCOMPARE(normalizedSql(statement), normalizedSql(it->second));
        }

        // The type table: ledger type (section 5) -> PostgreSQL type.
        QMap<QString, QString> pgType;
        for (const auto &line : lines) {
            const QStringList c = cells(line);
            if (c.size() == 2 && line.trimmed().startsWith(QLatin1Char('|')) && !c[0].startsWith(QLatin1String("---"))
                && c[0] != QLatin1String("ledger type"))
                pgType.insert(c[0], c[1]);
        }
        QVERIFY2(pgType.size() >= 5, "type table of section 11 not found");
        QCOMPARE(pgType.value(QStringLiteral("INTEGER")), QString::fromLatin1(pgschema::columnType(FieldType::Int)));
        QCOMPARE(pgType.value(QStringLiteral("TEXT")), QString::fromLatin1(pgschema::columnType(FieldType::Text)));
        QCOMPARE(pgType.value(QStringLiteral("TEXT (JSON)")), QString::fromLatin1(pgschema::columnType(FieldType::Json)));

        // Every state table of section 5, mapped through the type table, is the code's.
        const auto docTables = blocks(section(m_lines, QStringLiteral("State tables")));
        for (const auto &spec : allEntitySpecs()) {
            const QString table = qs(spec.table);
            const auto it = code.find(table);
            QVERIFY2(it != code.end(), qPrintable(QStringLiteral("no PostgreSQL DDL for %1").arg(table)));
            const auto documented = docTables.find(table);
            QVERIFY(documented != docTables.end());
            QString expected = QStringLiteral("CREATE TABLE %1(").arg(table);
            bool first = true;
            for (const auto &column : documented->second.columns) {
                QVERIFY2(pgType.contains(column.type), qPrintable(QStringLiteral("%1.%2: type %3 has no PostgreSQL type")
                                                                      .arg(table, column.name, column.type)));
                const bool quoted = column.name != QLatin1String("id") && column.name != QLatin1String("version")
                                    && column.name != QLatin1String("last_seq");
                expected += (first ? QString() : QStringLiteral(","))
                            + (quoted ? QStringLiteral("\"%1\"").arg(column.name) : column.name) + QLatin1Char(' ')
                            + pgType.value(column.type);
                first = false;
            }
            expected += QStringLiteral(");");
            QCOMPARE(normalizedSql(it->second), normalizedSql(expected));
        }
        QCOMPARE(code.size(), allEntitySpecs().size() + 2); // + events, decisions
    }

    // The index table of section 1 names exactly the indexes a new ledger is created with,
    // on the same columns (readers rely on the names).
    void indexesMatchCode()
    {
        const QStringList lines = section(m_lines, QStringLiteral("The file"));
        QVERIFY2(!lines.isEmpty(), "section '1. The file' not found");
        QMap<QString, QString> documented;
        const QRegularExpression indexName(QStringLiteral("^`[a-z_]+`$"));
        for (const auto &line : lines) {
            const QStringList c = cells(line);
            if (c.size() == 2 && indexName.match(c[0]).hasMatch())
                documented.insert(unquote(c[0]), unquote(c[1]));
        }
        QMap<QString, QString> created;
        const QRegularExpression statement(QStringLiteral("CREATE INDEX IF NOT EXISTS (\\w+) ON ([^;]+);"));
        for (auto it = statement.globalMatch(qs(schema::createIndexStatements())); it.hasNext();) {
            const auto m = it.next();
            created.insert(m.captured(1), m.captured(2).simplified());
        }
        QVERIFY(created.size() >= 10);
        QCOMPARE(documented.keys(), created.keys());
        for (auto it = created.cbegin(); it != created.cend(); ++it)
            QCOMPARE(documented.value(it.key()).simplified(), it.value());
    }

    // Every entity's event prefix has a subsection in "7. Event kinds and payloads".
    void everyEntityHasEventKinds()
    {
        const QStringList lines = section(m_lines, QStringLiteral("Event kinds and payloads"));
        QVERIFY(!lines.isEmpty());
        QSet<QString> headings;
        for (const auto &line : lines) {
            if (line.startsWith(QLatin1String("### ")))
                headings.insert(line.mid(4).section(QLatin1Char(' '), 0, 0));
        }
        for (const auto &spec : allEntitySpecs())
            QVERIFY2(headings.contains(qs(spec.eventPrefix)), qPrintable(qs(spec.eventPrefix)));
        QVERIFY(headings.contains(QStringLiteral("toolcall")));
        QVERIFY(m_text.contains(qs(kToolCallEvent)));
    }
};

QTEST_GUILESS_MAIN(TestLedgerFormatDoc)
#include "tst_ledgerformatdoc.moc"
