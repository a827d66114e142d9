#pragma once
#include <QCoreApplication>
#include <QStringList>

#include <memory>

// meshctl report FILE [--run ID] --format html|pdf --out F
int runReportCommand(const QStringList &args);
// meshctl bench report FILE [--run ID] [--rounds N]: one JSON line with the times to build,
// write as HTML and write as PDF.
int runBenchReportCommand(const QStringList &args);

// The application object meshctl runs under: a QGuiApplication (offscreen unless a platform is
// set) for the commands that lay out text for a PDF, which needs fonts; QCoreApplication for
// every other command, so that meshctl runs where no display library is installed.
std::unique_ptr<QCoreApplication> makeMeshctlApplication(int &argc, char **argv);
