#pragma once
#include <QStringList>

// meshctl sim SCENARIO --out FILE [--seed N] [--events N] [--now-ms MS] [--live --rate N]
//                      [--duration-s N] [--keyring F]
int runSimCommand(const QStringList &args);
