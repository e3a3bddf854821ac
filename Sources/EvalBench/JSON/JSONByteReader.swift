import Foundation

/// A strict pull reader over the bytes of one JSON text, for decoders that read a known
/// shape fast (`ResultLineDecoder`). It accepts only what RFC 8259 accepts and refuses
/// (throws `Refused`) anything else, including forms it could read but `JSONDecoder` might
/// read differently, so that its caller can hand the text to `JSONDecoder` instead.
struct JSONByteReader {
    /// The text is not read here; `JSONDecoder` decides.
    struct Refused: Error {}

    private let bytes: UnsafeRawBufferPointer
    private var at = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Whether only whitespace is left.
    mutating func atEnd() -> Bool {
        skipSpace()
        return at == bytes.count
    }

    /// Reads an object, calling `member` with each key; `member` must read the value.
    mutating func object(_ member: (inout JSONByteReader, String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if peek() == UInt8(ascii: "}") { at += 1; return }
        while true {
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try member(&self, key)
            if try endOfList(UInt8(ascii: "}")) { return }
        }
    }

    /// Reads an array, each element with `element`.
    mutating func array<Element>(_ element: (inout JSONByteReader) throws -> Element) throws -> [Element] {
        try expect(UInt8(ascii: "["))
        var elements: [Element] = []
        if peek() == UInt8(ascii: "]") { at += 1; return elements }
        while true {
            elements.append(try element(&self))
            if try endOfList(UInt8(ascii: "]")) { return elements }
        }
    }

    /// Consumes `null` when it comes next.
    mutating func null() -> Bool {
        guard peek() == UInt8(ascii: "n"), matches("null") else { return false }
        at += 4
        return true
    }

    mutating func bool() throws -> Bool {
        if peek() == UInt8(ascii: "t"), matches("true") { at += 4; return true }
        if peek() == UInt8(ascii: "f"), matches("false") { at += 5; return false }
        throw Refused()
    }

    /// An integer written without fraction or exponent, within `Int`.
    mutating func int() throws -> Int {
        let token = try number()
        var index = token.lowerBound
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var value = 0
        while index < token.upperBound {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit <= 9 else { throw Refused() }
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = negative ? times.subtractingReportingOverflow(Int(digit)) : times.addingReportingOverflow(Int(digit))
            guard !overflowTimes, !overflowSum else { throw Refused() }
            value = sum
            index += 1
        }
        return value
    }

    /// A finite number, rounded as `Double(String)` (and `JSONDecoder`) round it.
    mutating func double() throws -> Double {
        let token = try number()
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[token]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw Refused() }
        return value
    }

    /// A string member read as the raw value of `Value`.
    mutating func enumeration<Value: RawRepresentable>(_: Value.Type) throws -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: try string()) else { throw Refused() }
        return value
    }

    /// A date written as `JSONEncoder`'s `.iso8601` writes it: `YYYY-MM-DDTHH:MM:SSZ`.
    mutating func iso8601Date() throws -> Date {
        let text = Array(try string().utf8)
        guard text.count == 20, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"), text[10] == UInt8(ascii: "T"),
              text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"), text[19] == UInt8(ascii: "Z") else { throw Refused() }
        func field(_ range: Range<Int>) throws -> Int {
            var value = 0
            for byte in text[range] {
                let digit = byte &- UInt8(ascii: "0")
                guard digit <= 9 else { throw Refused() }
                value = value * 10 + Int(digit)
            }
            return value
        }
        let (year, month, day) = (try field(0..<4), try field(5..<7), try field(8..<10))
        let (hour, minute, second) = (try field(11..<13), try field(14..<16), try field(17..<19))
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { throw Refused() }
        let seconds = ((Self.daysSinceEpoch(year: year, month: month, day: day) * 24 + hour) * 60 + minute) * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// A value of `Value` read by `decoder` from the raw text of the next value.
    mutating func nested<Value: Decodable>(_: Value.Type, with decoder: JSONDecoder) throws -> Value {
        let start = at
        try skipValue()
        let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<at])
        return try decoder.decode(Value.self, from: Data(raw))
    }

    /// Steps over the next value, whatever it is, checking it as it goes.
    mutating func skipValue() throws {
        switch peek() {
        case UInt8(ascii: "{"): try object { reader, _ in try reader.skipValue() }
        case UInt8(ascii: "["): _ = try array { try $0.skipValue() }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"): if !null() { throw Refused() }
        default: _ = try number()
        }
    }

    /// A string, unescaped; refused when it holds a raw control character, a bad escape, a
    /// lone surrogate or bytes that are not UTF-8.
    mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        let start = at
        var highBits: UInt8 = 0
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                at += 1
                return try Self.text(UnsafeRawBufferPointer(rebasing: bytes[start..<at - 1]), ascii: highBits < 0x80)
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            guard byte >= 0x20 else { throw Refused() }
            highBits |= byte
            at += 1
        }
        throw Refused()
    }

    /// `utf8` as a string. ASCII needs no validation, and `String(decoding:)` makes it several
    /// times faster than `String(validating:)` does (most strings of a result are ASCII: keys,
    /// names, statuses); anything else is validated and refused when it is not UTF-8.
    private static func text(_ utf8: UnsafeRawBufferPointer, ascii: Bool) throws -> String {
        if ascii { return String(decoding: utf8, as: UTF8.self) }
        guard let text = String(validating: utf8, as: UTF8.self) else { throw Refused() }
        return text
    }

    // MARK: - Parts

    private mutating func escapedString(from start: Int) throws -> String {
        var buffer = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<at]))
        while at < bytes.count {
            let byte = bytes[at]
            at += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: buffer, as: UTF8.self) else { throw Refused() }
                return text
            case UInt8(ascii: "\\"):
                guard at < bytes.count else { throw Refused() }
                let escape = bytes[at]
                at += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"): buffer.append(contentsOf: try unicodeEscape().utf8)
                default: throw Refused()
                }
            default:
                guard byte >= 0x20 else { throw Refused() }
                buffer.append(byte)
            }
        }
        throw Refused()
    }

    /// The scalar of `\uXXXX` (the `\u` read), joining a surrogate pair.
    private mutating func unicodeEscape() throws -> String {
        let first = try hex4()
        if (0xD800..<0xDC00).contains(first) {
            guard matches("\\u") else { throw Refused() }
            at += 2
            let second = try hex4()
            guard (0xDC00..<0xE000).contains(second),
                  let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)) else { throw Refused() }
            return String(Character(scalar))
        }
        guard let scalar = Unicode.Scalar(first) else { throw Refused() } // a lone low surrogate
        return String(Character(scalar))
    }

    private mutating func hex4() throws -> UInt32 {
        guard at + 4 <= bytes.count else { throw Refused() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[at]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Refused()
            }
            value = value << 4 | UInt32(digit)
            at += 1
        }
        return value
    }

    /// The range of a number token, checked against JSON's grammar:
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() throws -> Range<Int> {
        skipSpace()
        let start = at
        if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
        guard at < bytes.count else { throw Refused() }
        if bytes[at] == UInt8(ascii: "0") {
            at += 1
        } else {
            guard digits() > 0 else { throw Refused() }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            at += 1
            guard digits() > 0 else { throw Refused() }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            at += 1
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digits() > 0 else { throw Refused() }
        }
        return start..<at
    }

    private mutating func digits() -> Int {
        let start = at
        while at < bytes.count, bytes[at] &- UInt8(ascii: "0") <= 9 { at += 1 }
        return at - start
    }

    private mutating func endOfList(_ close: UInt8) throws -> Bool {
        switch peek() {
        case UInt8(ascii: ","): at += 1; return false
        case close: at += 1; return true
        default: throw Refused()
        }
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard peek() == byte else { throw Refused() }
        at += 1
    }

    private mutating func peek() -> UInt8? {
        skipSpace()
        return at < bytes.count ? bytes[at] : nil
    }

    private func matches(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count else { return false }
        return (0..<count).allSatisfy { bytes[at + $0] == word.utf8Start[$0] }
    }

    private mutating func skipSpace() {
        while at < bytes.count {
            switch bytes[at] {
            case 0x20, 0x09, 0x0A, 0x0D: at += 1
            default: return
            }
        }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the given civil date (Howard Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
