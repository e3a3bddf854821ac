// evalbench's own benchmarks against FakeOpenAIServer on loopback; run by scripts/bench
// (release build). Prints each figure beside its budget from DESIGN.md. Figures are measured
// here and now, never asserted: the machines are shared and noisy.
import EvalBench
import EvalBenchTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// As the evalbench tool does first thing, so that the children measure the memory it takes.
mapLargeAllocations()

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-bench-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs N single-turn cases through the whole runner path (plan, request, transport, SSE,
/// grading, JSONL) and returns the wall time in ms and the results.
/// `transport` defaults to the one the evalbench command uses (plain sockets for loopback).
func runCases(_ server: FakeOpenAIServer, count: Int, concurrency: Int,
              transport: any HTTPStreaming = DefaultStreamTransport(),
              cache: ResponseCache? = nil) async throws -> (wallMs: Double, results: ResultTable) {
    try await runCases(baseURL: server.baseURL, count: count, concurrency: concurrency, transport: transport, cache: cache)
}

/// `runCases` against any OpenAI-compatible server at `baseURL` (its API under `/v1`).
func runCases(baseURL: URL, count: Int, concurrency: Int, transport: any HTTPStreaming = DefaultStreamTransport(),
              cache: ResponseCache? = nil) async throws -> (wallMs: Double, results: ResultTable) {
    let run = try await timedRunCases(baseURL: baseURL, count: count, concurrency: concurrency, transport: transport, cache: cache)
    return (run.wallMs, run.results)
}

/// `runCases`, with when the measured wall began: the zero of the c=256 figures' times.
func timedRunCases(baseURL: URL, count: Int, concurrency: Int, transport: any HTTPStreaming = DefaultStreamTransport(),
                   cache: ResponseCache? = nil) async throws -> (wallMs: Double, startedAt: Date, results: ResultTable) {
    let out = temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: out) }
    let backend = OpenAIBackend(name: "stub", model: "stub", baseURL: baseURL.appendingPathComponent("v1"), apiKey: nil,
                                concurrency: concurrency, transport: transport)
    let store = try ResultStore(url: out.appendingPathComponent("results.jsonl"))
    var runner = Runner(backends: ["stub": backend], store: store, concurrency: concurrency, timeoutSeconds: 60,
                        retryPolicy: RetryPolicy(maxRetries: 0))
    runner.cache = cache
    let cases = (0..<count).map { EvalCase(id: "c\($0)", turns: [Turn(prompt: "q\($0)", expect: [Assertion(.contains("ok", ignoreCase: false))])]) }
    let plan = Planner.plan([Suite(name: "bench", file: "bench.json", cases: cases)], PlanSelection(backends: ["stub"]))
    let stopwatch = Stopwatch()
    await runner.run(plan, availability: ["stub": .available])
    let wall = stopwatch.ms()
    try store.close()
    return (wall, stopwatch.startedAt, store.table())
}

/// The same request sent with plain URLSession data tasks, `concurrency` at a time: what
/// evalbench on URLSession is compared with, for reference. Returns wall ms per request.
func rawWallPerRequestMs(_ server: FakeOpenAIServer, count: Int, concurrency: Int) async throws -> Double {
    var template = URLRequest(url: server.chatCompletionsURL)
    template.httpMethod = "POST"
    template.httpBody = Data(#"{"messages":[{"role":"user","content":"q"}],"stream":true}"#.utf8)
    let request = template
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = 256
    let session = URLSession(configuration: configuration)
    let stopwatch = Stopwatch()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                for _ in stride(from: worker, to: count, by: concurrency) { _ = try await session.data(for: request) }
            }
        }
        try await group.waitForAll()
    }
    return stopwatch.ms() / Double(count)
}

/// The same request through a transport alone, drained, `concurrency` at a time: the floor
/// evalbench's own overhead is measured from. Returns wall ms per request.
func transportWallPerRequestMs(_ server: FakeOpenAIServer, _ transport: any HTTPStreaming, count: Int, concurrency: Int) async throws -> Double {
    let request = HTTPStreamRequest(url: server.chatCompletionsURL, headers: ["Content-Type": "application/json"],
                                    body: Data(#"{"messages":[{"role":"user","content":"q"}],"stream":true}"#.utf8), timeoutSeconds: 60)
    let stopwatch = Stopwatch()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                for _ in stride(from: worker, to: count, by: concurrency) {
                    for try await _ in transport.stream(request) {}
                }
            }
        }
        try await group.waitForAll()
    }
    return stopwatch.ms() / Double(count)
}

/// The peak resident memory (VmHWM) in MB of 1,000,000 bytes, the budgets' unit.
func residentHighWaterMB() -> Double? { processStatusMB("VmHWM") }

/// A memory figure of /proc/self/status (`VmHWM`, `VmRSS`) in MB of 1,000,000 bytes: the file
/// counts KiB, and dividing by 1,024 (as the bench did before) gave MiB, 4.9% less than MB.
func processStatusMB(_ field: String) -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
          let kibibytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
    return kibibytes * 1024 / 1_000_000
}

func line(_ name: String, _ value: String, _ budget: String) {
    // A name or value longer than its column is printed whole, pushing the rest along, not cut.
    func column(_ text: String, _ width: Int) -> String {
        text.count < width ? text.padding(toLength: width, withPad: " ", startingAt: 0) : text + " "
    }
    print(column(name, 52) + column(value, 22) + budget)
}

func format(_ value: Double, _ unit: String = "ms") -> String { String(format: "%.3f %@", value, unit) }

/// The sections named on the command line (overhead, scheduling, timing, cache, reports);
/// none named runs them all.
let sections = Set(CommandLine.arguments.dropFirst())
func selected(_ section: String) -> Bool { sections.isEmpty || sections.contains(section) }

nonisolated(unsafe) var scriptedTTFT = 0.0
nonisolated(unsafe) var scriptedLatency = 0.0
// The child processes of the memory budgets (BigRuns.swift): `report-child DIR`, `run-child N`,
// `plan-child CASES` (the plan of CASES × 100 case runs).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "report-child" {
    try reportChild(URL(fileURLWithPath: CommandLine.arguments[2]))
    exit(0)
}
// `write-synthetic N DIR [ANSWER_BYTES | first-repeats]`: only writes DIR/results.jsonl, to
// profile `report-child` on its own; with ANSWER_BYTES, every answer that long and its own;
// with `first-repeats`, only each case's first repeat.
if [4, 5].contains(CommandLine.arguments.count), CommandLine.arguments[1] == "write-synthetic", let count = Int(CommandLine.arguments[2]) {
    let directory = URL(fileURLWithPath: CommandLine.arguments[3])
    let option = CommandLine.arguments.count == 5 ? CommandLine.arguments[4] : nil
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try writeSyntheticResults(count: count, to: directory.appendingPathComponent(RunDirectory.FileName.results),
                              answerBytes: option.flatMap { Int($0) }, firstRepeatOnly: option == "first-repeats")
    exit(0)
}
// `write-synthetic-shards N K DIR`: N synthetic results as K shards in DIR/part-1…K; `merge-child DIR` merges them.
if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "write-synthetic-shards",
   let count = Int(CommandLine.arguments[2]), let shards = Int(CommandLine.arguments[3]) {
    try writeSyntheticShards(count: count, shards: shards, to: URL(fileURLWithPath: CommandLine.arguments[4]))
    exit(0)
}
// `resume-child DIR`: what `run --resume DIR` reads and writes before it sends anything.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "resume-child" {
    try resumeChild(URL(fileURLWithPath: CommandLine.arguments[2]))
    exit(0)
}
// `compare-child BASE CURRENT`: `compare` of two run directories, as `scripts/bench reports` measures it.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "compare-child" {
    try compareChild(baseline: URL(fileURLWithPath: CommandLine.arguments[2]), current: URL(fileURLWithPath: CommandLine.arguments[3]))
    exit(0)
}
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "merge-child" {
    try mergeChild(URL(fileURLWithPath: CommandLine.arguments[2]))
    exit(0)
}
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "plan-child", let count = Int(CommandLine.arguments[2]) {
    planChild(cases: count)
    exit(0)
}
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "run-child", let count = Int(CommandLine.arguments[2]) {
    try await runChild(count: count)
    exit(0)
}
// `pipeline N`: the client's CPU per answer over memory and over loopback sockets, N times (see Pipeline.swift).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "pipeline", let rounds = Int(CommandLine.arguments[2]) {
    _ = try await pipelineCPUPerAnswerMicros(count: 2000, concurrency: 256)
    for _ in 0..<max(1, rounds) {
        let one = try await pipelineCPUPerAnswerMicros(count: 5000, concurrency: 1)
        let many = try await pipelineCPUPerAnswerMicros(count: 5000, concurrency: 256)
        let sockets = try await socketPipelineCPUPerAnswerMicros(count: 5000, concurrency: 256)
        print(String(format: "pipeline CPU per answer: c=1 %.1f µs, c=256 %.1f µs; over loopback sockets, c=256 %.1f µs (fake and kernel included)",
                     one, many, sockets))
    }
    exit(0)
}
// `high-concurrency N [REQUESTS]`: the c=256 measurement N times, one line each, to profile it
// on its own; REQUESTS (256, one burst, unless given) a multiple of 256 for that many waves.
if (3...4).contains(CommandLine.arguments.count), CommandLine.arguments[1] == "high-concurrency",
   let rounds = Int(CommandLine.arguments[2]) {
    let requests = CommandLine.arguments.count == 4 ? Int(CommandLine.arguments[3]) ?? 256 : 256
    MachineSpeed.printLine()
    for _ in 0..<max(1, rounds) {
        let round = HighConcurrencyRounds(rounds: [try await HighConcurrencyFigures.measure(count: max(1, requests))])
        round.printScheduling()
        round.printTiming()
    }
    exit(0)
}
print("evalbench bench: \(ProcessInfo.processInfo.processorCount) cores, loopback FakeOpenAIServer\n")
line("measure", "value", "budget")
MachineSpeed.printLine()

// 1. Overhead per request against a stub that answers at once.
if selected("overhead") {
    let instant = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")], usage: .init(promptTokens: 5, completionTokens: 1)) }
    try instant.start()
    _ = try await runCases(instant, count: 50, concurrency: 4) // warm up connections and code paths
    for concurrency in [1, 64] {
        let count = concurrency == 1 ? 500 : 2000
        let raw = try await rawWallPerRequestMs(instant, count: count, concurrency: concurrency)
        let sockets = try await transportWallPerRequestMs(instant, SocketStreamTransport(), count: count, concurrency: concurrency)
        let (wall, results) = try await runCases(instant, count: count, concurrency: concurrency)
        let (sessionWall, _) = try await runCases(instant, count: count, concurrency: concurrency, transport: URLSessionStreamTransport())
        let perRequest = wall / Double(count)
        let measuredLatency = median(results.compactMap { $0.timing?.latencyMs })
        line("c=\(concurrency): evalbench wall / request (\(count) requests)", format(perRequest), "")
        line("c=\(concurrency): plain socket transport wall / request", format(sockets), "")
        line("c=\(concurrency): evalbench's own overhead (difference)", format(perRequest - sockets), "< 1 ms median (this is a mean)")
        line("c=\(concurrency): median latency as evalbench measured it", format(measuredLatency), "")
        line("c=\(concurrency): for reference: plain URLSession / request", format(raw), "")
        line("c=\(concurrency): for reference: evalbench on URLSession", format(sessionWall / Double(count)), "")
    }
    instant.stop()
    // The redactor's cost on a backend with a key: an answer of 2 bytes and one of 4 KB with
    // the bytes that make it look hardest (%, +, \\ and the key's first letters).
    let longAnswer = String(repeating: "The capital of France is Paris; 100% sure: a+b=c \\ skip. ", count: 70)
    line("redacting an answer, key set: 2 B / 4 KB", String(format: "%.2f / %.1f µs", redactionMicros("ok"), redactionMicros(longAnswer)),
         "small beside a request")
}

// 2. Wall time against ⌈N/c⌉·d.
if selected("scheduling") {
    // The same one-thread stub as the c=256 round: a thread per connection (FakeOpenAIServer)
    // adds its own starts and wake-ups to the client's on 2 cores.
    for (count, concurrency, delay) in [(20, 1, 50.0), (256, 64, 100.0)] {
        let delayed = FakeEventLoopServer(always: delayedAnswer(afterMs: delay))
        try delayed.start()
        _ = try await runCases(baseURL: delayed.baseURL, count: concurrency, concurrency: concurrency)
        let (wall, _) = try await runCases(baseURL: delayed.baseURL, count: count, concurrency: concurrency)
        let ideal = Double((count + concurrency - 1) / concurrency) * delay
        line("N=\(count) c=\(concurrency) d=\(Int(delay)) ms: wall vs ideal \(Int(ideal)) ms", String(format: "%.1f ms (+%.1f%%)", wall, (wall / ideal - 1) * 100), "within 5%")
        delayed.stop()
    }
    for requests in highConcurrencyRequests { try await highConcurrencyRounds(requests: requests).printScheduling() }
}

// 3. TTFT and latency accuracy: scripted delays, and the same script with no delays, whose
if selected("timing") {
    // medians are the fixed cost of loopback, the transport and the fake itself.
    for (name, ttftDelay, endDelay) in [("scripted", 50.0, 25.0), ("instant", 0.0, 0.0)] {
        let timed = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok", afterMs: ttftDelay), .content("!", afterMs: endDelay)]) }
        try timed.start()
        let (_, timedResults) = try await runCases(timed, count: 31, concurrency: 1)
        let measured = timedResults.dropFirst()
        let ttft = median(measured.compactMap { $0.timing?.ttftMs })
        let latency = median(measured.compactMap { $0.timing?.latencyMs })
        if name == "instant" {
            line("fixed cost: TTFT / latency with no scripted delay", format(ttft) + " / " + format(latency), "")
            line("TTFT error vs scripted 50 ms, fixed cost removed", format(scriptedTTFT - 50 - ttft), "within 2 ms")
            line("latency error vs scripted 75 ms, fixed cost removed", format(scriptedLatency - 75 - latency), "within 2 ms")
        } else {
            scriptedTTFT = ttft
            scriptedLatency = latency
            line("TTFT vs scripted 50 ms (median of 30)", format(ttft), "")
            line("latency vs scripted 75 ms (median of 30)", format(latency), "")
        }
        timed.stop()
    }
    for requests in highConcurrencyRequests { try await highConcurrencyRounds(requests: requests).printTiming() }
}

// 4. The response cache (--cache) on 4,000 cases: every store used to rescan the cache folder.
if selected("cache") {
    let cacheServer = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")], usage: .init(promptTokens: 5, completionTokens: 1)) }
    try cacheServer.start()
    let cacheDirectory = temporaryDirectory()
    let (uncachedWall, _) = try await runCases(cacheServer, count: 4000, concurrency: 16)
    let (coldWall, _) = try await runCases(cacheServer, count: 4000, concurrency: 16, cache: ResponseCache(directory: cacheDirectory))
    let (warmWall, warmResults) = try await runCases(cacheServer, count: 4000, concurrency: 16, cache: ResponseCache(directory: cacheDirectory))
    line("4,000 cases c=16 without --cache", format(uncachedWall / 1000, "s"), "")
    line("4,000 cases c=16 with --cache, all stored (cold)", format(coldWall / 1000, "s") + String(format: " (%.1f×)", coldWall / uncachedWall), "a few times uncached")
    line("4,000 cases c=16 with --cache, all answered (warm)", format(warmWall / 1000, "s") + " (\(warmResults.filter { $0.cached == true }.count) cached)", "")
    cacheServer.stop()
    try? FileManager.default.removeItem(at: cacheDirectory)
}

// 5. Reports for 100,000 results.
if selected("reports") {
    let template = RequestResult(key: "", suite: "bench", caseID: "", turn: 1, turns: 1, variant: "default", backend: "b0", model: "m",
                                 reasoning: .none, repeatIndex: 1, tags: [], status: .pass, instructions: nil, prompt: "What is the capital of France?",
                                 output: "Paris", timing: RequestTiming(startedAt: Date(), firstTokenMs: 40, firstAnswerTokenMs: 40, endMs: 90),
                                 usage: Usage(inputTokens: 120, cachedInputTokens: 100, outputTokens: 4, source: .reported), attempts: 1,
                                 assertions: [AssertionResult(type: "contains", name: "contains \"Paris\"", passed: true)])
    var many: [RequestResult] = []
    many.reserveCapacity(100_000)
    for index in 0..<100_000 {
        var result = template
        result.caseID = "case-\(index % 25_000)"
        result.backend = "b\(index % 4)"
        result.key = "bench/\(result.caseID)/default/\(result.backend)/none/1"
        result.status = index % 7 == 0 ? .fail : .pass
        // Six tags, each on part of the cases, so the per-tag recommendation has real work.
        result.tags = ["feature-\(index % 25_000 % 4)", index % 25_000 % 3 == 0 ? "long" : "short"]
        result.timing?.endMs = Double(50 + index % 200)
        many.append(result)
    }
    let reportDirectory = temporaryDirectory()
    let reportClock = Stopwatch()
    try ReportWriter.write(ReportInput(results: many, suiteNames: ["bench"], startedAt: Date(), endedAt: Date()), to: reportDirectory)
    line("100,000 results: every report file", format(reportClock.ms() / 1000, "s"), "< 5 s")
    let stepSummary = reportDirectory.appendingPathComponent("step-summary.md")
    try EvalRun.appendStepSummary(from: reportDirectory, environment: ["GITHUB_STEP_SUMMARY": stepSummary.path])
    let stepText = try String(contentsOf: stepSummary, encoding: .utf8)
    let summarySize = (try? Data(contentsOf: reportDirectory.appendingPathComponent(RunDirectory.FileName.summaryMarkdown)).count) ?? 0
    line("100,000 results: summary.md", format(Double(summarySize) / 1_048_576, "MiB"), "")
    line("100,000 results: GITHUB_STEP_SUMMARY appended", format(Double(stepText.utf8.count) / 1_048_576, "MiB")
         + (stepText.contains("This step summary leaves out") ? ", says what it left out" : ", whole"), "<= 1 MiB")
    line("resident memory high-water mark (whole bench)", residentHighWaterMB().map { String(format: "%.0f MB", $0) } ?? "n/a", "< 300 MB")
    try? FileManager.default.removeItem(at: reportDirectory)

    // `report` of 1,000,000 results read from results.jsonl, in a child process of its own.
    let millionDirectory = temporaryDirectory()
    try writeSyntheticResults(count: 1_000_000, to: millionDirectory.appendingPathComponent(RunDirectory.FileName.results))
    let rounds = 3
    let million = try measureChildren(["report-child", millionDirectory.path], rounds: rounds)
    if let million {
        line("1,000,000-result report: wall, median of \(rounds)",
             String(format: "%.1f s (%.1f–%.1f)", million.median, million.low, million.high), "< 30 s")
        line("1,000,000-result report: peak RSS, most of \(rounds)", String(format: "%.0f MB", million.megabytes), "< 300 MB")
    } else {
        line("1,000,000-result report (from jsonl)", "child failed", "< 30 s")
    }
    // The same 10,000 cases and 20 groups with one repeat instead of 5: what the report's
    // memory grows by with each request when cases and groups stay the same (issue 20, item 4,
    // asks that it not grow at all; samples, each case run's place, a verdict's own text remain).
    // `compare` of the million against itself (the current run's results.jsonl a link to
    // the same file): both runs read, aggregated and paired case run by case run, in a child.
    let currentDirectory = temporaryDirectory()
    try FileManager.default.createSymbolicLink(at: currentDirectory.appendingPathComponent(RunDirectory.FileName.results),
                                               withDestinationURL: millionDirectory.appendingPathComponent(RunDirectory.FileName.results))
    printChild("1,000,000 against 1,000,000 results: compare", try measureChild(["compare-child", millionDirectory.path, currentDirectory.path]),
               timeBudget: "", memoryBudget: "< 300 MB")
    try? FileManager.default.removeItem(at: currentDirectory)
    printChild("1,000,000 results: what --resume reads and writes first", try measureChild(["resume-child", millionDirectory.path]),
               timeBudget: "", memoryBudget: "< 300 MB")
    let firstRepeatsDirectory = temporaryDirectory()
    try writeSyntheticResults(count: 1_000_000, to: firstRepeatsDirectory.appendingPathComponent(RunDirectory.FileName.results),
                              firstRepeatOnly: true)
    // Both the highest of 3 children, as the million's peak above.
    if let million, let firstRepeats = try measureChildren(["report-child", firstRepeatsDirectory.path], rounds: rounds) {
        line("report memory a request adds (200,000 → 1,000,000)",
             String(format: "%.0f B (%.0f→%.0f MB)", (million.megabytes - firstRepeats.megabytes) * 1_000_000 / 800_000,
                    firstRepeats.megabytes, million.megabytes),
             "0: cases and groups only")
    }
    try? FileManager.default.removeItem(at: firstRepeatsDirectory)
    // The same with every answer 300 bytes long and its own, as a model's answers are: the
    // answers are then most of the results' bytes (940 MB of results.jsonl).
    try writeSyntheticResults(count: 1_000_000, to: millionDirectory.appendingPathComponent(RunDirectory.FileName.results),
                              answerBytes: 300)
    printChild("1,000,000-result report, 300-byte answers", try measureChild(["report-child", millionDirectory.path]),
               timeBudget: "< 30 s", memoryBudget: "< 300 MB")
    try? FileManager.default.removeItem(at: millionDirectory)
    // `merge` of the same million results as 3 shards (split by case as `run --shard K/3`
    // splits them): read, checked, written as one results.jsonl and reported, in a child.
    let shardsDirectory = temporaryDirectory()
    try writeSyntheticShards(count: 1_000_000, shards: 3, to: shardsDirectory)
    printChild("1,000,000-result merge of 3 shards", try measureChild(["merge-child", shardsDirectory.path]),
               timeBudget: "", memoryBudget: "< 300 MB")
    try? FileManager.default.removeItem(at: shardsDirectory)
    // The plan of a million case runs (10,000 cases × 5 backends × 4 levels × 5 repeats): what
    // a run holds before it sends anything, in a child process.
    if let plan = try measureChild(["plan-child", "10000"]) {
        line("1,000,000-run plan: time / memory it took", String(format: "%.2f s / %.0f MB", plan.seconds, plan.megabytes), "")
    } else {
        line("1,000,000-run plan", "child failed", "")
    }
    // A 100,000-request run against an instant stub, with its reports, in a child process.
    printChild("100,000-request run c=64 + reports", try measureChild(["run-child", "100000"]),
               timeBudget: "", memoryBudget: "< 300 MB")
}
