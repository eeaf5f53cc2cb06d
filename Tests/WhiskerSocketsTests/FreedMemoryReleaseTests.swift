#if canImport(Glibc)
import Dispatch
import Glibc
import Testing
import WhiskerSockets
import WhiskerTesting

/// Freed memory goes back to the system without a connection closing: a burst served on
/// connections that stay open is trimmed by the periodic check. Resident memory is the whole
/// process's, so `make test` runs this suite with the other memory suites, in a process of its own.
@Suite(.serialized) struct FreedMemoryReleaseTests {
    @Test func aFreedBurst_IsGivenBack_WithoutAConnectionClosing() async throws {
        let release = FreedMemoryRelease(period: .milliseconds(100))
        // 64 MiB in 4 KiB blocks, freed but for one block above them all, which keeps glibc from
        // giving the top of its heap back by itself: free, but resident.
        let blocks = (0..<16_384).map { _ -> UnsafeMutableRawPointer in
            let block = malloc(4096)!
            memset(block, 1, 4096)
            return block
        }
        let fence = malloc(64)
        let peak = residentBytes()
        blocks.forEach { free($0) }
        let burst = 64 << 20
        let clock = ContinuousClock()
        let start = clock.now
        var resident = residentBytes()
        // Waits for the periodic check: it comes within a few periods, or never.
        while peak - resident < burst / 2, clock.now - start < .seconds(10) {
            try await Task.sleep(for: .milliseconds(50))
            resident = residentBytes()
        }
        free(fence)
        withExtendedLifetime(release) {}
        #expect(peak - resident >= burst / 2, "resident memory fell by \((peak - resident) >> 20) MiB of a freed 64 MiB burst")
    }
}
#endif
