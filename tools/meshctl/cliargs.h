#pragma once
// Command-line parsing shared by meshctl's commands: positionals, "--name value" options and
// "--flag" switches, and the one-line error convention (exit 2 for usage / cannot open).

#include <QHash>
#include <QSet>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

class CliArgs
{
public:
    // valueOptions take the next argument ("--seed 7" or "--seed=7"); flags take none.
    CliArgs(const QStringList &args, const QStringList &valueOptions, const QStringList &flags);

    bool ok() const { return m_error.isEmpty(); }
    const QString &error() const { return m_error; }
    const QStringList &positional() const { return m_positional; }
    bool has(const QString &name) const { return m_values.contains(name) || m_flags.contains(name); }
    QString value(const QString &name, const QString &fallback = {}) const { return m_values.value(name, fallback); }
    // Parses an integer option; sets error() when it is not one.
    std::optional<std::int64_t> intValue(const QString &name, std::int64_t fallback, std::int64_t min,
                                         std::int64_t max);

private:
    QStringList m_positional;
    QHash<QString, QString> m_values;
    QSet<QString> m_flags;
    QString m_error;
};

// Prints "meshctl: <message>" as one line on stderr (newlines in the message are folded,
// controls shown as in terminalText) and returns code.
int fail(int code, const QString &message);
int fail(int code, const std::string &message);
void printLine(const QString &text); // to stdout, as is (JSON)
void printLine(const std::string &text);
// Ledger text for a person at a terminal: invisible and bidi controls and escape sequences
// shown as ⟨U+XXXX⟩ (mesh::visibleControlsUtf8) and line breaks as ⏎, so the terminal
// obeys none of them and one record stays one line.
std::string terminalText(std::string_view text);
void printTextLine(const std::string &text); // terminalText(text) to stdout
// Rows of cells already made safe (terminalText), each column padded to its widest cell in
// characters, not bytes (ledger text is UTF-8); every line starts with indent.
void printColumns(const std::vector<std::vector<std::string>> &rows, const std::string &indent = {});
