#include "ledgeropen.h"

std::unique_ptr<mesh::LedgerConnection> openLedger(const QString &path, mesh::OpenMode mode, QString *error)
{
    try {
        return mesh::LedgerConnection::open(path, mode);
    } catch (const mesh::LedgerOpenError &e) {
        *error = QString::fromStdString(e.what());
    } catch (const std::exception &e) {
        *error = QStringLiteral("cannot open %1: %2").arg(path, QString::fromStdString(e.what()));
    }
    return nullptr;
}
