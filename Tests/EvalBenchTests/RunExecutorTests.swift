import Foundation
import Testing
#if os(Linux)
import CEvalBenchLinux
#endif
@testable import EvalBench

@Suite struct RunExecutorTests {
    #if os(Linux)
    /// A threshold of 0, below 0 or past what `mallopt` takes is refused without calling it.
    /// The threshold itself is not set here: it is process-wide and would change every other
    /// suite's allocations, and no allocation in a shared test process can show it (malloc
    /// serves a large block from a free chunk it already holds). What it does to a report's
    /// memory is measured by `scripts/bench reports`; the `evalbench` tool sets it first thing.
    @Test func allocatorThresholdOutOfRangeIsRefused() {
        #expect(cevalbench_map_allocations_from(0) == 0)
        #expect(cevalbench_map_allocations_from(-1) == 0)
        #expect(cevalbench_map_allocations_from(Int(Int32.max) + 1) == 0)
    }
    #endif

    /// Thousands of tasks, each suspended on a continuation resumed from another thread (as an
    /// answer from the socket loop resumes its request), all finish on the executor's threads:
    /// no job is left in the queue while its threads sleep.
    @Test func everyJobRunsOnItsThreads() async {
        let executor = RunExecutor(threads: 2)
        let count = 5_000
        let onPool = await withTaskExecutorPreference(executor) {
            await withTaskGroup(of: Bool.self) { group in
                for index in 0..<count {
                    group.addTask {
                        let before = RunExecutor.isCurrentThreadInPool
                        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                            // Some resumed at once, some from another thread a little later.
                            if index % 3 == 0 {
                                continuation.resume()
                            } else {
                                DispatchQueue.global().async { continuation.resume() }
                            }
                        }
                        return before && RunExecutor.isCurrentThreadInPool
                    }
                }
                var all = 0
                for await onPool in group where onPool { all += 1 }
                return all
            }
        }
        #expect(onPool == count)
    }

    /// Jobs that come while every thread sleeps wake one; a second burst after they slept again runs too.
    @Test func wakesAfterSleeping() async throws {
        let executor = RunExecutor(threads: 2)
        for _ in 0..<3 {
            let ran = await withTaskExecutorPreference(executor) {
                await withTaskGroup(of: Int.self) { group in
                    for index in 0..<64 { group.addTask { RunExecutor.isCurrentThreadInPool ? index : -1 } }
                    return await group.reduce(0) { $0 + $1 }
                }
            }
            #expect(ran == (0..<64).reduce(0, +))
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(executor.threadCount == 2)
        #expect(RunExecutor(threads: 1).threadCount == 2, "at least two threads, even on one core")
    }

    /// A run's requests run on the run's executor on Linux (and on the default one elsewhere).
    @Test func runnerRunsRequestsOnIt() async throws {
        let seen = Seen()
        let backend = ThreadReportingBackend(seen: seen)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("run-executor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: out) }
        let store = try ResultStore(url: out.appendingPathComponent("results.jsonl"))
        let runner = Runner(backends: ["threads": backend], store: store, concurrency: 8, timeoutSeconds: 10,
                            retryPolicy: RetryPolicy(maxRetries: 0))
        let cases = (0..<32).map { EvalCase(id: "c\($0)", turns: [Turn(prompt: "q\($0)", expect: [])]) }
        let suite = Suite(name: "s", file: "s.json", cases: cases)
        await runner.run(Planner.plan([suite], PlanSelection(backends: ["threads"])), availability: ["threads": .available])
        try store.close()
        #expect(store.all().count == 32)
        #if os(Linux)
        #expect(seen.values == Array(repeating: true, count: 32))
        #else
        #expect(seen.values.count == 32)
        #endif
    }
}

private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var onPool: [Bool] = []
    var values: [Bool] { lock.withLock { onPool } }
    func add(_ value: Bool) { lock.withLock { onPool.append(value) } }
}

/// A test double: answers at once, noting whether it was called on a run executor's thread.
private struct ThreadReportingBackend: Backend {
    let name = "threads"
    let seen: Seen

    func startConversation() async -> any Conversation { Reply(seen: seen) }

    struct Reply: Conversation {
        let seen: Seen
        func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
            seen.add(RunExecutor.isCurrentThreadInPool)
            let watch = Stopwatch()
            let end = watch.ms()
            return .success(ModelResponse(text: "ok", timing: RequestTiming(startedAt: watch.startedAt, firstTokenMs: end,
                                                                           firstAnswerTokenMs: end, endMs: end),
                                          usage: Usage()))
        }
    }
}
