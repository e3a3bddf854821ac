import Foundation
import Testing
@testable import EvalBench
import EvalBenchTestSupport

/// Feeds `text` to a parser in pieces of `size` bytes, then ends the connection.
private func parse(_ text: String, in size: Int, method: String = "POST", close: Bool = true) throws
    -> (head: HTTPResponseParser.Head?, body: String, complete: Bool) {
    var parser = HTTPResponseParser(method: method)
    let bytes = Array(text.utf8)
    var head: HTTPResponseParser.Head?
    var body = Data()
    var complete = false
    var index = 0
    while index < bytes.count && !complete {
        let output = try parser.feed(bytes[index..<min(index + size, bytes.count)])
        if let parsed = output.head { head = parsed }
        body += output.body
        complete = output.complete
        index += size
    }
    if !complete && close { complete = try parser.finish().complete }
    return (head, String(decoding: body, as: UTF8.self), complete)
}

@Suite("The socket transport's HTTP/1.1 response parser")
struct HTTPResponseParserTests {
    static let chunked = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
        + "X-Seen: a\r\nx-seen: b\r\n\r\n"
        + "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nTrailer: x\r\n\r\n"

    @Test("a chunked body decodes the same whole, in 1-byte and in 7-byte pieces; extensions and trailers are skipped",
          arguments: [1, 7, 4096])
    func chunked(_ size: Int) throws {
        let result = try parse(Self.chunked, in: size, close: false)
        #expect(result.head?.status == 200)
        #expect(result.head?.headers["content-type"] == "text/event-stream")
        #expect(result.head?.headers["x-seen"] == "a, b", "repeated fields are joined")
        #expect(result.body == "hello, world")
        #expect(result.complete, "the last chunk and the trailer's blank line end the body without the connection closing")
    }

    @Test("header fields: names lower-cased, values trimmed of spaces and tabs, read as String reads them, ASCII or not")
    func headerFields() throws {
        let lines = ["X-Mixed-CASE: \t value with  inner spaces \t", "Empty:", "  Spaced-Name  :v", "X-Utf8: caf\u{E9} \u{2014} ok ",
                     "X-\u{C9}T\u{C9}: \u{A0}nbsp\u{A0}", "Odd:\u{301}: after a combining mark", "Colons: a:b:c"]
        let response = "HTTP/1.1 200 OK\r\n" + lines.joined(separator: "\r\n") + "\r\nContent-Length: 0\r\n\r\n"
        let head = try #require(try parse(response, in: 4096, close: false).head)
        var expected: [String: String] = ["content-length": "0"]
        for line in lines {
            // What the String-based reading gave, line by line.
            let colon = try #require(line.firstIndex(of: ":"))
            expected[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        #expect(head.headers == expected)
        #expect(head.headers["x-mixed-case"] == "value with  inner spaces")
        #expect(throws: HTTPResponseParser.Malformed.self) { try parse("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", in: 100) }
    }

    @Test("Content-Length ends the body at its length; with neither framing header the body runs to the close")
    func lengthAndClose() throws {
        let sized = try parse("HTTP/1.1 400 Bad Request\r\nContent-Length: 5\r\n\r\nerror and more", in: 3, close: false)
        #expect(sized.head?.status == 400 && sized.body == "error" && sized.complete)
        let open = try parse("HTTP/1.1 200 OK\r\n\r\nall of it", in: 4, close: false)
        #expect(open.body == "all of it" && !open.complete)
        let closed = try parse("HTTP/1.1 200 OK\r\n\r\nall of it", in: 4)
        #expect(closed.body == "all of it" && closed.complete)
    }

    @Test("100 Continue is skipped; 204 and HEAD have no body")
    func interimAndEmpty() throws {
        let continued = try parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", in: 5)
        #expect(continued.head?.status == 201 && continued.body == "ok" && continued.complete)
        let empty = try parse("HTTP/1.1 204 No Content\r\n\r\n", in: 100, close: false)
        #expect(empty.head?.status == 204 && empty.body.isEmpty && empty.complete)
        let head = try parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", in: 100, method: "HEAD", close: false)
        #expect(head.complete)
    }

    @Test("a body cut short is not complete when the connection ends")
    func cutShort() throws {
        #expect(try !parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", in: 100).complete)
        #expect(try !parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", in: 100).complete)
        #expect(try !parse("HTTP/1.1 200 O", in: 100).complete)
    }

    @Test("a connection is reusable after a framed, complete response that does not close it, and only then")
    func reusable() throws {
        func reusable(_ text: String, method: String = "POST") throws -> Bool {
            var parser = HTTPResponseParser(method: method)
            _ = try parser.feed(Array(text.utf8))
            return parser.leavesConnectionReusable
        }
        #expect(try reusable("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
        #expect(try reusable(Self.chunked))
        #expect(try reusable("HTTP/1.1 204 No Content\r\n\r\n"))
        #expect(try reusable("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok"))
        #expect(try !reusable("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nok"), "not complete yet")
        #expect(try !reusable("HTTP/1.1 200 OK\r\n\r\nall of it"), "framed by the close")
        #expect(try !reusable("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"))
        #expect(try !reusable("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"), "HTTP/1.0 closes by default")
        #expect(try !reusable("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA"), "bytes nobody asked for")
        #expect(try !reusable(Self.chunked + "HTTP/1.1"), "bytes after the chunked body")
    }

    @Test("a chunk-size line is hexadecimal digits, then optional whitespace and extensions; anything else gives no size")
    func chunkSizeLines() {
        func size(_ line: String) -> Int? { HTTPResponseParser.chunkSize(ArraySlice(Array(line.utf8))) }
        #expect(size("1a") == 26)
        #expect(size("1A;name=value") == 26)
        #expect(size(" 5 \t; x") == 5)
        #expect(size("0") == 0)
        #expect(size("000000000000000000000010") == 16, "leading zeros are not significant")
        #expect(size("fffffffffffffff") == 0xfff_ffff_ffff_ffff, "15 significant digits")
        for refused in ["", ";x", "zz", "1z", "-1", "+1", "0x10", "1 2", "1000000000000000"] {
            #expect(size(refused) == nil, "\(refused)")
        }
    }

    @Test("a header value holds a token in any case, anywhere in it; a value without the whole token does not")
    func headerTokens() {
        #expect(HTTPResponseParser.has("chunked", "chunked"))
        #expect(HTTPResponseParser.has("gzip, CHUNKED", "chunked"))
        #expect(HTTPResponseParser.has("Keep-Alive", "keep-alive"))
        #expect(!HTTPResponseParser.has("chunk", "chunked"))
        #expect(!HTTPResponseParser.has("", "close"))
        #expect(!HTTPResponseParser.has("clos\u{e9}", "close"), "é is not e")
    }

    @Test("malformed responses are errors that say what was wrong")
    func malformed() throws {
        #expect(throws: HTTPResponseParser.Malformed(reason: "a status line that is not HTTP/1.x")) {
            try parse("SSH-2.0-OpenSSH\r\n\r\n", in: 100)
        }
        #expect(throws: HTTPResponseParser.Malformed(reason: "a chunk size that is not hexadecimal")) {
            try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", in: 100)
        }
        #expect(throws: HTTPResponseParser.Malformed(reason: "a chunk size over 15 hexadecimal digits, beyond any body evalbench accepts")) {
            try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n", in: 100)
        }
        #expect(throws: HTTPResponseParser.Malformed(reason: "a chunk not followed by CRLF")) {
            try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY", in: 100)
        }
        #expect(throws: HTTPResponseParser.Malformed(reason: "a Content-Length that is not a number")) {
            try parse("HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n", in: 100)
        }
        // Two lengths that differ frame nothing (RFC 9112 §6.3); the same length twice is one.
        #expect(throws: HTTPResponseParser.Malformed(reason: "Content-Length values that differ (5, 50)", isServersDoing: true)) {
            try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 50\r\n\r\nhello", in: 100)
        }
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", in: 100, close: false).body == "hello")
        // A compressed body, which the client asked not to get and cannot read.
        #expect(throws: HTTPResponseParser.Malformed(
            reason: "a body compressed with Content-Encoding: gzip, which evalbench asked not to get (Accept-Encoding: identity)",
            isServersDoing: true)) {
            try parse("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\n\u{1F}\u{8B}", in: 100)
        }
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Encoding: identity\r\nContent-Length: 2\r\n\r\nok", in: 100).body == "ok")
    }
}

extension LoopbackNetworkTests {
    @Suite("Socket transport on the wire")
    struct SocketTransportWireTests {
        @Test("the request carries Host, Content-Length, no Connection header (HTTP/1.1 keeps it alive), the query and the caller's headers; framing headers are the client's")
        func requestHead() async throws {
            let server = FakeHTTPServer { _ in .full(status: 200, body: Data("ok".utf8)) }
            try server.start()
            defer { server.stop() }
            let url = try #require(URL(string: "\(server.baseURL.absoluteString)/v1/chat%20x?alt=sse&key=k"))
            let request = HTTPStreamRequest(url: url, headers: ["X-Api-Key": "secret", "Content-Length": "999"],
                                            body: Data("{}".utf8), timeoutSeconds: 10)
            var body = Data()
            for try await event in SocketStreamTransport().stream(request) {
                if case let .bytes(bytes, _) = event { body += bytes }
            }
            #expect(String(decoding: body, as: UTF8.self) == "ok")
            let received = try #require(server.requests.first)
            #expect(received.path == "/v1/chat%20x?alt=sse&key=k")
            #expect(received.headers["host"] == "127.0.0.1:\(server.port)")
            #expect(received.headers["content-length"] == "2")
            #expect(received.headers["connection"] == nil)
            #expect(received.headers["x-api-key"] == "secret")
            #expect(received.headers["accept-encoding"] == "identity", "no coding: the client decodes none")
            #expect(received.body == Data("{}".utf8))
        }

        @Test("a caller's own Accept-Encoding gives way to identity: this client decodes no coding")
        func callersAcceptEncoding() async throws {
            let server = FakeHTTPServer { _ in .full(status: 200, body: Data("ok".utf8)) }
            try server.start()
            defer { server.stop() }
            _ = await fetch(server.baseURL, headers: ["Accept-Encoding": "br"])
            #expect(server.requests.first?.headers["accept-encoding"] == "identity")
        }

        @Test("a compressed 200 fails as bad_request (sent again it would come back the same); a compressed 401 keeps its status")
        func compressedBodies() async throws {
            let server = FakeHTTPServer { request in
                request.path.hasSuffix("/denied")
                    ? .full(status: 401, headers: ["Content-Encoding": "gzip"], body: Data([0x1F, 0x8B, 0x08]))
                    : .full(status: 200, headers: ["Content-Encoding": "gzip"], body: Data([0x1F, 0x8B, 0x08]))
            }
            try server.start()
            defer { server.stop() }
            let refused = try #require(await fetch(server.baseURL).failure)
            #expect(refused.kind == .badRequest && refused.httpStatus == 200)
            #expect(refused.message.contains("a body compressed with Content-Encoding: gzip"), "\(refused.message)")
            var status: Int?
            for try await event in SocketStreamTransport().stream(HTTPStreamRequest(url: server.baseURL.appendingPathComponent("denied"), timeoutSeconds: 10)) {
                if case let .response(code, _) = event { status = code }
            }
            #expect(status == 401, "the status reaches the backend, which classifies it (auth)")
        }

        @Test("a malformed body in the same bytes as its head fails after that status, not 'before any response'", arguments: [true, false])
        func malformedAfterHead(epoll: Bool) async throws {
            let server = FakeHTTPServer { _ in .full(status: 200, headers: ["Transfer-Encoding": "chunked"], body: Data("zz\r\n".utf8)) }
            try server.start()
            defer { server.stop() }
            let failure = try #require(await fetch(server.baseURL, epoll: epoll).failure)
            #expect(failure.kind == .network)
            #expect(failure.httpStatus == 200)
            #expect(failure.message.contains("the response was malformed (a chunk size that is not hexadecimal) after status 200"), "\(failure.message)")
        }

        @Test("a long streamed body arrives whole and in order")
        func longBody() async throws {
            let pieces = (0..<300).map { FakeHTTPResponse.Piece("data: \(String(repeating: "x", count: $0 * 7))\n\n") }
            let expected = pieces.map { String(decoding: $0.bytes, as: UTF8.self) }.joined()
            let server = FakeHTTPServer { _ in .stream(pieces: pieces) }
            try server.start()
            defer { server.stop() }
            var body = Data()
            for try await event in SocketStreamTransport().stream(HTTPStreamRequest(url: server.baseURL, timeoutSeconds: 30)) {
                if case let .bytes(bytes, _) = event { body += bytes }
            }
            #expect(body.count == expected.utf8.count)
            #expect(String(decoding: body, as: UTF8.self) == expected)
        }
    }
}

private extension Result {
    var failure: Failure? {
        if case let .failure(failure) = self { return failure }
        return nil
    }
}

/// Counts calls from the fake server's threads.
private final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// The number of this call, from 1.
    func next() -> Int { lock.withLock { count += 1; return count } }
}

/// A socket loop that waits with `poll`, as on macOS, where Linux's loops wait with epoll.
private let pollLoop = SocketEventLoop(usesEpoll: false)

/// The body of a drained exchange, or its failure (on the epoll loop, or the `poll` one).
private func fetch(_ url: URL, headers: [String: String] = [:], epoll: Bool = true) async -> Result<String, BackendFailure> {
    var body = Data()
    let transport = epoll ? SocketStreamTransport() : SocketStreamTransport(loop: pollLoop)
    do {
        for try await event in transport.stream(HTTPStreamRequest(url: url, method: "GET", headers: headers, timeoutSeconds: 10)) {
            if case let .bytes(bytes, _) = event { body += bytes }
        }
    } catch {
        return .failure(error as? BackendFailure ?? BackendFailure(kind: .network, message: "\(error)"))
    }
    return .success(String(decoding: body, as: UTF8.self))
}

extension LoopbackNetworkTests {
    @Suite("Socket transport connection reuse")
    struct SocketConnectionReuseTests {
        @Test("requests one after another share one kept-alive connection; a response that says Connection: close, or a request that asks for it, is not reused",
              arguments: [true, false])
        func sequentialShareOne(epoll: Bool) async throws {
            let server = FakeHTTPServer { request in
                request.path == "/bye" ? .full(status: 200, headers: ["Connection": "close"], body: Data("bye".utf8))
                    : .full(status: 200, body: Data("ok".utf8))
            }
            try server.start()
            defer { server.stop() }
            for _ in 0..<3 { #expect(try await fetch(server.baseURL, epoll: epoll).get() == "ok") }
            #expect(server.requests.count == 3)
            #expect(server.acceptedConnectionCount == 1)
            #expect(try await fetch(server.baseURL.appendingPathComponent("bye"), epoll: epoll).get() == "bye")
            #expect(try await fetch(server.baseURL, epoll: epoll).get() == "ok")
            #expect(server.acceptedConnectionCount == 2, "the connection that answered Connection: close was not used again")
            #expect(try await fetch(server.baseURL, headers: ["Connection": "close"], epoll: epoll).get() == "ok")
            #expect(try await fetch(server.baseURL, epoll: epoll).get() == "ok")
            #expect(server.acceptedConnectionCount == 3, "the request that asked for Connection: close did not leave its connection to the next")
        }

        @Test("a kept-alive connection the server closes as a request arrives: the request goes once more on a new connection and succeeds",
              arguments: [true, false])
        func staleConnectionRetried(epoll: Bool) async throws {
            let calls = CallCounter()
            let server = FakeHTTPServer { _ in calls.next() == 2 ? .closeWithoutAnswer : .full(status: 200, body: Data("ok".utf8)) }
            try server.start()
            defer { server.stop() }
            #expect(try await fetch(server.baseURL, epoll: epoll).get() == "ok")
            #expect(try await fetch(server.baseURL, epoll: epoll).get() == "ok")
            #expect(server.requests.count == 3, "the second request was sent twice: on the reused connection, then on a new one")
            #expect(server.acceptedConnectionCount == 2)
        }

        @Test("a new connection closed without an answer fails as lost, and the request is not sent again", arguments: [true, false])
        func freshConnectionNotRetried(epoll: Bool) async throws {
            let server = FakeHTTPServer { _ in .closeWithoutAnswer }
            try server.start()
            defer { server.stop() }
            let failure = try #require(await fetch(server.baseURL, epoll: epoll).failure)
            #expect(failure.kind == .network)
            #expect(failure.message.contains("the connection was lost before any response"))
            #expect(server.requests.count == 1)
        }
    }
}

extension LoopbackNetworkTests {
    @Suite("The benchmark's one-thread fake server")
    struct FakeEventLoopServerTests {
        /// `count` requests at once to `server` (at `path(index)`), each body with when its bytes
        /// first held `marker`, in ms after the request started; one transport for all when given.
        private static func concurrentBodies(_ server: FakeEventLoopServer, count: Int, transport: SocketStreamTransport? = nil,
                                             path: @escaping @Sendable (Int) -> String, marker: String) async throws -> [(String, Double?)] {
            try await withThrowingTaskGroup(of: (String, Double?).self) { group in
                for index in 0..<count {
                    group.addTask {
                        let started = DispatchTime.now().uptimeNanoseconds
                        var text = ""
                        var markedAt: Double?
                        let request = HTTPStreamRequest(url: server.baseURL.appendingPathComponent(path(index)), timeoutSeconds: 20)
                        for try await event in (transport ?? SocketStreamTransport()).stream(request) {
                            guard case let .bytes(bytes, at) = event else { continue }
                            text += String(decoding: bytes, as: UTF8.self)
                            if markedAt == nil, text.contains(marker) { markedAt = Double(at - started) / 1e6 }
                        }
                        return (text, markedAt)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }

        @Test("many concurrent requests each get their body, its delayed piece no earlier than scripted from arrival, and the request is recorded")
        func concurrentDelayed() async throws {
            let server = FakeEventLoopServer { request in
                .stream(pieces: [.init("head;"), .init(afterMs: 30, "path=\(request.path)")])
            }
            try server.start()
            defer { server.stop() }
            let bodies = try await Self.concurrentBodies(server, count: 40, path: { "r\($0)" }, marker: "path=")
            #expect(bodies.count == 40)
            #expect(Set(bodies.map(\.0)) == Set((0..<40).map { "head;path=/r\($0)" }))
            #expect(bodies.allSatisfy { ($0.1 ?? 0) >= 30 }, "a piece scripted 30 ms after arrival came sooner")
            #expect(server.requests.count == 40)
        }

        @Test("a server made with one fixed answer frames it once and answers every request with it, on time, on kept-alive connections")
        func fixedAnswer() async throws {
            let server = FakeEventLoopServer(always: .stream(headers: ["Content-Type": "text/event-stream"],
                                                             pieces: [.init("a;"), .init(afterMs: 20, "b;"), .init("c")]))
            try server.start()
            defer { server.stop() }
            let transport = SocketStreamTransport()
            for round in 0..<2 {
                let bodies = try await Self.concurrentBodies(server, count: 20, transport: transport, path: { "r\(round)-\($0)" }, marker: "b;")
                #expect(bodies.map(\.0) == Array(repeating: "a;b;c", count: 20), "round \(round)")
                #expect(bodies.allSatisfy { ($0.1 ?? 0) >= 20 }, "a piece scripted 20 ms after arrival came sooner (round \(round))")
            }
            #expect(server.requests.count == 40)
            #expect(Set(server.requests.map(\.path)).count == 40)
        }

        @Test("a full response arrives with its status and Content-Length body; after stop(), twice, nothing answers")
        func fullAndStop() async throws {
            let server = FakeEventLoopServer { _ in .full(status: 200, body: Data("ok".utf8)) }
            try server.start()
            let request = HTTPStreamRequest(url: server.baseURL, headers: ["Connection": "keep-alive"], timeoutSeconds: 10)
            var status: Int?
            var body = Data()
            for try await event in SocketStreamTransport().stream(request) {
                if case let .response(code, _) = event { status = code }
                if case let .bytes(bytes, _) = event { body += bytes }
            }
            #expect(status == 200 && body == Data("ok".utf8))
            server.stop()
            server.stop()
            let after = HTTPStreamRequest(url: server.baseURL, timeoutSeconds: 2)
            await #expect(throws: BackendFailure.self) { for try await _ in SocketStreamTransport().stream(after) {} }
        }
    }
}

@Test("plain http to a loopback host goes over sockets; https and other hosts through URLSession")
func transportRouting() throws {
    for text in ["http://127.0.0.1:8080/v1", "http://localhost:11434/api", "http://[::1]:9000/", "http://127.0.1.1/"] {
        #expect(SocketStreamTransport.isLoopbackHTTP(try #require(URL(string: text))), "\(text)")
    }
    for text in ["https://127.0.0.1/v1", "https://api.openai.com/v1", "http://10.0.0.5:8000/v1", "http://example.com/"] {
        #expect(!SocketStreamTransport.isLoopbackHTTP(try #require(URL(string: text))), "\(text)")
    }
}

@Test("a URL's endpoint (loopback or not, request target, Host, host:port) is its own when URLs alternate, as when asked once")
func endpointsOfAlternatingURLs() throws {
    let cases: [(url: String, loopback: Bool, target: String, host: String, key: String)] = [
        ("http://127.0.0.1:8080/v1/chat/completions", true, "/v1/chat/completions", "127.0.0.1:8080", "127.0.0.1:8080"),
        ("http://127.0.0.1:8081/v1/chat/completions?alt=sse", true, "/v1/chat/completions?alt=sse", "127.0.0.1:8081", "127.0.0.1:8081"),
        ("http://[::1]:9000", true, "/", "[::1]:9000", "::1:9000"),
        ("http://localhost/api%20x", true, "/api%20x", "localhost", "localhost:80"),
        ("https://api.openai.com/v1/chat/completions", false, "/v1/chat/completions", "api.openai.com", "api.openai.com:80"),
    ]
    // Each URL asked for after each other one, twice, so a remembered answer cannot stand in for another's.
    for round in 0..<2 {
        for first in cases {
            for second in cases {
                for entry in [first, second] {
                    let endpoint = SocketEndpoint.of(try #require(URL(string: entry.url)))
                    #expect(endpoint.isLoopbackHTTP == entry.loopback, "\(entry.url), round \(round)")
                    #expect(endpoint.target == entry.target, "\(entry.url)")
                    #expect(endpoint.hostHeader == entry.host, "\(entry.url)")
                    #expect(endpoint.key == entry.key, "\(entry.url)")
                }
            }
        }
    }
}
