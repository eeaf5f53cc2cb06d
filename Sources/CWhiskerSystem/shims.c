#define _GNU_SOURCE
#include <sys/socket.h>
#include "CWhiskerSystem.h"

int whisker_accept_nonblocking(int fd, void *address, void *length) {
    return accept4(fd, (struct sockaddr *)address, (socklen_t *)length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
