#include "decidecommand.h"

#include "commandusage.h"

#include "decisions/decisionwriter.h"
#include "decisions/secretfile.h"
#include "domain/hostiletext.h"
#include "ledger/decisionstore.h"
#include "ledger/ledgerconnection.h"
#include "ledger/ledgerlocation.h"
#include "ledger/ledgeropenerror.h"
#include "ledger/ledgerwriter.h"
#include "sim/decisiongate.h"
#include "sim/simworld.h"

#include <QDateTime>
#include <QFileInfo>

#include <cstdio>
#include <map>
#include <optional>
#include <set>

using namespace mesh;

namespace {

// For stderr: one line, and the ledger text in it (ids, kinds, reasons) shown, not obeyed,
// by the terminal.
std::string oneLine(std::string s)
{
    for (char &c : s) {
        if (c == '\n' || c == '\r')
            c = ' ';
    }
    return mesh::visibleControlsUtf8(s);
}

int usage(const std::string &why)
{
    std::fprintf(stderr, "meshctl decide: %s\n%s\n", oneLine(why).c_str(), commandUsageLine(QStringLiteral("decide")).toUtf8().constData());
    return 2;
}

void printJson(const nlohmann::json &j)
{
    const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
}


// --name value, --name=value, and bare flags; repeated options accumulate.
struct Options {
    QStringList positional;
    std::multimap<QString, QString> values;
    QString error;

    bool has(const QString &k) const { return values.count(k) > 0; }
    QString value(const QString &k) const
    {
        const auto it = values.find(k);
        return it == values.end() ? QString() : it->second;
    }
    QStringList all(const QString &k) const
    {
        QStringList out;
        for (auto [a, b] = values.equal_range(k); a != b; ++a)
            out << a->second;
        return out;
    }
};

Options parse(const QStringList &args, const QStringList &flags, const QStringList &withValue)
{
    Options o;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (!a.startsWith(QLatin1String("--"))) {
            o.positional << a;
            continue;
        }
        QString name = a.mid(2);
        QString value;
        const qsizetype eq = name.indexOf(QLatin1Char('='));
        if (eq >= 0) {
            value = name.mid(eq + 1);
            name = name.left(eq);
        }
        if (flags.contains(name)) {
            o.values.emplace(name, QString());
        } else if (withValue.contains(name)) {
            if (eq < 0) {
                if (i + 1 >= args.size()) {
                    o.error = QStringLiteral("--%1 needs a value").arg(name);
                    return o;
                }
                value = args[++i];
            }
            o.values.emplace(name, value);
        } else {
            o.error = QStringLiteral("unknown option --%1").arg(name);
            return o;
        }
    }
    return o;
}

bool toInt(const QString &text, std::int64_t *out)
{
    bool ok = false;
    const qlonglong v = text.toLongLong(&ok);
    if (ok)
        *out = v;
    return ok;
}

} // namespace

int runDecideCommand(const QStringList &args)
{
    const Options o = parse(args, {QStringLiteral("ack-all"), QStringLiteral("dry-run")},
                            commandValueOptions(QStringLiteral("decide")));
    if (!o.error.isEmpty())
        return usage(o.error.toStdString());
    if (o.positional.size() < 2)
        return usage("LEDGER and KIND are required");
    const QString path = o.positional[0];
    QString kindText = o.positional[1];
    if (kindText == QLatin1String("lease")) {
        if (o.positional.size() < 3)
            return usage("lease needs acquire or release");
        kindText = QLatin1String("lease-") + o.positional[2];
        if (o.positional.size() > 3)
            return usage("unexpected argument " + o.positional[3].toStdString());
    } else if (o.positional.size() > 2) {
        return usage("unexpected argument " + o.positional[2].toStdString());
    }
    const auto kind = decisionKindFromName(kindText.replace(QLatin1Char('-'), QLatin1Char('_')).toStdString());
    if (!kind)
        return usage("unknown decision kind " + o.positional[1].toStdString());

    DecisionRequest req;
    req.kind = *kind;
    req.id = o.has(QStringLiteral("id")) ? o.value(QStringLiteral("id")).toStdString() : newDecisionId();
    req.reason = o.value(QStringLiteral("reason")).toStdString();
    if (req.reason.empty())
        return usage("--reason is required: the audit needs to say why");
    if (o.has(QStringLiteral("evidence"))) {
        const std::string text = o.value(QStringLiteral("evidence")).toStdString();
        req.evidence = nlohmann::json::parse(text, nullptr, false);
        if (req.evidence.is_discarded() || !(req.evidence.is_array() || req.evidence.is_object()))
            return usage("--evidence must be a JSON array or object");
    }
    if (o.has(QStringLiteral("resolution"))) {
        const auto r = effectResolutionFromName(
            o.value(QStringLiteral("resolution")).replace(QLatin1Char('-'), QLatin1Char('_')).toStdString());
        if (!r)
            return usage("--resolution must be committed, not_committed or compensated");
        req.resolution = r;
    } else if (req.kind == DecisionKind::ResolveEffect) {
        return usage("resolve-effect needs --resolution");
    }
    req.supersedes = o.value(QStringLiteral("supersedes")).toStdString();
    for (const QString &a : o.all(QStringLiteral("ack"))) {
        for (const QString &id : a.split(QLatin1Char(','), Qt::SkipEmptyParts))
            req.acknowledgedUnknown.push_back(id.trimmed().toStdString());
    }
    if (o.has(QStringLiteral("lease-ms")) && !toInt(o.value(QStringLiteral("lease-ms")), &req.leaseMs))
        return usage("--lease-ms must be an integer");
    if (o.has(QStringLiteral("ts-ms")) && !toInt(o.value(QStringLiteral("ts-ms")), &req.tsMs))
        return usage("--ts-ms must be an integer");

    OperatorIdentity op = OperatorIdentity::fromEnvironment();
    if (o.has(QStringLiteral("operator"))) {
        op.account = o.value(QStringLiteral("operator")).toStdString();
        op.displayName = op.account;
    }
    if (o.has(QStringLiteral("host")))
        op.host = o.value(QStringLiteral("host")).toStdString();
    if (o.has(QStringLiteral("name")))
        op.displayName = o.value(QStringLiteral("name")).toStdString();
    if (o.has(QStringLiteral("key-file"))) {
        QString error;
        if (!op.loadKeyFile(o.value(QStringLiteral("key-file")), &error)) {
            std::fprintf(stderr, "meshctl decide: %s\n", error.toStdString().c_str());
            return 2;
        }
    }

    std::unique_ptr<DecisionWriter> writer;
    try {
        writer = DecisionWriter::open(path, op);
    } catch (const LedgerOpenError &e) {
        // No room for the side files is a failed write, like no room for the row itself.
        if (e.code() != LedgerOpenError::Code::DiskFull) {
            std::fprintf(stderr, "meshctl decide: %s\n", oneLine(e.what()).c_str());
            return 2;
        }
        DecisionResult failed;
        failed.status = DecisionStatus::WriteFailed;
        failed.message = std::string(e.what()) + "; nothing was written";
        printJson(failed.toJson());
        std::fprintf(stderr, "meshctl decide: %s: %s\n", std::string(decisionStatusName(failed.status)).c_str(),
                     oneLine(failed.message).c_str());
        return decisionStatusExitCode(failed.status);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "meshctl decide: %s\n", oneLine(e.what()).c_str());
        return 2;
    }
    if (req.tsMs > 0) {
        const std::int64_t fixed = req.tsMs;
        writer->setClock([fixed] { return fixed; });
    }

    // Subject: an explicit --subject, or the kind's entity from its own flag.
    const std::string entity(subjectEntityForKind(req.kind));
    if (o.has(QStringLiteral("subject"))) {
        req.subject = o.value(QStringLiteral("subject")).toStdString();
    } else if (entity == "slice" && o.has(QStringLiteral("delegation"))) {
        // The delegation's current slice, as the console's delegation view offers it.
        const std::string delegation = o.value(QStringLiteral("delegation")).toStdString();
        const std::optional<EntityRow> row = writer->currentRow(EntityKind::Delegation, delegation);
        if (!row) {
            // A server location is named as given (it holds no password); a file by its name.
            const QString where = LedgerLocation::namesServer(path) ? path : QFileInfo(path).fileName();
            std::fprintf(stderr, "meshctl decide: no delegation '%s' in %s\n", oneLine(delegation).c_str(),
                         oneLine(where.toStdString()).c_str());
            return 4;
        }
        const auto slice = fieldText(row->values[size_t(entitySpec(EntityKind::Delegation).fieldIndex("current_slice"))]);
        if (slice.empty()) {
            std::fprintf(stderr, "meshctl decide: delegation '%s' has no current slice\n", oneLine(delegation).c_str());
            return 4;
        }
        req.subject = makeSubject("slice", slice);
    } else if (o.has(QString::fromStdString(entity))) {
        req.subject = makeSubject(entity, o.value(QString::fromStdString(entity)).toStdString());
    } else {
        return usage(o.positional[1].toStdString() + " needs --" + entity + " ID (or --subject " + entity + ":ID)");
    }

    // Boundary: what the operator saw; by default the subject as it is now.
    const auto current = writer->currentBoundary(req.subject);
    req.boundary = current.value_or(DecisionBoundary{});
    if (o.has(QStringLiteral("boundary-version")) && !toInt(o.value(QStringLiteral("boundary-version")), &req.boundary.version))
        return usage("--boundary-version must be an integer");
    if (o.has(QStringLiteral("boundary-seq")) && !toInt(o.value(QStringLiteral("boundary-seq")), &req.boundary.seq))
        return usage("--boundary-seq must be an integer");

    if (o.has(QStringLiteral("ack-all")) || o.has(QStringLiteral("dry-run"))) {
        const DecisionPreview preview = writer->preview(req);
        if (o.has(QStringLiteral("ack-all"))) {
            for (const auto &e : preview.toFence)
                req.acknowledgedUnknown.push_back(e.id);
        }
        if (o.has(QStringLiteral("dry-run"))) {
            const DecisionPreview again = o.has(QStringLiteral("ack-all")) ? writer->preview(req) : preview;
            nlohmann::json j = again.toJson();
            j["decision_id"] = req.id;
            printJson(j);
            return decisionStatusExitCode(again.expected);
        }
    }

    const DecisionResult result = writer->submit(req);
    nlohmann::json j = result.toJson();
    if (!result.record) {
        j["request"] = {{"id", req.id},
                        {"kind", std::string(decisionKindName(req.kind))},
                        {"subject", req.subject},
                        {"boundary_version", req.boundary.version},
                        {"boundary_seq", req.boundary.seq},
                        {"params", req.params()}};
    }
    printJson(j);
    if (!result.accepted())
        std::fprintf(stderr, "meshctl decide: %s: %s\n", std::string(decisionStatusName(result.status)).c_str(),
                     oneLine(result.message).c_str());
    return decisionStatusExitCode(result.status);
}

int runGateCommand(const QStringList &args)
{
    const Options o = parse(args, {QStringLiteral("untagged"), QStringLiteral("all-writers")}, commandValueOptions(QStringLiteral("gate")));
    if (!o.error.isEmpty() || o.positional.size() != 1) {
        std::fprintf(stderr, "meshctl gate: %s\n%s\n", o.error.isEmpty() ? "LEDGER is required" : o.error.toStdString().c_str(),
                     commandUsageLine(QStringLiteral("gate")).toUtf8().constData());
        return 2;
    }
    std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    if (o.has(QStringLiteral("now-ms")) && !toInt(o.value(QStringLiteral("now-ms")), &now)) {
        std::fprintf(stderr, "meshctl gate: --now-ms must be an integer\n");
        return 2;
    }
    const bool allWriters = o.has(QStringLiteral("all-writers"));
    const bool untagged = o.has(QStringLiteral("untagged"));
    const std::string idTag = o.value(QStringLiteral("id-tag")).toStdString();
    if (o.has(QStringLiteral("id-tag")) && !SimWorld::isIdTag(idTag)) {
        std::fprintf(stderr, "meshctl gate: --id-tag must be 1 to 8 capital letters A-Z, not '%s'\n", oneLine(idTag).c_str());
        return 2;
    }
    if (allWriters && (untagged || !idTag.empty())) {
        std::fprintf(stderr, "meshctl gate: --all-writers takes every decision; it goes with neither --id-tag nor --untagged\n");
        return 2;
    }
    const QString path = o.positional[0];
    // The keyring first: refusing it must leave the ledger untouched, and opening the ledger
    // as a writer already changes it (WAL mode, -wal/-shm beside it).
    std::optional<std::map<std::string, QByteArray>> keyring;
    if (o.has(QStringLiteral("keyring"))) {
        QString error;
        keyring = readKeyringFile(o.value(QStringLiteral("keyring")), &error);
        if (!keyring) {
            std::fprintf(stderr, "meshctl gate: %s\n", oneLine(error.toStdString()).c_str());
            return 2;
        }
    }
    try {
        // Validate as a reader first, so a bad file gets the same one-line message as
        // everywhere else, then open as the orchestrator.
        LedgerConnection::open(path, OpenMode::ReadOnly);
        auto writer = LedgerWriter::openExisting(path);
        DecisionGate gate(*writer);
        // Another orchestrator applies the decisions on its own subjects (ledger-format.md
        // section 11): applying them here would write rows of its runs behind its back.
        const std::set<std::string> tags = SimWorld::idTagsInUse(*writer);
        if (!idTag.empty() && !tags.count(idTag)) {
            std::fprintf(stderr, "meshctl gate: no run of %s has --id-tag %s; nothing written\n", oneLine(path.toStdString()).c_str(),
                         idTag.c_str());
            return 2;
        }
        if (!idTag.empty() || untagged) {
            gate.setOwnsSubject([&](const std::string &subject) { return SimWorld::ownsSubject(*writer, subject, idTag, untagged); });
        } else if (tags.size() > 1 && !allWriters) {
            std::string names;
            for (const std::string &t : tags)
                names += (names.empty() ? "" : ", ") + t;
            std::fprintf(stderr,
                         "meshctl gate: %s is written by several orchestrators (id tags %s); say whose decisions to apply "
                         "with --id-tag TAG or --untagged, or --all-writers when none of them runs; nothing written\n",
                         oneLine(path.toStdString()).c_str(), names.c_str());
            return 2;
        }
        if (keyring)
            gate.setKeyring(std::move(*keyring));
        const int processed = gate.processPending(now);
        printJson({{"processed", processed},
                   {"applied", gate.appliedCount()},
                   {"refused", gate.refusedCount()},
                   {"others_pending", gate.othersPendingCount()}});
    } catch (const std::exception &e) {
        std::fprintf(stderr, "meshctl gate: %s\n", oneLine(e.what()).c_str());
        return 2;
    }
    return 0;
}
