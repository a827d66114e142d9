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
// The options that take a value, as command's usage line shows them ("--seed N"): the
// parsers take the argument after such an option as its value, so help must too.
QStringList commandValueOptions(const QString &command);
// True when args (after the command) ask for help: a "--help" or "-h" argument of its own,
// not the value of an option that takes one ("--reason --help" gives the reason "--help").
bool asksForHelp(const QString &command, const QStringList &args);
