#!/usr/bin/env bash
# Usage: Scripts/check-doc-modules.sh MODULE...
#
# The modules `make docs` documents (the Makefile's DOCS_MODULES) are exactly the package's Swift
# library targets: a library target added to Package.swift and not to DOCS_MODULES (or one removed
# from the package and still listed) fails here, naming it. C shim targets (CWhiskerSystem and the
# system libraries), the example executable and the tests are not documented.
set -euo pipefail
cd "$(dirname "$0")/.."

declared=$(swift package describe --type json | python3 -c '
import json, sys
for target in json.load(sys.stdin)["targets"]:
    if target["type"] == "library" and target.get("module_type") == "SwiftTarget":
        print(target["name"])
' | sort)
listed=$(printf '%s\n' "$@" | sort)

missing=$(comm -23 <(echo "$declared") <(echo "$listed"))
extra=$(comm -13 <(echo "$declared") <(echo "$listed"))
if [[ -n "$missing" || -n "$extra" ]]; then
    [[ -z "$missing" ]] || echo "check-doc-modules: library targets not in the Makefile's DOCS_MODULES: $(echo $missing)" >&2
    [[ -z "$extra" ]] || echo "check-doc-modules: DOCS_MODULES names what is not a Swift library target: $(echo $extra)" >&2
    exit 1
fi
echo "check-doc-modules: DOCS_MODULES lists the $(echo "$listed" | wc -l) Swift library targets"
