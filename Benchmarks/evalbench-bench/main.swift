// evalbench's own benchmarks against FakeOpenAIServer on loopback; run by scripts/bench
// (release build). Prints each figure beside its budget from DESIGN.md. Figures are measured
// here and now, never asserted: the machines are shared and noisy.
import EvalBench
import EvalBenchTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("evalbench-bench-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs N single-turn cases through the whole runner path (plan, request, transport, SSE,
/// grading, JSONL) and returns the wall time in ms and the results.
func runCases(_ server: FakeOpenAIServer, count: Int, concurrency: Int) async throws -> (wallMs: Double, results: [RequestResult]) {
    let out = temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: out) }
    let backend = OpenAIBackend(name: "stub", model: "stub", baseURL: server.baseURL.appendingPathComponent("v1"), apiKey: nil,
                                concurrency: concurrency, transport: URLSessionStreamTransport())
    let store = try ResultStore(url: out.appendingPathComponent("results.jsonl"))
    let runner = Runner(backends: ["stub": backend], store: store, concurrency: concurrency, timeoutSeconds: 60,
                        retryPolicy: RetryPolicy(maxRetries: 0))
    let cases = (0..<count).map { EvalCase(id: "c\($0)", turns: [Turn(prompt: "q\($0)", expect: [Assertion(.contains("ok", ignoreCase: false))])]) }
    let plan = Planner.plan([Suite(name: "bench", file: "bench.json", cases: cases)], PlanSelection(backends: ["stub"]))
    let stopwatch = Stopwatch()
    await runner.run(plan, availability: ["stub": .available])
    let wall = stopwatch.ms()
    try await store.close()
    return (wall, await store.all())
}

/// The same request sent with a plain URLSession data task: the floor evalbench is compared with.
func rawRoundTripMs(_ server: FakeOpenAIServer, count: Int) async throws -> Double {
    var request = URLRequest(url: server.chatCompletionsURL)
    request.httpMethod = "POST"
    request.httpBody = Data(#"{"messages":[{"role":"user","content":"q"}],"stream":true}"#.utf8)
    var samples: [Double] = []
    for _ in 0..<count {
        let stopwatch = Stopwatch()
        _ = try await URLSession.shared.data(for: request)
        samples.append(stopwatch.ms())
    }
    return median(samples)
}

func residentHighWaterMB() -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
    return kilobytes / 1024
}

func line(_ name: String, _ value: String, _ budget: String) {
    print(name.padding(toLength: 52, withPad: " ", startingAt: 0) + value.padding(toLength: 22, withPad: " ", startingAt: 0) + budget)
}

func format(_ value: Double, _ unit: String = "ms") -> String { String(format: "%.3f %@", value, unit) }

print("evalbench bench: \(ProcessInfo.processInfo.processorCount) cores, loopback FakeOpenAIServer\n")
line("measure", "value", "budget")

// 1. Overhead per request against a stub that answers at once.
let instant = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok")], usage: .init(promptTokens: 5, completionTokens: 1)) }
try instant.start()
_ = try await runCases(instant, count: 50, concurrency: 4) // warm up connections and code paths
let raw = try await rawRoundTripMs(instant, count: 200)
for concurrency in [1, 64] {
    let count = concurrency == 1 ? 500 : 2000
    let (wall, results) = try await runCases(instant, count: count, concurrency: concurrency)
    let perRequest = wall * Double(concurrency) / Double(count)
    let measuredLatency = median(results.compactMap { $0.timing?.latencyMs })
    line("c=\(concurrency): wall per request × c (\(count) requests)", format(perRequest), "")
    line("c=\(concurrency): overhead = that − raw URLSession round trip", format(max(0, perRequest - raw)), concurrency == 1 ? "< 1 ms median" : "< 1 ms median (per request slot)")
    line("c=\(concurrency): median latency as evalbench measured it", format(measuredLatency), "")
}
line("raw URLSession round trip (median of 200)", format(raw), "")
instant.stop()

// 2. Wall time against ⌈N/c⌉·d.
for (count, concurrency, delay) in [(20, 1, 50.0), (256, 64, 100.0)] {
    let delayed = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok", afterMs: delay)]) }
    try delayed.start()
    _ = try await runCases(delayed, count: concurrency, concurrency: concurrency)
    let (wall, _) = try await runCases(delayed, count: count, concurrency: concurrency)
    let ideal = Double((count + concurrency - 1) / concurrency) * delay
    line("N=\(count) c=\(concurrency) d=\(Int(delay)) ms: wall vs ideal \(Int(ideal)) ms", String(format: "%.1f ms (+%.1f%%)", wall, (wall / ideal - 1) * 100), "within 5%")
    delayed.stop()
}

// 3. TTFT and latency accuracy.
let timed = FakeOpenAIServer { _ in FakeOpenAIServer.Script(steps: [.content("ok", afterMs: 50), .content("!", afterMs: 25)]) }
try timed.start()
let (_, timedResults) = try await runCases(timed, count: 21, concurrency: 1)
let measured = timedResults.dropFirst()
line("TTFT error vs scripted 50 ms (median of 20)", format(median(measured.compactMap { $0.timing?.ttftMs }) - 50), "within 2 ms")
line("latency error vs scripted 75 ms (median of 20)", format(median(measured.compactMap { $0.timing?.latencyMs }) - 75), "within 2 ms")
timed.stop()

// 4. Reports for 100,000 results.
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
    result.timing?.endMs = Double(50 + index % 200)
    many.append(result)
}
let reportDirectory = temporaryDirectory()
let reportClock = Stopwatch()
try ReportWriter.write(ReportInput(results: many, suiteNames: ["bench"], startedAt: Date(), endedAt: Date()), to: reportDirectory)
line("100,000 results: results.csv, summary.csv, summary.md", format(reportClock.ms() / 1000, "s"), "< 5 s")
line("resident memory high-water mark (whole bench)", residentHighWaterMB().map { String(format: "%.0f MB", $0) } ?? "n/a", "< 300 MB")
try? FileManager.default.removeItem(at: reportDirectory)
