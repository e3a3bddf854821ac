import Foundation
import Testing
@testable import EvalBench
import EvalBenchTestSupport

@Suite struct HTTPEventChannelTests {
    private func bytes(_ text: String) -> HTTPStreamEvent { .bytes(Data(text.utf8), receivedAtNanos: 1) }

    private func text(_ event: HTTPStreamEvent?) -> String? {
        guard case let .bytes(data, _)? = event else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Events handed over before and while the reader waits come in order, then nil.
    @Test func eventsInOrderThenEnd() async throws {
        let channel = HTTPEventChannel()
        let abandoned = Flag()
        channel.onAbandon { abandoned.set() }
        channel.yield(.response(status: 200, headers: [:]))
        channel.yield(bytes("a"))
        var events = HTTPEvents(channel)
        guard case .response(200, _)? = try await events.next() else { Issue.record("no head first"); return }
        #expect(text(try await events.next()) == "a")
        Task.detached {
            try? await Task.sleep(nanoseconds: 5_000_000)
            channel.yield(self.bytes("b"))
            channel.finish()
            channel.yield(self.bytes("after the end"))
        }
        #expect(text(try await events.next()) == "b", "handed to the waiting reader")
        #expect(try await events.next() == nil)
        #expect(try await events.next() == nil)
        #expect(!abandoned.isSet, "a stream that ended is not abandoned")
    }

    /// A failure comes after the events before it, is thrown once, and then the stream is over.
    @Test func failureThrownOnce() async throws {
        let channel = HTTPEventChannel()
        channel.yield(bytes("a"))
        channel.finish(throwing: BackendFailure(kind: .timeout, message: "late"))
        var events = HTTPEvents(channel)
        #expect(text(try await events.next()) == "a")
        await #expect(throws: BackendFailure.self) { _ = try await events.next() }
        #expect(try await events.next() == nil)
    }

    /// A failure that comes while the reader waits is thrown to it, once.
    @Test func failureWhileWaitingThrownOnce() async throws {
        let channel = HTTPEventChannel()
        var events = HTTPEvents(channel)
        Task.detached {
            try? await Task.sleep(nanoseconds: 5_000_000)
            channel.finish(throwing: BackendFailure(kind: .network, message: "lost"))
        }
        await #expect(throws: BackendFailure.self) { _ = try await events.next() }
        #expect(try await events.next() == nil)
    }

    /// Cancelling the reading task ends its wait with nil and tells the producer (the socket
    /// transport closes the connection); events handed over later are dropped.
    @Test func cancellingTheReaderAbandons() async throws {
        let channel = HTTPEventChannel()
        let abandoned = Flag()
        channel.onAbandon { abandoned.set() }
        let reader = Task {
            var events = HTTPEvents(channel)
            return try await events.next()
        }
        try await Task.sleep(nanoseconds: 5_000_000)
        reader.cancel()
        #expect(try await reader.value == nil)
        #expect(abandoned.isSet)
        channel.yield(bytes("late"))
        channel.finish()
    }

    /// A reader dropped before the end abandons the stream, once.
    @Test func droppingTheReaderAbandons() async throws {
        let channel = HTTPEventChannel()
        let abandoned = Flag()
        channel.onAbandon { abandoned.set() }
        channel.yield(bytes("a"))
        do {
            var events = HTTPEvents(channel)
            #expect(text(try await events.next()) == "a")
        }
        #expect(abandoned.isSet)
        #expect(abandoned.count == 1)
    }

    /// The socket transport's `stream(_:)` (an `AsyncThrowingStream` over the same events)
    /// reads a whole response from a real server.
    @Test func socketStreamReadsAResponse() async throws {
        let server = FakeEventLoopServer(always: .full(status: 200, headers: ["Content-Type": "text/plain"], body: Data("hello".utf8)))
        try server.start()
        defer { server.stop() }
        let request = HTTPStreamRequest(url: server.baseURL.appendingPathComponent("x"), method: "GET", timeoutSeconds: 10)
        var body = Data()
        var status: Int?
        for try await event in SocketStreamTransport().stream(request) {
            switch event {
            case let .response(code, _): status = code
            case let .bytes(data, _): body.append(data)
            }
        }
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "hello")
    }
}

private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var times = 0
    var isSet: Bool { lock.withLock { times > 0 } }
    var count: Int { lock.withLock { times } }
    func set() { lock.withLock { times += 1 } }
}
