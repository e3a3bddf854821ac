import Foundation

/// The events of one streamed response, read one at a time with `next()` by the one task
/// that sent the request: what `StreamedResponse` reads every provider's answer through.
///
/// The socket transport hands events over an `HTTPEventChannel`; any other transport's
/// `AsyncThrowingStream` is read through its iterator. Cancelling the reading task, or
/// dropping the reader before the end, cancels the request, and `next()` then returns nil
/// (as an `AsyncThrowingStream` does): the caller checks `Task.isCancelled`.
package struct HTTPEvents {
    private enum Source {
        case channel(HTTPEventChannel.Reader)
        case stream(AsyncThrowingStream<HTTPStreamEvent, any Error>.Iterator)
    }

    private var source: Source

    /// Reads what `channel` is handed.
    init(_ channel: HTTPEventChannel) {
        source = .channel(HTTPEventChannel.Reader(channel))
    }

    /// Reads `stream`.
    package init(_ stream: AsyncThrowingStream<HTTPStreamEvent, any Error>) {
        source = .stream(stream.makeAsyncIterator())
    }

    /// The next event; nil at the end of the body or once the request was cancelled. Throws
    /// the transport's failure (a `BackendFailure`).
    package mutating func next() async throws -> HTTPStreamEvent? {
        switch source {
        case let .channel(reader):
            return try await reader.channel.next()
        case var .stream(iterator):
            defer { source = .stream(iterator) }
            return try await iterator.next()
        }
    }
}

/// One response's events, handed from the thread that reads the socket to the task that reads
/// the response: a lock, the events not yet read, and the reader's continuation while it waits.
///
/// An `AsyncThrowingStream` does the same, generically: its making, yielding and reading were
/// about a tenth of a request's CPU at concurrency 256 (its generic storage is looked up and
/// allocated at run time, since the standard library's code is not specialized for this type).
final class HTTPEventChannel: @unchecked Sendable {
    // @unchecked: every stored property is touched only under `lock`.
    private let lock = NSLock()
    private var events: [HTTPStreamEvent] = []
    private var head = 0
    private var waiting: UnsafeContinuation<HTTPStreamEvent?, any Error>?
    /// How the stream ended, once the producer ended it: nil error for the end of the body.
    private var ended: (any Error)??
    /// The reader went away or was cancelled: events are dropped and `next()` returns nil.
    private var abandoned = false
    private var onAbandon: (@Sendable () -> Void)?

    init() {}

    /// Called once, on the thread that abandons, when the reader is cancelled or dropped
    /// before the producer ended the stream (the socket transport closes the connection).
    func onAbandon(_ handler: @escaping @Sendable () -> Void) {
        lock.withLock { onAbandon = handler }
    }

    // MARK: The producer

    /// Hands `event` to the reader: to its waiting `next()` at once, or for its next call.
    func yield(_ event: HTTPStreamEvent) {
        lock.lock()
        guard ended == nil, !abandoned else { return lock.unlock() }
        if let reader = waiting {
            waiting = nil
            lock.unlock()
            reader.resume(returning: event)
        } else {
            events.append(event)
            lock.unlock()
        }
    }

    /// Ends the stream: normally (nil) or with `failure`, after the events already handed over.
    func finish(throwing failure: (any Error)? = nil) {
        lock.lock()
        guard ended == nil, !abandoned else { return lock.unlock() }
        let reader = waiting
        waiting = nil
        // A failure handed to a waiting reader now is thrown once: later calls return nil.
        ended = .some(reader == nil ? failure : nil)
        lock.unlock()
        guard let reader else { return }
        if let failure { reader.resume(throwing: failure) } else { reader.resume(returning: nil) }
    }

    // MARK: The reader

    /// The next event, waiting for it if need be.
    func next() async throws -> HTTPStreamEvent? {
        if case let .ready(event) = try takeReady() { return event }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (reader: UnsafeContinuation<HTTPStreamEvent?, any Error>) in
                lock.lock()
                if let event = takeLocked() {
                    lock.unlock()
                    return reader.resume(returning: event)
                }
                if abandoned || ended != nil {
                    return reader.resume(with: Result { try endLocked() })
                }
                waiting = reader
                lock.unlock()
            }
        } onCancel: {
            abandon()
        }
    }

    private enum Poll {
        /// The oldest event, or nil once the stream ended.
        case ready(HTTPStreamEvent?)
        case wait
    }

    /// What the reader can have without waiting (a lock cannot be taken in an async function).
    private func takeReady() throws -> Poll {
        lock.lock()
        if let event = takeLocked() {
            lock.unlock()
            return .ready(event)
        }
        if abandoned || ended != nil { return .ready(try endLocked()) }
        lock.unlock()
        return .wait
    }

    /// Under `lock`: the oldest event not yet read.
    private func takeLocked() -> HTTPStreamEvent? {
        guard head < events.count else { return nil }
        let event = events[head]
        head += 1
        if head == events.count {
            events.removeAll(keepingCapacity: true)
            head = 0
        }
        return event
    }

    /// Under `lock`, which it releases: nil, or the failure the stream ended with (thrown once;
    /// a later call returns nil, as an `AsyncThrowingStream`'s iterator does).
    private func endLocked() throws -> HTTPStreamEvent? {
        let failure = abandoned ? nil : ended ?? nil
        if failure != nil { ended = .some(nil) }
        lock.unlock()
        if let failure { throw failure }
        return nil
    }

    /// The reader is cancelled or gone: drops what is buffered, ends a waiting `next()` with
    /// nil, and tells the producer, unless the stream had ended already.
    func abandon() {
        lock.lock()
        guard !abandoned else { return lock.unlock() }
        abandoned = true
        events.removeAll()
        head = 0
        let reader = waiting
        waiting = nil
        let handler = ended == nil ? onAbandon : nil
        onAbandon = nil
        lock.unlock()
        reader?.resume(returning: nil)
        handler?()
    }

    /// The reading side's handle: dropping it before the end abandons the channel.
    final class Reader {
        let channel: HTTPEventChannel

        init(_ channel: HTTPEventChannel) {
            self.channel = channel
        }

        deinit { channel.abandon() }
    }
}
