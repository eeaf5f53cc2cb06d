#!/usr/bin/env bash
# Benchmarks/build.sh SERVER...: release build of the benchmark servers (floor, nginx, whisker,
# cat-service, hummingbird, vapor).
#
# Each server is a package under Benchmarks/cat-service-<server>/ built in release into its own scratch path,
# Benchmarks/cat-service-<server>/.build-release (git-ignored). A build into an empty scratch path is a clean
# build: its wall time is written next to the binary, in <binary>.build-seconds, so that bench.sh
# can report it later without rebuilding. The peers (hummingbird, vapor) are built only when their
# binary is missing (5 to 12 minutes each); whisker, whose sources change, is rebuilt
# incrementally each time (BENCH_CLEAN_WHISKER=1 removes its scratch path first, for a fresh clean
# build time). Prints the binary's path as the last line of standard output.
#
# Three are not packages here: `floor` is Benchmarks/Floor/floor.c, compiled with `cc -O2` into
# Benchmarks/Floor/.build/floor when the source is newer than the binary (a second); `nginx` is
# Debian's (`make deps` installs it), nothing to build; `cat-service` is the demo exactly as
# `make run` builds it (release, Demo/CatService/.build-release, the same plan-dropping rule as the
# Makefile's), rebuilt incrementally each time like whisker.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
if ! command -v swift >/dev/null; then export PATH="$PATH:/opt/swift/usr/bin"; fi
# Same environment scrub as the Makefile: SwiftPM rebuilds build plugins when the environment changes.
SWIFT=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u MAKE_TERMOUT -u MAKE_TERMERR swift)

build_one() {
    local server=$1 dir product
    case $server in
        floor)
            local src=$here/Floor/floor.c bin=$here/Floor/.build/floor
            if [[ ! -x $bin || $src -nt $bin ]]; then
                mkdir -p "${bin%/*}"
                echo "build.sh: compiling the floor (cc -O2)" >&2
                cc -O2 -Wall -Wextra -o "$bin" "$src" >&2
            fi
            echo "$bin"; return 0 ;;
        nginx)
            command -v nginx || { echo "build.sh: nginx is missing (make deps installs it)" >&2; return 1; }
            return 0 ;;
        cat-service)
            dir=$root/Demo/CatService; product=cat-service ;;
        whisker)     dir=$here/cat-service-whisker;     product=cat-service-whisker ;;
        hummingbird) dir=$here/cat-service-hummingbird; product=cat-service-hummingbird ;;
        vapor)       dir=$here/cat-service-vapor;       product=cat-service-vapor ;;
        *) echo "build.sh: unknown server '$server' (floor, nginx, whisker, cat-service, hummingbird, vapor)" >&2; return 2 ;;
    esac
    local scratch=$dir/.build-release
    local bin=$scratch/release/$product fresh=0
    [[ -d $scratch ]] || fresh=1
    if [[ $server == whisker && ${BENCH_CLEAN_WHISKER:-0} == 1 ]]; then rm -rf "$scratch"; fi
    # An incremental build reuses its build plan, which lists the path dependency's source files:
    # a file added to Whisker since would not be compiled ("cannot find X in scope"). Re-plan when
    # the library's list of files changed, and only then (a dropped plan rebuilds all of Whisker in
    # release, minutes here): the rule of the Makefile's drop-plan-if-library-files-changed, which
    # for the demo's folder is `make run`'s own, so the two stay in step.
    if [[ $server == whisker || $server == cat-service ]] &&
        ! git -C "$root" ls-files -co --exclude-standard Sources Package.swift | cmp -s - "$scratch/library-files"; then
        rm -f "$scratch/release.yaml" "$scratch"/release/description.json "$scratch"/*/release/description.json
        mkdir -p "$scratch"
        git -C "$root" ls-files -co --exclude-standard Sources Package.swift >"$scratch/library-files"
    fi
    if [[ $server != whisker && $server != cat-service && -x $bin ]]; then
        echo "build.sh: $product present, not rebuilding ($bin)" >&2
        echo "$bin"; return 0
    fi
    # A clean build that failed part way (say, a compile error in main.swift) leaves its time in
    # $partial; the build that completes it adds its own, so the sum still stands for a clean build.
    local clean=0 partial=$scratch/.bench-partial-clean-build attempts=1 before=0
    if ((fresh)) || [[ ! -d $scratch ]]; then clean=1; fi
    if ((!clean)) && [[ -r $partial ]]; then
        clean=1; read -r before attempts <"$partial"; attempts=$((attempts + 1))
    fi
    echo "build.sh: building $product (release$( ((clean)) && echo ", clean"))..." >&2
    # Whisker's servers with the Swift runtime linked statically, as the Makefile's DEMO_RUN_BUILD builds
    # cat-service: the bench server's layers and cat-service then differ only in what they serve. The
    # peers are built as their own packages build by default (dynamic).
    local static=()
    if [[ ($server == cat-service || $server == whisker) && $(uname -s) == Linux ]]; then static=(--static-swift-stdlib); fi
    local start=$SECONDS
    if ! "${SWIFT[@]}" build --package-path "$dir" --scratch-path "$scratch" -c release "${static[@]}" --product "$product" >&2; then
        if ((clean)); then mkdir -p "$scratch" && echo "$((before + SECONDS - start)) $attempts" >"$partial"; fi
        return 1
    fi
    local took=$((before + SECONDS - start))
    if ((clean)); then
        rm -f "$partial"
        printf '%s\n' "$took" >"$bin.build-seconds"
        printf 'clean release build of %s: %s s%s, finished %s (%s; %s cores, load average then %s)\n' \
            "$product" "$took" "$( ((attempts > 1)) && echo " (in $attempts attempts)")" "$(date -u +%FT%TZ)" \
            "$(swift --version 2>&1 | head -1 | sed 's/ (.*//')" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" >"$bin.build-info"
    fi
    echo "build.sh: $product built in ${took}s" >&2
    echo "$bin"
}

(($#)) || set -- floor nginx whisker cat-service hummingbird vapor
for s in "$@"; do build_one "$s"; done
