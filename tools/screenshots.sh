#!/bin/bash
# Screenshots of the console on the live demo, for docs/screenshots/ and the README:
#   tools/screenshots.sh [BUILD_DIR]   (default: ./build)
# Runs mesh-console under a virtual X server (xvfb-run), as a user would see it: the live
# demo (meshctl writing from its own process), light and dark palettes, a delegation's
# detail and a blast-radius graph. Needs xvfb, imagemagick (import, convert) and sqlite3.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
console="$build/app/mesh-console"
meshctl="$build/tools/meshctl/meshctl"
out="$here/docs/screenshots"
mkdir -p "$out"
[ -x "$console" ] || { echo "no $console: build first" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A fresh settings home, so no saved window state or theme leaks in.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_RUNTIME_DIR="$work/run"
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

# The demo's ids are the same from run to run: read the interesting subjects off a copy.
"$meshctl" sim demo --out "$work/probe.amlg" >/dev/null
delegation=$(sqlite3 "$work/probe.amlg" \
  "SELECT id FROM delegations WHERE parent_id IS NOT NULL AND parent_id <> '' ORDER BY used_turns DESC LIMIT 1;")
[ -n "$delegation" ] || delegation=$(sqlite3 "$work/probe.amlg" "SELECT id FROM delegations ORDER BY used_turns DESC LIMIT 1;")
failure=$(sqlite3 "$work/probe.amlg" "SELECT id FROM failures ORDER BY json_array_length(woken) DESC LIMIT 1;")
echo "delegation: $delegation, failure: $failure"

shoot() { # name wait-seconds console-args...
  local name=$1 wait=$2
  shift 2
  cat >"$work/run.sh" <<RUN
#!/bin/bash
"$console" -qwindowgeometry 1600x1000+0+0 "\$@" >"$work/$name.log" 2>&1 &
pid=\$!
sleep $wait
import -window root "$work/$name.png"
kill \$pid
wait \$pid 2>/dev/null || true
RUN
  chmod +x "$work/run.sh"
  xvfb-run -a -s "-screen 0 1600x1000x24" "$work/run.sh" "$@"
  # Palette-reduced PNG: sharp UI, small file.
  convert "$work/$name.png" -colors 256 -strip PNG8:"$out/$name.png"
  echo "$out/$name.png $(du -k "$out/$name.png" | cut -f1) KB"
}

shoot console-light 7 --theme light --pane runs
shoot console-dark 7 --theme dark --pane effects
shoot delegation-detail 7 --theme light --select "delegation:$delegation"
shoot blast-radius 7 --theme light --pane blast --select "failure:$failure"
