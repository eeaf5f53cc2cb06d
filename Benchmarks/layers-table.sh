#!/usr/bin/env bash
# Benchmarks/layers-table.sh H1-CSV [H2-CSV]: the per-layer table of `make bench` ("Where each
# microsecond goes" in Performance.md), in Markdown, from bench.sh's results.csv
# (round,server,scenario,metric,value) and bench-h2.sh's (round,server,mode,metric,value).
#
# Rows, each present in the results: the floor (Floor/floor.c), nginx, then Whisker layer by layer:
# a plain closure route (whisker-plain), + WhiskerTransport and the generated handler (whisker),
# + validation against the document (whisker-validating), + the demo's middlewares and response
# steps (cat-service, as `make run` builds it). Columns: GET /api/emoji keep-alive -c64,
# ?count=3 -c64, -c1, h2c 16x16, h2 over TLS 16x16. A cell is the median over the rounds of the
# server's CPU time per request (µs; lower is better), what it adds to the row above (for the plain
# route: to the floor of its column), and the median req/s. The last row is the distance of the last
# Whisker row from the floor: the C floor for HTTP/1.1, nginx for HTTP/2 (which the floor does not
# speak). Differences are of medians.
set -euo pipefail
h1=$1 h2=${2:-/dev/null}
[[ -r $h1 ]] || { echo "layers-table.sh: no $h1" >&2; exit 1; }
[[ -r $h2 ]] || h2=/dev/null
awk -F, '
    function isort(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t } }
    function median(s, sc, m,   a, n, r) {
        n = 0
        for (r = 1; r <= maxr; r++) if ((s, sc, m, r) in v) a[++n] = v[s, sc, m, r] + 0
        if (n == 0) return ""
        isort(a, n)
        return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function us(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.1f", x) }
    function rate(x) { return x >= 1000 ? sprintf("%.1fk", x / 1000) : sprintf("%.0f", x) }
    function signed(x) { return (x >= 0 ? "+" : "−") us(x < 0 ? -x : x) }
    FNR == 1 { file++; next }
    {
        sc = (file == 2 ? ($3 == "tls" ? "h2-tls" : "h2c") : $3)
        v[$2, sc, $4, $1] = $5; have[$2] = 1; col[sc] = 1
        if ($1 > maxr) maxr = $1
    }
    END {
        ncols = split("emoji-c64 emoji3-c64 emoji-c1 h2c h2-tls", cols, " ")
        title["emoji-c64"] = "`/api/emoji` keep-alive -c64"; title["emoji3-c64"] = "`/api/emoji?count=3` -c64"
        title["emoji-c1"] = "`/api/emoji` -c1"; title["h2c"] = "h2c 16x16"; title["h2-tls"] = "h2 over TLS 16x16"
        nrows = split("floor nginx whisker-plain whisker whisker-validating cat-service", rows, " ")
        name["floor"] = "floor: C, epoll + `read` + `write` (HTTP/1.1 only)"
        name["nginx"] = "nginx, a fixed string (the HTTP/2 floor)"
        name["whisker-plain"] = "Whisker: a plain closure route"
        name["whisker"] = "+ transport and generated handler"
        name["whisker-validating"] = "+ validation"
        name["cat-service"] = "+ the demo'"'"'s middlewares and response steps (cat-service)"
        head = "| layer |"; rule = "|---|"; n = 0
        for (i = 1; i <= ncols; i++) if (cols[i] in col) { c[++n] = cols[i]; head = head " " title[cols[i]] " |"; rule = rule "---:|" }
        if (n == 0) { print "(no scenario of the per-layer table in these results)"; exit }
        print head; print rule
        for (i = 1; i <= n; i++) {
            floorOf[c[i]] = (c[i] ~ /^h2/ ? "nginx" : ("floor" in have ? "floor" : "nginx"))
            prev[c[i]] = median(floorOf[c[i]], c[i], "cpu_us_per_req")
        }
        last = ""
        for (k = 1; k <= nrows; k++) {
            s = rows[k]
            if (!(s in have)) continue
            whisker = (s != "floor" && s != "nginx")
            if (whisker) last = s
            line = "| " name[s] " |"
            for (i = 1; i <= n; i++) {
                cpu = median(s, c[i], "cpu_us_per_req"); rps = median(s, c[i], "rps")
                if (cpu == "") { line = line " – |"; continue }
                cell = us(cpu) " µs"
                if (whisker && prev[c[i]] != "") cell = cell " (" signed(cpu - prev[c[i]]) ")"
                if (whisker) prev[c[i]] = cpu
                if (rps != "") cell = cell " · " rate(rps) "/s"
                line = line " " cell " |"
            }
            print line
        }
        if (last == "" || (!("floor" in have) && !("nginx" in have))) exit
        line = "| distance from the floor (" last " − " (("floor" in have) ? "floor; h2: nginx" : "nginx") ") |"
        for (i = 1; i <= n; i++) {
            w = median(last, c[i], "cpu_us_per_req"); f = median(floorOf[c[i]], c[i], "cpu_us_per_req")
            line = line ((w == "" || f == "" || f == 0) ? " – |" : " " signed(w - f) " µs (" sprintf("%.1f", w / f) "x) |")
        }
        print line
    }' "$h1" "$h2"
