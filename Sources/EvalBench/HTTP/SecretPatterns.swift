import Foundation

/// Finds a request's secrets in what a server sent back, in the forms a server echoes them in,
/// on the text's UTF-8 bytes: as they are, percent-encoded (`%2F`, `+` for a space),
/// JSON-escaped (`\u0073`, `\/`), in base64 (any alignment, standard or URL-safe alphabet),
/// and, in messages, cut short (a prefix of at least `partialMinimum` bytes that a clip mark,
/// `…`, follows: what `ServerText.clip` leaves of a secret it cut through). Answers are not
/// searched for cut secrets: "my teddy Bear…" must not lose "Bear" to `Bearer KEY`. In both,
/// any run of `fragmentMinimum` or more of a secret's bytes as they are goes too: a key echoed
/// with its start or its end cut off still gives most of it away.
///
/// Bytes, not `Character`s: Swift compares strings by grapheme cluster, so a key followed by a
/// combining mark (`KEY\u{301}`) did not contain `KEY`, and the whole key was kept.
struct SecretPatterns: Sendable {
    /// Each secret's bytes, longest first, then the base64 forms of each.
    private let patterns: [[UInt8]]
    /// How many of `patterns` are secrets themselves (the rest are base64 forms).
    private let secretCount: Int
    /// The patterns a byte may begin a match of, by that byte: those whose first byte it is,
    /// and every pattern for an escape's first byte (`%`, `\`, `+`).
    private let candidates: [[Int]]

    /// The shortest prefix of a cut secret that is redacted: shorter ones (`sk-`) say nothing.
    static let partialMinimum = 4
    /// The shortest base64 form looked for, whole or cut: shorter runs occur by chance in
    /// ordinary text.
    static let base64Minimum = 16
    static let base64PartialMinimum = 8
    /// The shortest run of a secret's bytes found anywhere on its own: 16 bytes of a key do not
    /// occur in ordinary text by chance. Secrets no longer than it are only found whole.
    static let fragmentMinimum = 16
    /// The fewest different bytes such a run holds.
    static let fragmentDistinctMinimum = 8
    /// For each byte, where a run of `fragmentMinimum` bytes of a longer secret may begin with
    /// it: the secret's index in `patterns`, and the position in it.
    private let fragmentStarts: [[(pattern: Int, position: Int)]]
    /// Whether any secret is long enough for its runs to be looked for: most answers of a
    /// backend with a short secret are not scanned again.
    private let findsFragments: Bool

    init(_ secrets: [String]) {
        let bytes = secrets.map { Array($0.utf8) }.filter { !$0.isEmpty }.sorted { $0.count > $1.count }
        var patterns = bytes
        var seen = Set(bytes)
        for secret in bytes {
            for form in Self.base64Forms(of: secret) where seen.insert(form).inserted { patterns.append(form) }
        }
        self.patterns = patterns
        secretCount = bytes.count
        var candidates = [[Int]](repeating: [], count: 256)
        for (index, pattern) in patterns.enumerated() { candidates[Int(pattern[0])].append(index) }
        for escape in ["%", "\\", "+"] { candidates[Int(escape.utf8.first!)] = Array(patterns.indices) }
        self.candidates = candidates
        var starts = [[(pattern: Int, position: Int)]](repeating: [], count: 256)
        for (index, secret) in bytes.enumerated() where secret.count > Self.fragmentMinimum {
            for position in 0...(secret.count - Self.fragmentMinimum) { starts[Int(secret[position])].append((index, position)) }
        }
        fragmentStarts = starts
        findsFragments = bytes.contains { $0.count > Self.fragmentMinimum }
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

    /// The byte ranges to replace, in order and not overlapping: whole secrets in any form
    /// (`wholeMatches`), then runs of a secret's bytes among what is left.
    private func matches(in text: UnsafeBufferPointer<UInt8>, clipped: Bool) -> [Range<Int>] {
        let whole = wholeMatches(in: text, clipped: clipped)
        let runs = findsFragments ? fragments(in: text, outside: whole) : []
        return runs.isEmpty ? whole : (whole + runs).sorted { $0.lowerBound < $1.lowerBound }
    }

    /// Runs of `fragmentMinimum` or more bytes of a secret, as they are, outside `taken` (in
    /// order): the longest that begins at each place.
    private func fragments(in text: UnsafeBufferPointer<UInt8>, outside taken: [Range<Int>]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var next = 0
        // Where the stretch of text outside `taken` that holds `index` begins.
        var stretchStart = 0
        var index = 0
        while index + Self.fragmentMinimum <= text.count {
            while next < taken.count, taken[next].upperBound <= index { next += 1 }
            if next < taken.count, taken[next].lowerBound <= index {
                index = taken[next].upperBound
                stretchStart = index
                continue
            }
            let limit = next < taken.count ? taken[next].lowerBound : text.count
            var longest = 0
            for (pattern, position) in fragmentStarts[Int(text[index])] {
                let secret = patterns[pattern]
                // A run the byte before continues was measured from there, whole.
                if position > 0, index > stretchStart, text[index - 1] == secret[position - 1] { continue }
                var length = 0
                while index + length < limit, position + length < secret.count, text[index + length] == secret[position + length] {
                    length += 1
                }
                longest = max(longest, length)
            }
            // Spaces at its ends are of `Bearer KEY`'s, not of the key, and stay in the text.
            var run = index..<index + longest
            while let first = run.first, text[first] == 0x20 || text[first] == 0x09 { run = run.dropFirst() }
            while let last = run.last, text[last] == 0x20 || text[last] == 0x09 { run = run.dropLast() }
            if run.count >= Self.fragmentMinimum, Self.isVaried(text, run) {
                found.append(run)
                index += longest
                // What follows a run was not measured from before it.
                stretchStart = index
            } else {
                index += 1
            }
        }
        return found
    }

    /// Whether `range` of `text` holds `fragmentDistinctMinimum` different bytes or more: a run of
    /// a key is random, a run of one byte (`----------------`) says nothing of it.
    private static func isVaried(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var seen = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        var distinct = 0
        for byte in text[range] {
            let bit = UInt64(1) << UInt64(byte & 63)
            let was: Bool
            switch byte >> 6 {
            case 0: was = seen.0 & bit != 0; seen.0 |= bit
            case 1: was = seen.1 & bit != 0; seen.1 |= bit
            case 2: was = seen.2 & bit != 0; seen.2 |= bit
            default: was = seen.3 & bit != 0; seen.3 |= bit
            }
            if !was { distinct += 1 }
            if distinct >= fragmentDistinctMinimum { return true }
        }
        return false
    }

    /// Whole secrets in every form, and with `clipped` those cut short before a clip mark.
    private func wholeMatches(in text: UnsafeBufferPointer<UInt8>, clipped: Bool) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var index = 0
        search: while index < text.count {
            for candidate in candidates[Int(text[index])] {
                if let end = Self.match(patterns[candidate], 0, in: text, from: index, limit: text.count), end > index {
                    found.append(index..<end)
                    index = end
                    continue search
                }
            }
            index += 1
        }
        guard clipped else { return found }
        // A secret cut short, before each clip mark.
        let clip = Array(ServerText.clipMark.utf8)
        var at = 0
        while at + clip.count <= text.count {
            defer { at += 1 }
            guard text[at] == clip[0], (1..<clip.count).allSatisfy({ text[at + $0] == clip[$0] }),
                  let start = partialStart(endingAt: at, in: text),
                  !found.contains(where: { $0.overlaps(start..<at) }) else { continue }
            found.append(start..<at)
        }
        return found.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// Where the longest cut pattern that ends exactly at `end` begins, if one does: a prefix of
    /// a secret (at least `partialMinimum` bytes) or of a base64 form (`base64PartialMinimum`),
    /// not all of it; an escape the cut went through counts as matching.
    private func partialStart(endingAt end: Int, in text: UnsafeBufferPointer<UInt8>) -> Int? {
        var earliest: Int?
        for (index, pattern) in patterns.enumerated() {
            let minimum = index < secretCount ? Self.partialMinimum : Self.base64PartialMinimum
            guard pattern.count > minimum else { continue }
            // An escaped byte takes at most 6 (`\u0073`).
            let window = min(end, pattern.count.multipliedReportingOverflow(by: 6).partialValue)
            for start in stride(from: end - window, through: end - minimum, by: 1)
            where start >= 0 && candidates[Int(text[start])].contains(index) {
                if Self.cutMatch(pattern, in: text, from: start, end: end, minimum: minimum) {
                    earliest = min(earliest ?? start, start)
                    break
                }
            }
        }
        return earliest
    }

    /// Whether `minimum` or more (not all) of `pattern`'s bytes match from `start` to exactly `end`.
    private static func cutMatch(_ pattern: [UInt8], in text: UnsafeBufferPointer<UInt8>, from start: Int, end: Int, minimum: Int) -> Bool {
        var position = start, matched = 0
        while matched < pattern.count - 1, position < end {
            let next = step(pattern[matched], in: text, at: position, limit: end)
            guard let next = next.escaped ?? next.raw else {
                // The cut went through an escape (`%2`, `\u00`): what is left of it matches.
                return matched >= minimum && isUnfinishedEscape(in: text, from: position, to: end)
            }
            position = next
            matched += 1
        }
        return position == end && matched >= minimum
    }

    /// Where a match of `pattern` from its byte `index` on, beginning at `position`, ends, if
    /// one does. Where a byte may be read raw or as an escape (a `%` in a key sent as `%25`,
    /// a `\\` sent as `\\\\`), both readings are followed, as a set of positions, so that a run
    /// of them costs its length, not two to its power.
    private static func match(_ pattern: [UInt8], _ index: Int, in text: UnsafeBufferPointer<UInt8>, from position: Int, limit: Int) -> Int? {
        var position = position
        var index = index
        // One reading at a time, the usual case: no array is made.
        while index < pattern.count {
            let next = step(pattern[index], in: text, at: position, limit: limit)
            if let escaped = next.escaped, let raw = next.raw {
                return matchEither(pattern, index + 1, in: text, from: [escaped, raw], limit: limit)
            }
            guard let only = next.escaped ?? next.raw else { return nil }
            position = only
            index += 1
        }
        return position
    }

    /// `match` from several positions at once; the furthest end when several match.
    private static func matchEither(_ pattern: [UInt8], _ index: Int, in text: UnsafeBufferPointer<UInt8>, from start: [Int], limit: Int) -> Int? {
        var positions = start, next: [Int] = []
        for byte in pattern[index...] {
            next.removeAll(keepingCapacity: true)
            for position in positions {
                let step = step(byte, in: text, at: position, limit: limit)
                for end in [step.escaped, step.raw].compactMap({ $0 }) where !next.contains(end) { next.append(end) }
            }
            guard !next.isEmpty else { return nil }
            swap(&positions, &next)
        }
        return positions.max()
    }

    /// Where `byte` ends if it is at `position` (before `limit`), read as an escape and read
    /// raw: both only for a `%` or `\\` that is also an escape's start. (A tuple, not an array:
    /// this runs for every candidate byte of every answer.)
    private static func step(_ byte: UInt8, in text: UnsafeBufferPointer<UInt8>, at position: Int, limit: Int)
        -> (escaped: Int?, raw: Int?) {
        guard position < limit else { return (nil, nil) }
        let here = text[position]
        let raw = here == byte || (byte == UInt8(ascii: " ") && here == UInt8(ascii: "+")) ? position + 1 : nil
        if here == UInt8(ascii: "%"), position + 2 < limit,
           let high = hexValue(text[position + 1]), let low = hexValue(text[position + 2]), high << 4 | low == byte {
            return (position + 3, raw)
        }
        if here == UInt8(ascii: "\\") { return (jsonEscapeEnd(byte, in: text, at: position, limit: limit), raw) }
        return (nil, raw)
    }

    /// Where a JSON escape of `byte` (`\/`, `\\\\`, `\"`, `\u0073`) that begins at `position` ends.
    private static func jsonEscapeEnd(_ byte: UInt8, in text: UnsafeBufferPointer<UInt8>, at position: Int, limit: Int) -> Int? {
        guard position + 1 < limit else { return nil }
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

    /// Whether the bytes from `start` to `end` are the beginning of an escape cut short: `%`,
    /// `%X`, `\\`, `\\u`, `\\uX`, `\\uXX` or `\\uXXX`.
    private static func isUnfinishedEscape(in text: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        let count = end - start
        guard count >= 1 else { return false }
        if text[start] == UInt8(ascii: "%") {
            return count <= 2 && (start + 1..<end).allSatisfy { hexValue(text[$0]) != nil }
        }
        guard text[start] == UInt8(ascii: "\\") else { return false }
        if count == 1 { return true }
        return text[start + 1] == UInt8(ascii: "u") && count <= 5 && (start + 2..<end).allSatisfy { hexValue(text[$0]) != nil }
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
        // Only as far as the limit: a body of megabytes is not counted whole.
        guard limit >= 0, let cut = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex), cut != text.endIndex
        else { return String(text) }
        return String(text[..<cut]) + clipMark
    }

    /// The same for bytes (UTF-8, repaired), of which only the first few times `limit` are read.
    static func clip<Bytes: Collection<UInt8>>(bytes: Bytes, _ limit: Int) -> String {
        // A character is seldom more than 4 bytes; when one is, fewer characters are shown.
        let (product, overflow) = limit.multipliedReportingOverflow(by: 4)
        let read = overflow ? Int.max : product
        let head = String(decoding: bytes.prefix(read), as: UTF8.self)
        return head.count > limit || bytes.count > read ? String(head.prefix(limit)) + clipMark : head
    }
}
