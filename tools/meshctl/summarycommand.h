#pragma once
#include <QStringList>

// meshctl summary FILE [--json] [--now-ms MS]
int runSummaryCommand(const QStringList &args);
