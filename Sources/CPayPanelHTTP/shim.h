// Linux-only declarations the Glibc module leaves out. The server core is Linux-first: epoll
// for readiness, an eventfd to wake the loop, accept4 to get non-blocking close-on-exec
// descriptors in one atomic call (no window in which a spawned child could inherit them);
// mallopt, to bound a long-running server's malloc arenas.
#ifndef PAYPANEL_HTTP_SHIM_H
#define PAYPANEL_HTTP_SHIM_H

#include <malloc.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

// accept4 is declared only under _GNU_SOURCE, which the prebuilt Glibc module is not built with.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);

// posix_spawn_file_actions_addchdir_np (glibc 2.29) is declared only under _GNU_SOURCE too: a
// child started in its own working directory without a fork (the test and soak launchers).
#include <spawn.h>
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);
// posix_spawn_file_actions_addclosefrom_np (glibc 2.34), likewise: the child closes every
// descriptor above its standard three, so it never holds a test's socket or pty open.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

// pthread_setname_np (glibc 2.12), likewise: threads of our own show their names in top -H
// and perf (OwnThread.markCurrent).
#include <pthread.h>
extern int pthread_setname_np(pthread_t thread, const char *name);

#endif
