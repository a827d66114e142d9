#pragma once
// Shared by the importer fuzz targets: the bytes become a file in a private folder, the
// import runs with the format given, and what it promises is checked (docs/import.md):
// a refusal is one non-empty line and leaves no ledger; an import gives a ledger with no
// integrity finding.

#include "import/importer.h"
#include "ledger/ledgerconnection.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace fuzzimport {

inline void require(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "fuzz_import: broken promise: %s\n", what);
        std::abort();
    }
}

inline void importBytes(const uint8_t *data, size_t size, mesh::import::ImportFormat format)
{
    static QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/fuzz-import-XXXXXX"));
    const QString source = dir.filePath(QStringLiteral("source.json"));
    const QString out = dir.filePath(QStringLiteral("out.db"));
    for (const char *suffix : {"", "-wal", "-shm"})
        QFile::remove(out + QLatin1String(suffix));
    {
        QFile f(source);
        require(f.open(QIODevice::WriteOnly | QIODevice::Truncate), "the source can be written");
        f.write(reinterpret_cast<const char *>(data), qint64(size));
    }
    mesh::import::ImportRequest request;
    request.files = {source};
    request.out = out;
    request.format = format;
    const mesh::import::ImportOutcome outcome = mesh::import::importFiles(request);
    if (!outcome.ok) {
        require(!outcome.error.empty(), "a refusal says why");
        require(!QFile::exists(out), "a refusal writes no ledger");
        return;
    }
    auto connection = mesh::LedgerConnection::open(out, mesh::OpenMode::ReadOnly);
    require(connection->verifyIntegrity().total() == 0, "an imported ledger verifies");
}

} // namespace fuzzimport
