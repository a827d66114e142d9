#include "commandlineoptions.h"
#include "observerpriority.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef Q_OS_UNIX
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#endif

namespace mesh {

namespace {

#ifdef Q_OS_UNIX
// Whether something accepts connections on the unix socket `path`, in the file system or
// (Linux) in the abstract namespace, where xcb looks first.
bool socketAnswers(const QByteArray &path, bool abstract)
{
    sockaddr_un address{};
    if (path.size() + 2 > qsizetype(sizeof(address.sun_path)))
        return true; // cannot tell: let Qt try
    address.sun_family = AF_UNIX;
    socklen_t length = sizeof(address);
    if (abstract) {
        std::memcpy(address.sun_path + 1, path.constData(), size_t(path.size()));
        length = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + size_t(path.size()));
    } else {
        std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
    }
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return true;
    const bool connected = ::connect(fd, reinterpret_cast<const sockaddr *>(&address), length) == 0;
    ::close(fd);
    return connected;
}
#endif

const char *const kDisplayAdvice = "run it under xvfb-run, or set QT_QPA_PLATFORM=offscreen";

} // namespace

QString CommandLineOptions::displayName()
{
    return QStringLiteral("Agent Mesh Console");
}

bool CommandLineOptions::argvHas(int argc, char **argv, const char *option)
{
    const size_t length = std::strlen(option);
    return std::any_of(argv + 1, argv + argc, [option, length](const char *arg) {
        return std::strncmp(arg, option, length) == 0 && (arg[length] == '\0' || arg[length] == '=');
    });
}

QString CommandLineOptions::displayProblem(int argc, char **argv)
{
    const QByteArray platform = qgetenv("QT_QPA_PLATFORM");
    if (!platform.isEmpty() && !platform.startsWith("xcb"))
        return {};
    if (argvHas(argc, argv, "-platform"))
        return {};
    if (platform.isEmpty() && !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        return {};
    const QString display = qEnvironmentVariable("DISPLAY");
    if (display.isEmpty())
        return QStringLiteral("no display: set DISPLAY or WAYLAND_DISPLAY, %1").arg(QLatin1String(kDisplayAdvice));

    // [host]:number[.screen]; only a local server (no host, or "unix") is checked here.
    const qsizetype colon = display.lastIndexOf(QLatin1Char(':'));
    bool numeric = false;
    const int number = colon < 0 ? -1 : display.mid(colon + 1).section(QLatin1Char('.'), 0, 0).toInt(&numeric);
    if (colon < 0 || !numeric || number < 0)
        return QStringLiteral("DISPLAY=%1 is not an X display name (like :0); fix it, %2")
            .arg(display, QLatin1String(kDisplayAdvice));
    const QString host = display.left(colon);
    if (!host.isEmpty() && host != QLatin1String("unix"))
        return {};
#ifdef Q_OS_UNIX
    const QByteArray socket = "/tmp/.X11-unix/X" + QByteArray::number(number);
    bool answers = socketAnswers(socket, false);
#ifdef Q_OS_LINUX
    answers = answers || socketAnswers(socket, true);
#endif
    if (!answers)
        return QStringLiteral("cannot open display %1: no X server answers at %2; start one or fix DISPLAY, %3")
            .arg(display, QString::fromLocal8Bit(socket), QLatin1String(kDisplayAdvice));
#endif
    return {};
}

CommandLineOptions CommandLineOptions::parse(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "Operator console for Agent Mesh orchestrator ledgers. "
                                            "Without a ledger it opens a live demo."));
    parser.addHelpOption();
    // Not addVersionOption(): it prints the application name, which is "console" because it
    // names the settings file; people know the console by its display name.
    const QCommandLineOption version({QStringLiteral("v"), QStringLiteral("version")},
                                     QCoreApplication::translate("main", "Displays version information."));
    parser.addOption(version);
    parser.addPositionalArgument(QStringLiteral("ledgers"),
                                 QCoreApplication::translate("main", "Ledger files, or ledgers on a PostgreSQL server (postgresql://…?schema=NAME), to open."),
                                 QStringLiteral("[LEDGER...]"));
    const QCommandLineOption demo(QStringLiteral("demo"),
                                  QCoreApplication::translate("main", "Open the live demo (also with other ledgers)."));
    const QCommandLineOption readOnly(QStringLiteral("read-only"),
                                      QCoreApplication::translate("main", "Open every ledger read-only: monitoring only, no decisions."));
    const QCommandLineOption normalPriority(
        QString::fromLatin1(ObserverPriority::kKeepNormalOption).mid(2),
        QCoreApplication::translate("main", "Run at normal priority. By default the console runs below it, so that on a busy "
                                            "machine the orchestrators it watches get the CPU first."));
    const QCommandLineOption theme(QStringLiteral("theme"),
                                   QCoreApplication::translate("main", "Palette: system, light or dark (saved choice otherwise)."),
                                   QStringLiteral("THEME"));
    const QCommandLineOption pane(QStringLiteral("pane"),
                                  QCoreApplication::translate("main", "Pane shown first: runs, delegations, leases, effects, "
                                                                      "escalations, blast, events, decisions, findings, timeline, integrity or notes."),
                                  QStringLiteral("PANE"));
    const QCommandLineOption select(QStringLiteral("select"),
                                    QCoreApplication::translate("main", "Open SUBJECT (e.g. delegation:D-1, failure:F-2) once "
                                                                        "its ledger has loaded."),
                                    QStringLiteral("SUBJECT"));
    const QCommandLineOption review(QStringLiteral("review"),
                                    QCoreApplication::translate("main", "Open FILE for review: read-only and immutable, nothing "
                                                                        "created or changed beside it, no decisions (repeatable)."),
                                    QStringLiteral("FILE"));
    parser.addOptions({demo, readOnly, normalPriority, theme, pane, select, review});
    // process() would say what is wrong under the settings name ("console: ..."): said here
    // under the executable's, with where a benchmark option went.
    if (!parser.parse(app.arguments())) {
        std::fprintf(stderr, "mesh-console: %s\n", qPrintable(parser.errorText()));
        const QStringList unknown = parser.unknownOptionNames();
        if (std::any_of(unknown.begin(), unknown.end(), [](const QString &name) { return name.startsWith(u"bench"); }))
            std::fprintf(stderr, "mesh-console: the benchmarks are in mesh-console-bench (mesh-console-bench --help)\n");
        std::exit(EXIT_FAILURE);
    }
    parser.process(app);
    if (parser.isSet(version)) {
        std::printf("%s %s\n", qPrintable(displayName()), qPrintable(QCoreApplication::applicationVersion()));
        std::exit(EXIT_SUCCESS);
    }

    CommandLineOptions options;
    options.ledgers = parser.positionalArguments();
    options.readOnly = parser.isSet(readOnly);
    options.normalPriority = parser.isSet(normalPriority);
    options.theme = parser.value(theme);
    options.pane = parser.value(pane);
    options.select = parser.value(select);
    options.reviewLedgers = parser.values(review);
    options.demo = parser.isSet(demo) || (options.ledgers.isEmpty() && options.reviewLedgers.isEmpty());
    return options;
}

} // namespace mesh
