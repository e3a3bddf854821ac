// The work evalbench does for each answer once its bytes are here: reading the stream, the
// SSE and JSON, grading, recording. Measured as CPU time per answer over an in-memory
// transport (no sockets, no server), so that it is the client's own cost.
import EvalBench
import EvalBenchTestSupport
import Foundation

/// Answers every request at once from memory, with the bytes the c=256 stub sends.
struct InMemoryTransport: HTTPStreaming {
    static let body = Data(stubEvents.joined().utf8)

    func stream(_ request: HTTPStreamRequest) -> AsyncThrowingStream<HTTPStreamEvent, any Error> {
        AsyncThrowingStream { continuation in
            continuation.yield(.response(status: 200, headers: ["content-type": "text/event-stream"]))
            continuation.yield(.bytes(Self.body, receivedAtNanos: DispatchTime.now().uptimeNanoseconds))
            continuation.finish()
        }
    }
}

/// Process CPU µs per answer for `count` requests at `concurrency` over the in-memory transport.
func pipelineCPUPerAnswerMicros(count: Int, concurrency: Int) async throws -> Double {
    let before = processCPUMs()
    _ = try await runCases(baseURL: URL(string: "http://127.0.0.1:9")!, count: count, concurrency: concurrency,
                           transport: InMemoryTransport())
    return (processCPUMs() - before) * 1000 / Double(count)
}

/// Process CPU µs per answer for `count` requests at `concurrency` over loopback sockets to a
/// `FakeEventLoopServer` answering at once with the c=256 stub's bytes: the client's cost with
/// its socket transport, plus the fake's and the kernel's (the same for every build of the
/// client, so that builds compare on it).
func socketPipelineCPUPerAnswerMicros(count: Int, concurrency: Int) async throws -> Double {
    let server = FakeEventLoopServer(always: delayedAnswer(afterMs: 0))
    try server.start()
    defer { server.stop() }
    _ = try await runCases(baseURL: server.baseURL, count: concurrency, concurrency: concurrency)
    let before = processCPUMs()
    _ = try await runCases(baseURL: server.baseURL, count: count, concurrency: concurrency)
    return (processCPUMs() - before) * 1000 / Double(count)
}

/// Microseconds to redact one answer of `text` for a request that carries an API key (the
/// redactor runs on every answer of a backend with a key; without one it returns at once):
/// the median of 5 passes of 2,000 answers.
func redactionMicros(_ text: String) -> Double {
    let redactor = SecretRedactor(HTTPStreamRequest(url: URL(string: "https://api.example.com/v1/chat/completions")!,
                                                    headers: ["Authorization": "Bearer sk-proj-AbCdEf0123456789ghIJklMNop"]))
    var passes: [Double] = []
    var total = 0
    for _ in 0..<5 {
        let stopwatch = Stopwatch()
        for _ in 0..<2_000 { total &+= redactor.redact(text).utf8.count }
        passes.append(stopwatch.ms() * 1000 / 2_000)
    }
    precondition(total > 0)
    return passes.sorted()[2]
}
