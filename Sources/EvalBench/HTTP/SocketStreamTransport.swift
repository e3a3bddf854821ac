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
        socketsForLoopback && SocketEndpoint.of(request.url).isLoopbackHTTP
            ? sockets.stream(request) : session.stream(request)
    }

    package func events(_ request: HTTPStreamRequest) -> HTTPEvents {
        let endpoint = SocketEndpoint.of(request.url)
        return socketsForLoopback && endpoint.isLoopbackHTTP ? sockets.events(request, to: endpoint) : session.events(request)
    }
}

/// A small HTTP/1.1 client over POSIX sockets for plain `http://`: every exchange's socket
/// I/O runs on one `poll` thread (``SocketEventLoop``), and connections are kept alive and
/// reused (an idle one is closed after a few seconds, or as soon as the server closes it).
/// Bytes are handed on the moment `recv` returns them, stamped with when they arrived
/// (``ReceiveStamp``: the kernel's stamp on Linux).
///
/// URLSession on Linux (libcurl underneath) spends about a millisecond of CPU per request;
/// against a local server that answers in a few milliseconds at concurrency 64, that is most
/// of the wall time. A thread and a connection per request was cheaper, but at concurrency 256
/// on 2 cores the threads' start-up and wake-ups alone delayed requests by tens of
/// milliseconds. This client does no TLS, no proxies and no redirects, which loopback servers
/// do not need.
package final class SocketStreamTransport: HTTPStreaming {
    private let loop: SocketEventLoop

    package init() {
        loop = SocketEventLoop.shared
    }

    /// A transport on `loop` rather than the shared one.
    init(loop: SocketEventLoop) {
        self.loop = loop
    }

    /// `http://` to 127.0.0.0/8, `localhost` or `::1`.
    package static func isLoopbackHTTP(_ url: URL) -> Bool {
        guard url.scheme?.lowercased() == "http", let host = url.host?.lowercased() else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// The events as an `AsyncThrowingStream`, for readers other than `StreamedResponse`.
    package func stream(_ request: HTTPStreamRequest) -> AsyncThrowingStream<HTTPStreamEvent, any Error> {
        let reader = EventsBox(events(request))
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }

    package func events(_ request: HTTPStreamRequest) -> HTTPEvents {
        events(request, to: SocketEndpoint.of(request.url))
    }

    /// `events(_:)` with the request URL's endpoint already worked out.
    func events(_ request: HTTPStreamRequest, to endpoint: SocketEndpoint) -> HTTPEvents {
        let channel = HTTPEventChannel()
        let addresses: [SocketAddress]
        switch SocketAddress.resolve(request.url, key: endpoint.key) {
        case let .success(resolved):
            addresses = resolved
        case let .failure(failure):
            let target = HTTPTarget.describe(request.url)
            channel.finish(throwing: BackendFailure(kind: failure.kind, message: "\(target): \(failure.what) before any response"))
            return HTTPEvents(channel)
        }
        let exchange = SocketExchange(request: request, outgoing: Self.outgoing(request, to: endpoint), addresses: addresses,
                                      key: endpoint.key, channel: channel)
        channel.onAbandon { [loop] in loop.cancel(exchange) }
        loop.submit(exchange)
        return HTTPEvents(channel)
    }

    /// The request head and body: the caller's headers, with the framing (`Host`, `Content-Length`)
    /// this client's to set, and `Accept-Encoding: identity` (a caller's own is left out: this
    /// client decodes no coding).
    /// Without a `Connection` header the connection is kept alive.
    static func outgoing(_ request: HTTPStreamRequest, to endpoint: SocketEndpoint) -> [UInt8] {
        let (requestTarget, hostHeader) = (endpoint.target, endpoint.hostHeader)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + (request.body?.count ?? 0))
        func add(_ text: String) { bytes.append(contentsOf: text.utf8) }
        add(request.method); add(" "); add(requestTarget); add(" HTTP/1.1\r\nHost: "); add(hostHeader); add("\r\n")
        for (name, value) in request.headers {
            let lowered = name.lowercased()
            if lowered == "host" || lowered == "content-length" || lowered == "transfer-encoding" || lowered == "accept-encoding" { continue }
            add(name); add(": "); add(value); add("\r\n")
        }
        // Without it any coding is acceptable (RFC 9110 §12.5.3), and this client decodes none.
        add("Accept-Encoding: identity\r\n")
        if let body = request.body {
            add("Content-Length: "); add(String(body.count)); add("\r\n")
        } else if request.method == "POST" || request.method == "PUT" {
            add("Content-Length: 0\r\n")
        }
        add("\r\n")
        if let body = request.body { bytes.append(contentsOf: body) }
        return bytes
    }
}

/// One reader's events, read by an `AsyncThrowingStream` (which calls it from one task at a time).
private final class EventsBox: @unchecked Sendable {
    // @unchecked: `events` is read by one `next()` at a time, as the stream calls it.
    private var events: HTTPEvents

    init(_ events: HTTPEvents) {
        self.events = events
    }

    func next() async throws -> HTTPStreamEvent? {
        try await events.next()
    }
}

/// What the socket client needs of a request's URL, worked out once per URL: whether it is
/// loopback `http://`, the request target (path and query), the `Host` header, and `host:port`
/// (which idle connections may carry the request). Taking the URL's parts apart for each of
/// these, four times a request, was about 6% of the run threads' CPU while 256 requests started.
struct SocketEndpoint: Sendable {
    var isLoopbackHTTP: Bool
    var target: String
    var hostHeader: String
    var key: String

    private static let known = MemoCache<URL, SocketEndpoint>()
    /// The URL asked for last and its endpoint: a backend sends every request to the same URL,
    /// whose text compares equal at once (one storage), where hashing it reads it all.
    private static let last = LastEndpoint()

    static func of(_ url: URL) -> SocketEndpoint {
        if let endpoint = last.endpoint(for: url) { return endpoint }
        let endpoint = known.value(for: url) {
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            let path = components?.percentEncodedPath ?? "/"
            var target = path.isEmpty ? "/" : path
            if let query = components?.percentEncodedQuery { target += "?" + query }
            var hostHeader = url.host ?? "localhost"
            if hostHeader.contains(":") && !hostHeader.hasPrefix("[") { hostHeader = "[\(hostHeader)]" }
            if let port = url.port { hostHeader += ":\(port)" }
            return SocketEndpoint(isLoopbackHTTP: SocketStreamTransport.isLoopbackHTTP(url), target: target,
                                  hostHeader: hostHeader, key: "\(url.host ?? ""):\(url.port ?? 80)")
        }
        last.keep(endpoint, for: url)
        return endpoint
    }
}

/// One URL and its endpoint, under a lock.
private final class LastEndpoint: @unchecked Sendable {
    // @unchecked: `entry` is touched only under `lock`.
    private let lock = NSLock()
    private var entry: (url: URL, endpoint: SocketEndpoint)?

    func endpoint(for url: URL) -> SocketEndpoint? {
        lock.withLock { entry.flatMap { $0.url == url ? $0.endpoint : nil } }
    }

    func keep(_ endpoint: SocketEndpoint, for url: URL) {
        lock.withLock { entry = (url, endpoint) }
    }
}

/// One resolved address of a loopback server, tried in the order `getaddrinfo` gave.
struct SocketAddress: Sendable {
    var family: Int32
    var socketType: Int32
    var proto: Int32
    var storage: sockaddr_storage
    var length: socklen_t

    struct Failure: Error {
        var kind: ErrorKind
        var what: String
    }

    private static let resolved = MemoCache<String, [SocketAddress]>(limit: 1_024)

    /// The addresses of the URL's host and port, `key` (`SocketEndpoint.key`); remembered:
    /// loopback names do not move.
    static func resolve(_ url: URL, key: String) -> Result<[SocketAddress], Failure> {
        if let known = resolved.value(for: key) { return .success(known) }
        guard let host = url.host else { return .failure(Failure(kind: .badRequest, what: "the URL has no host")) }
        let port = url.port ?? 80
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
        guard getaddrinfo(bareHost, String(port), &hints, &list) == 0, list != nil else {
            return .failure(Failure(kind: .network, what: "the host name could not be resolved"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry = list
        while let info = entry {
            entry = info.pointee.ai_next
            guard let address = info.pointee.ai_addr, Int(info.pointee.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(info.pointee.ai_addrlen)))
            }
            addresses.append(SocketAddress(family: info.pointee.ai_family, socketType: info.pointee.ai_socktype,
                                           proto: info.pointee.ai_protocol, storage: storage, length: info.pointee.ai_addrlen))
        }
        guard !addresses.isEmpty else { return .failure(Failure(kind: .network, what: "the host name could not be resolved")) }
        resolved.keep(addresses, for: key)
        return .success(addresses)
    }

    /// Starts a non-blocking connect: the descriptor, and whether the connect is still under
    /// way; nil (with `errno` set) when it failed at once.
    func connect() -> (fd: Int32, inProgress: Bool)? {
        let fd = socket(family, socketType, proto)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        ReceiveStamp.enable(fd)
        #if canImport(Darwin)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = storage
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connectSocket(fd, UnsafeMutablePointer(mutating: $0), length) }
        }
        if result == 0 { return (fd, false) }
        if errno == EINPROGRESS { return (fd, true) }
        let error = errno
        close(fd)
        errno = error
        return nil
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
