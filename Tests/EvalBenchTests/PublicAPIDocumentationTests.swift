import Foundation
import Testing

/// Every `public` declaration of the library is what an app's test target sees, so each has a
/// `///` comment directly above it (attributes such as `@discardableResult` may stand between).
/// Members that only witness a standard protocol (`==`, `hash(into:)`, `encode(to:)`,
/// `init(from:)`, `description`, `debugDescription`) are exempt: the protocol documents them.
@Suite("Public API documentation")
struct PublicAPIDocumentationTests {
    static let exemptWitnesses = [
        "public static func ==", "public func hash(into", "public func encode(to", "public init(from decoder",
        "public var description: String", "public var debugDescription",
    ]

    /// Whether `line` declares something `public`, after any attributes (`@MainActor public`).
    static func isPublicDeclaration(_ line: some StringProtocol) -> Bool {
        var rest = line.drop { $0.isWhitespace }
        while rest.first == "@" {
            rest = rest.dropFirst().drop { $0.isLetter || $0.isNumber || $0 == "_" }
            if rest.first == "(" { rest = rest.drop { $0 != ")" }.dropFirst() }
            guard rest.first?.isWhitespace == true else { return false }
            rest = rest.drop { $0.isWhitespace }
        }
        return rest.hasPrefix("public ")
    }

    /// Whether `line` is an attribute on a line of its own, such as `@inlinable`.
    static func isAttributeLine(_ line: String) -> Bool {
        let trimmed = line.drop { $0.isWhitespace }
        return trimmed.first == "@" && !line.contains("public")
    }

    /// The public declarations in `text` with no `///` comment above them, as "file:line: text".
    static func undocumented(in path: String, _ text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var missing: [String] = []
        for (index, line) in lines.enumerated() {
            guard isPublicDeclaration(line),
                  !exemptWitnesses.contains(where: { line.contains($0) }) else { continue }
            var above = index - 1
            while above >= 0, isAttributeLine(lines[above]) {
                above -= 1
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if above < 0 || !lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("///") {
                missing.append("\(path):\(index + 1): \(trimmed)")
            }
        }
        return missing
    }

    @Test("every public declaration in Sources/EvalBench has a /// comment")
    func everyPublicDeclarationIsDocumented() throws {
        let sources = try PlatformFenceTests.librarySources()
        let declarations = sources.reduce(0) { count, source in
            count + source.text.split(separator: "\n").filter { Self.isPublicDeclaration($0) }.count
        }
        #expect(declarations > 300, "found only \(declarations) public declarations; is the package root right?")
        let missing = sources.flatMap { Self.undocumented(in: "Sources/EvalBench/" + $0.path, $0.text) }
        #expect(missing.isEmpty, "add a /// comment above each of these \(missing.count) public declarations:\n\(missing.joined(separator: "\n"))")
    }

    @Test("the check finds an undocumented declaration, allows attributes between comment and declaration, and exempts protocol witnesses")
    func documentationCheckCanFail() {
        let text = """
        /// Documented.
        public struct A: Equatable, CustomStringConvertible {
            public var undocumented: Int
            /// Documented, with an attribute between.
            @inlinable
            public func attributed() {}
            // A plain comment is not documentation.
            public init() {}
            public static func == (lhs: A, rhs: A) -> Bool { true }
            public var description: String { "" }
            @discardableResult public func inline() -> Int { 0 }
            package var notPublic: Int
        }
        """
        #expect(Self.undocumented(in: "x.swift", text) == [
            "x.swift:3: public var undocumented: Int",
            "x.swift:8: public init() {}",
            "x.swift:11: @discardableResult public func inline() -> Int { 0 }",
        ])
    }
}
