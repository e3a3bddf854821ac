import Foundation
#if os(Linux)
import CEvalBenchLinux
#endif

/// The threads a run's tasks execute on, on Linux: one per core, taking jobs first in, first
/// out from one queue. A job that comes wakes a sleeping thread, unless one was woken already
/// and has not yet looked at the queue (it takes this job too); a thread that finds the queue
/// empty sleeps at once.
///
/// Why not the default executor: on Linux it is libdispatch's cooperative pool, which also
/// wakes another thread each time one takes a job while others are queued. At concurrency 256
/// a burst of answers, each a short job, kept the pool's two threads waking each other, and
/// the kernel often queued the woken thread behind the running one while the other core sat
/// idle. Measured with `evalbench-bench high-concurrency` (256 requests at concurrency 256
/// against a stub that answers after 100 ms, 2 cores), 90 rounds each interleaved with the
/// build before: the wall's median went from 114.8 to 111.8 ms. On Apple platforms the default
/// executor is the kernel's workqueue, and is kept.
///
/// Jobs must not block for long, as on any executor with a thread per core: slow grading runs on
/// a thread of its own (`GradingTimeLimit`), and I/O on the socket loop or URLSession's threads.
package final class RunExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `head`, `idle` and `woken` are touched only under `condition`.
    /// One for the process, started on first use: its threads sleep when there is nothing to do.
    package static let shared = RunExecutor(threads: ProcessInfo.processInfo.activeProcessorCount)

    private let condition = NSCondition()
    /// The queue: jobs from `head` on are waiting, in the order they came.
    private var jobs: [UnownedJob] = []
    private var head = 0
    /// Threads waiting for a job, and how many of them were signalled and have not yet woken.
    private var idle = 0
    private var woken = 0
    package let threadCount: Int

    /// Whether the calling thread is one of an executor's threads.
    package static var isCurrentThreadInPool: Bool { Thread.current.threadDictionary[poolKey] != nil }
    private static let poolKey = "evalbench.RunExecutor"

    /// An executor with `threads` threads (at least 2, so that one job waiting on another's
    /// result through a lock never stalls the run on a one-core machine).
    package init(threads: Int) {
        threadCount = max(2, threads)
        for index in 0..<threadCount {
            let name = "evalbench-run-\(index)"
            let thread = Thread { [self] in
                nameCurrentThread(name)
                work()
            }
            thread.name = name
            thread.start()
        }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        // A thread already signalled takes this job too when it wakes (it looks at the queue under the lock).
        let signal = idle > woken
        if signal { woken += 1 }
        condition.unlock()
        if signal { condition.signal() }
    }

    private func work() {
        Thread.current.threadDictionary[Self.poolKey] = true
        let executor = asUnownedTaskExecutor()
        condition.lock()
        while true {
            if head < jobs.count {
                let job = jobs[head]
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                } else if head >= 4_096 && head * 2 >= jobs.count {
                    jobs.removeFirst(head)
                    head = 0
                }
                condition.unlock()
                job.runSynchronously(on: executor)
                condition.lock()
                continue
            }
            idle += 1
            condition.wait()
            idle -= 1
            // A spurious wake-up may take a signal's count: then one signal more is sent, never one fewer.
            woken = max(0, woken - 1)
        }
    }
}

/// Names the calling thread for `ps`, `top` and `perf` (at most 15 bytes show on Linux, where
/// Foundation's `Thread.name` stays inside the process); `Thread.name` alone elsewhere.
package func nameCurrentThread(_ name: String) {
    #if os(Linux)
    cevalbench_name_current_thread(name)
    #endif
}

/// Runs `operation` with its tasks, and the tasks they create, on `RunExecutor.shared` on Linux;
/// elsewhere on the default executor.
///
/// The memory the run's threads freed stays with them for the next run; `ReportWriter` gives
/// it back to the system before it writes (`releaseFreedMemory`).
package func onRunExecutor<T: Sendable>(_ operation: () async -> T) async -> T {
    #if os(Linux)
    await withTaskExecutorPreference(RunExecutor.shared) { await operation() }
    #else
    await operation()
    #endif
}

/// `work`'s value, computed on a thread of its own: for work that blocks (a child process, a
/// long computation) without holding one of the few threads every task shares (one per core,
/// `RunExecutor`'s or the cooperative pool's), which would stall every other task meanwhile.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

/// Gives the memory the allocator holds free back to the system (glibc's `malloc_trim(0)` on
/// Linux; nothing elsewhere). glibc keeps what each thread frees in that thread's arena, where
/// work on other threads does not reuse it: the reports, written after a run on other threads
/// than the run's, grew the 100,000-request run's peak from 197–211 MB (on dispatch's threads)
/// to 221–265 MB once the run had threads of its own, and 207–253 MB with this.
///
/// Not called at the end of every run: the next run in the same process (a library user's
/// loop, the bench's measured round after its warm-up) then found its heap given back and
/// faulted every page in again. At concurrency 256 page faults and `madvise` were 14% of the
/// process's CPU samples (perf) and the round's wall 119.1 ms against 115.1 ms without the trim
/// (medians of 45 rounds, interleaved).
package func releaseFreedMemory() {
    #if os(Linux)
    cevalbench_release_free_memory()
    #endif
}

/// Has glibc give every allocation of 128 KiB or more its own mapping, returned to the system
/// when freed, for the rest of the process (`mallopt(M_MMAP_THRESHOLD)`; nothing elsewhere).
/// Returns whether the allocator took it. The `evalbench` tool calls it first thing.
///
/// By default glibc raises that threshold each time a mapped block is freed, up to 32 MiB. A
/// report's large temporaries (the plan order's sort, a group's samples as they grow) did so,
/// and every later large array then came from the heap, whose freed middle stays resident: the
/// million-result report's peak was 140–153 MB (VmHWM, 2 runs) against a heap of 92 MB
/// (heaptrack), and 115 MB with the threshold fixed; the 200,000-request report with the same
/// cases and groups 112 MB against 93–94 MB, so the memory a request adds went from 56 to about
/// 27 bytes. The 100,000-request run with its reports: 194 → 163 MB. Times were within noise.
@discardableResult
package func mapLargeAllocations() -> Bool {
    #if os(Linux)
    cevalbench_map_allocations_from(128 * 1024) == 1
    #else
    false
    #endif
}
