// What Glibc's Swift module leaves out and the socket client needs on Linux: epoll.
// Elsewhere this header declares nothing, so the target builds on every platform.
#ifndef CEVALBENCH_LINUX_H
#define CEVALBENCH_LINUX_H

#ifdef __linux__
#include <sys/epoll.h>
#endif

/// 1 where epoll is declared (Linux), else 0.
int cevalbench_has_epoll(void);

#endif
