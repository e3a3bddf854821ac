import Foundation

/// One server-sent event: its type (`event:`), its data lines joined with "\n", and the
/// `id:` and `retry:` values in force when it was dispatched.
package struct SSEEvent: Sendable, Equatable {
    /// The `event:` field, or nil when the event had none (the default "message" type).
    package var event: String?
    /// The `data:` lines of the event joined with "\n".
    package var data: String
    /// The last event ID: the most recent `id:` field of the stream, which persists across events.
    package var id: String?
    /// The reconnection time in milliseconds, when the event carried a valid `retry:` field.
    package var retry: Int?

    package init(event: String? = nil, data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}

/// An incremental parser for `text/event-stream` bodies, following the WHATWG rules.
///
/// Feed it the body bytes as they arrive, in pieces of any size; it returns the events
/// that each piece completes. Line ends may be LF, CRLF or CR, split anywhere, and a
/// UTF-8 character may be split across pieces. Each byte is examined once, so the cost
/// is linear in the body size however it is split.
///
/// At the end of the stream an event not ended by a blank line is incomplete and is
/// discarded, as the standard says (`finish()`). One choice goes beyond the standard, to keep
/// information a backend needs: an event that names a type (`event: ping`) is dispatched even
/// with no data.
package struct SSEParser: Sendable {
    private static let lineFeed: UInt8 = 0x0A
    private static let carriageReturn: UInt8 = 0x0D

    /// The bytes of a line whose end has not arrived yet.
    private var partialLine: [UInt8] = []
    /// The previous piece ended in CR, so an LF opening the next piece ends no line.
    private var lastPieceEndedInCarriageReturn = false
    private var fields = EventFields()

    package init() {}

    /// Parses the next piece of the body and returns the events it completes.
    package mutating func feed(_ bytes: Data) -> [SSEEvent] {
        var events: [SSEEvent] = []
        // A streamed answer's piece usually completes a few events: room for them at once.
        if !bytes.isEmpty { events.reserveCapacity(4) }
        bytes.withUnsafeBytes { (piece: UnsafeRawBufferPointer) in
            var index = 0
            if lastPieceEndedInCarriageReturn, !piece.isEmpty {
                lastPieceEndedInCarriageReturn = false
                if piece[0] == Self.lineFeed { index = 1 }
            }
            var lineStart = index
            while index < piece.count {
                let byte = piece[index]
                guard byte == Self.lineFeed || byte == Self.carriageReturn else {
                    index += 1
                    continue
                }
                let tail = UnsafeRawBufferPointer(rebasing: piece[lineStart..<index])
                if partialLine.isEmpty {
                    fields.take(line: tail, into: &events)
                } else {
                    partialLine.append(contentsOf: tail)
                    partialLine.withUnsafeBytes { fields.take(line: $0, into: &events) }
                    partialLine.removeAll(keepingCapacity: true)
                }
                index += 1
                if byte == Self.carriageReturn {
                    if index == piece.count {
                        lastPieceEndedInCarriageReturn = true
                    } else if piece[index] == Self.lineFeed {
                        index += 1
                    }
                }
                lineStart = index
            }
            partialLine.append(contentsOf: UnsafeRawBufferPointer(rebasing: piece[lineStart...]))
        }
        return events
    }

    /// Ends the stream. An event still being assembled (no blank line after it) and an
    /// unterminated last line are discarded, per the WHATWG standard ("If the file ends in the
    /// middle of an event, before the final empty line, the incomplete event is not
    /// dispatched"). Returns whether anything but line ends was discarded. The parser is then
    /// ready for a new stream.
    @discardableResult
    package mutating func finish() -> Bool {
        let discarded = !partialLine.isEmpty || fields.isPending
        self = SSEParser()
        return discarded
    }
}

/// The field buffers of the event being assembled, and the state that outlives one event.
private struct EventFields: Sendable {
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let colon = UInt8(ascii: ":")
    private static let space = UInt8(ascii: " ")

    private var isFirstLine = true
    private var eventType: String?
    private var data = ""
    private var hasData = false
    private var lastEventID: String?
    private var retry: Int?

    /// Interprets one line (without its line end); a blank line dispatches the event.
    mutating func take(line rawLine: UnsafeRawBufferPointer, into events: inout [SSEEvent]) {
        var line = rawLine
        if isFirstLine {
            isFirstLine = false
            if line.starts(with: Self.byteOrderMark) {
                line = UnsafeRawBufferPointer(rebasing: line[Self.byteOrderMark.count...])
            }
        }
        if line.isEmpty {
            dispatch(into: &events)
            return
        }
        if line[0] == Self.colon { return }

        let name: UnsafeRawBufferPointer
        var value: UnsafeRawBufferPointer
        if let colonIndex = line.firstIndex(of: Self.colon) {
            name = UnsafeRawBufferPointer(rebasing: line[..<colonIndex])
            value = UnsafeRawBufferPointer(rebasing: line[(colonIndex + 1)...])
            if value.first == Self.space {
                value = UnsafeRawBufferPointer(rebasing: value[1...])
            }
        } else {
            name = line
            value = UnsafeRawBufferPointer(start: nil, count: 0)
        }
        apply(field: name, value: value)
    }

    private mutating func apply(field name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        if name.elementsEqual("data".utf8) {
            if hasData { data.append("\n") }
            data.append(String(decoding: value, as: UTF8.self))
            hasData = true
        } else if name.elementsEqual("event".utf8) {
            eventType = String(decoding: value, as: UTF8.self)
        } else if name.elementsEqual("id".utf8) {
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        } else if name.elementsEqual("retry".utf8) {
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }) {
                retry = Int(String(decoding: value, as: UTF8.self))
            }
        }
    }

    /// Whether a field of an event has been read since the last dispatch.
    var isPending: Bool { hasData || eventType != nil || retry != nil }

    /// Dispatches the assembled event, if it has data or a type, and clears the per-event buffers.
    mutating func dispatch(into events: inout [SSEEvent]) {
        let type = eventType.flatMap { $0.isEmpty ? nil : $0 }
        if hasData || type != nil {
            events.append(SSEEvent(event: type, data: data, id: lastEventID, retry: retry))
        }
        eventType = nil
        data = ""
        hasData = false
        retry = nil
    }
}
