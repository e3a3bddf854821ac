import Foundation

/// Diagnostics of one file, collected as a load goes so that every problem is reported at once.
final class DiagnosticLog {
    let file: String
    private(set) var diagnostics: [Diagnostic] = []

    init(file: String) {
        self.file = file
    }

    func error(_ message: String, at location: SourceLocation?, path: JSONPath?, fix: String? = nil) {
        let diagnostic = Diagnostic(file: file, location: location, path: path?.description,
                                    message: message, fix: fix)
        // A suite-level string rendered for every case would otherwise repeat its problem per case.
        if !diagnostics.contains(diagnostic) { diagnostics.append(diagnostic) }
    }

    /// Adds a diagnostic made elsewhere (another file's, or one given more context).
    func append(_ diagnostic: Diagnostic) {
        if !diagnostics.contains(diagnostic) { diagnostics.append(diagnostic) }
    }

    /// Throws every diagnostic so far, in source order, when there is at least one.
    func throwIfAny() throws(LoadError) {
        guard !diagnostics.isEmpty else { return }
        let ordered = diagnostics.enumerated().sorted { lhs, rhs in
            let left = lhs.element.location.map { ($0.line, $0.column) } ?? (Int.max, Int.max)
            let right = rhs.element.location.map { ($0.line, $0.column) } ?? (Int.max, Int.max)
            return left != right ? left < right : lhs.offset < rhs.offset
        }
        throw LoadError(ordered.map(\.element))
    }
}

/// A JSON path such as `$.cases[3].expect[0].pattern`, for diagnostics.
struct JSONPath: CustomStringConvertible {
    let description: String

    static let root = JSONPath(description: "$")

    func key(_ key: String) -> JSONPath {
        let plain = key.first.map { $0.isLetter || $0 == "_" } == true
            && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        return JSONPath(description: plain ? "\(description).\(key)" : "\(description)[\"\(key)\"]")
    }

    func index(_ index: Int) -> JSONPath {
        JSONPath(description: "\(description)[\(index)]")
    }
}

/// Reads typed members of one JSON object, reporting each wrong type, out-of-range value and
/// unknown key to the log and returning nil for that member, so that loading carries on.
struct ObjectReader {
    let node: JSONNode
    let path: JSONPath
    let log: DiagnosticLog
    let members: [JSONNode.Member]

    /// Nil, with a diagnostic, when `node` is not an object; `what` names it: "a case".
    init?(_ node: JSONNode, path: JSONPath, log: DiagnosticLog, what: String) {
        guard let members = node.members else {
            log.error("\(what) must be an object, found \(node.kindDescription)", at: node.location, path: path)
            return nil
        }
        self.node = node
        self.path = path
        self.log = log
        self.members = members
    }

    subscript(key: String) -> JSONNode? {
        members.first { $0.key == key }?.value
    }

    /// Reports every key that is not `allowed`. A key in `usedElsewhere` is known but belongs
    /// to another `owner` (a kind or an assertion type), and is reported as not used here.
    func rejectUnknownKeys(allowed: [String], usedElsewhere: Set<String> = [], owner: String? = nil,
                           ignoring: Set<String> = []) {
        let list = allowed.joined(separator: ", ")
        for member in members where !allowed.contains(member.key) && !ignoring.contains(member.key) {
            let path = path.key(member.key)
            if let owner, usedElsewhere.contains(member.key) {
                log.error("'\(Diagnostic.excerpt(member.key))' is not used by \(owner)", at: member.keyLocation, path: path,
                          fix: "remove it; \(owner) accepts: \(list)")
            } else if let near = suggestion(for: member.key, among: allowed) {
                log.error("unknown key '\(member.key)'; did you mean '\(near)'?", at: member.keyLocation,
                          path: path, fix: "allowed keys: \(list)")
            } else {
                log.error("unknown key '\(Diagnostic.excerpt(member.key))'", at: member.keyLocation, path: path,
                          fix: "allowed keys: \(list)")
            }
        }
    }

    /// Reports that a required key is absent, at the object's opening brace.
    func reportMissing(_ key: String, fix: String) {
        log.error("missing required key '\(key)'", at: node.location, path: path, fix: fix)
    }

    /// Reports `value` of `key` as above the largest value evalbench takes for it: such a value
    /// is a typo, and taking it would crash a request or exhaust the memory.
    func reportAbove(_ key: String, _ value: JSONNode, maximum: String) {
        let found: String = if case .number(_, let literal) = value.content { literal } else { value.kindDescription }
        log.error("'\(key)' is \(found), above the largest evalbench accepts, \(maximum)", at: value.location, path: path.key(key),
                  fix: "use a value of at most \(maximum)")
    }

    /// Reports `value` of `key` as not being `requirement` ("a number from 0 to 2").
    func reportInvalid(_ key: String, _ value: JSONNode, must requirement: String) {
        let found: String = switch value.content {
        case .number(_, let literal): literal
        case .bool(let flag): "\(flag)"
        default: value.kindDescription
        }
        let quotedScalar = value.stringValue.map { Double($0) != nil || $0 == "true" || $0 == "false" } ?? false
        log.error("'\(key)' must be \(requirement), found \(found)", at: value.location, path: path.key(key),
                  fix: quotedScalar ? "remove the quotes around the value" : nil)
    }

    func string(_ key: String, requiredFix: String? = nil) -> String? {
        guard let value = self[key] else {
            if let requiredFix { reportMissing(key, fix: requiredFix) }
            return nil
        }
        guard let text = value.stringValue else {
            reportInvalid(key, value, must: "a string")
            return nil
        }
        return text
    }

    func bool(_ key: String) -> Bool? {
        guard let value = self[key] else { return nil }
        guard let flag = value.boolValue else {
            reportInvalid(key, value, must: "true or false")
            return nil
        }
        return flag
    }

    /// A number for which `isValid` holds; `requirement` describes the valid ones.
    func number(_ key: String, requiredFix: String? = nil, must requirement: String = "a number",
                atMost maximum: Double? = nil, where isValid: (Double) -> Bool = { _ in true }) -> Double? {
        guard let value = self[key] else {
            if let requiredFix { reportMissing(key, fix: requiredFix) }
            return nil
        }
        if let maximum, let number = value.doubleValue, !(number <= maximum) {
            reportAbove(key, value, maximum: maximum == maximum.rounded() && abs(maximum) < 1e15 ? String(Int(maximum)) : "\(maximum)")
            return nil
        }
        guard let number = value.doubleValue, isValid(number) else {
            reportInvalid(key, value, must: requirement)
            return nil
        }
        return number
    }

    /// A whole number of at least `minimum`.
    /// A whole number of at least `minimum`; above `maximum` it is refused as absurd, with a fix.
    func integer(_ key: String, atLeast minimum: Int? = nil, atMost maximum: Int? = nil) -> Int? {
        guard let value = self[key] else { return nil }
        let requirement = minimum.map { "a whole number of at least \($0)" } ?? "a whole number"
        if let maximum, let number = value.intValue, number > maximum {
            reportAbove(key, value, maximum: "\(maximum)")
            return nil
        }
        guard let number = value.intValue, number >= (minimum ?? .min) else {
            reportInvalid(key, value, must: requirement)
            return nil
        }
        return number
    }

    /// An array of strings; with `orSingle`, a lone string counts as an array of one.
    func strings(_ key: String, orSingle: Bool = false) -> [String]? {
        guard let value = self[key] else { return nil }
        if orSingle, let text = value.stringValue { return [text] }
        guard let elements = value.arrayValue else {
            reportInvalid(key, value, must: orSingle ? "a string or an array of strings" : "an array of strings")
            return nil
        }
        var result: [String] = []
        for (index, element) in elements.enumerated() {
            guard let text = element.stringValue else {
                log.error("each element of '\(key)' must be a string, found \(element.kindDescription)",
                          at: element.location, path: path.key(key).index(index))
                return nil
            }
            result.append(text)
        }
        return result
    }

    /// Reasoning levels: a level name or an array of them, each once.
    func reasoningLevels(_ key: String) -> [ReasoningLevel]? {
        guard let names = strings(key, orSingle: true), let value = self[key] else { return nil }
        let known = ReasoningLevel.allCases.map(\.rawValue)
        var levels: [ReasoningLevel] = []
        for (index, name) in names.enumerated() {
            let at = value.arrayValue?[index] ?? value
            let where_ = value.arrayValue == nil ? path.key(key) : path.key(key).index(index)
            guard let level = ReasoningLevel(rawValue: name) else {
                let hint = suggestion(for: name, among: known).map { "; did you mean '\($0)'?" } ?? ""
                log.error("unknown reasoning level '\(name)'\(hint)", at: at.location, path: where_,
                          fix: "levels: \(known.joined(separator: ", "))")
                continue
            }
            if levels.contains(level) {
                log.error("reasoning level '\(name)' is listed twice", at: at.location, path: where_,
                          fix: "list each level once")
                continue
            }
            levels.append(level)
        }
        guard !names.isEmpty else {
            reportInvalid(key, value, must: "at least one of \(known.joined(separator: ", "))")
            return nil
        }
        return levels
    }

    /// A name that becomes part of a result key (`suite/case/variant/backend/...`): non-empty
    /// letters, digits, `.`, `_` and `-`. `what` names it in messages: "case id".
    func resultKeyName(_ key: String, what: String, requiredFix: String? = nil) -> String? {
        guard let name = string(key, requiredFix: requiredFix), let value = self[key] else { return nil }
        guard name.isEmpty || !ObjectReader.isResultKeyName(name) else { return name }
        let suggestion = ObjectReader.resultKeySuggestion(for: name, what: what)
        log.error(name.isEmpty ? "the \(what) is empty" : "the \(what) '\(name)' may contain only ASCII letters, digits, '.', '_' and '-'",
                  at: value.location, path: path.key(key),
                  fix: name.isEmpty ? "give it a short name such as \"\(suggestion)\""
                                    : "it becomes part of result keys joined with '/'; use e.g. \"\(suggestion)\"")
        return nil
    }

    /// A name like `name` that a result key can hold: each other character made '-', runs of
    /// them one, none at either end (a name that starts with '-' reads as an option on the
    /// command line: `--case -cmd`); an example for `what` when nothing is left.
    static func resultKeySuggestion(for name: String, what: String) -> String {
        var cleaned = ""
        for character in name {
            let kept: Character = isResultKeyName(String(character)) ? character : "-"
            if kept == "-", cleaned.last == "-" { continue }
            cleaned.append(kept)
        }
        let trimmed = cleaned.trimmingCharacters(in: CharacterSet(charactersIn: "-."))
        if !trimmed.isEmpty { return trimmed }
        switch what {
        case "backend name": return "local"
        case "suite name": return "smoke"
        case "variant name": return "terse"
        default: return "capital-france"
        }
    }

    static func isResultKeyName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || scalar == "." || scalar == "_" || scalar == "-")
        }
    }
}
