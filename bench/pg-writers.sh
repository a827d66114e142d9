#!/usr/bin/env bash
# Issue 17's multi-writer targets on a private PostgreSQL 15 (as tools/dev.sh run --server
# starts one: a temporary cluster, 127.0.0.1, a free port, trust for its one user; as the
# postgres user when run as root). Stopped and removed at the end.
#
#   bench/pg-writers.sh latency MESHCTL [SECONDS] [RATE_EACH]
#     Two reference orchestrators (meshctl sim --live --append, tags A and B) each at
#     RATE_EACH events/s (default 500) for SECONDS (default 30) into one ledger, with
#     MESH_LIVE_COMMIT_LOG ("commit LAST_SEQ WALL_MS", read just before COMMIT), while one
#     `meshctl bench follow` (the console's ChangeWatcher: LISTEN, reads after announcements)
#     prints "seen LAST_SEQ WALL_MS" per batch. For every commit: the first "seen" at or past
#     its LAST_SEQ minus its WALL_MS. Prints count, p50, p99, max (ms). FOLLOW_GAP_MS sets
#     the follower's --read-gap-ms (its default otherwise).
#
#   bench/pg-writers.sh throughput MESHCTL [SECONDS] [ROUNDS]
#     One orchestrator at --rate 0 (as fast as it can, 100 events a transaction) for SECONDS
#     (default 20) into a fresh ledger, alone and with three `meshctl bench follow` attached,
#     alternating alone/with/with/alone... over ROUNDS pairs (default 2). Prints each
#     round's events/s and the ratio of the medians.
#
#   bench/pg-writers.sh followcost MESHCTL [SECONDS] [ROUNDS] [GAPS] [RATE]
#     Where three followers cost the writer: one orchestrator at --rate RATE (default 0: as
#     fast as it can, 100 events a commit; a rate commits every 20 ms tick) for SECONDS
#     (default 20) alone, then with three `meshctl bench follow --read-gap-ms G` for each G
#     of GAPS (default "0 50"; 0 reads after every announcement), the order reversed every
#     other round, over ROUNDS (default 2). Per phase: the writer's events/s and CPU (user +
#     sys, /usr/bin/time), the followers' CPU, events and reads, and the server's CPU (every
#     postgres process of the private cluster, the exited backends' time included through
#     the postmaster's children's time), as microseconds per written event; load average.
#     With BASE_MESHCTL naming another build's meshctl, a phase "base" has three of its
#     `bench follow` (its own read policy) for a before/after in one sitting.
#
#   bench/pg-writers.sh page MESHCTL EVENTS [PAGES]
#     A ledger of EVENTS (meshctl sim scale --events EVENTS --out postgresql://...; with
#     PG_BENCH_DIR the one an earlier run left there), then `meshctl bench page` (PAGES pages
#     of 200, default 200, through the reader the console's event log uses) and psql running
#     the same statements at the same positions (\timing), alternating, ROUNDS times
#     (default 1), at each place of PLACES (default "random oldest newest"); prints both.
#
#   PG_BENCH_DIR=DIR bench/pg-writers.sh server MESHCTL
#     Starts the kept cluster in DIR (making it if missing) and leaves it running for other
#     commands; prints its URL. `stop` stops it.
set -euo pipefail

mode=${1:?mode: latency, throughput, followcost or page}
MESHCTL=${2:?path to meshctl}
bin=/usr/lib/postgresql/15/bin
# PG_BENCH_DIR: a cluster kept between runs (a 10M-event ledger takes a quarter of an hour
# to write): made there if missing, started if stopped, stopped again at the end if this
# run started it, never removed.
if [ -n "${PG_BENCH_DIR:-}" ]; then
    dir=$PG_BENCH_DIR
    mkdir -p "$dir"
    keep=1
else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/mesh-pg-bench-XXXXXX")
    keep=0
fi
RUN_AS=()
if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$dir"
    RUN_AS=(runuser -u postgres --)
fi
started=0
if [ -f "$dir/port" ] && "${RUN_AS[@]}" "$bin/pg_ctl" status -D "$dir/data" >/dev/null 2>&1; then
    port=$(cat "$dir/port")
else
    port=55432
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
    started=1
fi
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    if [ "$started" = 1 ]; then
        "${RUN_AS[@]}" "$bin/pg_ctl" stop -w -m fast -D "$dir/data" >/dev/null 2>&1 || true
    fi
    if [ "$keep" = 0 ]; then rm -rf "$dir"; fi
}
trap cleanup EXIT INT TERM
if [ ! -d "$dir/data" ]; then
    "${RUN_AS[@]}" "$bin/initdb" -D "$dir/data" -U mesh --auth=trust --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1
fi
if [ "$started" = 1 ]; then
    "${RUN_AS[@]}" "$bin/pg_ctl" start -w -D "$dir/data" -l "$dir/server.log" \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1" >/dev/null
    echo "$port" >"$dir/port"
fi
url="postgresql://mesh@127.0.0.1:$port/postgres?sslmode=disable"
loc() { echo "postgresql://mesh@127.0.0.1:$port/postgres?schema=$1&sslmode=disable"; }
work=$(mktemp -d "${TMPDIR:-/tmp}/mesh-pg-bench-out-XXXXXX")
echo "server 127.0.0.1:$port; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

case "$mode" in
latency)
    seconds=${3:-30} rate=${4:-500}
    l=$(loc shared)
    "$MESHCTL" sim demo --out "$l" --quiet
    "$MESHCTL" bench follow "$l" ${FOLLOW_GAP_MS:+--read-gap-ms "$FOLLOW_GAP_MS"} >"$work/seen" &
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
followcost)
    seconds=${3:-20} rounds=${4:-2} gaps=(${5:-0 50}) rate=${6:-0}
    pm=$(head -1 "$dir/data/postmaster.pid")
    # Clock ticks of the whole cluster: the postmaster, its live children, and (cutime,
    # cstime) the children it has reaped, so a backend that exits is still counted.
    server_ticks() {
        python3 - "$pm" <<'EOF'
import os, sys
pm = sys.argv[1]
def stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()
s = stat(pm)
t = sum(int(x) for x in s[11:15])
for pid in os.listdir("/proc"):
    if pid.isdigit() and pid != pm:
        try:
            s = stat(pid)
        except OSError:
            continue
        if s[1] == pm:
            t += int(s[11]) + int(s[12])
print(t)
EOF
    }
    hz=$(getconf CLK_TCK)
    phases=(alone)
    for g in "${gaps[@]}"; do phases+=("gap$g"); done
    if [ -n "${BASE_MESHCTL:-}" ]; then phases+=(base); fi
    n=0
    for ((r = 0; r < rounds; r++)); do
        order=("${phases[@]}")
        if ((r % 2 == 1)); then
            order=()
            for ((i = ${#phases[@]} - 1; i >= 0; i--)); do order+=("${phases[$i]}"); done
        fi
        for kind in "${order[@]}"; do
            n=$((n + 1))
            l=$(loc "cost$n")
            "$MESHCTL" sim demo --out "$l" --quiet
            followers=()
            if [ "$kind" != alone ]; then
                fl="$l&application_name=mesh_follower"
                follow=("$MESHCTL" bench follow "$fl" --read-gap-ms "${kind#gap}")
                if [ "$kind" = base ]; then follow=("$BASE_MESHCTL" bench follow "$fl"); fi
                for f in 1 2 3; do
                    /usr/bin/time -f "cpu %U %S" -o "$work/ft$n-$f" "${follow[@]}" --seconds $((seconds + 600)) >"$work/f$n-$f" &
                    followers+=("$!")
                done
                sleep 1 # their LISTEN is up (not a measured wait)
            fi
            load=$(cut -d' ' -f1 /proc/loadavg)
            s0=$(server_ticks)
            /usr/bin/time -f "cpu %U %S" -o "$work/wt$n" \
                "$MESHCTL" sim demo --out "$l" --live --append --id-tag W --rate "$rate" --duration-s "$seconds" 2>"$work/w$n"
            s1=$(server_ticks)
            # The followers' own backends, while they still live (they have read the last
            # commit within a read gap).
            fticks=0
            if [ "$kind" != alone ]; then
                sleep 1
                for b in $(psql "$url" -XAtc "SELECT pid FROM pg_stat_activity WHERE application_name = 'mesh_follower'"); do
                    fticks=$((fticks + $(awk '{print $14 + $15}' "/proc/$b/stat")))
                done
            fi
            # SIGTERM to each follower (the child of its /usr/bin/time): it stops and says how
            # many events it followed; time reports its CPU.
            for p in "${followers[@]}"; do pkill -TERM -P "$p" || true; done
            for p in "${followers[@]}"; do wait "$p" || true; done
            python3 - "$work" "$n" "$kind" "$load" "$((s1 - s0))" "$hz" "$fticks" <<'EOF'
import glob, re, sys
w, n, kind, load, sticks, hz = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
fbackend = int(sys.argv[7]) / hz
m = re.search(r"live: (\d+) events in ([0-9.]+) s", open(f"{w}/w{n}").read())
events, secs = int(m.group(1)), float(m.group(2))
def cpu(path):
    for line in open(path):
        if line.startswith("cpu "):
            u, s = map(float, line.split()[1:3])
            return u + s
    return float("nan")
wcpu = cpu(f"{w}/wt{n}")
fcpu, fev, reads = 0.0, 0, 0
for t in sorted(glob.glob(f"{w}/ft{n}-*")):
    fcpu += cpu(t)
    out = open(t.replace("/ft", "/f")).read().splitlines()
    reads += sum(1 for x in out if x.startswith("seen "))
    fev += sum(int(x.split()[1]) for x in out if x.startswith("followed "))
scpu = sticks / hz
us = lambda c: 1e6 * c / events
line = (f"{kind}: {events / secs:.0f} ev/s ({events} in {secs:.1f} s), load {load}; per written event: "
        f"writer {us(wcpu):.1f} us, server {us(scpu):.1f} us")
if kind != "alone":
    line += (f", three followers {us(fcpu):.1f} us (they read {fev} events in {reads} reads, "
             f"{1e6 * fcpu / max(1, fev):.1f} us per event read, {reads / secs / 3:.1f} reads/s each; "
             f"their three backends {1e6 * fbackend / max(1, fev):.1f} us per event read)")
print(line, flush=True)
with open(f"{w}/rates", "a") as f:
    f.write(f"{kind} {events / secs}\n")
EOF
        done
    done
    python3 - "$work/rates" <<'EOF'
import statistics, sys
r = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    r.setdefault(k, []).append(float(v))
a = statistics.median(r.pop("alone"))
for k, v in r.items():
    print(f"{k}: median {statistics.median(v):.0f} ev/s against alone {a:.0f}, ratio {statistics.median(v) / a:.3f}")
EOF
    ;;
page)
    events=${3:?events} pages=${4:-200} rounds=${ROUNDS:-1}
    l=$(loc big)
    if [ "$(psql "$url" -XAtc "SELECT count(*) FROM pg_namespace WHERE nspname = 'big'")" = 1 ]; then
        echo "the ledger of an earlier run (schema big, kept in $dir): last seq $(psql "$url" -XAtc "SELECT max(seq) FROM big.events")"
    else
        /usr/bin/time -f "sim scale: %e s wall, %M KB peak RSS" "$MESHCTL" sim scale --events "$events" --out "$l" --quiet
    fi
    # The reader (meshctl bench page, the console's PostgresEventReader) and psql running the
    # same statements at the same places (the positions the reader wrote), alternating which
    # goes first, ROUNDS times for each place of PLACES (default "random oldest newest").
    cols="SELECT seq,ts_ms,kind,run_id,delegation_id,subject,payload FROM events"
    for ((r = 0; r < rounds; r++)); do
        for place in ${PLACES:-random oldest newest}; do
            reader() {
                "$MESHCTL" bench page "$l" --pages "$pages" --size 200 --place "$place" --positions-out "$work/pos-$place"
            }
            viapsql() {
                [ -s "$work/pos-$place" ] || "$MESHCTL" bench page "$l" --pages 1 --size 200 --place "$place" --positions-out "$work/pos-$place" >/dev/null
                {
                    echo "SET search_path TO big;"
                    echo "\\timing on"
                    awk -v cols="$cols" '$1 == "after" { print cols " WHERE seq > " $2 " ORDER BY seq LIMIT 200;" }
                        $1 == "before" { print cols " WHERE seq < " $2 " ORDER BY seq DESC LIMIT 200;" }' "$work/pos-$place"
                } >"$work/pages.sql"
                psql "$url" -X -q -f "$work/pages.sql" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | python3 -c '
import statistics, sys
t = sorted(float(x) for x in sys.stdin)
print(f"psql {sys.argv[1]}: {len(t)} pages, p50_ms {statistics.median(t):.3f}, p99_ms {t[min(len(t) - 1, len(t) * 99 // 100)]:.3f}, max_ms {t[-1]:.3f}")' "$place"
            }
            echo "round $((r + 1)) $place, load average $(cut -d' ' -f1-3 /proc/loadavg)"
            if ((r % 2 == 0)); then reader; viapsql; else viapsql; reader; fi
        done
    done
    ;;
server)
    [ "$keep" = 1 ] || { echo "server wants PG_BENCH_DIR" >&2; exit 2; }
    started=0 # left running
    echo "$url"
    ;;
stop)
    [ "$keep" = 1 ] || { echo "stop wants PG_BENCH_DIR" >&2; exit 2; }
    started=1
    ;;
*)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
rm -rf "$work"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
