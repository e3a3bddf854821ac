import Foundation

/// The network formats: addresses, host names and URIs.
extension JSONSchemaFormat {
    private static let unreserved = "A-Za-z0-9\\-._~"
    private static let subDelimiters = "!$&'()*+,;="
    private static let percentEncoded = "%[0-9A-Fa-f]{2}"

    /// The non-ASCII characters an IRI allows (RFC 3987 `ucschar`, and `iprivate` in queries).
    private static let international = "\\x{A0}-\\x{D7FF}\\x{E000}-\\x{FFFD}\\x{10000}-\\x{10FFFD}"

    /// Characters of a URI component (RFC 3986 section 3), `extra` allowed besides.
    private static func component(_ extra: String, international: Bool = false) -> String {
        "(?:[\(unreserved)\(subDelimiters)\(extra)\(international ? Self.international : "")]|\(percentEncoded))*"
    }

    /// RFC 3986: `scheme ":" hier-part [ "?" query ] [ "#" fragment ]`, or with
    /// `relativeAllowed` a relative reference as well; with `international` an RFC 3987 IRI,
    /// whose components may also hold non-ASCII characters.
    static func isURI(_ text: String, relativeAllowed: Bool, international: Bool = false) -> Bool {
        guard text.unicodeScalars.allSatisfy({ ($0.isASCII && $0.value > 0x20 && $0.value < 0x7F) || (international && $0.value >= 0xA0) }) else {
            return false
        }
        let uri = URIReference(text)
        if let scheme = uri.scheme {
            guard fullMatch("[A-Za-z][A-Za-z0-9+.\\-]*", scheme) else { return false }
        } else {
            guard relativeAllowed else { return false }
            // A relative path's first segment may not hold ':' (it would read as a scheme).
            if uri.authority == nil, let first = uri.path.split(separator: "/", omittingEmptySubsequences: false).first,
               first.contains(":") { return false }
        }
        if let authority = uri.authority, !isAuthority(authority, international: international) { return false }
        let pathCharacters = component(":@/", international: international)
        guard fullMatch(pathCharacters, uri.path) else { return false }
        if uri.authority == nil && uri.path.hasPrefix("//") { return false }
        let queryCharacters = component(":@/?", international: international)
        return (uri.query.map { fullMatch(queryCharacters, $0) } ?? true)
            && (uri.fragment.map { fullMatch(queryCharacters, $0) } ?? true)
    }

    /// `[ userinfo "@" ] host [ ":" port ]`, the host a name, an IPv4 address or `[IPv6]`.
    private static func isAuthority(_ authority: String, international: Bool) -> Bool {
        var hostAndPort = Substring(authority)
        if let at = authority.lastIndex(of: "@") {
            guard fullMatch(component(":", international: international), String(authority[..<at])) else { return false }
            hostAndPort = authority[authority.index(after: at)...]
        }
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { return false }
            let literal = hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close]
            let port = hostAndPort[hostAndPort.index(after: close)...]
            let future = fullMatch("[vV][0-9A-Fa-f]+\\.[\(unreserved)\(subDelimiters):]+", String(literal))
            return (isIPv6(literal) || future) && (port.isEmpty || fullMatch(":[0-9]*", String(port)))
        }
        var host = hostAndPort
        if let colon = hostAndPort.lastIndex(of: ":") {
            guard fullMatch("[0-9]*", String(hostAndPort[hostAndPort.index(after: colon)...])) else { return false }
            host = hostAndPort[..<colon]
        }
        return fullMatch(component("", international: international), String(host))
    }

    /// RFC 6570 level 4: literals, and expressions such as `{var}`, `{+path}`, `{?x,y*}`, `{var:3}`.
    static func isURITemplate(_ text: String) -> Bool {
        // RFC 6570 leaves out the apostrophe; the JSON Schema Test Suite allows it, as its errata do.
        let literal = "[^\\x00-\\x20\\x7F\"%<>\\\\^`{|}]|\(percentEncoded)"
        let name = "(?:[A-Za-z0-9_]|\(percentEncoded))(?:\\.?(?:[A-Za-z0-9_]|\(percentEncoded)))*"
        let variable = "\(name)(?::[1-9][0-9]{0,3}|\\*)?"
        return fullMatch("(?:\(literal)|\\{[+#./;?&=,!@|]?\(variable)(?:,\(variable))*\\})*", text)
    }

    /// A local part (dot-atom or quoted string), `@`, and a host name or an address literal;
    /// with `international` (RFC 6531) the local part and host name may hold non-ASCII letters.
    static func isEmail(_ text: String, international: Bool = false) -> Bool {
        guard let at = text.lastIndex(of: "@") else { return false }
        let local = String(text[..<at])
        let domain = text[text.index(after: at)...]
        let atom = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~\(international ? "\\x{80}-\\x{10FFFF}" : "")-]+"
        let quoted = "\"(?:[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E\(international ? "\\x{80}-\\x{10FFFF}" : "")]|\\\\[\\x20-\\x7E])*\""
        guard fullMatch("\(atom)(?:\\.\(atom))*|\(quoted)", local) else { return false }
        if domain.hasPrefix("[") && domain.hasSuffix("]") {
            let literal = domain.dropFirst().dropLast()
            if literal.lowercased().hasPrefix("ipv6:") { return isIPv6(literal.dropFirst(5)) }
            return isIPv4(literal)
        }
        return domain.contains(".") && isHostname(domain, international: international)
    }

    /// RFC 1123: labels of 1 to 63 letters, digits and hyphens, not starting or ending with
    /// a hyphen, 253 characters at most; with `international` the letters may be non-ASCII.
    static func isHostname(_ text: Substring, international: Bool = false) -> Bool {
        guard !text.isEmpty, international || text.utf8.count <= 253 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            guard (1...63).contains(label.count), label.first != "-", label.last != "-",
                  label.allSatisfy({ ($0.isASCII || international) && ($0.isLetter || $0.isNumber || $0 == "-") }) else { return false }
            // Positions 3 and 4 hold "--" only in a Punycode A-label.
            let lower = label.lowercased()
            return lower.count < 4 || Array(lower)[2...3] != ["-", "-"] || lower.hasPrefix("xn--")
        }
    }

    /// Four decimal numbers from 0 to 255, no leading zeros, ASCII digits only.
    static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            guard let value = digits(part), part.count <= 3, value <= 255 else { return false }
            return part == "0" || !part.hasPrefix("0")
        }
    }

    /// Eight groups of 1 to 4 hex digits; `::` stands for one or more zero groups, and the
    /// last two groups may be written as an IPv4 address.
    static func isIPv6(_ text: Substring) -> Bool {
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return false }
        var groups = 0
        for (index, half) in halves.enumerated() where !half.isEmpty {
            let parts = half.split(separator: ":", omittingEmptySubsequences: false)
            for (position, part) in parts.enumerated() {
                let last = index == halves.count - 1 && position == parts.count - 1
                if last && part.contains(".") {
                    guard isIPv4(part) else { return false }
                    groups += 2
                } else {
                    guard (1...4).contains(part.count), part.allSatisfy(\.isHexDigit), part.allSatisfy(\.isASCII) else { return false }
                    groups += 1
                }
            }
        }
        return halves.count == 2 ? groups <= 7 : groups == 8
    }
}
