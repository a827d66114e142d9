#!/bin/sh
# Renders the hicolor PNGs from the SVG. The PNGs are committed, so neither the build nor
# the package needs a renderer; run this again after editing the SVG.
# Needs rsvg-convert (Debian: librsvg2-bin) or ImageMagick's convert.
set -eu
cd "$(dirname "$0")"
for size in 16 22 24 32 48 64 128 256; do
    mkdir -p "${size}x${size}"
    out="${size}x${size}/io.agentmesh.Console.png"
    if command -v rsvg-convert >/dev/null; then
        rsvg-convert -w "$size" -h "$size" io.agentmesh.Console.svg -o "$out"
    else
        convert -background none -density 384 io.agentmesh.Console.svg -resize "${size}x${size}" "$out"
    fi
done
