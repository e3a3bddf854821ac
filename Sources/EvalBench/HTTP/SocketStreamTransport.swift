#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The transport evalbench uses: plain `http://` to a loopback host (a managed llama-server,
/// a local vLLM or Ollama, the fakes) goes over ``SocketStreamTransport``; everything else,
/// `https://` and remote hosts (which may need a proxy), through ``URLSessionStreamTransport``.
package final class DefaultStreamTransport: HTTPStreaming {
    private let sockets = SocketStreamTransport()
    private let session: URLSessionStreamTransport
    private let socketsForLoopback: Bool

    /// With `socketsForLoopback` false every request goes through URLSession
    /// (`EVALBENCH_HTTP_CLIENT=urlsession` on the command line).
    package init(socketsForLoopback: Bool = true, maximumConnectionsPerHost: Int = 256) {
        self.socketsForLoopback = socketsForLoopback
        session = URLSessionStreamTransport(maximumConnectionsPerHost: maximumConnectionsPerHost)
    }

    package func stream(_ request: HTTPStreamRequest) -> AsyncThrowingStream<HTTPStreamEvent, any Error> {
        socketsForLoopback && SocketStreamTransport.isLoopbackHTTP(request.url)
            ? sockets.stream(request) : session.stream(request)
    }
}

/// A small HTTP/1.1 client over POSIX sockets for plain `http://`: one connection and one
/// thread per request (`Connection: close`), bytes handed on the moment `recv` returns them.
///
/// URLSession on Linux (libcurl underneath) spends about a millisecond of CPU per request;
/// against a local server that answers in a few milliseconds at concurrency 64, that is most
/// of the wall time. This client spends a small fraction of it. It does no TLS, no proxies and
/// no redirects, which loopback servers do not need.
package final class SocketStreamTransport: HTTPStreaming {
    package init() {}

    /// `http://` to 127.0.0.0/8, `localhost` or `::1`.
    package static func isLoopbackHTTP(_ url: URL) -> Bool {
        guard url.scheme?.lowercased() == "http", let host = url.host?.lowercased() else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    package func stream(_ request: HTTPStreamRequest) -> AsyncThrowingStream<HTTPStreamEvent, any Error> {
        AsyncThrowingStream { continuation in
            let exchange = SocketExchange(request: request, continuation: continuation)
            continuation.onTermination = { termination in
                if case .cancelled = termination { exchange.cancel() }
            }
            let thread = Thread { exchange.run() }
            thread.stackSize = 512 * 1024
            thread.start()
        }
    }
}

/// Why an exchange stopped early; turned into a `BackendFailure` with the exchange's progress.
private enum ExchangeStop: Error {
    case cancelled
    case timedOut
    case failed(ErrorKind, String)
}

/// One request on its own connection, run on its own thread.
private final class SocketExchange: @unchecked Sendable {
    // `descriptor` and `cancelled` are read and written only while holding `lock`, so that
    // `cancel()` from another thread never touches a closed (or reused) descriptor.
    private let lock = NSLock()
    private var descriptor: Int32 = -1
    private var cancelled = false

    private let request: HTTPStreamRequest
    private let continuation: AsyncThrowingStream<HTTPStreamEvent, any Error>.Continuation
    private let deadline: UInt64
    private let target: String
    private var status: Int?
    private var bytesReceived = 0

    init(request: HTTPStreamRequest, continuation: AsyncThrowingStream<HTTPStreamEvent, any Error>.Continuation) {
        self.request = request
        self.continuation = continuation
        deadline = DispatchTime.now().uptimeNanoseconds + UInt64(min(max(0, request.timeoutSeconds), 1e9) * 1e9)
        target = HTTPTarget.describe(request.url)
    }

    /// Called when the consumer stops listening: wakes the thread, which then ends quietly.
    func cancel() {
        lock.withLock {
            cancelled = true
            if descriptor >= 0 { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    func run() {
        defer {
            let fd = lock.withLock { () -> Int32 in
                defer { descriptor = -1 }
                return descriptor
            }
            if fd >= 0 { close(fd) }
        }
        do {
            try connect()
            try send(head() + (request.body ?? Data()))
            try receive()
            continuation.finish()
        } catch ExchangeStop.cancelled {
            continuation.finish()
        } catch ExchangeStop.timedOut {
            continuation.finish(throwing: BackendFailure(
                kind: .timeout,
                message: HTTPTarget.timeoutMessage(target, seconds: request.timeoutSeconds, progress: progress),
                httpStatus: status))
        } catch let ExchangeStop.failed(kind, what) {
            continuation.finish(throwing: BackendFailure(kind: kind, message: "\(target): \(what) \(progress)",
                                                         httpStatus: status))
        } catch {
            continuation.finish(throwing: BackendFailure(kind: .network, message: "\(target): the exchange failed \(progress)",
                                                         httpStatus: status))
        }
    }

    private var progress: String { HTTPTarget.progress(status: status, bytesReceived: bytesReceived) }

    // MARK: Connecting

    private func connect() throws {
        guard let host = request.url.host else { throw ExchangeStop.failed(.badRequest, "the URL has no host") }
        let port = request.url.port ?? 80
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard getaddrinfo(bareHost, String(port), &hints, &list) == 0, let first = list else {
            throw ExchangeStop.failed(.network, "the host name could not be resolved")
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            let stale = lock.withLock { () -> Bool in
                if cancelled { return true }
                descriptor = fd
                return false
            }
            if stale {
                close(fd)
                throw ExchangeStop.cancelled
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            if connectSocket(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return }
            if errno == EINPROGRESS {
                try wait(for: Int16(POLLOUT))
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                if error == 0 { return }
                lastError = error
            } else {
                lastError = errno
            }
            // This address failed: close it and try the next.
            lock.withLock { descriptor = -1 }
            close(fd)
        }
        if isCancelled { throw ExchangeStop.cancelled }
        throw ExchangeStop.failed(.network, lastError == ECONNREFUSED || lastError == ENETUNREACH || lastError == EHOSTUNREACH
            ? "could not connect (connection refused or unreachable)" : "could not connect (errno \(lastError))")
    }

    /// Waits until the socket is ready for `events`, the deadline passes, or the exchange is cancelled.
    private func wait(for events: Int16) throws {
        let fd = lock.withLock { descriptor }
        while true {
            if isCancelled { throw ExchangeStop.cancelled }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { throw ExchangeStop.timedOut }
            // Milliseconds, rounded up so that a wait never ends just before the deadline, and
            // at most 250 at a time so that a cancelled connect is noticed soon.
            let remaining = Int32(min((deadline - now + 999_999) / 1_000_000, 250))
            var ready = pollfd(fd: fd, events: events, revents: 0)
            let count = poll(&ready, 1, remaining)
            if count > 0 { return }
            if count < 0 && errno != EINTR {
                throw ExchangeStop.failed(.network, "the connection failed (poll errno \(errno))")
            }
        }
    }

    // MARK: Sending

    private func head() -> Data {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? "/"
        var requestTarget = path.isEmpty ? "/" : path
        if let query = components?.percentEncodedQuery { requestTarget += "?" + query }
        var hostHeader = request.url.host ?? "localhost"
        if hostHeader.contains(":") && !hostHeader.hasPrefix("[") { hostHeader = "[\(hostHeader)]" }
        if let port = request.url.port { hostHeader += ":\(port)" }
        var text = "\(request.method) \(requestTarget) HTTP/1.1\r\nHost: \(hostHeader)\r\n"
        var sawConnection = false
        for (name, value) in request.headers {
            let lowered = name.lowercased()
            // Framing is this client's to set.
            if lowered == "host" || lowered == "content-length" || lowered == "transfer-encoding" { continue }
            if lowered == "connection" { sawConnection = true }
            text += "\(name): \(value)\r\n"
        }
        if !sawConnection { text += "Connection: close\r\n" }
        if let body = request.body {
            text += "Content-Length: \(body.count)\r\n"
        } else if request.method == "POST" || request.method == "PUT" {
            text += "Content-Length: 0\r\n"
        }
        text += "\r\n"
        return Data(text.utf8)
    }

    private func send(_ data: Data) throws {
        let fd = lock.withLock { descriptor }
        var offset = 0
        while offset < data.count {
            let sent = data.withUnsafeBytes { buffer -> Int in
                #if canImport(Glibc)
                return Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                #else
                return Darwin.send(fd, buffer.baseAddress! + offset, buffer.count - offset, 0)
                #endif
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                try wait(for: Int16(POLLOUT))
            } else {
                if isCancelled { throw ExchangeStop.cancelled }
                throw ExchangeStop.failed(.network, "the connection was lost while sending the request")
            }
        }
    }

    // MARK: Receiving

    /// Reads the response head, then the body as its framing says, handing each piece on.
    private func receive() throws {
        var parser = HTTPResponseParser(method: request.method)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let fd = lock.withLock { descriptor }
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            let receivedAt = DispatchTime.now().uptimeNanoseconds
            if isCancelled { throw ExchangeStop.cancelled }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                    try wait(for: Int16(POLLIN))
                    continue
                }
                throw ExchangeStop.failed(.network, "the connection was lost")
            }
            let output: HTTPResponseParser.Output
            do {
                output = count == 0 ? try parser.finish() : try parser.feed(buffer[0..<count])
            } catch let error as HTTPResponseParser.Malformed {
                throw ExchangeStop.failed(.network, "the response was malformed (\(error.reason))")
            }
            if let head = output.head {
                status = head.status
                continuation.yield(.response(status: head.status, headers: head.headers))
            }
            if !output.body.isEmpty {
                bytesReceived += output.body.count
                continuation.yield(.bytes(output.body, receivedAtNanos: receivedAt))
            }
            if output.complete { return }
            if count == 0 { throw ExchangeStop.failed(.network, "the connection was lost") }
            if DispatchTime.now().uptimeNanoseconds >= deadline { throw ExchangeStop.timedOut }
        }
    }
}

#if canImport(Glibc)
private func connectSocket(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>!, _ length: socklen_t) -> Int32 {
    Glibc.connect(fd, address, length)
}
#else
private func connectSocket(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>!, _ length: socklen_t) -> Int32 {
    Darwin.connect(fd, address, length)
}
#endif

/// An HTTP/1.1 response read incrementally: the head (1xx heads skipped), then the body by
/// `Transfer-Encoding: chunked`, `Content-Length`, or the end of the connection.
struct HTTPResponseParser {
    struct Head: Equatable {
        var status: Int
        /// Lowercased names; repeated fields joined with ", ".
        var headers: [String: String]
    }

    /// What one `feed` produced: the head if it completed now, decoded body bytes, and
    /// whether the response is complete.
    struct Output {
        var head: Head?
        var body = Data()
        var complete = false
    }

    struct Malformed: Error, Equatable {
        var reason: String
    }

    private enum Framing {
        case chunked, length(Int), untilClose, none
    }

    private enum ChunkState {
        case size, data(remaining: Int), dataEnd, trailer
    }

    /// Longest head accepted.
    static let headLimit = 64 * 1024

    private let method: String
    private var pending: [UInt8] = []
    private var head: Head?
    private var framing: Framing = .none
    private var chunk: ChunkState = .size
    private var remainingLength = 0
    private var done = false

    init(method: String = "GET") {
        self.method = method.uppercased()
    }

    mutating func feed(_ bytes: some Collection<UInt8>) throws -> Output {
        var output = Output()
        guard !done else {
            output.complete = true
            return output
        }
        if head == nil {
            pending.append(contentsOf: bytes)
            while head == nil {
                guard let end = Self.headEnd(in: pending) else {
                    if pending.count > Self.headLimit { throw Malformed(reason: "a response head over 64 KiB") }
                    return output
                }
                let parsed = try Self.parseHead(pending[0..<end])
                pending.removeFirst(end + 4)
                // 100 Continue and other interim responses precede the real one.
                if (100..<200).contains(parsed.status) && parsed.status != 101 { continue }
                head = parsed
                output.head = parsed
                framing = try Self.framing(parsed, method: method)
                if case let .length(length) = framing { remainingLength = length }
            }
            let rest = pending
            pending = []
            try decode(rest, into: &output)
        } else {
            try decode(bytes, into: &output)
        }
        output.complete = done
        return output
    }

    /// The connection ended: complete if the framing allows it, else malformed... or lost.
    mutating func finish() throws -> Output {
        var output = Output()
        if done {
            output.complete = true
            return output
        }
        if head != nil, case .untilClose = framing {
            done = true
            output.complete = true
        }
        return output
    }

    private mutating func decode(_ bytes: some Collection<UInt8>, into output: inout Output) throws {
        switch framing {
        case .none:
            done = true
        case .untilClose:
            output.body.append(contentsOf: bytes)
        case .length:
            let take = min(remainingLength, bytes.count)
            output.body.append(contentsOf: bytes.prefix(take))
            remainingLength -= take
            if remainingLength == 0 { done = true }
        case .chunked:
            try decodeChunked(bytes, into: &output)
        }
    }

    private mutating func decodeChunked(_ bytes: some Collection<UInt8>, into output: inout Output) throws {
        pending.append(contentsOf: bytes)
        var index = 0
        defer { pending.removeFirst(index) }
        while index < pending.count && !done {
            switch chunk {
            case .size:
                guard let lineEnd = Self.lineEnd(in: pending, from: index) else {
                    if pending.count - index > 1024 { throw Malformed(reason: "a chunk size line over 1 KiB") }
                    return
                }
                let line = String(decoding: pending[index..<lineEnd], as: UTF8.self)
                let digits = line.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                guard !digits.isEmpty, let size = Int(digits, radix: 16), size >= 0 else {
                    throw Malformed(reason: "a chunk size that is not hexadecimal")
                }
                index = lineEnd + 2
                chunk = size == 0 ? .trailer : .data(remaining: size)
            case let .data(remaining):
                let take = min(remaining, pending.count - index)
                output.body.append(contentsOf: pending[index..<index + take])
                index += take
                chunk = remaining - take == 0 ? .dataEnd : .data(remaining: remaining - take)
            case .dataEnd:
                guard pending.count - index >= 2 else { return }
                guard pending[index] == 13 && pending[index + 1] == 10 else {
                    throw Malformed(reason: "a chunk not followed by CRLF")
                }
                index += 2
                chunk = .size
            case .trailer:
                guard let lineEnd = Self.lineEnd(in: pending, from: index) else { return }
                // An empty line ends the trailer, and the body.
                if lineEnd == index { done = true }
                index = lineEnd + 2
            }
        }
    }

    private static func framing(_ head: Head, method: String) throws -> Framing {
        if method == "HEAD" || head.status == 204 || head.status == 304 { return .none }
        if let encoding = head.headers["transfer-encoding"]?.lowercased(), encoding.contains("chunked") { return .chunked }
        if let text = head.headers["content-length"] {
            guard let length = Int(text.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""),
                  length >= 0 else {
                throw Malformed(reason: "a Content-Length that is not a number")
            }
            return length == 0 ? .none : .length(length)
        }
        return .untilClose
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws -> Head {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...999).contains(status) else {
            throw Malformed(reason: "a status line that is not HTTP/1.x")
        }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw Malformed(reason: "a header line without a colon") }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return Head(status: status, headers: headers)
    }

    /// The index of the blank line's CRLFCRLF, or nil.
    private static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func lineEnd(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 13 && bytes[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }
}
