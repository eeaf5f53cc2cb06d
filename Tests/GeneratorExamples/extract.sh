#!/usr/bin/env bash
# extract.sh SCRATCH: takes the generator's examples from the swift-openapi-generator that the
# scratch package SCRATCH (made from Package.swift.template, resolved) depends on, at the version
# its Package.resolved pins: `git archive` of SwiftPM's own checkout of it
# (SCRATCH/.build/checkouts/swift-openapi-generator, a clone from wherever git resolves the package's
# URL: here and in CI, the local mirror under /opt/swift-packages). Then extract.py lays out
# SCRATCH/Sources: the authors' files with their bootstraps cut, and ours.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scratch=$1
checkout=$scratch/.build/checkouts/swift-openapi-generator
[[ -d $checkout ]] || { echo "extract.sh: no checkout of swift-openapi-generator in $scratch/.build (resolve first)" >&2; exit 1; }
version=$(python3 -c 'import json,sys; pins = json.load(open(sys.argv[1]))["pins"]; print(next(p["state"].get("version") or p["state"]["revision"] for p in pins if p["identity"] == "swift-openapi-generator"))' "$scratch/Package.resolved")
revision=$(git -C "$checkout" rev-parse HEAD)
origin=$(git -C "$checkout" remote get-url origin)
echo "extract.sh: swift-openapi-generator $version ($revision), from $(git -C "$origin" remote get-url origin 2>/dev/null || echo "$origin")"
rm -rf "$scratch/generator"
mkdir -p "$scratch/generator"
git -C "$checkout" archive "$revision" Examples Tests/OpenAPIGeneratorReferenceTests/Resources/Docs/petstore.yaml |
    tar -x -C "$scratch/generator"
echo "$version $revision" > "$scratch/generator/VERSION"
python3 "$here/extract.py" "$scratch/generator" "$scratch"
