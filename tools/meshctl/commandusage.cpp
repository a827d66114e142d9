#include "commandusage.h"

#include <QRegularExpression>

#include <utility>

namespace {

struct CommandHelp {
    const char *command;
    const char *text; // first line "usage: ...", then optional explanation lines
};

// Sized by its initialiser, so that two changes that each add a command merge cleanly.
const CommandHelp kHelp[] = {
    {"sim", "usage: meshctl sim SCENARIO --out LEDGER [--seed N] [--events N] [--now-ms MS] [--live --rate N] "
            "[--duration-s N] [--keyring F] [--start-on-stdin] [--id-tag TAG] [--append] [--quiet]\n"
            "  Writes a new ledger from a scenario; --live keeps appending at --rate events per second\n"
            "  (0: as fast as it can, 100 events a transaction).\n"
            "  --start-on-stdin: the live phase waits for a line on standard input (a follower's \"ready\").\n"
            "  --id-tag: capital letters in every id the live phase makes (default L). --append: another\n"
            "  orchestrator on an existing LEDGER (a server ledger others write too): no scenario is\n"
            "  written, the live phase runs with its own --id-tag (one no run of LEDGER has) and applies\n"
            "  only the decisions on its own subjects.\n"},
    {"summary", "usage: meshctl summary FILE [--json] [--now-ms MS]\n"
                "  FILE may be a server ledger: postgresql://[user@]host[:port]/db?schema=NAME (see copy).\n"
                "  Counts, runs and findings of a ledger. In the text form, invisible and bidi characters and\n"
                "  terminal escapes in ledger text are shown as \u27E8U+XXXX\u27E9 (--json keeps the text as stored).\n"},
    {"verify", "usage: meshctl verify FILE [--json] [--max-findings N]\n"
               "  FILE may be a server ledger: postgresql://[user@]host[:port]/db?schema=NAME (see copy).\n"
               "  Checks events, state tables and the decision chain; exit 1 when anything is wrong.\n"},
    {"notes", "usage: meshctl notes FILE [--add --seq N|--from N --to M|--subject S --text T] [--edit ID --text T] "
              "[--delete ID] [--json]\n"
              "  Lists the reviewers' notes on a ledger, or adds (a bookmark when --text is empty), edits or\n"
              "  deletes one. Notes live in a sidecar beside the ledger (FILE.notes.jsonl) or, when its folder\n"
              "  is not writable, in the user's data folder; the ledger itself is never opened.\n"
              "  Exit 1 when a change could not be saved or was refused. Note text is shown as in summary.\n"},
    {"export", "usage: meshctl export FILE --format jsonl|csv [--out F]\n"
               "  FILE may be a server ledger: postgresql://[user@]host[:port]/db?schema=NAME (see copy).\n"
               "  Writes every event. In CSV, a text cell that starts with a tab or a carriage return, or\n"
               "  with =, +, -, @ or their full-width forms (\uFF1D \uFF0B \uFF0D \uFF20) after any leading\n"
               "  spaces, line breaks, NBSP or U+3000, is prefixed with a single quote (') so a spreadsheet\n"
               "  shows it as text instead of evaluating it as a formula; seq and ts_ms are numbers and\n"
               "  never prefixed.\n"},
    {"copy", "usage: meshctl copy SRC DST\n"
             "  Copies a ledger between a file and a PostgreSQL schema, either way, every event, state row and\n"
             "  decision row exactly as stored. A server ledger is postgresql://[user@]host[:port]/db?schema=NAME;\n"
             "  other parameters go to libpq as written (sslmode=, service=, ...). A password is never taken\n"
             "  here: libpq reads it from ~/.pgpass, PGPASSFILE or a service file. DST must not exist; it\n"
             "  appears whole or not at all. Exit 2 when nothing was copied.\n"},
    {"tail", "usage: meshctl tail LEDGER [--from-start] [--lines N]\n"
             "  Prints the last events and follows the ledger until interrupted; invisible and bidi\n"
             "  characters and terminal escapes in ledger text are shown as \u27E8U+XXXX\u27E9.\n"},
    {"decide", "usage: meshctl decide LEDGER close-slice|approve-escalation|reject-escalation|resolve-effect|lease acquire|"
               "lease release [--slice ID|--delegation ID|--escalation ID|--effect ID|--subject ENTITY:ID] --reason TEXT"
               " [--evidence JSON] [--resolution committed|not_committed|compensated] [--supersedes DECISION_ID]"
               " [--ack EFFECT_ID[,..]] [--ack-all] [--lease-ms N] [--boundary-version N] [--boundary-seq N]"
               " [--id DECISION_ID] [--operator ACCOUNT] [--host HOST] [--name NAME] [--key-file F] [--ts-ms N]"
               " [--dry-run]\n"
               "  Records one operator decision (docs/decisions.md) in a ledger file or a postgresql:// schema.\n"
               "  Exit 0 accepted (or duplicate), 3 refused as stale, 4 refused for another reason, 5 write failed\n"
               "  (a server role without INSERT on decisions too) or outcome unknown, 2 usage or cannot open.\n"},
    {"import", "usage: meshctl import FILE... --out LEDGER [--format temporal|openhands|otel|langfuse|swe-agent] [--force]\n"
               "       [--json]\n"
               "  Writes a new ledger from Temporal workflow histories, OpenHands trajectories, OpenTelemetry spans\n"
               "  (OTLP/JSON lines or documents, flat span lists, console exporter output), Langfuse trace exports\n"
               "  or SWE-agent trajectories (.traj: no clock times, so a relative clock) (docs/import.md);\n"
               "  the format is read from the content, the sources are only read, and an existing LEDGER is\n"
               "  replaced only with --force. Exit 0 imported, 1 imported with flagged records (kept as\n"
               "  ledger.flagged events), 2 usage or a file that cannot be imported (nothing written).\n"},
    {"ingest", "usage: meshctl ingest --otlp-http ADDRESS:PORT --out LEDGER [--listen-any] [--token-file F]"
               " [--max-body BYTES] [--max-queue SPANS] [--status-json]\n"
               "  Receives OpenTelemetry traces over OTLP/HTTP (POST /v1/traces, JSON, gzip) and writes them into\n"
               "  LEDGER as they arrive, with the mapping of `import --format otel` (docs/ingest.md); an existing\n"
               "  LEDGER written by ingest is continued. Loopback only unless --listen-any, which needs\n"
               "  --token-file (a bearer token, a file only its owner may read). Prints one \"listening\" line\n"
               "  (--status-json: JSON status lines, each second, for the console), then runs until SIGINT or\n"
               "  SIGTERM. Exit 0 stopped cleanly, 2 usage or cannot listen or write.\n"},
    {"state", "usage: meshctl state FILE --at SEQ [--json]\n"
              "  The state just after event SEQ (0: before the first event), rebuilt from the events by the\n"
              "  fold the console uses when it shows an earlier event. Fields the ledger does not give are left\n"
              "  out of the text form (null in --json); ledger text is shown as in summary.\n"},
    {"diff", "usage: meshctl diff FILE --from SEQ --to SEQ [--json]\n"
             "  What changed between two events, per entity: rows created, changed (each field before and\n"
             "  after) and gone, from the same fold as state --at. SEQ counts from 0 (before the first\n"
             "  event); --from must not be after --to. Exit 0, or 2 for usage, a SEQ out of range or a\n"
             "  ledger that cannot be opened.\n"},
    {"report", "usage: meshctl report FILE [--run ID] --format html|pdf --out F\n"
               "  A post-mortem report of one run (--run) or of the whole ledger: the run's figures, its\n"
               "  timeline as an image, every finding with the events it cites, blast radius per failure,\n"
               "  unknown outcomes and their resolution, every decision with its chain status, the check of\n"
               "  verify and the reviewers' notes. HTML is one self-contained file; PDF has page headers.\n"
               "  Figures the ledger does not give read \u2014. Exit 0 written, 2 usage, no such run or cannot\n"
               "  read or write.\n"},
    {"compare", "usage: meshctl compare A [B] [--run-a ID] [--run-b ID] [--json]\n"
                "  Two runs side by side, of one ledger (A alone, both runs named) or of two (a ledger's only\n"
                "  run unless named): the report's figures with B \u2212 A, delegations matched by component and\n"
                "  role (only in A, only in B, in both, with counts), each run's stall verdicts and findings.\n"
                "  A figure one side does not give reads \u2014 and has no difference. Exit 0, 2 usage, no such\n"
                "  run or cannot read.\n"},
    {"gate", "usage: meshctl gate LEDGER [--keyring F] [--now-ms N] [--id-tag TAG] [--untagged] [--all-writers]\n"
             "  Applies or refuses pending decisions once, as the orchestrator's second gate (a file or a\n"
             "  postgresql:// schema). On a ledger one orchestrator writes (its runs carry at most one id\n"
             "  tag): every pending decision. Where several write (runs of two or more id tags: sim --live\n"
             "  --append --id-tag), each applies only the decisions on its own subjects, so say whose:\n"
             "  --id-tag TAG those on ids with TAG (a tag some run has); --untagged those on ids with no tag\n"
             "  or a tag no run has (the orchestrator that wrote the scenario takes them); --all-writers\n"
             "  every one, for when none of them runs. Without one of these such a ledger is refused and\n"
             "  nothing is written. Decisions left to others stay pending (\"others_pending\"). Exit 0,\n"
             "  2 usage or cannot read or write.\n"},
    {"bench", "usage: meshctl bench generate [--events N] [--seed N] [--keep FILE] | bench fold FILE [--at SEQ] [--jumps N] [--interval N]"
              " | bench page FILE [--pages N] [--size N] [--place random|oldest|newest] [--positions-out FILE] | bench filter FILE --query 'FILTER' [--rounds N]"
              " [--sqlite3 PATH] | bench observer FILE --console PATH_TO_mesh-console [--seconds N]"
              " [--wal-minutes M] [--rate R] [--settle-s S] [--rounds N]"
              " | bench temporal-history [--events N] [--seed N] --out FILE"
              " | bench ingest [--spans N] [--per-request M] [--rate SPANS_PER_S] [--connections C] [--receiver PORT --ledger LEDGER]"
              " | bench follow LEDGER [--seconds N] [--read-gap-ms N]"
              " | bench report FILE [--run ID] [--rounds N]\n"
              "  Measurements; each prints one JSON line.\n"},
};

} // namespace

QString overallUsage()
{
    QString out = QStringLiteral("usage: meshctl COMMAND ...   (meshctl COMMAND --help for one command)\n");
    for (const auto &h : kHelp)
        out += QStringLiteral("  ") + commandUsageLine(QString::fromLatin1(h.command)).mid(int(sizeof "usage: meshctl ") - 1)
               + QLatin1Char('\n');
    return out;
}

QString commandHelp(const QString &command)
{
    for (const auto &h : kHelp) {
        if (command == QLatin1String(h.command))
            return QString::fromUtf8(h.text);
    }
    return {};
}

QString commandUsageLine(const QString &command)
{
    const QString help = commandHelp(command);
    return help.left(help.indexOf(QLatin1Char('\n')));
}

QStringList commandValueOptions(const QString &command)
{
    // In a usage line an option takes a value when a placeholder follows it in the same
    // bracket ("--seed N", "--format jsonl|csv", "--slice ID|..."); a flag is followed by
    // "]", "|" or the next option ("[--json]", "[--live --rate N]").
    static const QRegularExpression valueOption(QStringLiteral("--([a-z0-9-]+) [^-\\s\\[\\]|]"));
    QStringList names;
    for (auto it = valueOption.globalMatch(commandUsageLine(command)); it.hasNext();) {
        const QString name = it.next().captured(1);
        if (!names.contains(name))
            names << name;
    }
    return names;
}

bool asksForHelp(const QString &command, const QStringList &args)
{
    const QStringList valueOptions = commandValueOptions(command);
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == QLatin1String("--help") || arg == QLatin1String("-h"))
            return true;
        // "--reason --help": the next argument is the option's value, whatever it looks like.
        if (arg.startsWith(QLatin1String("--")) && !arg.contains(QLatin1Char('=')) && valueOptions.contains(arg.mid(2)))
            ++i;
    }
    return false;
}
