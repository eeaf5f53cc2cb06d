#ifndef C_WHISKER_SYSTEM_H
#define C_WHISKER_SYSTEM_H

/// accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC. Glibc declares accept4 only under _GNU_SOURCE,
/// which Swift's Glibc module does not define, so it is unreachable from Swift without this
/// wrapper; using it saves two fcntl(2) calls per accepted connection. The address is a
/// `struct sockaddr *` and the length a `socklen_t *`; they are `void *` here so that this header
/// pulls in no system header of its own (which would re-home those types in this module).
int whisker_accept_nonblocking(int fd, void *address, void *length);

#endif
