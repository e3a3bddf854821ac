#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A request as the fake server received it.
public struct FakeHTTPRequest: Sendable {
    public var method: String
    /// The request target: path and query, as sent.
    public var path: String
    /// Header fields with lowercased names; repeated fields are joined with ", ".
    public var headers: [String: String]
    public var body: Data

    public init(method: String, path: String, headers: [String: String], body: Data) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }
}

/// What the fake server answers to one request.
public enum FakeHTTPResponse: Sendable {
    /// A piece of a streamed body, sent `delayMs` after the previous one (or after the headers).
    public struct Piece: Sendable {
        public var delayMs: Double
        public var bytes: Data

        public init(afterMs delayMs: Double = 0, _ bytes: Data) {
            self.delayMs = delayMs
            self.bytes = bytes
        }

        public init(afterMs delayMs: Double = 0, _ text: String) {
            self.init(afterMs: delayMs, Data(text.utf8))
        }
    }

    /// A complete body with a `Content-Length`.
    case full(status: Int, headers: [String: String] = [:], body: Data = Data())
    /// Headers at once, then each piece after its delay as one chunk of a chunked body.
    case stream(status: Int = 200, headers: [String: String] = [:], pieces: [Piece])
    /// Like `stream`, but after the last piece the connection is reset (TCP RST) instead of
    /// the body being finished.
    case streamThenReset(status: Int = 200, headers: [String: String] = [:], pieces: [Piece])
    /// Like `stream`, but after the last piece nothing more is sent until the client leaves
    /// or the server stops; with no pieces, only the headers are sent.
    case stall(status: Int = 200, headers: [String: String] = [:], pieces: [Piece] = [])
    /// The request is read and the connection closed without a byte: what a client sees when
    /// a server closes an idle keep-alive connection just as a request is sent on it.
    case closeWithoutAnswer
}

/// Why the fake server could not start.
public struct FakeHTTPServerError: Error, CustomStringConvertible {
    public var description: String
}

/// A test double for an HTTP/1.1 server: real POSIX sockets on 127.0.0.1, a free port,
/// a thread per connection and keep-alive, answering each request by a scripted closure.
///
/// Streamed pieces are written one `send` each with `TCP_NODELAY`, so a client sees them
/// at the scripted times; benchmarks rely on that. Its threads keep it alive until `stop()`.
/// For tests and benchmarks only.
public final class FakeHTTPServer: @unchecked Sendable {
    // Sendable because `respond` is an immutable Sendable closure and every mutable
    // property below is read and written only while holding `lock`.
    private let respond: @Sendable (FakeHTTPRequest) -> FakeHTTPResponse
    private let lock = NSLock()
    private var listener: Int32 = -1
    private var boundPort = 0
    private var isStopped = false
    private var connections: Set<Int32> = []
    private var accepted = 0
    private var received: [FakeHTTPRequest] = []
    private let recordsRequests: Bool
    private let acceptLoopEnded = DispatchSemaphore(value: 0)

    /// A server that answers every request with `respond(request)`, called on the
    /// connection's thread. With `recordsRequests` false, `requests` stays empty: a benchmark
    /// of a hundred thousand requests then measures the client's memory, not this log's.
    public init(recordsRequests: Bool = true, respond: @escaping @Sendable (FakeHTTPRequest) -> FakeHTTPResponse) {
        self.recordsRequests = recordsRequests
        self.respond = respond
    }

    /// The port it listens on; 0 before `start()`.
    public var port: Int { lock.withLock { boundPort } }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Every request received so far, in order of arrival (none when not `recordsRequests`).
    public var requests: [FakeHTTPRequest] { lock.withLock { received } }

    /// Client connections currently open.
    public var openConnectionCount: Int { lock.withLock { connections.count } }

    /// Client connections accepted since `start()`.
    public var acceptedConnectionCount: Int { lock.withLock { accepted } }

    /// Binds 127.0.0.1 on a free port and starts accepting connections.
    public func start() throws {
        let (fd, port) = try FakeSockets.listen()
        lock.withLock {
            listener = fd
            boundPort = port
        }
        Thread { [self] in acceptLoop(fd) }.start()
    }

    /// Closes the listener and every connection. Safe to call more than once.
    public func stop() {
        let fd: Int32 = lock.withLock {
            guard !isStopped, listener >= 0 else { return -1 }
            isStopped = true
            // Shutting a socket down wakes its thread from recv/poll; the thread closes it.
            for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
            return listener
        }
        guard fd >= 0 else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        acceptLoopEnded.wait()
        close(fd)
    }

    // MARK: - Connections

    private func acceptLoop(_ listener: Int32) {
        defer { acceptLoopEnded.signal() }
        while true {
            // The timeout is a backstop for platforms where shutdown does not wake poll.
            var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let count = poll(&ready, 1, 100)
            if lock.withLock({ isStopped }) { return }
            guard count > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            let admitted: Bool = lock.withLock {
                guard !isStopped else { return false }
                connections.insert(connection)
                accepted += 1
                return true
            }
            guard admitted else {
                close(connection)
                return
            }
            var noDelay: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
            var noSigPipe: Int32 = 1
            setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &noSigPipe, socklen_t(MemoryLayout<Int32>.size))
            #endif
            Thread { [self] in serve(connection) }.start()
        }
    }

    /// Answers requests on one connection until the client closes it or a response ends it.
    private func serve(_ fd: Int32) {
        var reader = RequestReader(fd: fd)
        var resetInstead = false
        defer { release(fd, reset: resetInstead) }
        while let request = reader.next() {
            if recordsRequests { lock.withLock { received.append(request) } }
            let keepOpen: Bool
            switch respond(request) {
            case let .full(status, headers, body):
                var framed = headers
                framed["Content-Length"] = String(body.count)
                keepOpen = send(fd, Self.head(status, framed) + body)
            case let .stream(status, headers, pieces):
                keepOpen = sendChunked(fd, status, headers, pieces) && send(fd, Data("0\r\n\r\n".utf8))
            case let .streamThenReset(status, headers, pieces):
                _ = sendChunked(fd, status, headers, pieces)
                resetInstead = true
                return
            case let .stall(status, headers, pieces):
                if sendChunked(fd, status, headers, pieces) { waitUntilClosed(fd) }
                return
            case .closeWithoutAnswer:
                return
            }
            if !keepOpen || request.headers["connection"]?.lowercased() == "close" { return }
        }
    }

    private func sendChunked(_ fd: Int32, _ status: Int, _ headers: [String: String],
                             _ pieces: [FakeHTTPResponse.Piece]) -> Bool {
        var framed = headers
        framed["Transfer-Encoding"] = "chunked"
        guard send(fd, Self.head(status, framed)) else { return false }
        var due = DispatchTime.now().uptimeNanoseconds
        for piece in pieces {
            due += UInt64(max(0, piece.delayMs) * 1_000_000)
            guard wait(until: due, on: fd) else { return false }
            // An empty chunk would end the body, so an empty piece is only a delay.
            if piece.bytes.isEmpty { continue }
            let chunk = Data(String(piece.bytes.count, radix: 16).utf8) + Data("\r\n".utf8)
                + piece.bytes + Data("\r\n".utf8)
            guard send(fd, chunk) else { return false }
        }
        return true
    }

    private func release(_ fd: Int32, reset: Bool) {
        lock.withLock {
            connections.remove(fd)
            if reset {
                // Linger on with a zero timeout: close sends RST instead of FIN.
                var linger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            }
            // Closed under the lock, so `stop()` never shuts down a reused descriptor.
            close(fd)
        }
    }

    // MARK: - Socket helpers

    /// Sleeps until `deadline` (uptime nanoseconds); false if the client left or the server stopped first.
    private func wait(until deadline: UInt64, on fd: Int32) -> Bool {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return true }
            let remaining = deadline - now
            guard remaining >= 1_000_000 else {
                // poll counts whole milliseconds; sleep the last fraction exactly.
                var pause = timespec(tv_sec: 0, tv_nsec: Int(remaining))
                nanosleep(&pause, nil)
                return true
            }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, Int32(remaining / 1_000_000)) > 0 {
                if Self.peerClosed(fd) { return false }
                // The client sent early bytes; they wait in the buffer, so sleep out the delay.
                let left = deadline - min(deadline, DispatchTime.now().uptimeNanoseconds)
                var pause = timespec(tv_sec: Int(left / 1_000_000_000), tv_nsec: Int(left % 1_000_000_000))
                nanosleep(&pause, nil)
                return true
            }
        }
    }

    private func waitUntilClosed(_ fd: Int32) {
        var discard = [UInt8](repeating: 0, count: 4096)
        while true {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            let count = recv(fd, &discard, discard.count, 0)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return }
        }
    }

    private static func peerClosed(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    private static func head(_ status: Int, _ headers: [String: String]) -> Data {
        var text = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }

}

/// Reads HTTP/1.1 requests off one connection, keeping bytes that arrive early for the next.
private struct RequestReader {
    private static let headEnd: [UInt8] = Array("\r\n\r\n".utf8)
    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    /// The next request, or nil when the connection closed or sent something unparseable.
    mutating func next() -> FakeHTTPRequest? {
        var continued = false
        while true {
            if let (request, consumed) = FakeRequestParser.parse(buffer) {
                buffer.removeFirst(consumed)
                return request
            }
            if let end = Self.find(Self.headEnd, in: buffer, from: 0) {
                let lines = String(decoding: buffer[..<end], as: UTF8.self).lowercased().components(separatedBy: "\r\n")
                // Something that is not a request line: nothing more can be read off this connection.
                guard (lines.first?.split(separator: " ").count ?? 0) >= 2 else { return nil }
                // A client that waits for 100 Continue before its body gets it once its head is in.
                let expects = lines.dropFirst().contains { line in
                    line.hasPrefix("expect:") && line.dropFirst(7).trimmingCharacters(in: .whitespaces) == "100-continue"
                }
                if expects, !continued {
                    continued = true
                    _ = send(fd, Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                }
            }
            guard receive() else { return nil }
        }
    }

    private mutating func receive() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[..<count])
            return true
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count)
        where haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}

/// Writes all of `data` to the socket; false once the peer is gone. Never raises SIGPIPE.
private func send(_ fd: Int32, _ data: Data) -> Bool {
    data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let sent = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            #else
            let sent = Darwin.send(fd, bytes.baseAddress! + offset, bytes.count - offset, 0)
            #endif
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
