import Foundation

/// The `format` values a schema may assert, each checked strictly rather than annotated.
public enum JSONSchemaFormat: String, Sendable, CaseIterable {
    /// RFC 3339 full-date: `2026-02-28`.
    case date
    /// RFC 3339 date-time: `2026-02-28T13:05:00Z`, `2026-02-28T13:05:00.5+01:00`.
    case dateTime = "date-time"
    /// An address `local@domain.tld`.
    case email
    /// An absolute RFC 3986 URI: a scheme, `:` and no spaces.
    case uri
    /// An RFC 4122 UUID in its hyphenated form.
    case uuid

    /// Whether `text` is written in this format.
    public func matches(_ text: String) -> Bool {
        switch self {
        case .date: Self.isDate(Substring(text))
        case .dateTime: Self.isDateTime(text)
        case .email: Self.fullMatch(Self.emailPattern, text, caseInsensitive: true)
        case .uri: Self.fullMatch(Self.uriPattern, text, caseInsensitive: false)
        case .uuid: Self.fullMatch("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", text, caseInsensitive: true)
        }
    }

    private static let emailPattern =
        "[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
    private static let uriPattern = "[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\\-._~!$&'()*+,;=:@/?#\\[\\]]|%[0-9A-Fa-f]{2})*"

    private static func fullMatch(_ pattern: String, _ text: String, caseInsensitive: Bool) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: "^(?:\(pattern))$", options: caseInsensitive ? [.caseInsensitive] : []) else {
            return false
        }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    private static func digits(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    private static func isDate(_ text: Substring) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = digits(parts[0]), let month = digits(parts[1]), let day = digits(parts[2]),
              (1...12).contains(month), day >= 1 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }

    private static func isDateTime(_ text: String) -> Bool {
        guard let separator = text.firstIndex(where: { $0 == "T" || $0 == "t" || $0 == " " }),
              isDate(text[..<separator]) else { return false }
        var time = text[text.index(after: separator)...]
        if time.hasSuffix("Z") || time.hasSuffix("z") {
            time = time.dropLast()
        } else {
            guard time.count > 6 else { return false }
            let offset = time.suffix(6)
            guard let sign = offset.first, sign == "+" || sign == "-", offset.dropFirst().count == 5,
                  isClock(offset.dropFirst(), seconds: false) else { return false }
            time = time.dropLast(6)
        }
        if let dot = time.firstIndex(of: ".") {
            guard digits(time[time.index(after: dot)...]) != nil else { return false }
            time = time[..<dot]
        }
        return isClock(time, seconds: true)
    }

    /// `HH:MM:SS` (a leap second 60 allowed) or, without seconds, `HH:MM`.
    private static func isClock(_ text: Substring, seconds: Bool) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == (seconds ? 3 : 2), parts.allSatisfy({ $0.count == 2 }),
              let hour = digits(parts[0]), let minute = digits(parts[1]), hour < 24, minute < 60 else { return false }
        guard seconds else { return true }
        guard let second = digits(parts[2]) else { return false }
        return second <= 60
    }
}
