import Foundation

/// A URI reference split into its RFC 3986 components, and resolved against a base the way
/// RFC 3986 section 5.2 says. Schemas use it to give each `$id` and `$ref` its absolute URI.
struct URIReference: Sendable, Equatable, CustomStringConvertible {
    var scheme: String?
    var authority: String?
    var path: String
    var query: String?
    var fragment: String?

    /// RFC 3986 appendix B: every string splits this way, valid or not.
    private static let components = try! NSRegularExpression(pattern: "^(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\\?([^#]*))?(?:#(.*))?$",
                                                             options: [.dotMatchesLineSeparators])

    init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    init(_ text: String) {
        let match = Self.components.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))!
        func group(_ index: Int) -> String? {
            Range(match.range(at: index), in: text).map { String(text[$0]) }
        }
        self.init(scheme: group(1), authority: group(2), path: group(3) ?? "", query: group(4), fragment: group(5))
    }

    var description: String {
        var text = ""
        if let scheme { text += scheme + ":" }
        if let authority { text += "//" + authority }
        text += path
        if let query { text += "?" + query }
        if let fragment { text += "#" + fragment }
        return text
    }

    /// The same URI without its fragment: the URI of the document or resource it names.
    var withoutFragment: URIReference {
        var copy = self
        copy.fragment = nil
        return copy
    }

    /// `self` resolved against `base` (RFC 3986 section 5.2.2).
    func resolved(against base: URIReference) -> URIReference {
        if scheme != nil {
            return URIReference(scheme: scheme, authority: authority, path: Self.removingDotSegments(path), query: query, fragment: fragment)
        }
        var target = URIReference(scheme: base.scheme, authority: authority, path: "", query: query, fragment: fragment)
        if authority != nil {
            target.path = Self.removingDotSegments(path)
        } else if path.isEmpty {
            target.authority = base.authority
            target.path = base.path
            target.query = query ?? base.query
        } else {
            target.authority = base.authority
            target.path = Self.removingDotSegments(path.hasPrefix("/") ? path : merged(with: base))
        }
        return target
    }

    private func merged(with base: URIReference) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return base.path[...slash] + path
    }

    /// RFC 3986 section 5.2.4: `/a/b/../c/./d` becomes `/a/c/d`.
    static func removingDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") || input == "/.." {
                input = input == "/.." ? "/" : input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }
}
