// What Glibc's Swift module leaves out and evalbench needs on Linux: epoll, and malloc_trim.
// Elsewhere this header declares nothing, so the target builds on every platform.
#ifndef CEVALBENCH_LINUX_H
#define CEVALBENCH_LINUX_H

#ifdef __linux__
#include <sys/epoll.h>
#endif

/// 1 where epoll is declared (Linux), else 0.
int cevalbench_has_epoll(void);

/// Gives the memory the allocator holds free back to the system (glibc's `malloc_trim(0)`);
/// does nothing elsewhere.
void cevalbench_release_free_memory(void);

#endif
