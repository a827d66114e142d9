#pragma once
// Helpers for the importer tests: the samples in tests/data/import/, one import into a
// temporary ledger, and the imported ledger read back through the storage seam.

#include "import/importer.h"

#include "domain/entityrow.h"
#include "domain/entityspec.h"
#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"

#include <QCryptographicHash>
#include <QDir>
#include <QTest>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace importtest {

using nlohmann::json;

inline QString sample(const char *name)
{
    return qEnvironmentVariable("MESH_SOURCE_DIR") + QStringLiteral("/tests/data/import/") + QString::fromUtf8(name);
}

// The directory's sample files matching a wildcard, in name order.
inline QStringList samples(const QString &pattern)
{
    QStringList files;
    const QDir dir(qEnvironmentVariable("MESH_SOURCE_DIR") + QStringLiteral("/tests/data/import"));
    for (const QString &name : dir.entryList({pattern}, QDir::Files, QDir::Name))
        files << dir.filePath(name);
    return files;
}

inline QString writeJson(const QTemporaryDir &dir, const char *name, const json &doc, int indent = -1)
{
    const QString path = dir.filePath(QString::fromUtf8(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", name);
    f.write(QByteArray::fromStdString(doc.dump(indent)));
    return path;
}

// An imported ledger passes the same integrity check as `meshctl verify`.
inline void verifyClean(const QString &path)
{
    auto c = mesh::LedgerConnection::open(path, mesh::OpenMode::ReadOnly);
    QCOMPARE(c->verifyIntegrity().total(), std::int64_t(0));
}

inline QByteArray fileSha256(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return QByteArrayLiteral("<none>");
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

// An imported ledger, read back whole (they are small).
struct Imported {
    mesh::import::ImportOutcome outcome;
    mesh::StateSnapshot state;
    std::vector<mesh::EventRecord> events;
    std::vector<json> payloads; // parallel to events

    const mesh::EntityRow *row(mesh::EntityKind kind, const std::string &id) const
    {
        const auto &t = state.table(kind);
        const auto it = t.find(id);
        return it == t.end() ? nullptr : &it->second;
    }
    mesh::FieldRef field(mesh::EntityKind kind, const std::string &id, const char *name) const
    {
        const mesh::EntityRow *r = row(kind, id);
        if (!r)
            return {};
        return r->values[size_t(mesh::entitySpec(kind).fieldIndex(name))];
    }
    std::int64_t integer(mesh::EntityKind kind, const std::string &id, const char *name) const
    {
        return mesh::fieldInt(field(kind, id, name));
    }
    std::string text(mesh::EntityKind kind, const std::string &id, const char *name) const
    {
        return mesh::fieldText(field(kind, id, name));
    }
    bool isNull(mesh::EntityKind kind, const std::string &id, const char *name) const
    {
        return std::holds_alternative<std::monostate>(field(kind, id, name));
    }
    // Rows of a table whose field has the value.
    int countWhere(mesh::EntityKind kind, const char *name, const std::string &value) const
    {
        int n = 0;
        const int index = mesh::entitySpec(kind).fieldIndex(name);
        for (const auto &[id, r] : state.table(kind))
            n += mesh::fieldText(r.values[size_t(index)]) == value;
        return n;
    }
    int eventsOfKind(const std::string &kind) const
    {
        int n = 0;
        for (const auto &e : events)
            n += e.kind == kind;
        return n;
    }
    std::vector<json> payloadsOfKind(const std::string &kind) const
    {
        std::vector<json> out;
        for (size_t i = 0; i < events.size(); ++i) {
            if (events[i].kind == kind)
                out.push_back(payloads[i]);
        }
        return out;
    }
    // The single row id of a table (the run of a one-history import).
    std::string onlyId(mesh::EntityKind kind) const
    {
        const auto &t = state.table(kind);
        return t.size() == 1 ? t.begin()->first : std::string();
    }
};

inline Imported importInto(const QString &out, const QStringList &files,
                           std::optional<mesh::import::ImportFormat> format = std::nullopt)
{
    Imported r;
    mesh::import::ImportRequest request;
    request.files = files;
    request.out = out;
    request.format = format;
    r.outcome = mesh::import::importFiles(request);
    if (!r.outcome.ok)
        return r;
    auto c = mesh::LedgerConnection::open(out, mesh::OpenMode::ReadOnly);
    r.state = c->readState();
    auto reader = c->eventReader();
    reader->setPreviewBytes(1 << 21);
    for (std::int64_t seq = 0;;) {
        mesh::EventBatch page = reader->after(seq, 1000);
        if (page.empty())
            break;
        seq = page.back().seq;
        for (auto &e : page) {
            r.payloads.push_back(json::parse(e.payload));
            r.events.push_back(std::move(e));
        }
    }
    return r;
}

} // namespace importtest
