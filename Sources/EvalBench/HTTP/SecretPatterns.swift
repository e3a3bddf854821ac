import Foundation

/// Finds a request's secrets in what a server sent back, in the forms a server echoes them in,
/// on the text's UTF-8 bytes: as they are, percent-encoded (`%2F`, `+` for a space),
/// JSON-escaped (`\u0073`, `\/`), in base64 (any alignment, standard or URL-safe alphabet),
/// and, in messages, cut short (a prefix of at least `partialMinimum` bytes that a clip mark,
/// `…`, follows: what `ServerText.clip` leaves of a secret it cut through). Answers are not
/// searched for cut secrets: "my teddy Bear…" must not lose "Bear" to `Bearer KEY`.
///
/// Bytes, not `Character`s: Swift compares strings by grapheme cluster, so a key followed by a
/// combining mark (`KEY\u{301}`) did not contain `KEY`, and the whole key was kept.
struct SecretPatterns: Sendable {
    /// Each secret's bytes, longest first, then the base64 forms of each.
    private let patterns: [[UInt8]]
    /// The secrets alone (no base64 forms), longest first: the ones a clip may cut.
    private let secrets: [[UInt8]]
    /// Whether a byte may begin a match: a pattern's first byte, or an escape's.
    private let starts: [Bool]

    /// The shortest prefix of a cut secret that is redacted: shorter ones (`sk-`) say nothing.
    static let partialMinimum = 4
    /// The shortest base64 form looked for: shorter runs occur by chance in ordinary text.
    static let base64Minimum = 16

    init(_ secrets: [String]) {
        let bytes = secrets.map { Array($0.utf8) }.filter { !$0.isEmpty }
        self.secrets = bytes
        var patterns = bytes
        var seen = Set(bytes)
        for secret in bytes {
            for form in Self.base64Forms(of: secret) where seen.insert(form).inserted { patterns.append(form) }
        }
        self.patterns = patterns
        var starts = [Bool](repeating: false, count: 256)
        for pattern in patterns { starts[Int(pattern[0])] = true }
        for escape in ["%", "\\", "+"] { starts[Int(escape.utf8.first!)] = true }
        self.starts = starts
    }

    var isEmpty: Bool { patterns.isEmpty }

    /// `text` with every match replaced by `mark`; `text` itself when nothing matched. With
    /// `clipped`, a secret cut short before a clip mark goes too.
    func redact(_ text: String, mark: String, clipped: Bool = false) -> String {
        guard !patterns.isEmpty, !text.isEmpty else { return text }
        var text = text
        let ranges = text.withUTF8 { matches(in: $0, clipped: clipped) }
        guard !ranges.isEmpty else { return text }
        return text.withUTF8 { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var at = 0
            for range in ranges {
                out.append(contentsOf: bytes[at..<range.lowerBound])
                out.append(contentsOf: mark.utf8)
                at = range.upperBound
            }
            out.append(contentsOf: bytes[at...])
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// The byte ranges to replace, in order and not overlapping.
    private func matches(in text: UnsafeBufferPointer<UInt8>, clipped: Bool) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var index = 0
        while index < text.count {
            if starts[Int(text[index])], let end = patterns.lazy.compactMap({ Self.match($0, in: text, from: index) }).first {
                found.append(index..<end)
                index = end
            } else {
                index += 1
            }
        }
        guard clipped else { return found }
        // A secret cut short, before each clip mark.
        var cuts: [Int] = []
        let clip = Array(ServerText.clipMark.utf8)
        var at = 0
        while at + clip.count <= text.count {
            if text[at] == clip[0] && (1..<clip.count).allSatisfy({ text[at + $0] == clip[$0] }) { cuts.append(at) }
            at += 1
        }
        for cut in cuts {
            guard let start = partialStart(endingAt: cut, in: text),
                  !found.contains(where: { $0.overlaps(start..<cut) }) else { continue }
            found.append(start..<cut)
        }
        return found.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// Where the longest prefix of a secret (at least `partialMinimum` bytes, not all of it)
    /// that ends exactly at `end` begins, if one does.
    private func partialStart(endingAt end: Int, in text: UnsafeBufferPointer<UInt8>) -> Int? {
        var earliest: Int?
        for secret in secrets where secret.count > Self.partialMinimum {
            // An escaped byte takes at most 6 (`\u0073`).
            let window = min(end, secret.count.multipliedReportingOverflow(by: 6).partialValue)
            for start in stride(from: end - window, to: end - Self.partialMinimum + 1, by: 1)
            where start >= 0 && (text[start] == secret[0] || text[start] == UInt8(ascii: "%") || text[start] == UInt8(ascii: "\\")) {
                var position = start, matched = 0
                while matched < secret.count - 1, position < end,
                      let next = Self.step(secret[matched], in: text, at: position, limit: end) {
                    position = next
                    matched += 1
                }
                if position == end && matched >= Self.partialMinimum {
                    earliest = min(earliest ?? start, start)
                    break
                }
            }
        }
        return earliest
    }

    /// Where a match of `pattern` that begins at `start` ends, if one does.
    private static func match(_ pattern: [UInt8], in text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var position = start
        for byte in pattern {
            guard let next = step(byte, in: text, at: position, limit: text.count) else { return nil }
            position = next
        }
        return position
    }

    /// Where `byte`, as itself or escaped, ends if it is at `position` (before `limit`).
    private static func step(_ byte: UInt8, in text: UnsafeBufferPointer<UInt8>, at position: Int, limit: Int) -> Int? {
        guard position < limit else { return nil }
        let here = text[position]
        if here == byte || (byte == UInt8(ascii: " ") && here == UInt8(ascii: "+")) { return position + 1 }
        if here == UInt8(ascii: "%"), position + 2 < limit,
           let high = hexValue(text[position + 1]), let low = hexValue(text[position + 2]), high << 4 | low == byte {
            return position + 3
        }
        guard here == UInt8(ascii: "\\"), position + 1 < limit else { return nil }
        let escaped = text[position + 1]
        if escaped == byte && (byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"")) {
            return position + 2
        }
        guard escaped == UInt8(ascii: "u"), byte < 0x80, position + 5 < limit else { return nil }
        var value: UInt16 = 0
        for offset in 2...5 {
            guard let digit = hexValue(text[position + offset]) else { return nil }
            value = value << 4 | UInt16(digit)
        }
        return value == UInt16(byte) ? position + 6 : nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The parts of `secret`'s base64 encoding that are the same wherever it sits in what is
    /// encoded (each of the 3 alignments; groups of 3 bytes that are all the secret's), in the
    /// standard and the URL-safe alphabet, when at least `base64Minimum` characters long.
    static func base64Forms(of secret: [UInt8]) -> [[UInt8]] {
        var forms: [[UInt8]] = []
        for shift in 0..<3 {
            let padded = [UInt8](repeating: 0, count: shift) + secret
            let encoded = Array(Data(padded).base64EncodedString().utf8)
            let firstGroup = shift == 0 ? 0 : 1
            let fullGroups = padded.count / 3
            guard fullGroups > firstGroup else { continue }
            let core = Array(encoded[(firstGroup * 4)..<(fullGroups * 4)])
            guard core.count >= base64Minimum else { continue }
            forms.append(core)
            let urlSafe = core.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 }
            if urlSafe != core { forms.append(urlSafe) }
        }
        return forms
    }
}

/// Text a server sent, shortened for a message.
enum ServerText {
    /// What ends text cut short: the redactor looks before it for a secret cut through.
    static let clipMark = "…"

    /// `text`'s first `limit` characters, and `clipMark` when there were more.
    static func clip<Text: StringProtocol>(_ text: Text, _ limit: Int) -> String {
        text.count > limit ? String(text.prefix(limit)) + clipMark : String(text)
    }

    /// The same for bytes (UTF-8, repaired), of which only the first few times `limit` are read.
    static func clip<Bytes: Collection<UInt8>>(bytes: Bytes, _ limit: Int) -> String {
        // A character is seldom more than 4 bytes; when one is, fewer characters are shown.
        let read = limit.multipliedReportingOverflow(by: 4).partialValue
        let head = String(decoding: bytes.prefix(read), as: UTF8.self)
        return head.count > limit || bytes.count > read ? String(head.prefix(limit)) + clipMark : head
    }
}
