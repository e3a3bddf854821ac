import Foundation

/// Appends each finished result to `results.jsonl` the moment it is recorded, so a crash or
/// `kill -9` keeps every finished result.
///
/// A write that fails (a full disk, a removed directory) is not shrugged off: the store
/// keeps the first failure, takes no further lines, and the runner sends no new request,
/// so no request is paid for whose result would be lost.
///
/// Appends are taken on the recording task's own thread. (An actor made every result wait for
/// its turn as a task: a hop onto the store and back per result, so at concurrency 256 the
/// last answers waited milliseconds to be recorded while a core sat idle.) A result is queued
/// under a short lock; the thread that finds nobody writing becomes the writer and writes what
/// is queued, its own and any queued meanwhile, in one write(2), in order, until the queue is
/// empty. So no recording thread sleeps on the lock while another writes (holding it across
/// the write and the table made half the appends at c=256 wait on it), and a result queued by
/// another thread is in the file within microseconds, written by the thread already writing.
package final class ResultStore: @unchecked Sendable {
    // @unchecked: `queued`, `writing`, `firstFailure` and the file are touched under `lock`
    // (the file and `kept` only by the one writer, with `writing` set); `kept` is read and
    // appended to under `tableLock`.
    private let lock = NSCondition()
    private let tableLock = NSLock()
    package let url: URL
    private let handle: FileHandle
    /// The results kept for the reports, in a row of about 96 bytes each (a whole result is
    /// about 800) with equal strings, tags and verdicts held once: what `report` reads
    /// results.jsonl into, so that a run and its report from the file hold the same.
    private var kept = ResultTable()
    private var firstFailure: ResultWriteFailure?
    /// Lines waiting for the writer, with their results, in the order they were appended.
    private var queued: [(line: Data, result: RequestResult)] = []
    /// A thread is writing `queued`; `close` waits for it.
    private var writing = false

    /// The first write that failed, naming the file and the cause; nil while every write held.
    package var failure: ResultWriteFailure? { lock.withLock { firstFailure } }
    /// Every result recorded, in order (those it was opened with first).
    package func table() -> ResultTable { tableLock.withLock { kept } }

    /// Opens (creating or appending to) `results.jsonl`, keeping `existing` as already recorded.
    /// A torn last line (a crash or a full disk mid-write) is cut off first, so that the next
    /// line starts on a line of its own.
    package init(url: URL, existing: some Sequence<RequestResult> = [RequestResult]()) throws {
        self.url = url
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        handle = try FileHandle(forUpdating: url)
        try Self.cutTornTail(handle)
        // A table (a resumed run's) is kept as it is, not copied.
        kept = existing as? ResultTable ?? ResultTable(existing)
    }

    /// Records `result`; throws, and keeps the failure, when it cannot be written. After a
    /// failure every append throws it again without writing.
    package func append(_ result: RequestResult) throws {
        try append(Self.encoded(result))
    }

    /// `result` ready to append: its figures made finite and its line encoded. A pure step
    /// that callers take on their own threads, so that the one store does not encode every
    /// result of a run in turn; the failure to encode, if any, is kept for `append`.
    package struct Encoded: Sendable {
        let result: RequestResult
        let line: Result<Data, any Error>
    }

    /// `result` with finite figures and its line, encoded with the store's encoder settings.
    package static func encoded(_ result: RequestResult) -> Encoded {
        let finite = result.withFiniteFigures()
        // By hand, byte for byte as the encoder writes it; the encoder when that cannot be done.
        if let line = ResultLineEncoder.encode(finite, nested: sharedEncoder) { return Encoded(result: finite, line: .success(line)) }
        return Encoded(result: finite, line: Result { try sharedEncoder.encode(finite) })
    }

    /// An encoder with `makeEncoder()`'s settings, shared (JSONEncoder is Sendable; its
    /// settings are never changed after this).
    private static let sharedEncoder = makeEncoder()

    /// Records an encoded result; throws, and keeps the failure, when it cannot be written.
    /// When another thread is writing, the result is queued for it and this returns at once;
    /// a failure of that write is thrown by the next append (and is the store's `failure`).
    package func append(_ encoded: Encoded) throws {
        let result = encoded.result
        let line: Data
        do {
            line = try encoded.line.get()
        } catch {
            try fail(ResultWriteFailure(path: url.path, key: result.key, turn: result.turn, cause: Self.describe(error)))
        }
        let writes = try lock.withLock { () -> Bool in
            if let firstFailure { throw firstFailure }
            queued.append((line, result))
            if writing { return false }
            writing = true
            return true
        }
        guard writes else { return }
        if let failure = writeQueued() { throw failure }
    }

    /// As the one writer: writes and keeps what is queued until nothing is, then stops being
    /// the writer. Returns the failure of the first write, which held the writer's own line
    /// (the queue was empty when it became the writer, so its line came first).
    private func writeQueued() -> ResultWriteFailure? {
        var failed: ResultWriteFailure?
        var first = true
        var writeFailed = false
        var batch: [(line: Data, result: RequestResult)] = []
        while true {
            // A line that could not be encoded stops new appends, not the writing of lines
            // already taken; a write that failed stops it, since the file took no more.
            let stop = lock.withLock { () -> Bool in
                if queued.isEmpty || writeFailed {
                    queued.removeAll()
                    writing = false
                    lock.broadcast()
                    return true
                }
                swap(&batch, &queued)
                return false
            }
            if stop { return failed }
            var bytes = Data(capacity: batch.reduce(0) { $0 + $1.line.count + 1 })
            for entry in batch {
                bytes.append(entry.line)
                bytes.append(Self.newline)
            }
            do {
                try Self.write(bytes, to: handle.fileDescriptor)
            } catch {
                // The first of the batch is named: its line, at least, is not whole in the file.
                let lost = batch[0].result
                let failure = ResultWriteFailure(path: url.path, key: lost.key, turn: lost.turn, cause: Self.describe(error))
                lock.withLock { if firstFailure == nil { firstFailure = failure } }
                writeFailed = true
                if first { failed = failure }
                batch.removeAll()
                continue
            }
            first = false
            tableLock.withLock {
                for entry in batch { kept.append(entry.result) }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    private static let newline = Data([0x0A])

    /// Keeps `failure` unless an earlier one is kept, and throws the one kept.
    private func fail(_ failure: ResultWriteFailure) throws -> Never {
        let kept = lock.withLock {
            if firstFailure == nil { firstFailure = failure }
            return firstFailure ?? failure
        }
        throw kept
    }

    /// Every result recorded, in order, as whole values (see `table()` for a run's worth).
    package func all() -> [RequestResult] { Array(table()) }

    /// Writes all of `bytes` with `write(2)`, going on after a short write or an interrupted
    /// call; FileHandle's own write cost about as much again as the system call.
    private static func write(_ bytes: Data, to fd: Int32) throws {
        let failure = bytes.withUnsafeBytes { buffer in
            transferAll(buffer.count) { done in
                #if canImport(Glibc)
                Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done)
                #else
                Darwin.write(fd, buffer.baseAddress! + done, buffer.count - done)
                #endif
            }
        }
        if let failure { throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO) }
    }

    package func close() throws {
        try lock.withLock {
            while writing { lock.wait() }
            try handle.synchronize()
            try handle.close()
        }
    }

    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Reads a `results.jsonl`. A line that is not a result (torn by a crash or a full disk,
    /// wherever it is) is skipped and reported to `skipped` with its line number: the good
    /// results around it are kept, and `--resume` sends again only what is missing.
    package static func read(_ url: URL, skipped: (Diagnostic) -> Void = ResultStore.warn) throws -> [RequestResult] {
        var results: [RequestResult] = []
        var strings = StringInterner()
        try scan(url, skipped: skipped) { results.append(strings.shared($0)) }
        return results
    }

    /// Reads a `results.jsonl` as `read` does, into a `ResultTable`: what a report of a million
    /// results reads, since each is kept in a row of 80 bytes, not as a result of 800.
    package static func readTable(_ url: URL, skipped: (Diagnostic) -> Void = ResultStore.warn) throws -> ResultTable {
        var table = ResultTable()
        try scan(url, skipped: skipped) { table.append($0) }
        return table
    }

    /// Reads a `results.jsonl` a batch of lines at a time, handing each result to `body` in
    /// file order: memory holds one chunk of the file and one batch of lines, never the whole
    /// file. Each batch is decoded on every core, and its results and warnings are handed on in
    /// order, so the results are those of reading line by line. Lines that are not results are
    /// skipped and reported as `read` does.
    package static func scan(_ url: URL, skipped: (Diagnostic) -> Void = ResultStore.warn,
                             _ body: (RequestResult) throws -> Void) throws {
        var lines = try LineSplitter(url)
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var batch: [Line] = []
        batch.reserveCapacity(batchSize)
        // Each turn of a case run is recorded once; a second line for one (a line copied or a
        // file appended twice) would count the request twice. The first is kept.
        var recorded: Set<RecordedTurn> = []
        while true {
            batch.removeAll(keepingCapacity: true)
            while batch.count < batchSize, let line = try lines.next() { batch.append(line) }
            if batch.isEmpty { return }
            for (line, decoded) in zip(batch, decode(batch, workers: workers, url: url)) {
                switch decoded {
                case let .result(result, turn):
                    guard recorded.insert(turn).inserted else {
                        skipped(Diagnostic(file: url.path, location: SourceLocation(line: line.number, column: 1),
                                           message: "a second result for \(result.key) turn \(result.turn), skipped (the first is kept): each request is recorded once",
                                           fix: "remove the repeated line (a line copied, or results appended twice)"))
                        continue
                    }
                    try body(result)
                case let .skipped(diagnostic): skipped(diagnostic)
                case .empty: continue
                }
            }
        }
    }

    /// Lines decoded together: enough that handing them to the cores costs little beside
    /// decoding them (a few megabytes of results.jsonl).
    static let batchSize = 4096

    /// `lines` decoded in order, each worker decoding a contiguous part with a decoder of its own.
    private static func decode(_ lines: [Line], workers: Int, url: URL) -> [Decoded] {
        let parts = min(workers, max(1, lines.count / 256))
        guard parts > 1 else {
            let decoder = LineDecoder(url: url)
            return lines.map { decoder.decode($0) }
        }
        let size = (lines.count + parts - 1) / parts
        let ranges = stride(from: 0, to: lines.count, by: size).map { $0..<min($0 + size, lines.count) }
        return concurrentMap(ranges) { range in
            let decoder = LineDecoder(url: url)
            return lines[range].map { decoder.decode($0) }
        }.flatMap { $0 }
    }

    /// A key and turn as two 64-bit hashes of different seeds: 16 bytes a result where the key
    /// would be tens, and two keys taken for one (so one result lost) about once in 2^128 pairs.
    struct RecordedTurn: Hashable, Sendable {
        var first: Int
        var second: Int

        init(_ result: RequestResult) {
            var first = Hasher(), second = Hasher()
            first.combine(result.key)
            first.combine(result.turn)
            second.combine(0x5EED_F00D)
            second.combine(result.turn)
            second.combine(result.key)
            self.first = first.finalize()
            self.second = second.finalize()
        }
    }

    /// One line of the file: its bytes (without the newline), its number from 1, and whether
    /// it is the last, which no newline ended.
    private struct Line: Sendable {
        var bytes: Data
        var number: Int
        var last: Bool
    }

    /// What one line held.
    private enum Decoded: Sendable {
        /// A result, and the identity of its key and turn (`RecordedTurn`), made where it was decoded.
        case result(RequestResult, RecordedTurn)
        /// Not a result: the warning that says so.
        case skipped(Diagnostic)
        /// An empty line.
        case empty
    }

    /// The lines of one file, a chunk of the file at a time, in file order.
    private struct LineSplitter {
        private let handle: FileHandle
        private var pending = Data()
        private var start: Data.Index
        private var atEnd = false
        private var number = 0

        init(_ url: URL) throws {
            handle = try FileHandle(forReadingFrom: url)
            start = pending.startIndex
        }

        /// The next line; nil at the end of the file, when it is closed. The piece after the
        /// last newline is a line too (empty when the file ends with a newline).
        mutating func next() throws -> Line? {
            while !atEnd {
                if let newline = Self.newline(in: pending, from: start) {
                    let line = pending[start..<newline]
                    start = newline + 1
                    number += 1
                    return Line(bytes: line, number: number, last: false)
                }
                pending = Data(pending[start...])
                start = pending.startIndex
                if let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                    pending.append(chunk)
                    continue
                }
                atEnd = true
                try? handle.close()
                number += 1
                return Line(bytes: pending, number: number, last: true)
            }
            return nil
        }

        /// The index of the first newline in `data` from `start`, found with `memchr`: Data's
        /// own `firstIndex(of:)` checks access to its storage at every byte.
        private static func newline(in data: Data, from start: Data.Index) -> Data.Index? {
            data.withUnsafeBytes { bytes -> Data.Index? in
                let offset = start - data.startIndex
                guard offset < bytes.count, let base = bytes.baseAddress,
                      let found = memchr(base + offset, 0x0A, bytes.count - offset) else { return nil }
                return data.startIndex + (UnsafeRawPointer(found) - base)
            }
        }
    }

    /// Decodes lines of one file: the fast decoder first, `JSONDecoder` when it declines.
    private struct LineDecoder {
        let url: URL
        let decoder: JSONDecoder
        let fast = ResultLineDecoder()

        init(url: URL) {
            self.url = url
            decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
        }

        /// The result on `line`, or the warning for a line that is not a result.
        func decode(_ line: Line) -> Decoded {
            guard !line.bytes.isEmpty else { return .empty }
            do {
                // The fast decoder reads what it knows; JSONDecoder decides the rest and says what is wrong.
                let decoded = try fast.decode(line.bytes) ?? decoder.decode(RequestResult.self, from: line.bytes)
                // Figures no clock or server could give (a file edited by hand) are read as unknown;
                // a result without one is not copied to find that out.
                let result = decoded.hasUnfitFigures ? decoded.withFiniteFigures() : decoded
                return .result(result, RecordedTurn(result))
            } catch {
                let torn = line.last ? "a torn last line" : ResultStore.notAResult
                // Foundation on Linux calls any value of the wrong type "not valid JSON", with no path.
                let why = (try? JSONDocument(data: line.bytes, file: url.path)) != nil && ResultStore.describe(error).hasPrefix("The given data was not valid JSON")
                    ? "the line is valid JSON, but a value in it is not of the type a result holds (a count that is not a whole number, a date in another form)"
                    : ResultStore.describe(error)
                return .skipped(Diagnostic(file: url.path, location: SourceLocation(line: line.number, column: 1),
                                           message: "\(torn), skipped (\(line.bytes.count) bytes): \(why)",
                                           fix: "nothing to do: a resumed run sends that request again; remove the line to silence this"))
            }
        }
    }

    /// How a skipped line before the last begins its message: the file was edited or damaged there.
    static let notAResult = "not a result line"

    /// Whether `diagnostic` is a skipped line before the last that is not a result (not a torn
    /// last line, nor a repeated result).
    package static func isDamagedLine(_ diagnostic: Diagnostic) -> Bool { diagnostic.message.hasPrefix(notAResult) }

    /// Prints a skipped line's warning on standard error.
    package static func warn(_ diagnostic: Diagnostic) {
        let text = diagnostic.description.replacingOccurrences(of: ": error: ", with: ": warning: ")
        FileHandle.standardError.write(Data("evalbench: \(text)\n".utf8))
    }

    /// Truncates the file after its last newline, when its last line has no newline.
    private static func cutTornTail(_ handle: FileHandle) throws {
        let end = try handle.seekToEnd()
        guard end > 0 else { return }
        var position = end
        let chunk: UInt64 = 64 * 1024
        while position > 0 {
            let start = position > chunk ? position - chunk : 0
            try handle.seek(toOffset: start)
            let data = try handle.read(upToCount: Int(position - start)) ?? Data()
            if position == end, data.last == 0x0A { try handle.seekToEnd(); return }
            if let newline = data.lastIndex(of: 0x0A) {
                try handle.truncate(atOffset: start + UInt64(newline - data.startIndex) + 1)
                try handle.seekToEnd()
                return
            }
            position = start
        }
        try handle.truncate(atOffset: 0)
    }

    /// An error in a few words: decoding errors say what was wrong, not Swift's type dump.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let DecodingError.dataCorrupted(context):
            // Where in the line, when the decoder knows: `usage.input_tokens: ... does not fit in Int`.
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        case let DecodingError.keyNotFound(key, _): return "no \"\(key.stringValue)\""
        case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context):
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        case let EncodingError.invalidValue(_, context):
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default:
            // The system's own words (ENOSPC: "No space left on device"), when it gave them.
            let nsError = error as NSError
            if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
            // `as? NSError` finds no underlying error on Linux: it is held as a Swift error.
            if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? any Error,
               (underlying as NSError).domain == NSPOSIXErrorDomain {
                return String(cString: strerror(Int32((underlying as NSError).code)))
            }
            return nsError.localizedDescription
        }
    }
}

/// Makes equal strings of the results read share one buffer: a prompt, an instruction or an
/// assertion's name repeated over backends, levels and repeats is held once, not once per
/// result. The values are unchanged, so every figure is too.
struct StringInterner {
    private var seen: [String: String] = [:]
    private var tagSets: [[String]: [String]] = [:]
    private var verdictSets: [[AssertionResult]: [AssertionResult]] = [:]

    mutating func shared(_ text: String) -> String {
        // Up to 15 UTF-8 bytes a String holds its text inline: nothing to share.
        guard text.utf8.count > 15 else { return text }
        if let existing = seen[text] { return existing }
        seen[text] = text
        return text
    }

    mutating func shared(_ text: String?) -> String? { text.map { shared($0) } }

    /// Results that passed (or failed) the same way carry the same verdicts: one array for
    /// them all, a few hundred bytes a result less.
    mutating func shared(assertions: [AssertionResult]) -> [AssertionResult] {
        guard !assertions.isEmpty else { return assertions }
        if let existing = verdictSets[assertions] { return existing }
        var interned = assertions
        for index in interned.indices {
            interned[index].type = shared(interned[index].type)
            interned[index].name = shared(interned[index].name)
            interned[index].expected = shared(interned[index].expected)
        }
        verdictSets[interned] = interned
        return interned
    }

    /// A case's tags come with each of its results: one array for them all, not one each.
    mutating func shared(tags: [String]) -> [String] {
        guard !tags.isEmpty else { return tags }
        if let existing = tagSets[tags] { return existing }
        let interned = tags.map { shared($0) }
        tagSets[interned] = interned
        return interned
    }

    mutating func shared(_ result: RequestResult) -> RequestResult {
        var result = result
        result.suite = shared(result.suite)
        result.caseID = shared(result.caseID)
        result.variant = shared(result.variant)
        result.backend = shared(result.backend)
        result.model = shared(result.model)
        result.instructions = shared(result.instructions)
        result.prompt = shared(result.prompt)
        result.errorMessage = shared(result.errorMessage)
        result.tags = shared(tags: result.tags)
        result.assertions = shared(assertions: result.assertions)
        return result
    }
}

/// A result that could not be written to `results.jsonl`: the run stops sending, keeps what
/// was written, and exits 3 with this message.
package struct ResultWriteFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package var path: String
    package var key: String
    package var turn: Int
    package var cause: String

    package var description: String {
        "could not write the result of \(key) turn \(turn) to \(path): \(cause); the run stopped sending requests, and every result written before is kept"
    }
}
