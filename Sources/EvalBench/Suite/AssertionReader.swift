import Foundation

/// Reads a suite's `expect` lists into `Assertion`s, validating each type's fields and
/// rendering templates in the text values that are compared with the answer.
struct AssertionReader {
    let scope: TemplateScope
    private var log: DiagnosticLog { scope.log }

    private static let commonKeys = ["type", "name", "weight"]

    /// The fields each type takes besides `type`, `name` and `weight`.
    private static let fields: [String: [String]] = {
        var fields: [String: [String]] = [:]
        for type in ["contains", "notContains", "equals", "startsWith"] { fields[type] = ["value", "ignoreCase"] }
        for type in ["regex", "notRegex"] { fields[type] = ["pattern", "ignoreCase"] }
        for type in ["maxLatencyMs", "maxTTFTMs", "maxOutputTokens", "minCacheHitRatio"] { fields[type] = ["value"] }
        return fields
    }()

    private static let allFields = Set(fields.values.joined())

    func readList(_ node: JSONNode, path: JSONPath) -> [Assertion] {
        guard let elements = node.arrayValue else {
            log.error("'expect' must be an array of assertions, found \(node.kindDescription)", at: node.location,
                      path: path, fix: "write \"expect\": [ { \"type\": \"contains\", \"value\": \"...\" } ]")
            return []
        }
        return elements.enumerated().compactMap { index, element in read(element, path: path.index(index)) }
    }

    private func read(_ node: JSONNode, path: JSONPath) -> Assertion? {
        guard let reader = ObjectReader(node, path: path, log: log, what: "an assertion") else { return nil }
        let name = reader.string("name")
        let weight = reader.number("weight", must: "a number greater than 0", where: { $0 > 0 })
        let typeList = Assertion.types.joined(separator: ", ")
        guard let type = reader.string("type", requiredFix: "add \"type\": one of \(typeList)") else { return nil }
        guard let fields = Self.fields[type] else {
            let hint = suggestion(for: type, among: Assertion.types).map { "; did you mean '\($0)'?" } ?? ""
            log.error("unknown assertion type '\(type)'\(hint)", at: reader["type"]?.location, path: path.key("type"),
                      fix: "assertion types: \(typeList)")
            return nil
        }
        reader.rejectUnknownKeys(allowed: Self.commonKeys + fields, usedElsewhere: Self.allFields,
                                 owner: "type '\(type)'")
        guard let check = readCheck(type, reader) else { return nil }
        return Assertion(check, name: name, weight: weight)
    }

    private func readCheck(_ type: String, _ reader: ObjectReader) -> Assertion.Check? {
        let ignoreCase = reader.bool("ignoreCase") ?? false
        switch type {
        case "contains", "notContains", "equals", "startsWith":
            guard let value = reader.string("value", requiredFix: "add \"value\": the text to look for"),
                  let node = reader["value"] else { return nil }
            let text = scope.render(value, at: node, path: reader.path.key("value"))
            switch type {
            case "contains": return .contains(text, ignoreCase: ignoreCase)
            case "notContains": return .notContains(text, ignoreCase: ignoreCase)
            case "equals": return .equals(text, ignoreCase: ignoreCase)
            default: return .startsWith(text, ignoreCase: ignoreCase)
            }
        case "regex", "notRegex":
            guard let pattern = reader.string("pattern", requiredFix: "add \"pattern\": a regular expression"),
                  compiles(pattern, ignoreCase: ignoreCase, reader) else { return nil }
            return type == "regex" ? .regex(pattern, ignoreCase: ignoreCase) : .notRegex(pattern, ignoreCase: ignoreCase)
        case "maxLatencyMs", "maxTTFTMs":
            guard let limit = reader.number("value", requiredFix: "add \"value\": the limit in milliseconds",
                                            must: "a number of at least 0", where: { $0 >= 0 }) else { return nil }
            return type == "maxLatencyMs" ? .maxLatencyMs(limit) : .maxTTFTMs(limit)
        case "maxOutputTokens":
            guard reader["value"] != nil else {
                reader.reportMissing("value", fix: "add \"value\": the most output tokens allowed")
                return nil
            }
            return reader.integer("value", atLeast: 0).map { .maxOutputTokens($0) }
        default:
            return reader.number("value", requiredFix: "add \"value\": the lowest ratio allowed, from 0 to 1",
                                 must: "a number from 0 to 1", where: { (0...1).contains($0) })
                .map { .minCacheHitRatio($0) }
        }
    }

    private func compiles(_ pattern: String, ignoreCase: Bool, _ reader: ObjectReader) -> Bool {
        do {
            _ = try NSRegularExpression(pattern: pattern, options: ignoreCase ? [.caseInsensitive] : [])
            return true
        } catch {
            log.error("the pattern '\(pattern)' is not a valid regular expression", at: reader["pattern"]?.location,
                      path: reader.path.key("pattern"),
                      fix: "check its ICU syntax (unbalanced '(' or '[' and a quantifier with nothing before it are the usual causes); in JSON a backslash is written twice: \"\\\\d+\"")
            return false
        }
    }
}
