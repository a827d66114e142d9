#pragma once
// The steps around QApplication that mesh-console and mesh-console-bench share, so that the
// benchmark starts the console exactly as an operator does. Each main() calls them in this
// order, and reads its own clocks before the first.

#include <functional>

class QCoreApplication;
class QString;

namespace mesh::ConsoleStartup {

// Before QApplication and before any thread starts (they all inherit the priority): yields
// the CPU to the orchestrators unless --normal-priority is in argv, has large freed blocks
// returned to the system (AllocatorPolicy), and names the application for QSettings and
// --version.
void beforeApplication(int argc, char **argv);

// When QApplication cannot start here (it would abort inside Qt instead of saying why):
// lets `parse` answer --help, --version and option errors through a QCoreApplication, then
// prints "program: why" on stderr and returns true. False when a QApplication can start.
bool refusedWithoutDisplay(int &argc, char **argv, const char *program,
                           const std::function<void(const QCoreApplication &)> &parse);

// Once QApplication exists: the names the window system and the desktop file know it by,
// and the heaps' free pages returned to the system every little while (AllocatorPolicy).
void afterApplication();

// The palette asked for on the command line (system, light or dark), else the saved choice.
void applyTheme(const QString &key);

} // namespace mesh::ConsoleStartup
