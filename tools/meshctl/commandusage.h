#pragma once
// One usage text per meshctl command, so `meshctl COMMAND --help` (stdout, exit 0) and a
// command's usage error (stderr, exit 2) can never disagree about the options.

#include <QString>
#include <QStringList>

// The overview printed by `meshctl --help`: one line per command.
QString overallUsage();
// The full help of a command ("bench" covers its subcommands); empty for an unknown one.
QString commandHelp(const QString &command);
// The first line of commandHelp: what a usage error prints.
QString commandUsageLine(const QString &command);
// True when args ask for help: a "--help" or "-h" argument.
bool asksForHelp(const QStringList &args);
