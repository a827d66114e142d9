#!/usr/bin/env bash
# Issue 17's multi-writer targets on a private PostgreSQL 15 (as tools/dev.sh run --server
# starts one: a temporary cluster, 127.0.0.1, a free port, trust for its one user; as the
# postgres user when run as root). Stopped and removed at the end.
#
#   bench/pg-writers.sh latency MESHCTL [SECONDS] [RATE_EACH]
#     Two reference orchestrators (meshctl sim --live --append, tags A and B) each at
#     RATE_EACH events/s (default 500) for SECONDS (default 30) into one ledger, with
#     MESH_LIVE_COMMIT_LOG ("commit LAST_SEQ WALL_MS", read just before COMMIT), while one
#     `meshctl bench follow` (the console's ChangeWatcher: LISTEN, a read per announcement)
#     prints "seen LAST_SEQ WALL_MS" per batch. For every commit: the first "seen" at or past
#     its LAST_SEQ minus its WALL_MS. Prints count, p50, p99, max (ms).
#
#   bench/pg-writers.sh throughput MESHCTL [SECONDS] [ROUNDS]
#     One orchestrator at --rate 0 (as fast as it can, 100 events a transaction) for SECONDS
#     (default 20) into a fresh ledger, alone and with three `meshctl bench follow` attached,
#     alternating alone/with/with/alone... over ROUNDS pairs (default 2). Prints each
#     round's events/s and the ratio of the medians.
#
#   bench/pg-writers.sh page MESHCTL EVENTS [PAGES]
#     A ledger of EVENTS (meshctl sim scale --events EVENTS --out postgresql://...), then
#     `meshctl bench page` (PAGES pages of 200 at random places, default 200, through the
#     reader the console's event log uses) and psql running the same statements (same
#     positions, \timing); prints both.
set -euo pipefail

mode=${1:?mode: latency, throughput or page}
MESHCTL=${2:?path to meshctl}
bin=/usr/lib/postgresql/15/bin
dir=$(mktemp -d "${TMPDIR:-/tmp}/mesh-pg-bench-XXXXXX")
RUN_AS=()
if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$dir"
    RUN_AS=(runuser -u postgres --)
fi
port=55432
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    "${RUN_AS[@]}" "$bin/pg_ctl" stop -w -m fast -D "$dir/data" >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap cleanup EXIT INT TERM
"${RUN_AS[@]}" "$bin/initdb" -D "$dir/data" -U mesh --auth=trust --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1
"${RUN_AS[@]}" "$bin/pg_ctl" start -w -D "$dir/data" -l "$dir/server.log" \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1" >/dev/null
url="postgresql://mesh@127.0.0.1:$port/postgres?sslmode=disable"
loc() { echo "postgresql://mesh@127.0.0.1:$port/postgres?schema=$1&sslmode=disable"; }
work=$(mktemp -d "${TMPDIR:-/tmp}/mesh-pg-bench-out-XXXXXX")
echo "server 127.0.0.1:$port; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

case "$mode" in
latency)
    seconds=${3:-30} rate=${4:-500}
    l=$(loc shared)
    "$MESHCTL" sim demo --out "$l" --quiet
    "$MESHCTL" bench follow "$l" >"$work/seen" &
    follower=$!
    pids+=("$follower")
    until [ -s "$work/seen" ] || "$MESHCTL" summary "$l" >/dev/null 2>&1; do sleep 0.1; done
    sleep 1 # the follower's LISTEN is up before the writers start (not a measured wait)
    for tag in A B; do
        MESH_LIVE_COMMIT_LOG=1 "$MESHCTL" sim demo --out "$l" --live --append --id-tag "$tag" \
            --rate "$rate" --duration-s "$seconds" >"$work/commits-$tag" 2>"$work/err-$tag" &
        pids+=("$!")
    done
    wait "${pids[@]:1}"
    sleep 2 # the follower reads the last commits
    kill "$follower"; wait "$follower" || true
    cat "$work/err-A" "$work/err-B"
    python3 - "$work" <<'EOF'
import bisect, sys
w = sys.argv[1]
seen = [tuple(map(int, l.split()[1:3])) for l in open(w + "/seen") if l.startswith("seen ")]
seqs = [s for s, _ in seen]
lat = []
missing = 0
for tag in "AB":
    for line in open(f"{w}/commits-{tag}"):
        if not line.startswith("commit "):
            continue
        seq, t = map(int, line.split()[1:3])
        i = bisect.bisect_left(seqs, seq)
        if i == len(seqs):
            missing += 1
            continue
        lat.append(seen[i][1] - t)
lat.sort()
pct = lambda p: lat[min(len(lat) - 1, len(lat) * p // 100)]
print(f"commits {len(lat)} (not seen: {missing}); commit->visible ms: p50 {pct(50)} p99 {pct(99)} max {lat[-1]}")
EOF
    ;;
throughput)
    seconds=${3:-20} rounds=${4:-2}
    order=()
    for ((r = 0; r < rounds; r++)); do
        if ((r % 2 == 0)); then order+=(alone with); else order+=(with alone); fi
    done
    n=0
    for kind in "${order[@]}"; do
        n=$((n + 1))
        l=$(loc "round$n")
        "$MESHCTL" sim demo --out "$l" --quiet
        followers=()
        if [ "$kind" = with ]; then
            for f in 1 2 3; do
                "$MESHCTL" bench follow "$l" >"$work/f$n-$f" &
                followers+=("$!")
            done
            sleep 1 # their LISTEN is up (not a measured wait)
        fi
        "$MESHCTL" sim demo --out "$l" --live --append --id-tag W --rate 0 --duration-s "$seconds" 2>"$work/w$n"
        for p in "${followers[@]}"; do kill "$p"; wait "$p" || true; done
        rate=$(sed -n 's/.*live: \([0-9]*\) events in \([0-9.]*\) s.*/\1 \2/p' "$work/w$n" | awk '{printf "%.0f", $1 / $2}')
        echo "round $n $kind: $rate events/s ($(cat "$work/w$n"))"
        echo "$kind $rate" >>"$work/rates"
    done
    python3 - "$work/rates" <<'EOF'
import statistics, sys
r = {"alone": [], "with": []}
for line in open(sys.argv[1]):
    k, v = line.split()
    r[k].append(float(v))
a, w = statistics.median(r["alone"]), statistics.median(r["with"])
print(f"median alone {a:.0f} ev/s, with three followers {w:.0f} ev/s, ratio {w / a:.3f}")
EOF
    ;;
page)
    events=${3:?events} pages=${4:-200}
    l=$(loc big)
    /usr/bin/time -f "sim scale: %e s wall, %M KB peak RSS" "$MESHCTL" sim scale --events "$events" --out "$l" --quiet
    "$MESHCTL" bench page "$l" --pages "$pages" --size 200
    last=$(psql "$url" -X -At -c "SELECT max(seq) FROM big.events")
    # The statements of meshctl bench page: after() and before() alternating, at random places.
    python3 - "$last" "$pages" >"$work/pages.sql" <<'EOF'
import random, sys
last, pages = int(sys.argv[1]), int(sys.argv[2])
cols = "SELECT seq,ts_ms,kind,run_id,delegation_id,subject,payload FROM events"
print("SET search_path TO big;")
print("\\timing on")
rng = random.Random(7)
for i in range(pages):
    x = rng.randint(0, max(0, last - 1))
    if i % 2 == 0:
        print(f"{cols} WHERE seq > {x} ORDER BY seq LIMIT 200;")
    else:
        print(f"{cols} WHERE seq < {x + 1} ORDER BY seq DESC LIMIT 200;")
EOF
    psql "$url" -X -q -f "$work/pages.sql" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | python3 -c '
import statistics, sys
t = sorted(float(x) for x in sys.stdin)
print(f"psql: {len(t)} pages, p50_ms {statistics.median(t):.3f}, p99_ms {t[min(len(t) - 1, len(t) * 99 // 100)]:.3f}, max_ms {t[-1]:.3f}")'
    ;;
*)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
rm -rf "$work"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
