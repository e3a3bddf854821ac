// What Glibc's Swift module leaves out and evalbench needs on Linux: epoll, malloc_trim and mallopt.
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

/// Serves every allocation of `bytes` or more with its own mapping, given back to the system
/// when it is freed, and stops glibc raising that threshold by itself (`mallopt`'s
/// `M_MMAP_THRESHOLD`). Returns 1 when set, 0 when not (and elsewhere than glibc).
int cevalbench_map_allocations_from(long bytes);

/// Names the calling thread as `ps`, `top` and `perf` show it (Linux keeps the first 15
/// bytes). Foundation's `Thread.name` does not reach the kernel there. Nothing elsewhere.
void cevalbench_name_current_thread(const char *name);

#endif
