#!/usr/bin/env python3
"""Every public symbol of the documented modules has a doc comment.

Usage: Scripts/check-doc-coverage.py SCRATCH_PATH MODULE...

Reads the symbol graphs swift-docc-plugin extracted for `make docs` (in
SCRATCH_PATH/<triple>/extracted-symbols/<package>/<Module>/: Module.symbols.json, and
Module@Other.symbols.json for the extensions of other modules' types; the newest copy when there
are several) and lists every public or open symbol of the named modules that has no doc comment.
It exits 1 when there is one, 2 when a module's symbol graph is missing.

Not counted, because DocC shows them with documentation the package does not write:
- symbols the compiler synthesized (a protocol's default implementation seen on a conforming type,
  an inherited member: `::SYNTHESIZED::` in their identifier);
- members that implement a documented protocol requirement or override a documented member: the
  symbol graph gives them the requirement's comment, so they count as documented;
- extension blocks (`extension Foo: Bar {}` itself; its members are counted);
- the module symbol: its page is its catalog's landing page instead, Sources/<Module>/<Module>.docc/
  <Module>.md starting with "# ``<Module>``", which must exist (listed as missing otherwise);
- symbols with no place in the source: the compiler made them (the `$current` projection of a
  `@TaskLocal` property), and there is nowhere to write their comment.
"""

import json
import sys
from pathlib import Path

PUBLIC = {"public", "open"}
SKIPPED_KINDS = {"swift.extension", "module"}


def undocumented(graph_file: Path, module: str):
    graph = json.loads(graph_file.read_text())
    for symbol in graph.get("symbols", []):
        if symbol.get("accessLevel") not in PUBLIC:
            continue
        if symbol["kind"]["identifier"] in SKIPPED_KINDS:
            continue
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
            continue
        if "location" not in symbol:
            continue
        comment = symbol.get("docComment", {}).get("lines", [])
        if any(line.get("text", "").strip() for line in comment):
            continue
        path = "/".join(symbol["pathComponents"])
        location = symbol.get("location", {})
        uri = location.get("uri", "").removeprefix("file://")
        line = location.get("position", {}).get("line", -1) + 1
        yield f"{module}/{path}", symbol["kind"]["displayName"], f"{uri}:{line}" if uri else ""


def module_page_exists(module: str) -> bool:
    """A catalog page of the module's own, whose title is the module symbol."""
    for page in Path("Sources", module).glob("*.docc/*.md"):
        lines = page.read_text().splitlines()
        if lines and lines[0].strip() == f"# ``{module}``":
            return True
    return False


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    scratch = Path(argv[1])
    missing = []
    for module in argv[2:]:
        graphs = sorted(scratch.glob(f"*/extracted-symbols/*/{module}/{module}.symbols.json"), key=lambda p: p.stat().st_mtime)
        if not graphs:
            print(f"check-doc-coverage: no symbol graph for {module} in {scratch}/*/extracted-symbols", file=sys.stderr)
            return 2
        folder = graphs[-1].parent
        files = [graphs[-1]] + sorted(folder.glob(f"{module}@*.symbols.json"))
        for file in files:
            missing.extend(undocumented(file, module))
        if not module_page_exists(module):
            missing.append((module, "Module", f"Sources/{module}/{module}.docc/{module}.md is missing"))
    seen = set()
    unique = []
    for entry in missing:
        if entry[0] + entry[2] not in seen:
            seen.add(entry[0] + entry[2])
            unique.append(entry)
    cwd = str(Path.cwd()) + "/"
    for name, kind, where in sorted(unique):
        print(f"undocumented {kind}: {name}  ({where.removeprefix(cwd)})")
    sys.stdout.flush()
    if unique:
        print(f"check-doc-coverage: {len(unique)} public symbols without a doc comment", file=sys.stderr)
        return 1
    print(f"check-doc-coverage: every public symbol of {len(argv) - 2} modules is documented")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
