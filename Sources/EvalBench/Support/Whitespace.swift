import Foundation

extension Substring {
    /// The same as `trimmingCharacters(in: .whitespaces)`, without Foundation's round trip
    /// through NSString when both ends are ASCII (space and tab are the set's only ASCII
    /// members): that round trip was a tenth of the CPU of a request at concurrency 256, spent
    /// on every SSE event and response header.
    func trimmingWhitespace() -> String {
        let bytes = utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start = bytes.index(after: start) }
        while start < end {
            let last = bytes.index(before: end)
            guard bytes[last] == 0x20 || bytes[last] == 0x09 else { break }
            end = last
        }
        guard start < end else { return "" }
        if bytes[start] >= 0x80 || bytes[bytes.index(before: end)] >= 0x80 { return trimmingCharacters(in: .whitespaces) }
        // Only ASCII bytes were skipped, so both indices fall on character boundaries.
        return String(self[start..<end])
    }
}

extension String {
    /// `trimmingCharacters(in: .whitespaces)`, fast when the ends are ASCII; see `Substring`'s.
    func trimmingWhitespace() -> String { self[...].trimmingWhitespace() }
}

extension String {
    /// Whether this is empty or only whitespace and line breaks: a prompt or a template that
    /// says nothing.
    var isBlank: Bool { trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
}
