import Foundation

/// The `format` values a schema may assert, each checked strictly rather than annotated.
package enum JSONSchemaFormat: String, Sendable, CaseIterable {
    /// RFC 3339 full-date: `2026-02-28`.
    case date
    /// RFC 3339 date-time: `2026-02-28T13:05:00Z`, `2026-02-28T13:05:00.5+01:00`; a leap
    /// second only at 23:59:60 UTC.
    case dateTime = "date-time"
    /// RFC 3339 full-time with its offset: `13:05:00Z`, `08:30:00.25-05:00`.
    case time
    /// RFC 3339 appendix A duration: `P1Y2M`, `PT36H`, `P2W`.
    case duration
    /// An RFC 5321 address: `local@domain.tld`, a quoted local part (`"a b"@x.org`) or an
    /// IP literal (`a@[192.0.2.1]`, `a@[IPv6:2001:db8::1]`).
    case email
    /// An RFC 6531 address, whose local part and domain may hold non-ASCII letters.
    case idnEmail = "idn-email"
    /// An RFC 1123 host name: dot-separated labels of letters, digits and hyphens.
    case hostname
    /// A dotted-quad IPv4 address without leading zeros.
    case ipv4
    /// An RFC 4291 IPv6 address, `::` compression and a trailing IPv4 part allowed.
    case ipv6
    /// An absolute URI as RFC 3986 writes it: a scheme, then the hierarchical part.
    case uri
    /// An RFC 3986 URI or relative reference.
    case uriReference = "uri-reference"
    /// An absolute RFC 3987 IRI: a URI whose components may hold non-ASCII characters.
    case iri
    /// An RFC 3987 IRI or relative reference.
    case iriReference = "iri-reference"
    /// An RFC 6570 URI template: `https://x.org/{user}/items{?page,size}`.
    case uriTemplate = "uri-template"
    /// An RFC 6901 JSON pointer: `/a/b~1c`.
    case jsonPointer = "json-pointer"
    /// A relative JSON pointer: `0/a`, `1#`.
    case relativeJSONPointer = "relative-json-pointer"
    /// A regular expression the `pattern` keyword accepts.
    case regex
    /// An RFC 4122 UUID in its hyphenated form.
    case uuid

    /// Whether `text` is written in this format.
    package func matches(_ text: String) -> Bool {
        switch self {
        case .date: Self.isDate(Substring(text))
        case .dateTime: Self.isDateTime(text)
        case .time: Self.isTime(Substring(text))
        case .duration: Self.fullMatch(Self.durationPattern, text)
        case .email: Self.isEmail(text)
        case .idnEmail: Self.isEmail(text, international: true)
        case .hostname: Self.isHostname(Substring(text))
        case .ipv4: Self.isIPv4(Substring(text))
        case .ipv6: Self.isIPv6(Substring(text))
        case .uri: Self.isURI(text, relativeAllowed: false)
        case .uriReference: Self.isURI(text, relativeAllowed: true)
        case .iri: Self.isURI(text, relativeAllowed: false, international: true)
        case .iriReference: Self.isURI(text, relativeAllowed: true, international: true)
        case .uriTemplate: Self.isURITemplate(text)
        case .jsonPointer: Self.isJSONPointer(Substring(text))
        case .relativeJSONPointer: Self.isRelativeJSONPointer(text)
        case .regex: SchemaPattern(text) != nil
        case .uuid: Self.fullMatch("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", text)
        }
    }

    private static let durationTime = "T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)"
    private static let durationPattern =
        "P(?:(?:[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?|[0-9]+M(?:[0-9]+D)?|[0-9]+D)(?:\(durationTime))?|\(durationTime)|[0-9]+W)"

    /// Whether all of `text` matches `pattern`; `\z` so that no trailing newline slips through.
    static func fullMatch(_ pattern: String, _ text: String, caseInsensitive: Bool = false) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: "^(?:\(pattern))\\z", options: caseInsensitive ? [.caseInsensitive] : []) else {
            return false
        }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    static func digits(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
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
        guard let separator = text.firstIndex(where: { $0 == "T" || $0 == "t" }),
              isDate(text[..<separator]) else { return false }
        return isTime(text[text.index(after: separator)...])
    }

    /// RFC 3339 full-time: `HH:MM:SS`, an optional fraction, then `Z` or `±HH:MM`. A leap
    /// second is only allowed where it falls at 23:59:60 UTC.
    private static func isTime(_ text: Substring) -> Bool {
        var time = text
        var offsetMinutes = 0
        if time.hasSuffix("Z") || time.hasSuffix("z") {
            time = time.dropLast()
        } else {
            guard time.count > 6 else { return false }
            let offset = time.suffix(6)
            guard let sign = offset.first, sign == "+" || sign == "-",
                  let clock = clock(offset.dropFirst(), seconds: false) else { return false }
            offsetMinutes = (sign == "+" ? 1 : -1) * (clock.hour * 60 + clock.minute)
            time = time.dropLast(6)
        }
        if let dot = time.firstIndex(of: ".") {
            guard digits(time[time.index(after: dot)...].prefix(9)) != nil,
                  time[time.index(after: dot)...].allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
            time = time[..<dot]
        }
        guard let clock = clock(time, seconds: true) else { return false }
        guard clock.second == 60 else { return true }
        let utc = ((clock.hour * 60 + clock.minute - offsetMinutes) % 1440 + 1440) % 1440
        return utc == 23 * 60 + 59
    }

    /// `HH:MM:SS` (seconds up to 60) or, without seconds, `HH:MM`.
    private static func clock(_ text: Substring, seconds: Bool) -> (hour: Int, minute: Int, second: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == (seconds ? 3 : 2), parts.allSatisfy({ $0.count == 2 }),
              let hour = digits(parts[0]), let minute = digits(parts[1]), hour < 24, minute < 60 else { return nil }
        guard seconds else { return (hour, minute, 0) }
        guard let second = digits(parts[2]), second <= 60 else { return nil }
        return (hour, minute, second)
    }

    private static func isJSONPointer(_ text: Substring) -> Bool {
        guard text.isEmpty || text.hasPrefix("/") else { return false }
        var rest = text
        while let tilde = rest.firstIndex(of: "~") {
            let next = rest.index(after: tilde)
            guard next < rest.endIndex, rest[next] == "0" || rest[next] == "1" else { return false }
            rest = rest[rest.index(after: next)...]
        }
        return true
    }

    private static func isRelativeJSONPointer(_ text: String) -> Bool {
        let prefix = text.prefix { $0.isASCII && $0.isNumber }
        guard !prefix.isEmpty, prefix == "0" || !prefix.hasPrefix("0") else { return false }
        let rest = text[prefix.endIndex...]
        return rest == "#" || isJSONPointer(rest)
    }
}
