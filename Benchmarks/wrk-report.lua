-- Benchmarks/wrk-report.lua: makes wrk print one machine-readable line at the end of a run,
-- which bench.sh parses (the rest of wrk's --latency report goes to the log as usual).
-- Latencies are in microseconds, the duration too; errors.status counts non-2xx/3xx responses.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRK-RESULT requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d p50_us=%d p99_us=%d mean_us=%.1f max_us=%d\n",
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.mean, latency.max))
end
