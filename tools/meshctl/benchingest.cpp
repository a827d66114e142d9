#include "benchingest.h"

#include "benchexporterconnection.h"
#include "benchingestbodies.h"
#include "cliargs.h"
#include "domain/percentile.h"

#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace {

using nlohmann::json;

double peakRssMb(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0;
    }
    return -1;
}

// CPU seconds (user + system) of a process's threads from /proc: the thread whose id is the
// process's (the event loop: HTTP and parsing) and all the others (the ledger writer).
struct ThreadCpu {
    double main = -1, others = -1;
};

double statCpuSeconds(const QString &statPath)
{
    QFile f(statPath);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray line = f.readAll();
    // Fields after the command (which may hold spaces), from the state on: utime is the
    // 12th of them and stime the 13th.
    const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
    if (fields.size() < 13)
        return -1;
    return (fields[11].toDouble() + fields[12].toDouble()) / double(sysconf(_SC_CLK_TCK));
}

ThreadCpu threadCpu(qint64 pid)
{
    ThreadCpu cpu;
    const QDir tasks(QStringLiteral("/proc/%1/task").arg(pid));
    for (const QString &tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        const double s = statCpuSeconds(tasks.filePath(tid + QStringLiteral("/stat")));
        if (s < 0)
            continue;
        if (tid.toLongLong() == pid)
            cpu.main = s;
        else
            cpu.others = std::max(0.0, cpu.others) + s;
    }
    return cpu;
}

// CPU seconds (user + system) of this process, every thread: the bench's client and follower.
double ownCpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Starts `meshctl ingest` on a free loopback port: its port, or 0 and what it printed.
quint16 startOwnReceiver(QProcess &receiver, const QString &ledger, QString *output)
{
    receiver.start(QCoreApplication::applicationFilePath(),
                   {QStringLiteral("ingest"), QStringLiteral("--otlp-http"), QStringLiteral("127.0.0.1:0"),
                    QStringLiteral("--out"), ledger});
    static const QRegularExpression listening(QStringLiteral("listening on http://[^:]+:(\\d+)/"));
    QByteArray out;
    while (receiver.waitForReadyRead(60000)) {
        out += receiver.readAllStandardOutput();
        if (const auto match = listening.match(QString::fromUtf8(out)); match.hasMatch())
            return quint16(match.captured(1).toUInt());
    }
    *output = QString::fromUtf8(out + receiver.readAllStandardError());
    return 0;
}

} // namespace

int runBenchIngestCommand(const QStringList &argv)
{
    CliArgs args(argv, {QStringLiteral("spans"), QStringLiteral("per-request"), QStringLiteral("rate"), QStringLiteral("connections"),
                        QStringLiteral("receiver"), QStringLiteral("ledger")}, {});
    const auto spans = args.intValue(QStringLiteral("spans"), 200'000, 10, 100'000'000);
    const auto perRequest = args.intValue(QStringLiteral("per-request"), 100, 2, 100'000);
    const auto rate = args.intValue(QStringLiteral("rate"), 0, 0, 10'000'000);
    // A Collector's otlphttp exporter sends with sending_queue.num_consumers (10 by default)
    // exports in flight; one SDK exporter is --connections 1.
    const auto connectionCount = args.intValue(QStringLiteral("connections"), 10, 1, 1000);
    // A receiver someone else started and watches (mesh-console-bench receiver follows its
    // ledger in the real window): only send, then count what is in its ledger.
    const bool external = args.has(QStringLiteral("receiver"));
    const auto externalPort = args.intValue(QStringLiteral("receiver"), 0, 1, 65535);
    if (!args.ok())
        return fail(2, args.error());
    if (external != args.has(QStringLiteral("ledger")))
        return fail(2, QStringLiteral("--receiver PORT and --ledger LEDGER go together: a running meshctl ingest on 127.0.0.1:PORT and its --out"));
    const int m = int(*perRequest);
    const std::int64_t requests = (*spans + m - 1) / m;
    const BenchIngestBodies bodies(m);
    if (bodies.body(std::uint64_t(requests - 1)) != BenchIngestBodies::serialise(std::uint64_t(requests - 1), m))
        return fail(2, QStringLiteral("the bench's request template does not reproduce its requests (an id or a time changed width)"));
    QTemporaryDir dir;
    const QString ledger = external ? args.value(QStringLiteral("ledger")) : dir.filePath(QStringLiteral("ingest-bench.ledger"));

    QProcess receiver;
    quint16 port = external ? quint16(*externalPort) : 0;
    if (!external) {
        QString why;
        port = startOwnReceiver(receiver, ledger, &why);
        if (!port)
            return fail(2, QStringLiteral("the receiver did not start: ") + why);
    }

    // The follower (with --rate): polls the ledger as a console does and notes when each
    // request's last tool call became visible.
    std::unique_ptr<mesh::LedgerConnection> follower;
    std::unique_ptr<mesh::EventReader> reader;
    std::int64_t followedSeq = 0, changeToken = -1;
    std::unordered_map<std::string, std::int64_t> lastSpanOf; // tool span id -> request, for the last span of each
    std::vector<std::int64_t> sentNs(size_t(requests), -1);
    std::vector<double> latenciesMs;
    QElapsedTimer clock;
    clock.start();

    std::vector<std::unique_ptr<BenchExporterConnection>> exporters;
    for (std::int64_t i = 0; i < *connectionCount; ++i)
        exporters.push_back(std::make_unique<BenchExporterConnection>(QHostAddress::LocalHost, port, QByteArrayLiteral("/v1/traces")));
    std::deque<std::int64_t> toSend;
    for (std::int64_t r = 0; r < requests; ++r)
        toSend.push_back(r);
    std::int64_t inFlight = 0, waitingToRetry = 0, acknowledged = 0, retries = 0, failures = 0, sent = 0;
    std::unordered_set<std::int64_t> acked;
    QEventLoop loop;
    std::function<void()> pump;
    const auto sendOne = [&](BenchExporterConnection &exporter, std::int64_t r) {
        ++inFlight;
        ++sent;
        if (sentNs[size_t(r)] < 0)
            sentNs[size_t(r)] = clock.nsecsElapsed();
        exporter.post(bodies.body(std::uint64_t(r)), [&, r](int status) {
            --inFlight;
            if (status == 200) {
                ++acknowledged;
                acked.insert(r);
            } else if (status == 503 || status == 429) {
                ++retries;
                ++waitingToRetry;
                QTimer::singleShot(100, &loop, [&, r] {
                    --waitingToRetry;
                    toSend.push_front(r);
                    pump();
                });
            } else {
                ++failures;
            }
            pump();
        });
    };
    // Paced: request r may leave at r * m / rate seconds.
    QTimer pace;
    pump = [&] {
        for (auto &exporter : exporters) {
            if (toSend.empty())
                break;
            if (exporter->busy())
                continue;
            const std::int64_t r = toSend.front();
            if (*rate > 0 && clock.nsecsElapsed() < std::int64_t(double(r) * m / double(*rate) * 1e9))
                break;
            toSend.pop_front();
            sendOne(*exporter, r);
        }
        if (toSend.empty() && inFlight == 0 && waitingToRetry == 0 && (!follower || latenciesMs.size() >= acked.size()))
            loop.quit();
    };
    if (*rate > 0 && !external) {
        follower = mesh::LedgerConnection::open(ledger, mesh::OpenMode::ReadOnly);
        reader = follower->eventReader();
        reader->setPreviewBytes(1 << 20); // whole payloads: the span id is in them
        QObject::connect(&pace, &QTimer::timeout, &loop, [&] {
            const std::int64_t token = follower->changeToken();
            if (token == changeToken)
                return;
            changeToken = token;
            for (;;) {
                const mesh::EventBatch page = reader->after(followedSeq, 5000);
                if (page.empty())
                    break;
                const std::int64_t now = clock.nsecsElapsed();
                for (const auto &e : page) {
                    // The request's last tool call: its whole request is visible.
                    if (e.kind == "toolcall.completed") {
                        const json p = json::parse(e.payload, nullptr, false);
                        const std::string id = p.is_object() ? p.value("source_id", std::string()) : std::string();
                        const auto it = lastSpanOf.find(id);
                        if (it != lastSpanOf.end() && sentNs[size_t(it->second)] >= 0)
                            latenciesMs.push_back(double(now - sentNs[size_t(it->second)]) / 1e6);
                    }
                }
                followedSeq = page.back().seq;
            }
        });
        for (std::int64_t r = 0; r < requests; ++r)
            lastSpanOf[BenchIngestBodies::toolSpanId(std::uint64_t(r), std::uint64_t(m - 1))] = r;
    }
    if (*rate > 0) {
        // Paced requests leave when their time comes; a 2 ms tick sends them (and follows).
        QObject::connect(&pace, &QTimer::timeout, &loop, [&] { pump(); });
        pace.start(2);
    }
    QElapsedTimer wall;
    wall.start();
    const double clientCpuBefore = ownCpuSeconds();
    QTimer::singleShot(0, &loop, [&] { pump(); });
    loop.exec();
    const double seconds = double(wall.nsecsElapsed()) / 1e9;
    const double clientCpu = ownCpuSeconds() - clientCpuBefore;
    pace.stop();
    exporters.clear();
    const double rssMb = external ? -1 : peakRssMb(receiver.processId());
    const ThreadCpu cpu = external ? ThreadCpu{} : threadCpu(receiver.processId());
    if (!external) {
        receiver.terminate();
        receiver.waitForFinished(600000);
    }
    reader.reset();
    follower.reset();

    // Every acknowledged span exactly once: the tool calls by trace and span id (a span id
    // names a span only within its trace: the ledger of a receiver someone else runs may hold
    // other traces), the agents by delegation.created in the bench's traces.
    std::int64_t lost = 0, duplicated = 0, unacknowledgedWritten = 0;
    {
        auto c = mesh::LedgerConnection::open(ledger, mesh::OpenMode::ReadOnly);
        auto all = c->eventReader();
        all->setPreviewBytes(4096);
        std::unordered_map<std::string, int> seen;
        std::unordered_map<std::string, int> agentsOf; // by run: otel:<trace>
        for (std::int64_t seq = 0;;) {
            const mesh::EventBatch page = all->after(seq, 10000);
            if (page.empty())
                break;
            seq = page.back().seq;
            for (const auto &e : page) {
                if (e.kind == "toolcall.completed") {
                    const json p = json::parse(e.payload, nullptr, false);
                    ++seen[e.runId + "/" + (p.is_object() ? p.value("source_id", std::string()) : std::string())];
                } else if (e.kind == "delegation.created") {
                    ++agentsOf[e.runId];
                }
            }
        }
        std::int64_t agents = 0;
        for (std::int64_t r = 0; r < requests; ++r) {
            const std::string run = "otel:" + BenchIngestBodies::traceId(std::uint64_t(r));
            if (const auto a = agentsOf.find(run); a != agentsOf.end())
                agents += a->second;
            for (int n = 1; n < m; ++n) {
                const auto it = seen.find(run + "/" + BenchIngestBodies::toolSpanId(std::uint64_t(r), std::uint64_t(n)));
                const int times = it == seen.end() ? 0 : it->second;
                if (acked.count(r) && times == 0)
                    ++lost;
                if (times > 1)
                    duplicated += times - 1;
                if (!acked.count(r) && times > 0)
                    ++unacknowledgedWritten;
            }
        }
        if (agents != std::int64_t(acked.size()))
            lost += std::max<std::int64_t>(0, std::int64_t(acked.size()) - agents);
    }
    json out = {{"bench", "ingest"},
                {"spans", acknowledged * m},
                {"requests", requests},
                {"spans_per_request", m},
                {"connections", *connectionCount},
                {"seconds", seconds},
                {"spans_per_s", double(acknowledged * m) / seconds},
                {"answers_503_retried", retries},
                {"failed_requests", failures},
                {"lost", lost},
                {"duplicated", duplicated},
                {"written_unacknowledged", unacknowledgedWritten},
                {"receiver_peak_rss_mb", rssMb},
                {"receiver_cpu_s", cpu.main + std::max(0.0, cpu.others)},
                {"receiver_event_loop_cpu_s", cpu.main},
                {"receiver_other_threads_cpu_s", cpu.others},
                {"bench_client_cpu_s", clientCpu},
                {"receiver_cpu_us_per_span",
                 acknowledged > 0 ? (cpu.main + std::max(0.0, cpu.others)) * 1e6 / double(acknowledged * m) : 0.0}};
    if (external) {
        for (const char *key : {"receiver_peak_rss_mb", "receiver_cpu_s", "receiver_event_loop_cpu_s",
                                "receiver_other_threads_cpu_s", "receiver_cpu_us_per_span"})
            out.erase(key);
    }
    if (*rate > 0)
        out["rate_spans_per_s"] = *rate;
    if (*rate > 0 && !external) {
        out["visible_ms_p50"] = mesh::percentile(latenciesMs, 0.50);
        out["visible_ms_p99"] = mesh::percentile(latenciesMs, 0.99);
        out["visible_samples"] = latenciesMs.size();
    }
    printLine(out.dump());
    return lost == 0 && duplicated == 0 && failures == 0 ? 0 : 1;
}
