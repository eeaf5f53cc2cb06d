#ifndef C_WHISKER_SYSTEM_H
#define C_WHISKER_SYSTEM_H

#ifdef __linux__
// Linux only (Sources/WhiskerSockets/Platform calls these under `#if os(Linux)`).

/// accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC. Glibc declares accept4 only under _GNU_SOURCE,
/// which Swift's Glibc module does not define, so it is unreachable from Swift without this
/// wrapper; using it saves two fcntl(2) calls per accepted connection. The address is a
/// `struct sockaddr *` and the length a `socklen_t *`; they are `void *` here so that this header
/// pulls in no system header of its own (which would re-home those types in this module).
int whisker_accept_nonblocking(int fd, void *address, void *length);

/// epoll(7) for the I/O workers, behind plain integers: Glibc's `struct epoll_event` is packed on
/// x86_64, a layout Swift cannot be trusted to import, so these wrappers fill and read it in C.
/// Registrations are level-triggered and carry the descriptor as their token.

/// epoll_create1(EPOLL_CLOEXEC).
int whisker_epoll_create(void);

/// epoll_ctl: `op` 0 adds `fd`, 1 modifies its interest, 2 removes it; interest in reading
/// (EPOLLIN) and writing (EPOLLOUT) as booleans. Errors and hang-ups are always reported.
int whisker_epoll_control(int epfd, int op, int fd, unsigned int readable, unsigned int writable);

/// What whisker_epoll_poll reports for one descriptor, as bits.
#define WHISKER_EPOLL_READABLE 1u
#define WHISKER_EPOLL_WRITABLE 2u
#define WHISKER_EPOLL_FAILED 4u

/// epoll_wait: up to `capacity` ready descriptors into `fds`, each with its WHISKER_EPOLL_* bits in
/// `events`, waiting at most `timeout` milliseconds (0: never blocks, -1: until one is ready).
/// Returns the count, or -1 with errno (EINTR when a signal interrupted the wait).
int whisker_epoll_wait(int epfd, int *fds, unsigned int *events, int capacity, int timeout);

/// eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK): what an I/O worker's thread watches in its epoll set to
/// learn that its worker is gone (<sys/eventfd.h> is not in Swift's Glibc module).
int whisker_eventfd(void);

/// Starts a detached thread with a stack of `stack_size` bytes and every signal blocked that runs
/// `body(context)`. Returns
/// 0, or pthread_create's error number. (In C because `pthread_attr_t` and `pthread_create`'s
/// function-pointer type differ between C libraries; this keeps the Swift side to one call.)
int whisker_thread_start(void *(*body)(void *), void *context, unsigned long stack_size);

/// The libdispatch queue the caller runs on (dispatch_get_current_queue), retained: an I/O worker
/// asks for it once, from a job on its own queue, because Swift's `DispatchQueue` does not expose the
/// C queue it wraps. Give it back with whisker_dispatch_release.
void *whisker_dispatch_current_queue(void);

/// dispatch_release of a queue whisker_dispatch_current_queue returned.
void whisker_dispatch_release(void *queue);

/// dispatch_sync_f: runs `work(context)` on the serial `queue` (on the calling thread when the queue
/// is free, with the queue's identity) and returns when it has run. Unlike Swift's `queue.sync`, which
/// wraps the closure in a block and a generic helper, this allocates nothing: an I/O worker's thread
/// enters its queue this way at every wake-up. `context` must stay valid until this returns.
void whisker_dispatch_sync(void *queue, void *context, void (*work)(void *));

/// Names the calling thread (pthread_setname_np, a GNU extension Swift's Glibc module leaves out):
/// at most 15 bytes, what `top -H`, `perf` and /proc/PID/task/TID/comm show. 0, or ERANGE.
int whisker_thread_set_name(const char *name);

/// The calling thread's kernel id (gettid), as /proc/PID/task lists it.
long whisker_thread_id(void);

/// The processors this process may run on (sched_getaffinity: `taskset -c 0` gives 1), else the
/// processors online.
int whisker_available_processors(void);

/// Gives the allocator's free memory back to the system (glibc's malloc_trim(0)) when more than
/// `threshold` bytes of it sit free in its arenas (mallinfo2's `fordblks`); returns the free bytes
/// seen. glibc keeps what threads free in their arenas, so after a burst the process stays at its
/// peak otherwise. Does nothing (returns 0) on other C libraries.
unsigned long whisker_release_free_memory(unsigned long threshold);

/// The bytes a TCP socket's send queue still holds (sent and not acknowledged, or not sent yet):
/// ioctl(SIOCOUTQ), which Swift cannot call (ioctl is variadic). -1 with errno on failure.
int whisker_unsent_bytes(int fd);

#endif // __linux__

/// The bytes malloc has handed out and not had back: mallinfo2's `uordblks` (chunks in its
/// arenas, all threads') plus `hblkhd` (chunks past the mmap threshold, mapped on their own).
/// For tests that measure what a structure holds. On Darwin, malloc_zone_statistics' `size_in_use`
/// over every zone; 0 on other C libraries. (Swift's Glibc module
/// leaves out <malloc.h>, hence this wrapper.)
unsigned long whisker_heap_in_use(void);

#endif
