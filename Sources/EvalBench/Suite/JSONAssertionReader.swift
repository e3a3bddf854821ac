/// The `jsonPath` and `jsonPointer` assertions: a path that must parse, and at most one of
/// `equals`, `contains`, `matches` or `approx` (with its `tolerance`).
extension AssertionReader {
    func readJSONPath(_ reader: ObjectReader) -> Assertion.Check? {
        let query: JSONPathQuery?
        if let text = reader.string("path", requiredFix: "add \"path\": a JSONPath such as \"$.items[0].name\""), let node = reader["path"] {
            do {
                query = try JSONPathQuery(parsing: text)
            } catch {
                log.error("the JSONPath '\(text)' does not parse: \(error.message) (character \(error.offset))",
                          at: node.location, path: reader.path.key("path"),
                          fix: error.fix + "; supported: $, .name, ['name'], [index], [*] and .*")
                query = nil
            }
        } else {
            query = nil
        }
        let expectation = readExpectation(reader)
        guard let query, let expectation else { return nil }
        return .jsonPath(query, expectation)
    }

    func readJSONPointer(_ reader: ObjectReader) -> Assertion.Check? {
        let pointer: JSONPointer?
        if let text = reader.string("pointer", requiredFix: "add \"pointer\": an RFC 6901 JSON pointer such as \"/items/0/name\""),
           let node = reader["pointer"] {
            do {
                pointer = try JSONPointer(parsing: text)
            } catch {
                log.error("the JSON pointer '\(text)' is not valid: \(error.message)", at: node.location,
                          path: reader.path.key("pointer"), fix: error.fix)
                pointer = nil
            }
        } else {
            pointer = nil
        }
        let expectation = readExpectation(reader)
        guard let pointer, let expectation else { return nil }
        return .jsonPointer(pointer, expectation)
    }

    private func readExpectation(_ reader: ObjectReader) -> JSONExpectation? {
        let ignoreCase = reader.bool("ignoreCase") ?? false
        let given = ["equals", "contains", "matches", "approx"].filter { reader[$0] != nil }
        if given.count > 1, let second = reader[given[1]] {
            log.error("'\(given[0])' and '\(given[1])' cannot both be given", at: second.location, path: reader.path.key(given[1]),
                      fix: "use one of 'equals', 'contains', 'matches' or 'approx' per assertion; add another assertion for the other")
            return nil
        }
        if reader["tolerance"] != nil, given.first != "approx" {
            log.error("'tolerance' applies only with 'approx'", at: reader["tolerance"]?.location, path: reader.path.key("tolerance"),
                      fix: "add \"approx\": the number expected, or remove 'tolerance'")
            return nil
        }
        switch given.first {
        case nil:
            return .exists
        case "equals", "contains":
            let key = given[0]
            let node = reader[key]!
            var value = JSONValue(node)
            if case .string(let text) = value { value = .string(scope.render(text, at: node, path: reader.path.key(key))) }
            return key == "equals" ? .equals(value, ignoreCase: ignoreCase) : .contains(value, ignoreCase: ignoreCase)
        case "matches":
            guard let pattern = reader.string("matches"), compiles(pattern, ignoreCase: ignoreCase, key: "matches", reader) else {
                return nil
            }
            return .matches(pattern, ignoreCase: ignoreCase)
        default:
            let target = reader.number("approx", must: "a number")
            let tolerance = reader.number("tolerance", requiredFix: "add \"tolerance\": the largest difference allowed, e.g. 0.01",
                                          must: "a number of at least 0", where: { $0 >= 0 })
            guard let target, let tolerance else { return nil }
            return .approx(target, tolerance: tolerance)
        }
    }
}
