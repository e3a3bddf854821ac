// The work evalbench does for each answer once its bytes are here: reading the stream, the
// SSE and JSON, grading, recording. Measured as CPU time per answer over an in-memory
// transport (no sockets, no server), so that it is the client's own cost.
import EvalBench
import Foundation

/// Answers every request at once from memory, with the bytes the c=256 stub sends.
struct InMemoryTransport: HTTPStreaming {
    static let body = Data((#"data: {"id":"b","object":"chat.completion.chunk","model":"stub","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}"# + "\n\n"
        + #"data: {"id":"b","object":"chat.completion.chunk","model":"stub","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}"# + "\n\n"
        + "data: [DONE]\n\n").utf8)

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
    let before = processCPUNanos()
    _ = try await runCases(baseURL: URL(string: "http://127.0.0.1:9")!, count: count, concurrency: concurrency,
                           transport: InMemoryTransport())
    return Double(processCPUNanos() - before) / 1000 / Double(count)
}

func processCPUNanos() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
