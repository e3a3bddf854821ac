#include "CEvalBenchLinux.h"

int cevalbench_has_epoll(void) {
#ifdef __linux__
    return 1;
#else
    return 0;
#endif
}
