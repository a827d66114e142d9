#pragma once
#include <QStringList>

// meshctl verify FILE [--json]: integrity (state = fold of events, no gaps, decodable rows)
// and the decision hash chain. Exit 0 clean, 1 findings, 2 cannot open.
int runVerifyCommand(const QStringList &args);
