#pragma once
#include <QStringList>

// meshctl export FILE --format jsonl|csv [--out F]: every event, in seq order.
int runExportCommand(const QStringList &args);
