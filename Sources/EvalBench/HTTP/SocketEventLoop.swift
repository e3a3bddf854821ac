#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
import CEvalBenchLinux
#endif
import Foundation

/// The socket I/O of every ``SocketStreamTransport`` exchange, on one thread: a loop over the
/// connections in flight, the idle connections kept for reuse, and a pipe that other threads
/// write to when they hand it an exchange or cancel one. On Linux it waits with epoll, whose
/// cost is that of the connections that are ready (`poll` looked at every connection on every
/// turn: 6% of a c=256 run's CPU); elsewhere with `poll`.
///
/// One thread rather than one per request: at concurrency 256 on 2 cores, 256 threads starting
/// and waking at once delayed the requests they carried by tens of milliseconds. The loop only
/// moves bytes and reads the HTTP framing; the SSE, JSON and grading run in the callers' tasks.
final class SocketEventLoop: @unchecked Sendable {
    // @unchecked: `submitted`, `cancelled`, the wake pipe and `started` are touched only under
    // `lock`, and the rest only by the loop thread.
    static let shared = SocketEventLoop()

    /// False: wait with `poll` even where epoll exists (tests of the other platforms' path).
    private let usesEpoll: Bool

    init(usesEpoll: Bool = true) {
        self.usesEpoll = usesEpoll
    }

    /// Ready connections read, at most, before the loop looks for requests to send (epoll).
    static let readsBetweenSends = 8

    /// Idle connections kept, to all servers together; the oldest goes first.
    static let idleLimit = 256
    /// An idle connection is closed after this long: below the 5 s keep-alive timeout of
    /// cpp-httplib (llama-server), so that evalbench, not the server, closes it.
    static let idleNanos: UInt64 = 4_000_000_000

    private let lock = NSLock()
    private var submitted: [SocketExchange] = []
    private var cancelled: [SocketExchange] = []
    private var wakeRead: Int32 = -1
    private var wakeWrite: Int32 = -1
    /// A wake byte was written since the loop last took what was handed over: the loop will
    /// take this hand-over too, so no other byte is needed (at c=256 a byte per request was
    /// most of the start's system calls).
    private var wakePending = false
    private var started = false

    private var active: [SocketExchange] = []
    private var idle: [IdleConnection] = []
    #if os(Linux)
    /// The loop thread's epoll; nil until the loop runs, or where it could not be made.
    private var epoll: Epoll?
    #endif
    /// Where every `recv` lands; the parser copies out what it keeps.
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    private struct IdleConnection {
        var fd: Int32
        var key: String
        var since: UInt64
    }

    /// Hands `exchange` to the loop, starting the loop's thread the first time.
    func submit(_ exchange: SocketExchange) {
        let wake: Int32? = lock.withLock {
            guard startIfNeeded() else { return nil }
            submitted.append(exchange)
            return wakeNeeded()
        }
        guard let wake else {
            return exchange.finish(.failed(.network, "could not start the socket client (no pipe: too many open files?)"))
        }
        if wake >= 0 { signal(wake) }
    }

    /// The consumer of `exchange` went away: the loop closes its connection and ends it quietly.
    func cancel(_ exchange: SocketExchange) {
        let wake = lock.withLock { () -> Int32 in
            cancelled.append(exchange)
            return wakeNeeded()
        }
        if wake >= 0 { signal(wake) }
    }

    /// Whether idle connections are watched with epoll (the loop runs on epoll).
    var watchesIdleConnections: Bool {
        #if os(Linux)
        epoll != nil
        #else
        false
        #endif
    }

    /// An idle connection to `key` (`host:port`), the most recently used first.
    func takeIdle(_ key: String) -> Int32? {
        guard let index = idle.lastIndex(where: { $0.key == key }) else { return nil }
        return idle.remove(at: index).fd
    }

    /// Keeps `fd`, whose last response ended cleanly, for the next request to `key`.
    /// `watchedForInput`: epoll already watches it for input (as its response was read), so
    /// no system call is needed to watch it as idle.
    func keepIdle(_ fd: Int32, key: String, watchedForInput: Bool = false) {
        if idle.count >= Self.idleLimit { close(idle.removeFirst().fd) }
        idle.append(IdleConnection(fd: fd, key: key, since: DispatchTime.now().uptimeNanoseconds))
        #if os(Linux)
        // A readable idle connection was closed by its server.
        if !watchedForInput { epoll?.watch(fd, Int16(POLLIN)) }
        #endif
    }

    /// Under `lock`: makes the wake pipe and starts the thread once.
    private func startIfNeeded() -> Bool {
        if started { return true }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return false }
        for fd in ends { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        started = true
        let thread = Thread { [self] in
            nameCurrentThread("evalbench-io")
            run()
        }
        thread.name = "evalbench-io"
        thread.stackSize = 1 << 20
        thread.start()
        return true
    }

    /// Under `lock`: the pipe to write a wake byte to, or -1 when one is written already and
    /// the loop has not yet taken what was handed over since.
    private func wakeNeeded() -> Int32 {
        if wakePending || wakeWrite < 0 { return -1 }
        wakePending = true
        return wakeWrite
    }

    private func signal(_ fd: Int32) {
        var byte: UInt8 = 1
        // A full pipe wakes the loop already.
        _ = write(fd, &byte, 1)
    }

    private func drainWake() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(wakeRead, &bytes, bytes.count) > 0 {}
    }

    // MARK: The loop

    private func run() {
        #if os(Linux)
        if usesEpoll, let made = Epoll() {
            epoll = made
            return runEpoll(made)
        }
        #endif
        runPoll()
    }

    private func runPoll() {
        var fds: [pollfd] = []
        while true {
            admit()
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            for exchange in active { fds.append(pollfd(fd: exchange.fd, events: exchange.events, revents: 0)) }
            for connection in idle { fds.append(pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)) }
            let count = poll(&fds, nfds_t(fds.count), timeoutMs(now: DispatchTime.now().uptimeNanoseconds))
            if count < 0 && errno != EINTR && errno != EAGAIN {
                // Not expected with valid descriptors; wait a little rather than spin.
                usleep(1_000)
            }
            if fds[0].revents != 0 { drainWake() }
            let now = DispatchTime.now().uptimeNanoseconds
            let idleBase = 1 + active.count
            // A readable idle connection was closed by its server (or sent what nobody asked for).
            var kept: [IdleConnection] = []
            for (offset, connection) in idle.enumerated() {
                if count > 0 && fds[idleBase + offset].revents != 0 || now - min(now, connection.since) >= Self.idleNanos {
                    close(connection.fd)
                } else {
                    kept.append(connection)
                }
            }
            idle = kept
            for (offset, exchange) in active.enumerated() {
                if count > 0 && fds[1 + offset].revents != 0 { exchange.step(on: self) }
                if !exchange.isFinished && DispatchTime.now().uptimeNanoseconds >= exchange.deadline { exchange.finish(.timedOut) }
            }
            active.removeAll { $0.isFinished }
        }
    }

    #if os(Linux)
    private func runEpoll(_ epoll: Epoll) {
        epoll.watch(wakeRead, Int16(POLLIN))
        // Which exchange each watched descriptor belongs to; idle ones are in `idle`.
        var owners: [Int32: SocketExchange] = [:]
        /// Takes what was handed over and watches it; returns the exchanges that started.
        @discardableResult
        func admitAndWatch() -> [SocketExchange] {
            let (new, gone) = admit()
            for exchange in new { sync(exchange, epoll, &owners) }
            for exchange in gone { sync(exchange, epoll, &owners) }
            return new
        }
        while true {
            admitAndWatch()
            let ready = epoll.wait(timeoutMs: timeoutMs(now: DispatchTime.now().uptimeNanoseconds))
            // Descriptors given to exchanges admitted during this batch: their events in it may
            // be a closed connection's whose number was reused; epoll reports them again.
            var admittedNow = Set<Int32>()
            for (position, (fd, _)) in ready.enumerated() {
                // Requests handed over meanwhile are sent between reads, a few reads apart: a
                // send starts the server's work, while what is read was stamped by the kernel
                // when it came. At c=256 the 256 response heads of a burst's first moments
                // were read before the requests still waiting, which reached the server later.
                if position > 0 && position % Self.readsBetweenSends == 0 {
                    for exchange in admitAndWatch() where exchange.fd >= 0 { admittedNow.insert(exchange.fd) }
                }
                if !admittedNow.isEmpty && admittedNow.contains(fd) { continue }
                if fd == wakeRead {
                    drainWake()
                } else if let exchange = owners[fd], !exchange.isFinished, exchange.fd == fd {
                    exchange.step(on: self)
                    sync(exchange, epoll, &owners)
                } else if let index = idle.firstIndex(where: { $0.fd == fd }) {
                    // A readable idle connection was closed by its server (or sent what nobody asked for).
                    close(idle.remove(at: index).fd)
                }
            }
            let now = DispatchTime.now().uptimeNanoseconds
            // Idle connections are kept oldest first.
            while let oldest = idle.first, now - min(now, oldest.since) >= Self.idleNanos { close(idle.removeFirst().fd) }
            for exchange in active where !exchange.isFinished && now >= exchange.deadline {
                exchange.finish(.timedOut)
                sync(exchange, epoll, &owners)
            }
            active.removeAll { $0.isFinished }
        }
    }

    /// Watches the connection `exchange` has now for what it waits for, and forgets the one it
    /// had (closed, so the kernel forgot it too, or kept idle, and watched as that).
    private func sync(_ exchange: SocketExchange, _ epoll: Epoll, _ owners: inout [Int32: SocketExchange]) {
        let current: SocketExchange.Watched? = exchange.isFinished || exchange.fd < 0
            ? nil : SocketExchange.Watched(fd: exchange.fd, connection: exchange.connections, events: exchange.events)
        guard current != exchange.watched else {
            // Watched as it should be (an idle connection taken over is watched for input already).
            if let current, owners[current.fd] !== exchange { owners[current.fd] = exchange }
            return
        }
        if let old = exchange.watched, old.fd != current?.fd || old.connection != current?.connection, owners[old.fd] === exchange {
            owners[old.fd] = nil
        }
        if let current {
            if let old = exchange.watched, old.fd == current.fd, old.connection == current.connection {
                epoll.watch(current.fd, current.events)
            } else {
                epoll.add(current.fd, current.events)
            }
            owners[current.fd] = exchange
        }
        exchange.watched = current
    }
    #endif

    /// Takes what other threads handed over: new exchanges start, cancelled ones end.
    @discardableResult
    private func admit() -> (new: [SocketExchange], gone: [SocketExchange]) {
        let (new, gone) = lock.withLock { () -> ([SocketExchange], [SocketExchange]) in
            defer {
                submitted.removeAll()
                cancelled.removeAll()
                // A hand-over after this writes a byte again, so the wait below returns for it.
                wakePending = false
            }
            return (submitted, cancelled)
        }
        for exchange in new {
            exchange.start(on: self)
            if !exchange.isFinished { active.append(exchange) }
        }
        for exchange in gone { exchange.abandon() }
        if !gone.isEmpty { active.removeAll { $0.isFinished } }
        return (new, gone)
    }

    /// Until the soonest deadline or idle expiry, in whole milliseconds rounded up; -1 (no
    /// limit) when nothing is waiting.
    private func timeoutMs(now: UInt64) -> Int32 {
        var soonest = UInt64.max
        for exchange in active { soonest = min(soonest, exchange.deadline) }
        if let oldest = idle.first { soonest = min(soonest, oldest.since &+ Self.idleNanos) }
        if soonest == .max { return -1 }
        if soonest <= now { return 0 }
        return Int32(min((soonest - now + 999_999) / 1_000_000, 60_000))
    }
}

/// One request and its response, driven by the loop thread: connect (or take an idle
/// connection), send, receive, then keep the connection for the next request or close it.
final class SocketExchange: @unchecked Sendable {
    // @unchecked: after `init` every field is touched only by the loop thread (`finish` from
    // `submit` runs before the loop ever sees the exchange).
    enum Stop {
        case timedOut
        case failed(ErrorKind, String)
    }

    private enum Phase {
        case connecting, sending, receiving
    }

    let deadline: UInt64
    private(set) var fd: Int32 = -1
    private(set) var isFinished = false
    /// Connections this exchange has had (a new one, or an idle one taken): tells a descriptor
    /// closed and made again under the same number from the one the loop watches.
    private(set) var connections = 0
    /// What the loop watches for this exchange (epoll), set by the loop.
    var watched: Watched?

    struct Watched: Equatable {
        var fd: Int32
        var connection: Int
        var events: Int16
    }
    private var phase = Phase.connecting

    private let request: HTTPStreamRequest
    private let channel: HTTPEventChannel
    /// The URL without credentials or query, for messages: made only when one is needed.
    private lazy var target = HTTPTarget.describe(request.url)
    private let outgoing: [UInt8]
    private var sent = 0
    private let addresses: [SocketAddress]
    private var nextAddress = 0
    private var lastError: Int32 = ECONNREFUSED
    /// `host:port`: which idle connections may carry this request.
    private let key: String
    /// False when the caller asked for `Connection: close`.
    private let mayKeepConnection: Bool
    /// This connection carried an earlier request: if it fails before any response byte, the
    /// server closed it while idle, and the request goes once more on a new connection.
    private var reused = false
    private var parser: HTTPResponseParser
    private var status: Int?
    private var bytesReceived = 0
    private var anyByteReceived = false
    /// The response's head, held until its first body bytes or its end so that the consumer is
    /// woken once for both: a head alone gives it nothing to do, and a server that sends its
    /// headers at once and its answer later would otherwise cost a task wake-up per request.
    private var heldHead: (status: Int, headers: [String: String])?

    /// `key` is the request URL's `host:port` (`SocketEndpoint.key`).
    init(request: HTTPStreamRequest, outgoing: [UInt8], addresses: [SocketAddress], key: String, channel: HTTPEventChannel) {
        self.request = request
        self.channel = channel
        self.addresses = addresses
        self.outgoing = outgoing
        deadline = DispatchTime.now().uptimeNanoseconds + UInt64(min(max(0, request.timeoutSeconds), 1e9) * 1e9)
        self.key = key
        let connection = request.headers.first { $0.key.lowercased() == "connection" }?.value.lowercased()
        mayKeepConnection = !(connection?.contains("close") ?? false)
        parser = HTTPResponseParser(method: request.method)
    }

    /// What the loop polls this exchange's socket for.
    var events: Int16 { phase == .receiving ? Int16(POLLIN) : Int16(POLLOUT) }

    private var progress: String { HTTPTarget.progress(status: status, bytesReceived: bytesReceived) }

    func start(on loop: SocketEventLoop) {
        guard !isFinished else { return }
        if mayKeepConnection, let idle = loop.takeIdle(key) {
            fd = idle
            connections += 1
            // Idle, it was watched for input (with epoll): `sync` changes that only if need be.
            if loop.watchesIdleConnections { watched = Watched(fd: idle, connection: connections, events: Int16(POLLIN)) }
            reused = true
            phase = .sending
            send()
        } else {
            connectNext()
        }
    }

    /// The socket is ready for what `events` asked.
    func step(on loop: SocketEventLoop) {
        switch phase {
        case .connecting:
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 {
                lastError = error
                closeConnection()
                return connectNext()
            }
            phase = .sending
            send()
        case .sending:
            send()
        case .receiving:
            receive(on: loop)
        }
    }

    /// Tries the remaining addresses in order until one connects or is connecting.
    private func connectNext() {
        while nextAddress < addresses.count {
            let address = addresses[nextAddress]
            nextAddress += 1
            guard let (descriptor, inProgress) = address.connect() else {
                lastError = errno
                continue
            }
            fd = descriptor
            connections += 1
            if inProgress {
                phase = .connecting
            } else {
                phase = .sending
                send()
            }
            return
        }
        finish(.failed(.network, lastError == ECONNREFUSED || lastError == ENETUNREACH || lastError == EHOSTUNREACH
            ? "could not connect (connection refused or unreachable)" : "could not connect (errno \(lastError))"))
    }

    private func send() {
        while sent < outgoing.count {
            let count = outgoing.withUnsafeBytes { buffer in sendBytes(fd, buffer.baseAddress! + sent, buffer.count - sent) }
            if count > 0 {
                sent += count
            } else if count < 0 && errno == EINTR {
                continue
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return
            } else if reused {
                return retryOnNewConnection()
            } else {
                return finish(.failed(.network, "the connection was lost while sending the request"))
            }
        }
        phase = .receiving
    }

    private func receive(on loop: SocketEventLoop) {
        // When the bytes reached this machine (the kernel's stamp), not when this thread got to them.
        let (count, receivedAt) = ReceiveStamp.receive(fd, into: loop.buffer)
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
        if count <= 0 && reused && !anyByteReceived { return retryOnNewConnection() }
        if count < 0 { return finish(.failed(.network, "the connection was lost")) }
        anyByteReceived = anyByteReceived || count > 0
        let output: HTTPResponseParser.Output
        do {
            output = count == 0 ? try parser.finish() : try parser.feed(UnsafeRawBufferPointer(rebasing: loop.buffer[0..<count]))
        } catch let error as HTTPResponseParser.Malformed {
            // A head read in the same bytes as the malformed part is still what the server answered.
            if status == nil, let head = parser.parsedHead {
                status = head.status
                heldHead = (head.status, head.headers)
            }
            return finish(.failed(error.isServersDoing ? .badRequest : .network, "the response was malformed (\(error.reason))"))
        } catch {
            return finish(.failed(.network, "the response was malformed"))
        }
        if let head = output.head {
            status = head.status
            heldHead = (head.status, head.headers)
        }
        if !output.body.isEmpty {
            bytesReceived += output.body.count
            yieldHeldHead()
            channel.yield(.bytes(output.body, receivedAtNanos: receivedAt))
        }
        if output.complete { return complete(on: loop) }
        if count == 0 { finish(.failed(.network, "the connection was lost")) }
    }

    /// The response ended: the connection goes back to the loop if it can carry another request.
    private func complete(on loop: SocketEventLoop) {
        isFinished = true
        yieldHeldHead()
        if mayKeepConnection && parser.leavesConnectionReusable {
            loop.keepIdle(fd, key: key, watchedForInput: watched == Watched(fd: fd, connection: connections, events: Int16(POLLIN)))
            fd = -1
        } else {
            closeConnection()
        }
        channel.finish()
    }

    private func retryOnNewConnection() {
        closeConnection()
        reused = false
        sent = 0
        nextAddress = 0
        parser = HTTPResponseParser(method: request.method)
        connectNext()
    }

    private func closeConnection() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    /// Ends the exchange with `stop`, closing its connection.
    func finish(_ stop: Stop) {
        guard !isFinished else { return }
        isFinished = true
        closeConnection()
        // A server that sent its head and then stalled or hung up: the consumer sees the status.
        yieldHeldHead()
        switch stop {
        case .timedOut:
            channel.finish(throwing: BackendFailure(
                kind: .timeout, message: HTTPTarget.timeoutMessage(target, seconds: request.timeoutSeconds, progress: progress),
                httpStatus: status))
        case let .failed(kind, what):
            channel.finish(throwing: BackendFailure(kind: kind, message: "\(target): \(what) \(progress)", httpStatus: status))
        }
    }

    private func yieldHeldHead() {
        guard let head = heldHead else { return }
        heldHead = nil
        channel.yield(.response(status: head.status, headers: head.headers))
    }

    /// Its consumer went away: closes the connection and ends the stream quietly.
    func abandon() {
        guard !isFinished else { return }
        isFinished = true
        closeConnection()
        channel.finish()
    }
}

private func sendBytes(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.send(fd, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    Darwin.send(fd, bytes, count, 0)
    #endif
}

#if os(Linux)
/// An epoll instance, level-triggered (as `poll` is), each event naming its descriptor.
/// (Package-wide: the benchmark's fake server waits with it too.)
package final class Epoll {
    private let fd: Int32
    private var events: [epoll_event]

    package init?() {
        fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { return nil }
        events = [epoll_event](repeating: epoll_event(), count: 512)
    }

    deinit { close(fd) }

    /// Watches `target` for `wanted` (`POLLIN` or `POLLOUT`; errors and hang-ups always come),
    /// whether it was watched before or not.
    package func watch(_ target: Int32, _ wanted: Int16) {
        control(target, wanted, first: EPOLL_CTL_MOD, then: EPOLL_CTL_ADD, when: ENOENT)
    }

    /// The same for a descriptor new to this loop (it may still be watched under its number as an idle one).
    package func add(_ target: Int32, _ wanted: Int16) {
        control(target, wanted, first: EPOLL_CTL_ADD, then: EPOLL_CTL_MOD, when: EEXIST)
    }

    private func control(_ target: Int32, _ wanted: Int16, first: Int32, then: Int32, when failure: Int32) {
        var event = epoll_event()
        // POLLIN and POLLOUT have EPOLLIN's and EPOLLOUT's values.
        event.events = UInt32(UInt16(bitPattern: wanted))
        event.data.fd = target
        if epoll_ctl(fd, first, target, &event) != 0 && errno == failure {
            _ = epoll_ctl(fd, then, target, &event)
        }
    }

    /// The descriptors ready within `timeoutMs` (-1: no limit), with their events.
    package func wait(timeoutMs: Int32) -> [(fd: Int32, events: UInt32)] {
        let count = epoll_wait(fd, &events, Int32(events.count), timeoutMs)
        guard count > 0 else {
            // EINTR or nothing ready; any other failure is not expected, so wait a little rather than spin.
            if count < 0 && errno != EINTR { usleep(1_000) }
            return []
        }
        return (0..<Int(count)).map { (events[$0].data.fd, events[$0].events) }
    }
}
#endif
