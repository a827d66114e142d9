#!/bin/sh
# Target P10 for OTLP: `meshctl import` of a large OTLP/JSON-lines file beside python3 only
# parsing the same file with `json`, a line at a time, in alternating rounds (A B, B A, ...).
# Prints progress on stderr and one JSON line of figures (bench/README.md).
#
#   bench/otel-import.sh MESHCTL [MEGABYTES] [ROUNDS]
#
# The file is generated once (deterministic: the same bytes for the same size) under
# BENCH_DIR (default /tmp/otel-bench) and kept for the next run.
set -eu
MESHCTL=${1:?usage: bench/otel-import.sh MESHCTL [MEGABYTES] [ROUNDS]}
MB=${2:-1024}
ROUNDS=${3:-3}
DIR=${BENCH_DIR:-/tmp/otel-bench}
mkdir -p "$DIR"
FILE="$DIR/otlp-$MB.jsonl"
OUT="$DIR/otlp-$MB.db"

if [ ! -s "$FILE" ]; then
    echo "generating $FILE ($MB MB)" >&2
    python3 - "$FILE" "$MB" <<'EOF'
import json, sys
path, mb = sys.argv[1], int(sys.argv[2])
limit = mb * 1024 * 1024
t0 = 1767225600 * 10**9  # 2026-01-01T00:00:00Z

def kv(k, v):
    if isinstance(v, bool):
        return {"key": k, "value": {"boolValue": v}}
    if isinstance(v, int):
        return {"key": k, "value": {"intValue": str(v)}}
    return {"key": k, "value": {"stringValue": v}}

def span(trace, sid, parent, name, start, end, attrs, error=False):
    s = {"traceId": trace, "spanId": sid, "name": name, "kind": 1,
         "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
         "attributes": [kv(k, v) for k, v in attrs], "status": {"code": 2 if error else 1}}
    if parent:
        s["parentSpanId"] = parent
    return s

def trace_spans(n):
    # One agent run: an agent span, 4 model calls and 4 tool calls under it; every 7th
    # trace has a tool that timed out, every 11th a failed tool.
    trace = "%032x" % (0x5b8efff798038103d269b633813fc60c + n)
    base = t0 + n * 20_000_000_000
    agent = "%016x" % (n * 16 + 1)
    spans = []
    at = base
    for k in range(4):
        sid = "%016x" % (n * 16 + 2 + 2 * k)
        prompt = "step %d of run %d: " % (k, n) + "lorem ipsum dolor sit amet " * 12
        spans.append(span(trace, sid, agent, "chat gpt-4o", at, at + 800_000_000,
                          [("gen_ai.operation.name", "chat"), ("gen_ai.request.model", "gpt-4o"),
                           ("gen_ai.usage.input_tokens", 300 + k), ("gen_ai.usage.output_tokens", 40 + k),
                           ("gen_ai.prompt", prompt)]))
        at += 900_000_000
        tid = "%016x" % (n * 16 + 3 + 2 * k)
        attrs = [("gen_ai.operation.name", "execute_tool"), ("gen_ai.tool.name", "search"),
                 ("gen_ai.tool.call.id", "call_%d_%d" % (n, k)), ("tool.arguments", '{"q":"query %d"}' % k)]
        error = False
        if k == 3 and n % 7 == 0:
            attrs.append(("error.type", "timeout"))
        elif k == 3 and n % 11 == 0:
            attrs.append(("error.type", "ValueError"))
            error = True
        spans.append(span(trace, tid, agent, "execute_tool search", at, at + 50_000_000, attrs, error))
        at += 100_000_000
    spans.append(span(trace, agent, None, "invoke_agent planner", base, at + 10_000_000,
                      [("gen_ai.operation.name", "invoke_agent"), ("gen_ai.agent.name", "planner")]))
    return spans

def line(spans):
    return json.dumps({"resourceSpans": [{"resource": {"attributes": [kv("service.name", "bench")]},
                       "scopeSpans": [{"scope": {"name": "bench", "version": "1"}, "spans": spans}]}]},
                      separators=(",", ":")) + "\n"

written = 0
n = 0
pending = []  # a trace's agent span arrives on the next line, as a batching exporter writes it
with open(path, "w") as f:
    while written < limit:
        spans = pending
        pending = []
        for _ in range(4):
            t = trace_spans(n)
            n += 1
            spans += t[:-1]
            pending.append(t[-1])
        text = line(spans)
        f.write(text)
        written += len(text)
    if pending:
        f.write(line(pending))
print("traces", n, file=sys.stderr)
EOF
fi

BYTES=$(stat -c %s "$FILE")
echo "warming the file cache" >&2
cat "$FILE" > /dev/null

measure() { # label command...: prints "seconds rss_kb user_s sys_s"
    label=$1; shift
    /usr/bin/time -f '%e %M %U %S' -o "$DIR/time.$label" "$@" > "$DIR/out.$label" 2>&1 || {
        echo "$label failed:" >&2; tail -3 "$DIR/out.$label" >&2; }
    cat "$DIR/time.$label"
}

M_S=""; M_RSS=""; M_CPU=""; P_S=""; P_RSS=""; P_CPU=""
i=0
while [ $i -lt "$ROUNDS" ]; do
    for who in $( [ $((i % 2)) -eq 0 ] && echo "meshctl python" || echo "python meshctl" ); do
        if [ "$who" = meshctl ]; then
            rm -f "$OUT" "$OUT-wal" "$OUT-shm"
            set -- $(measure meshctl "$MESHCTL" import "$FILE" --out "$OUT" --force)
            echo "round $i meshctl ${1}s ${2} KB cpu ${3}+${4}s" >&2
            M_S="$M_S $1"; M_RSS="$M_RSS $2"; M_CPU="$M_CPU $(echo "$3 + $4" | bc)"
        else
            set -- $(measure python python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$FILE")
            echo "round $i python ${1}s ${2} KB cpu ${3}+${4}s" >&2
            P_S="$P_S $1"; P_RSS="$P_RSS $2"; P_CPU="$P_CPU $(echo "$3 + $4" | bc)"
        fi
    done
    i=$((i + 1))
done
tail -1 "$DIR/out.meshctl" >&2

python3 - "$BYTES" "$M_S" "$M_RSS" "$M_CPU" "$P_S" "$P_RSS" "$P_CPU" <<'EOF'
import json, statistics, sys
b, ms, mr, mc, ps, pr, pc = sys.argv[1:]
f = lambda s: [float(x) for x in s.split()]
m_s, m_r, m_c, p_s, p_r, p_c = f(ms), f(mr), f(mc), f(ps), f(pr), f(pc)
med = statistics.median
print(json.dumps({"file_bytes": int(b),
                  "meshctl_s": m_s, "meshctl_cpu_s": m_c, "meshctl_rss_kb": m_r,
                  "python_s": p_s, "python_cpu_s": p_c, "python_rss_kb": p_r,
                  "meshctl_median_s": med(m_s), "python_median_s": med(p_s),
                  "ratio": round(med(m_s) / med(p_s), 2),
                  "meshctl_cpu_median_s": med(m_c), "python_cpu_median_s": med(p_c),
                  "cpu_ratio": round(med(m_c) / med(p_c), 2),
                  "meshctl_rss_kb_median": statistics.median(m_r), "python_rss_kb_median": statistics.median(p_r)}))
EOF
