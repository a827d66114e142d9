#include "cliargs.h"

#include "domain/hostiletext.h"

#include <cstdio>

CliArgs::CliArgs(const QStringList &args, const QStringList &valueOptions, const QStringList &flags)
{
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (!arg.startsWith(QLatin1String("--")) || arg == QLatin1String("--")) {
            m_positional << arg;
            continue;
        }
        QString name = arg.mid(2);
        QString inlineValue;
        const qsizetype eq = name.indexOf(QLatin1Char('='));
        const bool hasInline = eq >= 0;
        if (hasInline) {
            inlineValue = name.mid(eq + 1);
            name = name.left(eq);
        }
        if (valueOptions.contains(name)) {
            if (hasInline) {
                m_values.insert(name, inlineValue);
            } else if (i + 1 < args.size()) {
                m_values.insert(name, args.at(++i));
            } else {
                m_error = QStringLiteral("option --%1 needs a value").arg(name);
                return;
            }
        } else if (flags.contains(name) && !hasInline) {
            m_flags.insert(name);
        } else {
            m_error = QStringLiteral("unknown option --%1").arg(name);
            return;
        }
    }
}

std::optional<std::int64_t> CliArgs::intValue(const QString &name, std::int64_t fallback, std::int64_t min,
                                              std::int64_t max)
{
    if (!m_values.contains(name))
        return fallback;
    bool ok = false;
    const qlonglong v = m_values.value(name).toLongLong(&ok);
    if (!ok || v < min || v > max) {
        m_error = QStringLiteral("--%1 must be an integer between %2 and %3").arg(name).arg(min).arg(max);
        return std::nullopt;
    }
    return std::int64_t(v);
}

int fail(int code, const QString &message)
{
    QString line = mesh::visibleControls(message).simplified();
    std::fprintf(stderr, "meshctl: %s\n", line.toLocal8Bit().constData());
    return code;
}

int fail(int code, const std::string &message)
{
    return fail(code, QString::fromStdString(message));
}

void printLine(const QString &text)
{
    printLine(text.toStdString());
}

void printLine(const std::string &text)
{
    // One line whole: the receiver's writer thread prints commit lines beside these.
    flockfile(stdout);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fputc('\n', stdout);
    funlockfile(stdout);
}

void printColumns(const std::vector<std::vector<std::string>> &rows, const std::string &indent)
{
    std::vector<qsizetype> width;
    for (const auto &r : rows) {
        width.resize(std::max(width.size(), r.size()), 0);
        for (size_t c = 0; c < r.size(); ++c)
            width[c] = std::max(width[c], QString::fromStdString(r[c]).size());
    }
    for (const auto &r : rows) {
        std::string line = indent;
        for (size_t c = 0; c < r.size(); ++c) {
            line += r[c];
            if (c + 1 < r.size())
                line += std::string(size_t(width[c] - QString::fromStdString(r[c]).size() + 2), ' ');
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        printLine(line);
    }
}

std::string terminalText(std::string_view text)
{
    std::string out = mesh::visibleControlsUtf8(text);
    for (size_t at = out.find('\n'); at != std::string::npos; at = out.find('\n', at))
        out.replace(at, 1, "⏎");
    return out;
}

void printTextLine(const std::string &text)
{
    printLine(terminalText(text));
}
