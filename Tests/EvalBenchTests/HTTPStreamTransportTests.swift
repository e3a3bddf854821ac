import Foundation
import Testing
import EvalBench
import EvalBenchTestSupport

/// Everything one streamed exchange produced.
private struct Exchange {
    var status: Int?
    var headers: [String: String] = [:]
    var body = Data()
    /// Each body delivery with its arrival time.
    var deliveries: [(bytes: Data, atNanos: UInt64)] = []
    var failure: BackendFailure?
}

private func exchange(_ transport: some HTTPStreaming, _ request: HTTPStreamRequest) async -> Exchange {
    var result = Exchange()
    do {
        for try await event in transport.stream(request) {
            switch event {
            case let .response(status, headers):
                result.status = status
                result.headers = headers
            case let .bytes(bytes, receivedAtNanos):
                result.body += bytes
                result.deliveries.append((bytes, receivedAtNanos))
            }
        }
    } catch {
        result.failure = error as? BackendFailure
    }
    return result
}

private func startedServer(_ respond: @escaping @Sendable (FakeHTTPRequest) -> FakeHTTPResponse) throws -> FakeHTTPServer {
    let server = FakeHTTPServer(respond: respond)
    try server.start()
    return server
}

private func milliseconds(since startNanos: UInt64) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - startNanos) / 1_000_000
}

/// Waits up to `seconds` for `condition` to hold.
private func eventually(within seconds: Double, _ condition: () -> Bool) async -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
    while DispatchTime.now().uptimeNanoseconds < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
}

/// The two transports for plain HTTP: every behaviour below holds for both.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case urlSession, sockets

    var testDescription: String { rawValue }

    func make() -> any HTTPStreaming {
        self == .urlSession ? URLSessionStreamTransport() : SocketStreamTransport()
    }
}

/// The suites that time real loopback traffic, run one test at a time so that they do not
/// slow each other down on a small machine.
@Suite("Loopback network", .serialized)
struct LoopbackNetworkTests {}

extension LoopbackNetworkTests {
    @Suite("HTTP stream transport")
    struct HTTPStreamTransportTests {
        @Test("Status, lowercased headers and body arrive; the server sees method, headers and body", arguments: TransportKind.allCases)
        func responseHead(_ kind: TransportKind) async throws {
            let transport = kind.make()
            let server = try startedServer { _ in
                .full(status: 201, headers: ["X-Request-Id": "abc", "Content-Type": "text/plain"], body: Data("hello".utf8))
            }
            defer { server.stop() }
            let request = HTTPStreamRequest(url: server.baseURL.appendingPathComponent("v1/echo"),
                                            headers: ["Authorization": "Bearer sk-test", "Content-Type": "application/json"],
                                            body: Data(#"{"q":1}"#.utf8), timeoutSeconds: 10)
            let result = await exchange(transport, request)
            #expect(result.failure == nil)
            #expect(result.status == 201)
            #expect(result.headers["x-request-id"] == "abc")
            #expect(result.headers["content-type"] == "text/plain")
            #expect(String(decoding: result.body, as: UTF8.self) == "hello")
            let received = try #require(server.requests.first)
            #expect(received.method == "POST")
            #expect(received.path == "/v1/echo")
            #expect(received.headers["authorization"] == "Bearer sk-test")
            #expect(received.body == Data(#"{"q":1}"#.utf8))
        }

        @Test("Bytes are delivered as they arrive: a piece sent 200 ms later arrives well after the first (a buffering transport gives both at once)",
              arguments: TransportKind.allCases)
        func incrementalDelivery(_ kind: TransportKind) async throws {
            let transport = kind.make()
            let server = try startedServer { _ in
                .stream(pieces: [.init(afterMs: 0, "first"), .init(afterMs: 200, "second")])
            }
            defer { server.stop() }
            let start = DispatchTime.now().uptimeNanoseconds
            let result = await exchange(transport, HTTPStreamRequest(url: server.baseURL, method: "GET", timeoutSeconds: 10))
            #expect(result.failure == nil)
            #expect(String(decoding: result.body, as: UTF8.self) == "firstsecond")
            let first = try #require(result.deliveries.first { String(decoding: $0.bytes, as: UTF8.self).contains("first") })
            let second = try #require(result.deliveries.first { String(decoding: $0.bytes, as: UTF8.self).contains("second") })
            let gapMs = Double(second.atNanos - first.atNanos) / 1_000_000
            // Not 190: on a busy machine URLSession handed over the first piece 12 ms late (a gap
            // of 187.7 ms) once; buffering would make the gap about 0, which this still catches.
            #expect(gapMs >= 150)
            #expect(gapMs < 350)
            #expect(Double(second.atNanos - start) / 1_000_000 >= 200)
        }

        @Test("The whole-request timeout ends a stalled stream with .timeout at about the limit", arguments: TransportKind.allCases)
        func timeoutOnStall(_ kind: TransportKind) async throws {
            let transport = kind.make()
            let server = try startedServer { _ in .stall() }
            defer { server.stop() }
            let start = DispatchTime.now().uptimeNanoseconds
            let result = await exchange(transport, HTTPStreamRequest(url: server.baseURL, timeoutSeconds: 0.3))
            let elapsed = milliseconds(since: start)
            #expect(result.status == 200)
            let failure = try #require(result.failure)
            #expect(failure.kind == .timeout)
            #expect(failure.message.contains("timeout"))
            #expect(elapsed >= 295)
            #expect(elapsed < 300 + 1_000)
        }

        @Test("The timeout covers the whole exchange, not only idle gaps", arguments: TransportKind.allCases)
        func timeoutIsWholeRequest(_ kind: TransportKind) async throws {
            let transport = kind.make()
            let pieces = Array(repeating: FakeHTTPResponse.Piece(afterMs: 100, "tick"), count: 10)
            let server = try startedServer { _ in .stream(pieces: pieces) }
            defer { server.stop() }
            let result = await exchange(transport, HTTPStreamRequest(url: server.baseURL, timeoutSeconds: 0.45))
            #expect(result.failure?.kind == .timeout)
            #expect(result.body.count >= 3 * 4)
            #expect(result.body.count < 10 * 4)
        }

        @Test("A connection reset mid-stream ends it with .network after the bytes sent before it", arguments: TransportKind.allCases)
        func resetMidStream(_ kind: TransportKind) async throws {
            let transport = kind.make()
            let server = try startedServer { _ in
                .streamThenReset(pieces: [.init("data: one\n\n"), .init(afterMs: 50, "data: two\n\n")])
            }
            defer { server.stop() }
            let result = await exchange(transport, HTTPStreamRequest(url: server.baseURL, timeoutSeconds: 10))
            #expect(String(decoding: result.body, as: UTF8.self) == "data: one\n\ndata: two\n\n")
            let failure = try #require(result.failure)
            #expect(failure.kind == .network)
            #expect(failure.message.contains("after status 200"))
        }

        @Test("A refused connection gives .network, and the message names the server but not the headers or query", arguments: TransportKind.allCases)
        func connectionRefused(_ kind: TransportKind) async throws {
            let transport = kind.make()
            let server = try startedServer { _ in .full(status: 200) }
            let port = server.port
            server.stop()
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/v1/models?key=secret-query"))
            let request = HTTPStreamRequest(url: url, headers: ["Authorization": "Bearer sk-secret"], timeoutSeconds: 10)
            let result = await exchange(transport, request)
            let failure = try #require(result.failure)
            #expect(failure.kind == .network)
            #expect(failure.message.contains("127.0.0.1:\(port)/v1/models"))
            #expect(!failure.message.contains("secret"))
        }

        @Test("Cancelling the consuming task ends the stream without an error and closes the connection", arguments: TransportKind.allCases)
        func cancellation(_ kind: TransportKind) async throws {
            let transport = kind.make()
            let server = try startedServer { _ in .stall() }
            defer { server.stop() }
            let request = HTTPStreamRequest(url: server.baseURL, timeoutSeconds: 60)
            let consumer = Task { await exchange(transport, request) }
            #expect(await eventually(within: 5) { server.openConnectionCount == 1 })
            let start = DispatchTime.now().uptimeNanoseconds
            consumer.cancel()
            let result = await consumer.value
            #expect(milliseconds(since: start) < 2_000)
            #expect(result.failure == nil)
            #expect(await eventually(within: 5) { server.openConnectionCount == 0 })
        }

        @Test("64 concurrent streams all complete, in parallel", arguments: TransportKind.allCases)
        func concurrentStreams(_ kind: TransportKind) async throws {
            let transport = kind.make()
            let server = try startedServer { request in
                .stream(pieces: [.init(afterMs: 50, "a"), .init(afterMs: 50, request.path)])
            }
            defer { server.stop() }
            let start = DispatchTime.now().uptimeNanoseconds
            let bodies = await withTaskGroup(of: (Int, String?).self) { group in
                for index in 0..<64 {
                    group.addTask {
                        let url = server.baseURL.appendingPathComponent("s\(index)")
                        let result = await exchange(transport, HTTPStreamRequest(url: url, timeoutSeconds: 30))
                        return (index, result.failure == nil ? String(decoding: result.body, as: UTF8.self) : nil)
                    }
                }
                var bodies: [Int: String?] = [:]
                for await (index, body) in group { bodies[index] = body }
                return bodies
            }
            #expect(bodies.count == 64)
            for index in 0..<64 { #expect(bodies[index] == "a/s\(index)") }
            // Serialised, 64 streams of 100 ms would take 6.4 s.
            #expect(milliseconds(since: start) < 4_000)
        }
    }
}
