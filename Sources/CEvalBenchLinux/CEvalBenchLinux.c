#include "CEvalBenchLinux.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#endif
#ifdef __linux__
#include <string.h>
#include <sys/prctl.h>
#endif

int cevalbench_has_epoll(void) {
#ifdef __linux__
    return 1;
#else
    return 0;
#endif
}

void cevalbench_release_free_memory(void) {
#if defined(__linux__) && defined(__GLIBC__)
    malloc_trim(0);
#endif
}

int cevalbench_map_allocations_from(long bytes) {
#if defined(__linux__) && defined(__GLIBC__)
    if (bytes <= 0 || bytes > 0x7fffffff) return 0;
    return mallopt(M_MMAP_THRESHOLD, (int)bytes) == 1;
#else
    (void)bytes;
    return 0;
#endif
}

void cevalbench_name_current_thread(const char *name) {
#ifdef __linux__
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    prctl(PR_SET_NAME, shortened, 0, 0, 0);
#else
    (void)name;
#endif
}
