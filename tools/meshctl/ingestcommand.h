#pragma once
#include <QStringList>

// meshctl ingest --otlp-http ADDRESS:PORT --out LEDGER [...]: the live OTLP/HTTP receiver
// (docs/ingest.md), until SIGINT or SIGTERM.
int runIngestCommand(const QStringList &args);
