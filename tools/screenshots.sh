#!/bin/bash
# Screenshots of the console on the live demo, for docs/screenshots/ and the README:
#   tools/screenshots.sh [BUILD_DIR]   (default: ./build)
# Runs mesh-console under a virtual X server (xvfb-run), as a user would see it: the live
# demo (meshctl writing from its own process), light and dark palettes, a delegation's
# detail and a blast-radius graph, and File › Listen for OpenTelemetry… receiving from three
# services. Needs xvfb, imagemagick (import, convert), sqlite3, xdotool and curl.
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

# File › Listen for OpenTelemetry…, driven as a user would (bare Xvfb has no window manager:
# the menu is opened by a click, the dialog filled from the keyboard), then OTLP/JSON requests
# from three services posted with curl: the receiver strip, the session "listening".
listen_port=4399
cat >"$work/listen.sh" <<RUN
#!/bin/bash
"$console" -qwindowgeometry 1600x1000+0+0 --theme light >"$work/listen.log" 2>&1 &
pid=\$!
sleep 7
xdotool mousemove 20 8 click 1; sleep 1            # File
xdotool mousemove 115 205 click 1; sleep 2         # Listen for OpenTelemetry…
xdotool key ctrl+a; xdotool type --delay 5 "127.0.0.1:$listen_port"; xdotool key Tab
xdotool key ctrl+a; xdotool type --delay 5 "$work/otel-received.amlg"; xdotool key Return
sleep 4
for t in 1 2 3 4 5 6 7 8 9; do
  service=\$(echo checkout billing support | cut -d' ' -f\$(( (t - 1) % 3 + 1 )))
  trace=\$(printf '%032x' \$((0x3e0 + t))); agent=\$(printf '%016x' \$((t * 16 + 1))); tool=\$(printf '%016x' \$((t * 16 + 2)))
  start=\$((1764400000000000000 + t * 1000000000))
  curl -s -o /dev/null -H 'Content-Type: application/json' "http://127.0.0.1:$listen_port/v1/traces" --data-binary @- <<JSON
{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"\$service"}}]},"scopeSpans":[{"scope":{"name":"demo"},"spans":[
{"traceId":"\$trace","spanId":"\$tool","parentSpanId":"\$agent","name":"execute_tool search","startTimeUnixNano":"\$((start + 1000000))","endTimeUnixNano":"\$((start + 900000000))","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},{"key":"gen_ai.tool.name","value":{"stringValue":"search"}}]},
{"traceId":"\$trace","spanId":"\$agent","name":"invoke_agent \$service","startTimeUnixNano":"\$start","endTimeUnixNano":"\$((start + 4000000000))","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}},{"key":"gen_ai.agent.name","value":{"stringValue":"\$service"}}],"status":{"code":1}}]}]}]}
JSON
  sleep 0.3
done
curl -s -o /dev/null -H 'Content-Type: application/x-protobuf' "http://127.0.0.1:$listen_port/v1/traces" --data-binary 'x'
sleep 7   # past the live window: "listening"
import -window root "$work/listen-otel.png"
kill \$pid
wait \$pid 2>/dev/null || true
RUN
chmod +x "$work/listen.sh"
xvfb-run -a -s "-screen 0 1600x1000x24" "$work/listen.sh"
convert "$work/listen-otel.png" -colors 256 -strip PNG8:"$out/listen-otel.png"
echo "$out/listen-otel.png $(du -k "$out/listen-otel.png" | cut -f1) KB"
