#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
private import CWhiskerSystem
#endif

/// The processors this process may run on: on Linux its CPU affinity (sched_getaffinity, so that
/// `taskset -c 0` gives 1), else the processors online; on Darwin, which has no affinity masks,
/// the processors online (`sysconf(_SC_NPROCESSORS_ONLN)`). At least 1.
package func availableProcessors() -> Int {
    #if os(Linux)
    Int(whisker_available_processors())
    #else
    let online = sysconf(_SC_NPROCESSORS_ONLN)
    return online > 0 ? online : 1
    #endif
}
