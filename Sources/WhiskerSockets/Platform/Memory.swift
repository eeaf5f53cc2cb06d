#if os(Linux)
private import CWhiskerSystem
#endif

/// Gives the allocator's free memory back to the system when more than `threshold` bytes of it
/// sit free; returns the free bytes it saw. On Linux, glibc's `malloc_trim(0)` after a look at
/// `mallinfo2` (0 on other C libraries). On Darwin a no-op that returns 0: its allocator hands
/// free pages back by itself (madvise), and there is no `malloc_trim`.
package func releaseFreeMemory(threshold: Int) -> Int {
    #if os(Linux)
    Int(whisker_release_free_memory(UInt(threshold)))
    #else
    0
    #endif
}
