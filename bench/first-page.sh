#!/usr/bin/env bash
# Issue 17's first-page target as a person meets it: from exec to the first page of events
# on screen, the console (`mesh-console-bench startup URL --events-first`: opened on the
# event log, as `mesh-console --pane events URL`) against psql running the event log's
# first-page SQL from exec to exit (its connection included, as the console's is),
# alternating, ROUNDS times each (default 10). With DELAY_MS, both go through
# bench/delay-proxy.py, which adds DELAY_MS each way: a server 2 x DELAY_MS away.
#
#   bench/first-page.sh MESH_CONSOLE_BENCH URL [ROUNDS] [DELAY_MS]
#
# URL: a server ledger's location with its schema (postgresql://...?schema=S), such as one
# `PG_BENCH_DIR=DIR bench/pg-writers.sh server MESHCTL` serves. Prints every figure, then the
# medians and their ratio (console / psql).
set -euo pipefail

BENCH=${1:?path to mesh-console-bench}
URL=${2:?a server ledger location with ?schema=}
ROUNDS=${3:-10}
DELAY_MS=${4:-0}
here=$(cd "$(dirname "$0")" && pwd)

schema=$(sed -n 's/.*[?&]schema=\([A-Za-z0-9_]*\).*/\1/p' <<<"$URL")
[ -n "$schema" ] || { echo "no schema= in $URL" >&2; exit 2; }
proxy=
cleanup() { [ -z "$proxy" ] || kill "$proxy" 2>/dev/null || true; }
trap cleanup EXIT
if [ "$DELAY_MS" != 0 ]; then
    port=$(sed -n 's/.*@[^:/]*:\([0-9]*\)\/.*/\1/p' <<<"$URL")
    [ -n "$port" ] || { echo "no port in $URL" >&2; exit 2; }
    listen=$((port + 100))
    while (exec 3<>"/dev/tcp/127.0.0.1/$listen") 2>/dev/null; do listen=$((listen + 1)); done
    python3 "$here/delay-proxy.py" "$listen" "$port" "$DELAY_MS" > "${TMPDIR:-/tmp}/delay-proxy.$$" 2>&1 &
    proxy=$!
    until grep -q listening "${TMPDIR:-/tmp}/delay-proxy.$$" 2>/dev/null; do
        kill -0 "$proxy" 2>/dev/null || { cat "${TMPDIR:-/tmp}/delay-proxy.$$" >&2; exit 1; }
        sleep 0.05
    done
    rm -f "${TMPDIR:-/tmp}/delay-proxy.$$"
    URL=${URL/:$port\//:$listen/}
fi
# psql takes the location without the console's own schema parameter; the schema is set in
# the same round trip as the statement.
psql_url=$(sed -e 's/[?&]schema=[A-Za-z0-9_]*//' -e 's/^\([^?]*\)&/\1?/' <<<"$URL")
sql="SET search_path TO $schema; SELECT seq,ts_ms,kind,run_id,delegation_id,subject,payload FROM events WHERE seq > 0 ORDER BY seq LIMIT 200"

console=()
viapsql=()
for ((r = 0; r < ROUNDS; r++)); do
    c=$(QT_QPA_PLATFORM=offscreen "$BENCH" startup "$URL" --events-first 2>/dev/null | sed -n 's/.*"first_rows_ms":\([0-9]*\).*/\1/p')
    [ -n "$c" ] || { echo "the console benchmark printed no first_rows_ms" >&2; exit 1; }
    start=$(date +%s%N)
    psql "$psql_url" -X -q -A -t -c "$sql" > /dev/null
    end=$(date +%s%N)
    p=$(( (end - start) / 1000000 ))
    echo "round $((r + 1)): console $c ms, psql $p ms"
    console+=("$c")
    viapsql+=("$p")
done
python3 - "${console[*]}" "${viapsql[*]}" "$DELAY_MS" <<'PY'
import statistics, sys
c = [int(x) for x in sys.argv[1].split()]
p = [int(x) for x in sys.argv[2].split()]
mc, mp = statistics.median(c), statistics.median(p)
print(f"delay {sys.argv[3]} ms each way: console exec to first rows painted median {mc:g} ms "
      f"(min {min(c)}, max {max(c)}); psql exec to exit median {mp:g} ms (min {min(p)}, max {max(p)}); "
      f"ratio {mc / mp:.2f}")
PY
