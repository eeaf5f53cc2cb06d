// Benchmarks/Floor/floor.c: the floor of `make bench`, the least a server can do for a request on
// these sockets. One thread, one epoll set (level-triggered), non-blocking sockets on 127.0.0.1:PORT;
// for every complete request head in what `read` returned (up to the blank line; a body is not
// expected) it answers the same 148 bytes as Whisker's `GET /api/emoji` (status line, the same five
// fields of the same lengths, a 4-byte cat), in one `write` per `read`, keep-alive. It parses
// nothing, routes nothing and never closes a connection first: what is left of a request's cost
// when the server does nothing at all is the kernel's TCP loopback path, `epoll_wait`, `read` and
// `write`. HTTP/1.1 only (the HTTP/2 floor in the table is nginx).
//
//     cc -O2 -o floor floor.c && ./floor 18086
//
// SIGTERM and SIGINT end it (exit 0). Built by Benchmarks/build.sh into Benchmarks/Floor/.build/.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

// Whisker's answer to GET /api/emoji, byte for byte in shape (the Date and ETag fixed).
static const char answer[] =
    "HTTP/1.1 200 OK\r\n"
    "Content-Type: text/plain\r\n"
    "ETag: \"Ph0Ghx567KN\"\r\n"
    "Accept-Ranges: bytes\r\n"
    "Date: Fri, 27 Nov 2026 18:51:05 GMT\r\n"
    "Content-Length: 4\r\n"
    "\r\n"
    "\xf0\x9f\x98\xbb";
enum { ANSWER_LEN = sizeof(answer) - 1, IN_CAP = 16384, MAX_FDS = 65536, OUT_CAP = 64 * ANSWER_LEN };

// One connection: the bytes of a request head seen so far (to find "\r\n\r\n" across reads) and
// the answers not yet written (the socket's send buffer was full).
struct conn {
    unsigned matched;  // how many bytes of "\r\n\r\n" the input ends with
    size_t pending;    // answers owed but not yet written, in bytes
    size_t sent;       // bytes of the first pending answer already written
};
static struct conn *conns;
static volatile sig_atomic_t stopping;
static void on_signal(int n) { (void)n; stopping = 1; }

static void drop(int ep, int fd) {
    epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
    close(fd);
    conns[fd] = (struct conn){0};
}

// Writes what fd is owed; returns -1 when the connection failed, 1 when some is left, 0 when done.
static int flush(int fd) {
    static char out[OUT_CAP];
    struct conn *c = &conns[fd];
    while (c->pending > 0) {
        size_t n = c->pending < OUT_CAP ? c->pending : OUT_CAP;
        // The answers are all the same, so any window of the repetition is the right bytes.
        for (size_t i = 0; i < n; i++) out[i] = answer[(c->sent + i) % ANSWER_LEN];
        ssize_t w = write(fd, out, n);
        if (w < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 1 : -1;
        c->pending -= (size_t)w;
        c->sent = (c->sent + (size_t)w) % ANSWER_LEN;
    }
    return 0;
}

int main(int argc, char **argv) {
    int port = argc > 1 ? atoi(argv[1]) : 8080;
    conns = calloc(MAX_FDS, sizeof *conns);
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if (!conns || lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 1024) < 0) {
        perror("floor: listen");
        return 1;
    }
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = lfd};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    printf("floor listening on http://127.0.0.1:%d\n", port);
    fflush(stdout);

    static char in[IN_CAP];
    struct epoll_event events[256];
    while (!stopping) {
        int n = epoll_wait(ep, events, 256, -1);
        if (n < 0) {
            if (errno == EINTR) continue;
            perror("floor: epoll_wait");
            return 1;
        }
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            if (fd == lfd) {
                int cfd;
                while ((cfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    if (cfd >= MAX_FDS) { close(cfd); continue; }
                    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    conns[cfd] = (struct conn){0};
                    struct epoll_event cev = {.events = EPOLLIN | EPOLLRDHUP, .data.fd = cfd};
                    epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &cev);
                }
                continue;
            }
            struct conn *c = &conns[fd];
            if (events[i].events & EPOLLOUT) {
                int r = flush(fd);
                if (r < 0) { drop(ep, fd); continue; }
                if (r == 0) {
                    struct epoll_event cev = {.events = EPOLLIN | EPOLLRDHUP, .data.fd = fd};
                    epoll_ctl(ep, EPOLL_CTL_MOD, fd, &cev);
                }
            }
            if (!(events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) continue;
            ssize_t got = read(fd, in, sizeof in);
            if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) { drop(ep, fd); continue; }
            if (got < 0) continue;
            // Count the heads that end in this read: each "\r\n\r\n", carried across reads.
            size_t heads = 0;
            unsigned m = c->matched;
            for (ssize_t k = 0; k < got; k++) {
                char b = in[k];
                if (b == ((m & 1) ? '\n' : '\r')) {
                    if (++m == 4) { heads++; m = 0; }
                } else {
                    m = (b == '\r') ? 1 : 0;
                }
            }
            c->matched = m;
            if (heads == 0) continue;
            int was_waiting = c->pending > 0;
            c->pending += heads * ANSWER_LEN;
            if (was_waiting) continue;  // EPOLLOUT is on; it writes these too
            int r = flush(fd);
            if (r < 0) { drop(ep, fd); continue; }
            if (r > 0) {
                struct epoll_event cev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP, .data.fd = fd};
                epoll_ctl(ep, EPOLL_CTL_MOD, fd, &cev);
            }
        }
    }
    return 0;
}
