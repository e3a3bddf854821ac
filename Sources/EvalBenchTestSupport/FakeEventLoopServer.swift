#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import EvalBench
import Foundation

/// A fake HTTP/1.1 server like `FakeHTTPServer`, but on one thread: an epoll loop (`poll`
/// where there is no epoll) over the listener and every connection, with each response's
/// pieces written at their due times from a timer. At concurrency 256 a thread per connection (and the accept loop that starts
/// them one by one) spreads the requests' start over tens of milliseconds on 2 cores, which
/// the client's TTFT would then show; this server answers them all on time, so the benchmark
/// measures the client. `.full` and `.stream` responses with keep-alive as `FakeHTTPServer`
/// sends them; `streamThenReset` closes (FIN, not RST) and `stall` sends nothing more: fault
/// tests use `FakeHTTPServer`. For benchmarks and tests only.
public final class FakeEventLoopServer: @unchecked Sendable {
    // @unchecked: every mutable field is touched only under `lock`, or only by the loop thread
    // (`connections`, which `stop()` never reads).
    private let respond: @Sendable (FakeHTTPRequest) -> FakeHTTPResponse
    private let lock = NSLock()
    private var listener: Int32 = -1
    private var boundPort = 0
    private var isStopped = false
    private var received: [FakeHTTPRequest] = []
    private var wake: (read: Int32, write: Int32) = (-1, -1)
    private let loopEnded = DispatchSemaphore(value: 0)
    private var connections: [Int32: Connection] = [:]
    /// The connections with bytes scheduled or unsent (the loop thread's alone).
    private var pending = Set<Int32>()
    private let fixedFrames: [(afterNs: UInt64, bytes: Data?)]?
    /// Where every read lands (the loop thread's alone).
    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)

    /// A server that answers every request with `respond(request)`, called on the loop thread.
    public init(respond: @escaping @Sendable (FakeHTTPRequest) -> FakeHTTPResponse) {
        self.respond = respond
        fixedFrames = nil
    }

    /// A server that answers every request with `response`, framed once (as a static file is
    /// served): the benchmark's stub, whose own work is then mostly the kernel's.
    public init(always response: FakeHTTPResponse) {
        respond = { _ in response }
        fixedFrames = Self.frame(response)
    }

    deinit { chunk.deallocate() }

    /// The port it listens on; 0 before `start()`.
    public var port: Int { lock.withLock { boundPort } }
    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Every request received so far, in order of arrival.
    public var requests: [FakeHTTPRequest] { lock.withLock { received } }

    /// Binds 127.0.0.1 on a free port and starts the loop.
    public func start() throws {
        let (fd, port) = try FakeSockets.listen()
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            close(fd)
            throw FakeHTTPServerError(description: "FakeEventLoopServer: pipe failed")
        }
        FakeSockets.nonBlocking(fd)
        FakeSockets.nonBlocking(pipeEnds[0])
        lock.withLock {
            listener = fd
            boundPort = port
            wake = (pipeEnds[0], pipeEnds[1])
        }
        let wakeEnd = pipeEnds[0]
        let thread = Thread { [self] in
            nameCurrentThread("fake-eventloop")
            loop(listener: fd, wake: wakeEnd)
        }
        thread.start()
    }

    /// Stops the loop and closes every socket. Safe to call more than once.
    public func stop() {
        let ends: (Int32, Int32)? = lock.withLock {
            guard !isStopped, listener >= 0 else { return nil }
            isStopped = true
            return wake
        }
        guard let ends else { return }
        var byte: UInt8 = 1
        _ = write(ends.1, &byte, 1)
        loopEnded.wait()
        close(ends.0)
        close(ends.1)
    }

    // MARK: - The loop

    /// One client connection: bytes read and not yet parsed, and what is due to be written.
    private final class Connection {
        let fd: Int32
        var input: [UInt8] = []
        /// Pieces not yet due, in order: (due uptime ns, bytes); `nil` bytes close the connection.
        var scheduled: [(due: UInt64, bytes: Data?)] = []
        var output = Data()
        var closing = false

        init(fd: Int32) { self.fd = fd }
    }

    private func loop(listener: Int32, wake: Int32) {
        defer {
            for fd in connections.keys { close(fd) }
            connections = [:]
            close(listener)
            loopEnded.signal()
        }
        #if os(Linux)
        if let epoll = Epoll() { return runEpoll(epoll, listener: listener, wake: wake) }
        #endif
        runPoll(listener: listener, wake: wake)
    }

    /// The next time a scheduled piece is due, among the connections with pieces.
    private var nextDue: UInt64? {
        var soonest: UInt64?
        for fd in pending {
            guard let due = connections[fd]?.scheduled.first?.due else { continue }
            soonest = min(soonest ?? due, due)
        }
        return soonest
    }

    /// Connection `fd` is ready for `events` (poll's bits): reads what came, or notes room to write.
    private func ready(_ fd: Int32, _ events: Int16) {
        guard let connection = connections[fd] else { return }
        if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 { read(connection) }
        if events & Int16(POLLOUT) != 0 { pending.insert(fd) }
    }

    /// Writes what is due on every connection with bytes due or unsent.
    private func flushPending() {
        let now = DispatchTime.now().uptimeNanoseconds
        for fd in Array(pending) {
            guard let connection = connections[fd] else {
                pending.remove(fd)
                continue
            }
            flush(connection, now: now)
            if connections[fd] == nil || (connection.scheduled.isEmpty && connection.output.isEmpty) { pending.remove(fd) }
        }
    }

    #if os(Linux)
    /// The loop with epoll: a turn costs what is ready, not a look at all 256 connections
    /// (`poll` over every connection was a sixth of this server's CPU at c=256, on the same 2
    /// cores as the client it measures).
    private func runEpoll(_ epoll: Epoll, listener: Int32, wake: Int32) {
        epoll.watch(listener, Int16(POLLIN))
        epoll.watch(wake, Int16(POLLIN))
        /// Connections watched for room to write as well (their output did not all go).
        var watchingOut = Set<Int32>()
        while !lock.withLock({ isStopped }) {
            for (fd, events) in FakeSockets.wait(until: nextDue, { epoll.wait(timeoutMs: $0) }) {
                if fd == listener {
                    for accepted in acceptAll(listener) { epoll.add(accepted, Int16(POLLIN)) }
                } else if fd != wake {
                    // epoll's readiness bits have poll's values.
                    ready(fd, Int16(truncatingIfNeeded: events))
                }
            }
            flushPending()
            for fd in pending where connections[fd].map({ !$0.output.isEmpty }) == true && !watchingOut.contains(fd) {
                watchingOut.insert(fd)
                epoll.watch(fd, Int16(POLLIN) | Int16(POLLOUT))
            }
            for fd in watchingOut where connections[fd].map({ $0.output.isEmpty }) != false {
                watchingOut.remove(fd)
                if connections[fd] != nil { epoll.watch(fd, Int16(POLLIN)) }
            }
        }
    }
    #endif

    private func runPoll(listener: Int32, wake: Int32) {
        var fds: [pollfd] = []
        while !lock.withLock({ isStopped }) {
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0))
            for (fd, connection) in connections {
                let events = Int16(POLLIN) | (connection.output.isEmpty ? 0 : Int16(POLLOUT))
                fds.append(pollfd(fd: fd, events: events, revents: 0))
            }
            FakeSockets.poll(&fds, until: nextDue)
            if fds[0].revents != 0 { acceptAll(listener) }
            for entry in fds.dropFirst(2) where entry.revents != 0 { ready(entry.fd, entry.revents) }
            flushPending()
        }
    }

    /// Accepts every waiting connection; returns their descriptors.
    @discardableResult
    private func acceptAll(_ listener: Int32) -> [Int32] {
        var accepted: [Int32] = []
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return accepted }
            FakeSockets.nonBlocking(fd)
            FakeSockets.noDelay(fd)
            ReceiveStamp.enable(fd)
            connections[fd] = Connection(fd: fd)
            accepted.append(fd)
        }
    }

    /// Reads what is there and schedules the answer of every complete request.
    private func read(_ connection: Connection) {
        // The scripted delays run from when the request arrived, not from when `respond` (run
        // for one request after another on this thread) returned.
        // They run from the kernel's stamp of the request's bytes (Linux), so a request read
        // late because this thread was answering others is still answered on time.
        var arrived: UInt64?
        while true {
            let (count, stamp) = ReceiveStamp.receive(connection.fd, into: chunk)
            if count > 0 {
                arrived = arrived ?? stamp
                connection.input.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { connection.closing = true }
            break
        }
        while let (request, consumed) = FakeRequestParser.parse(connection.input) {
            connection.input.removeFirst(consumed)
            lock.withLock { received.append(request) }
            schedule(respond(request), on: connection, arrived: arrived ?? DispatchTime.now().uptimeNanoseconds,
                     close: request.headers["connection"]?.lowercased() == "close")
        }
        if connection.closing, connection.scheduled.isEmpty, connection.output.isEmpty { drop(connection) }
    }

    private func schedule(_ response: FakeHTTPResponse, on connection: Connection, arrived: UInt64, close: Bool) {
        var due = max(arrived, connection.scheduled.last?.due ?? 0)
        for frame in frames(of: response) {
            due += frame.afterNs
            connection.scheduled.append((due, frame.bytes))
        }
        if close { connection.scheduled.append((due, nil)) }
        pending.insert(connection.fd)
    }

    /// `response` as bytes on the wire, each after its delay (ns) from the one before; `nil`
    /// bytes close the connection. A `fixed` server's answer is framed once, at `init`.
    private func frames(of response: FakeHTTPResponse) -> [(afterNs: UInt64, bytes: Data?)] {
        if let fixedFrames { return fixedFrames }
        return Self.frame(response)
    }

    private static func frame(_ response: FakeHTTPResponse) -> [(afterNs: UInt64, bytes: Data?)] {
        var frames: [(afterNs: UInt64, bytes: Data?)] = []
        switch response {
        case let .full(status, headers, body):
            var framed = headers
            framed["Content-Length"] = String(body.count)
            frames.append((0, FakeSockets.head(status, framed) + body))
        case .closeWithoutAnswer:
            frames.append((0, nil))
        case let .stream(status, headers, pieces), let .streamThenReset(status, headers, pieces), let .stall(status, headers, pieces):
            var framed = headers
            framed["Transfer-Encoding"] = "chunked"
            frames.append((0, FakeSockets.head(status, framed)))
            var wait: UInt64 = 0
            for piece in pieces {
                wait += UInt64(max(0, piece.delayMs) * 1_000_000)
                // An empty chunk would end the body, so an empty piece is only a delay.
                if piece.bytes.isEmpty { continue }
                frames.append((wait, Data(String(piece.bytes.count, radix: 16).utf8) + Data("\r\n".utf8) + piece.bytes + Data("\r\n".utf8)))
                wait = 0
            }
            switch response {
            case .stream: frames.append((wait, Data("0\r\n\r\n".utf8)))
            case .streamThenReset: frames.append((wait, nil))
            default: break
            }
        }
        return merged(frames)
    }

    /// `frames` with each run of bytes due together (no delay between them) made one: the same
    /// bytes at the same times, written with one copy and one `send` rather than one per piece.
    private static func merged(_ frames: [(afterNs: UInt64, bytes: Data?)]) -> [(afterNs: UInt64, bytes: Data?)] {
        var merged: [(afterNs: UInt64, bytes: Data?)] = []
        for frame in frames {
            if frame.afterNs == 0, let bytes = frame.bytes, let last = merged.last, let before = last.bytes {
                merged[merged.count - 1] = (last.afterNs, before + bytes)
            } else {
                merged.append(frame)
            }
        }
        return merged
    }

    /// Moves what is due into the output and writes as much as the socket takes.
    private func flush(_ connection: Connection, now: UInt64) {
        while let first = connection.scheduled.first, first.due <= now {
            connection.scheduled.removeFirst()
            guard let bytes = first.bytes else {
                connection.closing = true
                connection.scheduled = []
                break
            }
            // Taken as it is when nothing waits before it: a shared `Data`, not a copy.
            if connection.output.isEmpty { connection.output = bytes } else { connection.output.append(bytes) }
        }
        while !connection.output.isEmpty {
            let sent = connection.output.withUnsafeBytes { FakeSockets.send(connection.fd, $0) }
            if sent == connection.output.count {
                connection.output = Data()
            } else if sent > 0 {
                connection.output.removeFirst(sent)
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                return
            } else {
                drop(connection)
                return
            }
        }
        if connection.closing, connection.scheduled.isEmpty { drop(connection) }
    }

    private func drop(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.fd) != nil else { return }
        pending.remove(connection.fd)
        close(connection.fd)
    }
}

/// Socket calls the fake servers share.
enum FakeSockets {
    #if canImport(Glibc)
    static let streamSocketType = Int32(SOCK_STREAM.rawValue)
    #else
    static let streamSocketType = SOCK_STREAM
    #endif

    /// A socket listening on 127.0.0.1 at a free port, and the port.
    static func listen() throws -> (Int32, Int) {
        let fd = socket(AF_INET, streamSocketType, 0)
        guard fd >= 0 else { throw failure("socket") }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        #if canImport(Glibc)
        let listening = bound && Glibc.listen(fd, 4096) == 0
        #else
        let listening = bound && Darwin.listen(fd, 4096) == 0
        #endif
        guard listening else {
            let error = failure("bind/listen on 127.0.0.1")
            close(fd)
            throw error
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func failure(_ step: String) -> FakeHTTPServerError {
        FakeHTTPServerError(description: "fake server: \(step) failed: \(String(cString: strerror(errno)))")
    }

    static func nonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    static func noDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Waits for `fds`, at most until `deadline` (uptime ns; nil waits for events only), as `wait` does.
    static func poll(_ fds: inout [pollfd], until deadline: UInt64?) {
        _ = wait(until: deadline) { pollSockets(&fds, $0) }
    }

    /// Calls `waitMs` (a `poll` or an `epoll_wait` with that timeout, -1 for none) to wait at
    /// most until `deadline` (uptime ns; nil waits for events only): whole milliseconds in the
    /// call, the last fraction slept exactly, so a piece is never late by the call's rounding.
    static func wait<Ready>(until deadline: UInt64?, _ waitMs: (Int32) -> Ready) -> Ready {
        guard let deadline else { return waitMs(-1) }
        let now = DispatchTime.now().uptimeNanoseconds
        let left = deadline > now ? deadline - now : 0
        if left >= 1_000_000 { return waitMs(Int32(min(left / 1_000_000, 1_000))) }
        if left > 0 {
            var pause = timespec(tv_sec: 0, tv_nsec: Int(left))
            nanosleep(&pause, nil)
        }
        return waitMs(0)
    }

    private static func pollSockets(_ fds: inout [pollfd], _ timeout: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.poll(&fds, nfds_t(fds.count), timeout)
        #else
        Darwin.poll(&fds, nfds_t(fds.count), timeout)
        #endif
    }

    /// One nonblocking `send`, never raising SIGPIPE.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        #if canImport(Glibc)
        Glibc.send(fd, bytes.baseAddress!, bytes.count, Int32(MSG_NOSIGNAL))
        #else
        Darwin.send(fd, bytes.baseAddress!, bytes.count, 0)
        #endif
    }

    static func head(_ status: Int, _ headers: [String: String]) -> Data {
        var text = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status \(status)")\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        return Data((text + "\r\n").utf8)
    }
}

/// Parses one HTTP/1.1 request off the front of a buffer.
enum FakeRequestParser {
    /// The request at the start of `buffer` and how many bytes it took; nil until it is complete.
    /// Read byte by byte (the benchmark's server parses every request, and its cost is counted
    /// against the client's figures): header names lower-cased, values without surrounding
    /// spaces and tabs, repeated headers joined with ", ".
    static func parse(_ buffer: [UInt8]) -> (FakeHTTPRequest, Int)? {
        buffer.withUnsafeBufferPointer { bytes in
            guard bytes.count >= 4 else { return nil }
            var end = -1
            for index in 0...(bytes.count - 4)
            where bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D && bytes[index + 3] == 0x0A {
                end = index
                break
            }
            guard end >= 0 else { return nil }
            var lines: [Range<Int>] = []
            lines.reserveCapacity(16)
            var lineStart = 0
            var index = 0
            while index < end {
                if bytes[index] == 0x0D && bytes[index + 1] == 0x0A {
                    lines.append(lineStart..<index)
                    index += 2
                    lineStart = index
                } else {
                    index += 1
                }
            }
            lines.append(lineStart..<end)
            let requestLine = String(decoding: UnsafeBufferPointer(rebasing: bytes[lines[0]]), as: UTF8.self).split(separator: " ")
            guard requestLine.count >= 2 else { return nil }
            var headers = [String: String](minimumCapacity: lines.count)
            for line in lines.dropFirst() {
                guard let colon = line.first(where: { bytes[$0] == UInt8(ascii: ":") }) else { continue }
                var valueStart = colon + 1, valueEnd = line.upperBound
                while valueStart < valueEnd, bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09 { valueStart += 1 }
                while valueEnd > valueStart, bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09 { valueEnd -= 1 }
                let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[line.lowerBound..<colon]), as: UTF8.self).lowercased()
                let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self)
                headers[name] = headers[name].map { "\($0), \(value)" } ?? value
            }
            let bodyStart = end + 4
            let bodyLength = max(0, Int(headers["content-length"] ?? "0") ?? 0)
            guard bytes.count - bodyStart >= bodyLength else { return nil }
            let body = Data(UnsafeBufferPointer(rebasing: bytes[bodyStart..<(bodyStart + bodyLength)]))
            return (FakeHTTPRequest(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body),
                    bodyStart + bodyLength)
        }
    }
}
