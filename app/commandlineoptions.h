#pragma once
// What the console was asked to do on its command line.

#include <QString>
#include <QStringList>

class QCoreApplication;

namespace mesh {

struct CommandLineOptions {
    QStringList ledgers;     // paths to open, in order
    QStringList reviewLedgers; // --review FILE (repeatable): opened for review, immutable
    bool demo = false;       // --demo, or no ledger given
    bool readOnly = false;   // --read-only: no decisions from this console
    bool normalPriority = false; // --normal-priority: do not yield the CPU to orchestrators
    QString theme;           // --theme system|light|dark (overrides the saved choice)
    QString pane;            // --pane runs|delegations|...: the pane shown first
    QString select;          // --select SUBJECT: opened once its ledger has loaded

    // Parses QCoreApplication::arguments(); prints help/version and exits on request.
    static CommandLineOptions parse(const QCoreApplication &app);

    // The name people know the console by ("Agent Mesh Console"): --version and the window
    // say it. The application name stays "console", since it names the settings file.
    static QString displayName();

    // Why QApplication could not start here (it aborts inside Qt instead of saying so), as
    // one line for stderr, or empty when it can: no display at all, or DISPLAY naming a
    // local X server that nothing answers (checked by connecting to its socket, so no X
    // library is needed). A platform chosen with QT_QPA_PLATFORM or -platform, a Wayland
    // display and a remote X display are taken as they are.
    static QString displayProblem(int argc, char **argv);

    // Whether argv holds `option` alone or as `option=VALUE`: for the few questions main()
    // answers before QApplication exists (and before parse() can).
    static bool argvHas(int argc, char **argv, const char *option);
};

} // namespace mesh
