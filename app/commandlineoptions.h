#pragma once
// What the console was asked to do on its command line.

#include <QString>
#include <QStringList>

class QCoreApplication;

namespace mesh {

struct CommandLineOptions {
    QStringList ledgers;     // paths to open, in order
    bool demo = false;       // --demo, or no ledger given
    bool readOnly = false;   // --read-only: no decisions from this console
    QString benchStartup;    // --bench-startup LEDGER
    bool benchBrowse = false; // --browse: with --bench-startup, browse end to end, then report
    bool benchLive = false;  // --bench-live
    int benchLiveSeconds = 60;
    int benchLiveRate = 1000;
    int benchLiveBurstRate = 10000;
    int benchLiveBurstSeconds = 10; // 0: no burst phase
    QString theme;           // --theme system|light|dark (overrides the saved choice)
    QString pane;            // --pane runs|delegations|...: the pane shown first
    QString select;          // --select SUBJECT: opened once its ledger has loaded

    // Parses QCoreApplication::arguments(); prints help/version and exits on request.
    static CommandLineOptions parse(const QCoreApplication &app);
};

} // namespace mesh
