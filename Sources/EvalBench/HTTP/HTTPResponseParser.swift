import Foundation

/// An HTTP/1.1 response read incrementally: the head (1xx heads skipped), then the body by
/// `Transfer-Encoding: chunked`, `Content-Length`, or the end of the connection. Once it is
/// complete, `leavesConnectionReusable` says whether the connection may carry another request.
struct HTTPResponseParser {
    struct Head: Equatable {
        var status: Int
        /// Lowercased names; repeated fields joined with ", ".
        var headers: [String: String]
        /// HTTP/1.0 (which closes the connection unless it says keep-alive).
        var isHTTP10 = false
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
        /// `bad_request` for what the server does every time (a compressed body, lengths that
        /// differ): sending again would not help; `network` for a response garbled on its way.
        var isServersDoing = false
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
    /// Bytes arrived past the end of the response: nothing this client sent asked for them.
    private var extraBytes = false

    /// The response is complete, its end was framed (not the close of the connection), nothing
    /// followed it, and neither its version nor its `Connection` header closes the connection.
    var leavesConnectionReusable: Bool {
        guard done, !extraBytes, pending.isEmpty, let head else { return false }
        if case .untilClose = framing { return false }
        let connection = head.headers["connection"] ?? ""
        if Self.has(connection, "close") { return false }
        return !head.isHTTP10 || Self.has(connection, "keep-alive")
    }

    /// The head once it was read, even when what followed it in the same read was malformed.
    var parsedHead: Head? { head }

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
            if !bytes.isEmpty { extraBytes = true }
        case .untilClose:
            output.body.append(contentsOf: bytes)
        case .length:
            let take = min(remainingLength, bytes.count)
            output.body.append(contentsOf: bytes.prefix(take))
            remainingLength -= take
            if remainingLength == 0 { done = true }
            if take < bytes.count { extraBytes = true }
        case .chunked:
            try decodeChunked(bytes, into: &output)
        }
    }

    private mutating func decodeChunked(_ bytes: some Collection<UInt8>, into output: inout Output) throws {
        pending.append(contentsOf: bytes)
        var index = 0
        defer {
            pending.removeFirst(index)
            if done && !pending.isEmpty { extraBytes = true }
        }
        while index < pending.count && !done {
            switch chunk {
            case .size:
                guard let lineEnd = Self.lineEnd(in: pending, from: index) else {
                    if pending.count - index > 1024 { throw Malformed(reason: "a chunk size line over 1 KiB") }
                    return
                }
                guard let size = Self.chunkSize(pending[index..<lineEnd]) else {
                    throw Malformed(reason: Self.hasLongHexRun(pending[index..<lineEnd])
                        ? "a chunk size over 15 hexadecimal digits, beyond any body evalbench accepts"
                        : "a chunk size that is not hexadecimal")
                }
                index = lineEnd + 2
                chunk = size == 0 ? .trailer : .data(remaining: size)
            case let .data(remaining):
                let take = min(remaining, pending.count - index)
                // The body of one read is usually several chunks (an SSE event each): room for them all at once.
                if output.body.isEmpty { output.body = Data(capacity: pending.count - index) }
                // Appended from a buffer pointer: `Data`'s generic append allocated each time.
                pending.withUnsafeBufferPointer { output.body.append(UnsafeBufferPointer(rebasing: $0[index..<index + take])) }
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

    /// The size a chunk-size line gives (RFC 9112 §7.1: hexadecimal digits, then optional
    /// whitespace and `;extensions`), read from its bytes; nil when it gives none, or one
    /// beyond 15 significant digits (an exabyte).
    static func chunkSize(_ line: ArraySlice<UInt8>) -> Int? {
        var size = 0
        var seen = false
        // Significant digits: leading zeros are allowed, however many.
        var digits = 0
        var index = line.startIndex
        while index < line.endIndex, line[index] == 0x20 || line[index] == 0x09 { index += 1 }
        while index < line.endIndex {
            let byte = line[index]
            let value: Int
            switch byte {
            case 0x30...0x39: value = Int(byte - 0x30)
            case 0x41...0x46: value = Int(byte - 0x41 + 10)
            case 0x61...0x66: value = Int(byte - 0x61 + 10)
            default: value = -1
            }
            if value < 0 { break }
            seen = true
            if size > 0 || value > 0 { digits += 1 }
            guard digits <= 15 else { return nil }
            size = size << 4 | value
            index += 1
        }
        guard seen else { return nil }
        while index < line.endIndex, line[index] == 0x20 || line[index] == 0x09 { index += 1 }
        return index == line.endIndex || line[index] == UInt8(ascii: ";") ? size : nil
    }

    /// Whether a chunk-size line is hexadecimal with more significant digits than `chunkSize` reads.
    static func hasLongHexRun(_ line: ArraySlice<UInt8>) -> Bool {
        let digits = line.prefix { $0 != UInt8(ascii: ";") }.filter { $0 != 0x20 && $0 != 0x09 }.drop { $0 == 0x30 }
        return digits.count > 15 && digits.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether the header value `value` holds `token` (lower-case ASCII), in any case: read
    /// from its bytes, where lower-casing the value and Foundation's `contains` allocated
    /// three times for each response.
    static func has(_ value: String, _ token: StaticString) -> Bool {
        let wanted = UnsafeRawBufferPointer(start: token.utf8Start, count: token.utf8CodeUnitCount)
        var utf8 = value
        return utf8.withUTF8 { bytes in
            guard bytes.count >= wanted.count else { return false }
            for start in 0...(bytes.count - wanted.count) {
                var index = 0
                while index < wanted.count {
                    let byte = bytes[start + index]
                    let lowered = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
                    if lowered != wanted[index] { break }
                    index += 1
                }
                if index == wanted.count { return true }
            }
            return false
        }
    }

    private static func framing(_ head: Head, method: String) throws -> Framing {
        if method == "HEAD" || head.status == 204 || head.status == 304 { return .none }
        // evalbench asks for none (`Accept-Encoding: identity`) and decodes none: a compressed
        // answer would reach the SSE parser as bytes it cannot read. An error's status says
        // enough without its body (a 401, a 429 and its Retry-After), so only a 2xx is refused.
        if (200..<300).contains(head.status), let coding = head.headers["content-encoding"],
           !coding.split(separator: ",").allSatisfy({ $0.trimmingWhitespace().lowercased() == "identity" }) {
            throw Malformed(reason: "a body compressed with Content-Encoding: \(coding.prefix(40)), which evalbench asked not to get (Accept-Encoding: identity)",
                            isServersDoing: true)
        }
        if let encoding = head.headers["transfer-encoding"], has(encoding, "chunked") { return .chunked }
        if let text = head.headers["content-length"] {
            // Repeated fields are joined with ", " (RFC 9112 §6.3: equal values are one length; different ones frame nothing).
            let values = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingWhitespace()) }
            guard let first = values.first, let length = first, length >= 0 else {
                throw Malformed(reason: "a Content-Length that is not a number")
            }
            guard values.allSatisfy({ $0 == length }) else {
                throw Malformed(reason: "Content-Length values that differ (\(text.prefix(60)))", isServersDoing: true)
            }
            return length == 0 ? .none : .length(length)
        }
        return .untilClose
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws -> Head {
        // Line by line over the bytes: the status line, then `name: value` fields.
        var lines: [Range<Int>] = []
        lines.reserveCapacity(16)
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 13, index + 1 < bytes.endIndex, bytes[index + 1] == 10 {
                lines.append(lineStart..<index)
                index += 2
                lineStart = index
            } else {
                index += 1
            }
        }
        lines.append(lineStart..<bytes.endIndex)
        let statusLine = String(decoding: bytes[lines[0]], as: UTF8.self)
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...999).contains(status) else {
            throw Malformed(reason: "a status line that is not HTTP/1.x")
        }
        var headers = [String: String](minimumCapacity: lines.count)
        for range in lines.dropFirst() where !range.isEmpty {
            let (name, value) = try field(bytes[range])
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return Head(status: status, headers: headers, isHTTP10: parts[0] == "HTTP/1.0")
    }

    /// A header line's name (lower-cased) and value (trimmed of spaces and tabs). An ASCII line,
    /// which every real header is, is read from its bytes; any other goes through `String`,
    /// whose characters (a colon with a combining mark is not a colon) and case rules differ.
    private static func field(_ line: ArraySlice<UInt8>) throws -> (name: String, value: String) {
        guard line.allSatisfy({ $0 < 0x80 }) else {
            let text = String(decoding: line, as: UTF8.self)
            guard let colon = text.firstIndex(of: ":") else { throw Malformed(reason: "a header line without a colon") }
            return (text[..<colon].trimmingWhitespace().lowercased(), text[text.index(after: colon)...].trimmingWhitespace())
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw Malformed(reason: "a header line without a colon") }
        func trimmed(_ part: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            var part = part
            while let first = part.first, first == 0x20 || first == 0x09 { part = part.dropFirst() }
            while let last = part.last, last == 0x20 || last == 0x09 { part = part.dropLast() }
            return part
        }
        let name = trimmed(line[..<colon]).map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        return (String(decoding: name, as: UTF8.self), String(decoding: trimmed(line[(colon + 1)...]), as: UTF8.self))
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
