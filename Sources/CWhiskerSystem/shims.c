// Linux-only C (accept4, epoll, eventfd, the I/O workers' threads, sched_getaffinity, mallinfo2,
// malloc_trim) sits behind
// `#ifdef __linux__`; on Darwin the Swift side (Sources/WhiskerSockets/Platform) calls none of it,
// and only whisker_heap_in_use has a Darwin version.
#ifdef __linux__
#define _GNU_SOURCE
#include <sys/socket.h>
#endif
#include "CWhiskerSystem.h"

#ifdef __linux__
int whisker_accept_nonblocking(int fd, void *address, void *length) {
    return accept4(fd, (struct sockaddr *)address, (socklen_t *)length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

#include <sys/epoll.h>

#include <sys/ioctl.h>

int whisker_unsent_bytes(int fd) {
    int count = 0;
    // SIOCOUTQ (linux/sockios.h) is TIOCOUTQ, which <sys/ioctl.h> defines without the kernel's headers.
    return ioctl(fd, TIOCOUTQ, &count) < 0 ? -1 : count;
}

int whisker_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int whisker_epoll_control(int epfd, int op, int fd, unsigned int readable, unsigned int writable) {
    struct epoll_event event = { 0 };
    event.events = (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0);
    event.data.fd = fd;
    switch (op) {
    case 0: return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
    case 1: return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event);
    default: return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &event);
    }
}

int whisker_epoll_wait(int epfd, int *fds, unsigned int *events, int capacity, int timeout) {
    struct epoll_event ready[capacity];
    int count = epoll_wait(epfd, ready, capacity, timeout);
    for (int i = 0; i < count; i++) {
        fds[i] = ready[i].data.fd;
        unsigned int bits = 0;
        if (ready[i].events & EPOLLIN) bits |= WHISKER_EPOLL_READABLE;
        if (ready[i].events & EPOLLOUT) bits |= WHISKER_EPOLL_WRITABLE;
        if (ready[i].events & (EPOLLERR | EPOLLHUP)) bits |= WHISKER_EPOLL_FAILED;
        events[i] = bits;
    }
    return count;
}

#include <sys/eventfd.h>

int whisker_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

int whisker_thread_start(void *(*body)(void *), void *context, unsigned long stack_size) {
    pthread_attr_t attributes;
    int result = pthread_attr_init(&attributes);
    if (result != 0) return result;
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    result = pthread_attr_setstacksize(&attributes, (size_t)stack_size);
    if (result == 0) {
        // The thread starts with every signal blocked (it inherits the creator's mask, restored
        // right after), as libdispatch's own threads do: a process-directed signal such as SIGTERM
        // then never lands on a worker's thread, interrupting its epoll_wait and running the
        // handler there ahead of the connections that were ready.
        sigset_t all, previous;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &previous);
        pthread_t thread;
        result = pthread_create(&thread, &attributes, body, context);
        pthread_sigmask(SIG_SETMASK, &previous, NULL);
    }
    pthread_attr_destroy(&attributes);
    return result;
}

// <dispatch/dispatch.h> is the Swift toolchain's (usr/lib/swift/dispatch), not on a C target's
// include path, so the four functions are declared here as libdispatch exports them: in C a queue is
// a pointer to an opaque struct, and dispatch_retain/dispatch_release take any dispatch object as a
// transparent union of pointers, passed as a pointer.
struct dispatch_queue_s;
extern struct dispatch_queue_s *dispatch_get_current_queue(void);
extern void dispatch_sync_f(struct dispatch_queue_s *queue, void *context, void (*work)(void *));
extern void dispatch_retain(void *object);
extern void dispatch_release(void *object);

void *whisker_dispatch_current_queue(void) {
    struct dispatch_queue_s *queue = dispatch_get_current_queue();
    dispatch_retain(queue);
    return queue;
}

void whisker_dispatch_release(void *queue) {
    dispatch_release(queue);
}

void whisker_dispatch_sync(void *queue, void *context, void (*work)(void *)) {
    dispatch_sync_f((struct dispatch_queue_s *)queue, context, work);
}

int whisker_thread_set_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

long whisker_thread_id(void) {
    return (long)gettid();
}

#include <sched.h>
#include <unistd.h>

int whisker_available_processors(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        int count = CPU_COUNT(&set);
        if (count > 0) return count;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

#if defined(__GLIBC__)
#include <malloc.h>
#endif

unsigned long whisker_release_free_memory(unsigned long threshold) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    if (info.fordblks > threshold) malloc_trim(0);
    return (unsigned long)info.fordblks;
#else
    (void)threshold;
    return 0;
#endif
}

#endif // __linux__

#if defined(__APPLE__)
#include <malloc/malloc.h>
#endif

unsigned long whisker_heap_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return (unsigned long)(info.uordblks + info.hblkhd);
#elif defined(__APPLE__)
    // malloc_zone_statistics(3) with a NULL zone sums every zone: the bytes in use.
    malloc_statistics_t statistics;
    malloc_zone_statistics(NULL, &statistics);
    return (unsigned long)statistics.size_in_use;
#else
    return 0;
#endif
}
