import Benchmark

// What package-benchmark's BenchmarkPlugin would generate: the runner that lists and runs the
// benchmarks for `swift package benchmark` (through pipes) or, run directly, runs them all and
// prints their results. Written here, so that the build needs no plugin.
@main
struct AllocationBudget: BenchmarkRunnerHooks {
    static func registerBenchmarks() {
        benchmarks()
    }
}
