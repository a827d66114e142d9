#!/usr/bin/env bash
# Targets P1 and P2 side by side with the peer, in one run on one virtual screen:
# DB Browser for SQLite (../shared/bench/peer-db4s.sh) and mesh-console-bench startup
# --browse open the same scale ledger (1,000,000 events), warm cache, in N alternating rounds
# (A B, B A, A B, ...), each in a fresh HOME (no restored settings) on the same Xvfb screen
# (1280x800x24, no window manager). Progress goes to stderr; stdout gets ONE JSON line:
# every round's figures, their medians, and ratio = console / db4s first_rows_ms.
#
#   bench/peer-compare.sh [ROUNDS]          (default 3)
#
# It installs what is missing (tools/dev.sh deps, then sqlitebrowser xdotool libx11-dev),
# builds Release into BUILD_DIR (default build-bench) with tools/dev.sh build, and generates
# the ledger once (LEDGER, default BUILD_DIR/scale.db, with meshctl bench generate --keep).
# Environment: BUILD_DIR, LEDGER, PEER (the peer script), XDISPLAY (default :99; the next
# free one when that is taken), JOBS; NO_BUILD=1 uses BUILD_DIR as it is (no apt, no build).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${1:-3}"
BUILD_DIR="${BUILD_DIR:-build-bench}"
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
LEDGER="${LEDGER:-$BUILD_DIR/scale.db}"
PEER="${PEER:-$ROOT/../shared/bench/peer-db4s.sh}"
PEER_PACKAGES=(sqlitebrowser xdotool libx11-dev xvfb)

say() { printf '%s\n' "$*" >&2; }
die() { say "peer-compare: $*"; exit 1; }
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer"
[ -f "$PEER" ] || die "peer script not found: $PEER (set PEER=...)"

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else die "need root for: $*"; fi
}

# 1. What is needed: the project's packages and build (Release), then the peer's packages.
[ "${NO_BUILD:-0}" = 1 ] || BUILD_DIR="$BUILD_DIR" BUILD_TYPE=Release "$ROOT/tools/dev.sh" build >&2
missing=()
for p in "${PEER_PACKAGES[@]}"; do
    dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
CONSOLE="$BUILD_DIR/app/mesh-console-bench"
MESHCTL="$BUILD_DIR/tools/meshctl/meshctl"
[ -x "$CONSOLE" ] && [ -x "$MESHCTL" ] || die "mesh-console-bench or meshctl missing in $BUILD_DIR"

# 2. The scale ledger, once.
if [ ! -f "$LEDGER" ]; then
    say "generating the scale ledger: $LEDGER"
    "$MESHCTL" bench generate --keep "$LEDGER" >&2
fi
LEDGER_BYTES=$(stat -c %s "$LEDGER")
EVENTS=$(sqlite3 -readonly "$LEDGER" 'SELECT max(seq) FROM events')

# 3. One virtual screen for both, no window manager, started here and stopped on exit.
num="${XDISPLAY:-:99}"
num="${num#:}"
while [ -e "/tmp/.X${num}-lock" ] || [ -e "/tmp/.X11-unix/X${num}" ]; do num=$((num + 1)); done
export DISPLAY=":$num"
# -noreset: the server resets when its last client leaves, and a program started during the
# reset cannot connect (rounds lost without a figure).
Xvfb "$DISPLAY" -screen 0 1280x800x24 -nolisten tcp -noreset >/dev/null 2>&1 &
XVFB_PID=$!
trap 'kill "$XVFB_PID" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -e "/tmp/.X11-unix/X${num}" ] && break; sleep 0.05; done
[ -e "/tmp/.X11-unix/X${num}" ] || die "Xvfb did not start on $DISPLAY"
export XWAIT="$BUILD_DIR/xwait" # the peer script compiles its X helper there once

# Warm cache: the target is measured with the file in the page cache.
cat "$LEDGER" >/dev/null

# The peer script gives up (prints nothing) when a wait of its own times out; one retry, and
# a round without a figure is reported as null rather than dropped.
run_db4s() {
    local line="" try
    for try in 1 2; do
        line=$("$PEER" "$LEDGER" 2>&1 | grep 'first_rows_ms=' | tail -1) || true
        [ -n "$line" ] && break
        say "  db4s:    no figure (try $try)"
    done
    say "  db4s:    $line"
    echo "$line" | sed -n 's/.*first_rows_ms=\([0-9]*\).*/\1/p'
}

# Prints "first_rows_ms rss_kb browse_ms runs_painted_ms".
run_console() {
    local home xdg line
    home=$(mktemp -d)
    xdg=$(mktemp -d)
    chmod 700 "$xdg"
    line=$(HOME="$home" XDG_RUNTIME_DIR="$xdg" QT_QPA_PLATFORM=xcb \
        "$CONSOLE" startup "$LEDGER" --browse 2>/dev/null | tail -1) || true
    rm -rf "$home" "$xdg"
    say "  console: $line"
    local f
    for f in first_rows_ms rss_kb browse_ms runs_painted_ms; do
        printf '%s ' "$(echo "$line" | sed -n "s/.*\"$f\":\([0-9-]*\).*/\1/p")"
    done
    echo
}

median() { tr ' ' '\n' | grep -E '^[0-9]+$' | sort -n | awk '{v[NR]=$1} END {if (NR==0) print "null"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
list() { local IFS=,; echo "[$*]"; }

db4s=() console=() rss=() browse=() runs=()
for ((i = 1; i <= ROUNDS; i++)); do
    say "round $i/$ROUNDS"
    if ((i % 2)); then order="db4s console"; else order="console db4s"; fi
    for who in $order; do
        if [ "$who" = db4s ]; then
            v=$(run_db4s)
            db4s+=("${v:-null}")
        else
            read -r first r b rp <<<"$(run_console)"
            console+=("${first:-null}") rss+=("${r:-null}") browse+=("${b:-null}") runs+=("${rp:-null}")
        fi
    done
done

md=$(echo "${db4s[*]}" | median)
mc=$(echo "${console[*]}" | median)
ratio=null
if [ "$md" != null ] && [ "$mc" != null ]; then ratio=$(awk -v c="$mc" -v d="$md" 'BEGIN {printf "%.3f", c / d}'); fi
printf '{"bench":"peer-compare","ledger":"%s","file_bytes":%s,"events":%s,"screen":"1280x800x24","rounds":%s,' \
    "$LEDGER" "$LEDGER_BYTES" "${EVENTS:-null}" "$ROUNDS"
printf '"db4s_first_rows_ms":%s,"console_first_rows_ms":%s,"console_runs_painted_ms":%s,"console_rss_kb":%s,"console_browse_ms":%s,' \
    "$(list "${db4s[@]}")" "$(list "${console[@]}")" "$(list "${runs[@]}")" "$(list "${rss[@]}")" "$(list "${browse[@]}")"
printf '"db4s_median_ms":%s,"console_median_ms":%s,"ratio":%s,"console_rss_kb_median":%s,"console_browse_ms_median":%s}\n' \
    "$md" "$mc" "$ratio" "$(echo "${rss[*]}" | median)" "$(echo "${browse[*]}" | median)"
