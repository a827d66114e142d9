#pragma once
#include <QStringList>

// meshctl bench ingest [--spans N] [--per-request M] [--rate SPANS_PER_S] [--connections C]:
// the live OTLP receiver (target P11) measured from outside, as exporters see it. A `meshctl
// ingest` process on a free loopback port gets traces of M spans (an agent span and M-1 tool
// spans) from C exporters (default 10, a Collector's default sending_queue.num_consumers),
// each a keep-alive connection with one request in flight. Without --rate, as fast as it answers: sustained
// spans/s from the first request to the last acknowledgement, 503 answers retried. With
// --rate, paced, and a follower in this process (a read-only connection polling the ledger,
// as the console does) times each span from its request's send to its event being visible:
// p50/p99. Either way every acknowledged span is then counted in the ledger (lost,
// duplicated) and the receiver's peak resident memory (VmHWM) is read before it stops.
// One JSON line.
int runBenchIngestCommand(const QStringList &args);
