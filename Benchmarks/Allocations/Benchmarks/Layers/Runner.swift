import Benchmark

// What package-benchmark's BenchmarkPlugin would generate (see AllocationBudget/Runner.swift).
@main
struct Layers: BenchmarkRunnerHooks {
    static func registerBenchmarks() {
        benchmarks()
    }
}
