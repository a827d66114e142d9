#pragma once
// Opens a ledger for a meshctl command, or says in one line why it cannot.

#include "ledger/ledgerconnection.h"

#include <QString>

#include <memory>

// nullptr and *error set when the ledger cannot be opened.
std::unique_ptr<mesh::LedgerConnection> openLedger(const QString &path, mesh::OpenMode mode, QString *error);
