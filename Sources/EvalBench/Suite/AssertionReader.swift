import Foundation

/// Reads a suite's `expect` lists into `Assertion`s, validating each type's fields (patterns,
/// schemas and paths are compiled here, so a bad one stops the run before any request) and
/// rendering templates in the text values that are compared with the answer.
struct AssertionReader {
    let scope: TemplateScope
    var log: DiagnosticLog { scope.log }

    private static let commonKeys = ["type", "name", "weight", "not"]

    /// The value fields of `jsonPath` and `jsonPointer`: at most one of the first four.
    static let expectationKeys = ["equals", "contains", "matches", "approx", "tolerance", "ignoreCase"]

    /// The fields each type takes besides `type`, `name`, `weight` and `not`.
    private static let fields: [String: [String]] = {
        var fields: [String: [String]] = [:]
        for type in ["contains", "notContains", "equals", "startsWith"] { fields[type] = ["value", "ignoreCase"] }
        for type in ["regex", "notRegex"] { fields[type] = ["pattern", "ignoreCase"] }
        for type in ["maxLatencyMs", "maxTTFTMs", "maxOutputTokens", "minCacheHitRatio"] { fields[type] = ["value"] }
        for type in ["containsAll", "containsAny"] { fields[type] = ["values", "ignoreCase"] }
        fields["json"] = []
        fields["jsonSchema"] = ["schema"]
        fields["jsonPath"] = ["path"] + expectationKeys
        fields["jsonPointer"] = ["pointer"] + expectationKeys
        fields["lengthBetween"] = ["min", "max"]
        fields["label"] = ["labels", "value"]
        fields["keywords"] = ["values", "minRatio", "ignoreCase"]
        fields["judge"] = ["backend", "rubric", "minScore"]
        fields["similar"] = ["backend", "value", "threshold"]
        fields["toolCalled"] = ["tool", "arguments", "times", "min", "max"]
        fields["toolNotCalled"] = ["tool"]
        fields["toolSequence"] = ["names", "strict"]
        fields["toolArgumentsValid"] = []
        fields["maxToolCalls"] = ["value"]
        fields["maxToolRounds"] = ["value"]
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
        let name = readName(reader)
        let weight = reader.number("weight", must: "a number greater than 0", atMost: RunLimits.maxWeight, where: { $0 > 0 })
        let inverted = reader.bool("not") ?? false
        let typeList = Assertion.types.joined(separator: ", ")
        guard let type = reader.string("type", requiredFix: "add \"type\": one of \(typeList)") else { return nil }
        guard let fields = Self.fields[type] else {
            let hint = suggestion(for: type, among: Assertion.types).map { "; did you mean '\($0)'?" } ?? ""
            log.error("unknown assertion type '\(Diagnostic.excerpt(type))'\(hint)", at: reader["type"]?.location, path: path.key("type"),
                      fix: "assertion types: \(typeList)")
            return nil
        }
        reader.rejectUnknownKeys(allowed: Self.commonKeys + fields, usedElsewhere: Self.allFields,
                                 owner: "type '\(type)'")
        guard let check = readCheck(type, reader) else { return nil }
        return Assertion(check, name: name, weight: weight, inverted: inverted)
    }

    /// A name is a named metric in reports, so it must say something.
    private func readName(_ reader: ObjectReader) -> String? {
        guard let name = reader.string("name") else { return nil }
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            log.error("the assertion name is empty", at: reader["name"]?.location, path: reader.path.key("name"),
                      fix: "name it after what it measures, such as \"valid-json\", or remove 'name'")
            return nil
        }
        return name
    }

    private func readCheck(_ type: String, _ reader: ObjectReader) -> Assertion.Check? {
        let ignoreCase = reader.bool("ignoreCase") ?? false
        switch type {
        case "contains", "notContains", "equals", "startsWith":
            guard let text = renderedString("value", reader, requiredFix: "add \"value\": the text to look for") else { return nil }
            guard !refusedAsEmpty(text, of: type, reader) else { return nil }
            switch type {
            case "contains": return .contains(text, ignoreCase: ignoreCase)
            case "notContains": return .notContains(text, ignoreCase: ignoreCase)
            case "equals": return .equals(text, ignoreCase: ignoreCase)
            default: return .startsWith(text, ignoreCase: ignoreCase)
            }
        case "regex", "notRegex":
            guard let pattern = reader.string("pattern", requiredFix: "add \"pattern\": a regular expression"),
                  compiles(pattern, ignoreCase: ignoreCase, key: "pattern", reader) else { return nil }
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
            return reader.integer("value", atLeast: 0, atMost: RunLimits.maxTokens).map { .maxOutputTokens($0) }
        case "minCacheHitRatio":
            return reader.number("value", requiredFix: "add \"value\": the lowest ratio allowed, from 0 to 1",
                                 must: "a number from 0 to 1", where: { (0...1).contains($0) })
                .map { .minCacheHitRatio($0) }
        case "containsAll", "containsAny":
            guard let values = renderedStrings("values", reader, requiredFix: "add \"values\": [\"...\", \"...\"], the texts to look for")
            else { return nil }
            return type == "containsAll" ? .containsAll(values, ignoreCase: ignoreCase) : .containsAny(values, ignoreCase: ignoreCase)
        case "keywords":
            let values = renderedStrings("values", reader, requiredFix: "add \"values\": [\"...\", \"...\"], the keywords to look for")
            let minRatio = reader.number("minRatio", requiredFix: "add \"minRatio\": the share of keywords needed, from 0 to 1",
                                         must: "a number from 0 to 1", where: { (0...1).contains($0) })
            guard let values, let minRatio else { return nil }
            return .keywords(values, minRatio: minRatio, ignoreCase: ignoreCase)
        case "judge":
            let backend = reader.string("backend", requiredFix: "add \"backend\": the configured backend that grades, e.g. \"claude\"")
            let rubric = self.rubric(reader)
            let minScore = reader.number("minScore", must: "a number from 0 to 1", where: { (0...1).contains($0) })
            guard let backend, let rubric else { return nil }
            return .judge(ModelGrader(backend: backend, location: reader["backend"]?.location, path: reader.path.key("backend").description), rubric: rubric, minScore: minScore)
        case "similar":
            let backend = reader.string("backend", requiredFix: "add \"backend\": a configured backend with /v1/embeddings (openai, or llama-server started with --embeddings)")
            let text = renderedString("value", reader, requiredFix: "add \"value\": the reference answer")
            let threshold = reader.number("threshold", requiredFix: "add \"threshold\": the least cosine similarity, e.g. 0.85",
                                          must: "a number from -1 to 1", where: { (-1...1).contains($0) })
            guard let backend, let text, let threshold else { return nil }
            return .similar(ModelGrader(backend: backend, location: reader["backend"]?.location, path: reader.path.key("backend").description), value: text, threshold: threshold)
        case "lengthBetween":
            return readLength(reader)
        case "label":
            return readLabel(reader)
        case "json":
            return .json
        case "jsonSchema":
            guard let node = reader["schema"] else {
                reader.reportMissing("schema", fix: "add \"schema\": a JSON Schema such as {\"type\": \"object\", \"required\": [\"label\"]}")
                return nil
            }
            return SchemaReader(log: log).read(node, path: reader.path.key("schema")).map { .jsonSchema($0) }
        case "jsonPath":
            return readJSONPath(reader)
        case "jsonPointer":
            return readJSONPointer(reader)
        default:
            return readToolCheck(type, reader)
        }
    }

    private func readLength(_ reader: ObjectReader) -> Assertion.Check? {
        let minimum = reader.integer("min", atLeast: 0)
        let maximum = reader.integer("max", atLeast: 0)
        if reader["min"] == nil, reader["max"] == nil {
            reader.reportMissing("min", fix: "add \"min\", \"max\" or both: the allowed length of the answer in characters")
            return nil
        }
        if let minimum, let maximum, minimum > maximum {
            log.error("'min' (\(minimum)) is greater than 'max' (\(maximum)), so no answer can pass",
                      at: reader["min"]?.location, path: reader.path.key("min"), fix: "swap them, or correct one of the two")
            return nil
        }
        guard (reader["min"] == nil || minimum != nil), (reader["max"] == nil || maximum != nil) else { return nil }
        return .lengthBetween(min: minimum, max: maximum)
    }

    private func readLabel(_ reader: ObjectReader) -> Assertion.Check? {
        let labels = renderedStrings("labels", reader, requiredFix: "add \"labels\": every label the classifier may answer, e.g. [\"positive\", \"negative\"]")
        let value = renderedString("value", reader, requiredFix: "add \"value\": the label expected for this case")
        guard let labels, let value, let labelsNode = reader["labels"] else { return nil }
        var seen: [String: String] = [:]
        var valid = true
        for (index, label) in labels.enumerated() {
            let normalized = LabelNormalizer.normalize(label)
            if normalized.isEmpty {
                log.error("the label '\(label)' is empty once trimmed of whitespace and punctuation", at: labelsNode.arrayValue?[index].location,
                          path: reader.path.key("labels").index(index), fix: "labels are compared normalised: use letters or digits")
                valid = false
            } else if let first = seen[normalized] {
                log.error("the labels '\(first)' and '\(label)' are the same once normalised (trimmed, case-folded, punctuation removed)",
                          at: labelsNode.arrayValue?[index].location, path: reader.path.key("labels").index(index),
                          fix: "list each label once")
                valid = false
            } else {
                seen[normalized] = label
            }
        }
        if seen[LabelNormalizer.normalize(value)] == nil, valid {
            let hint = suggestion(for: value, among: labels).map { "; did you mean '\($0)'?" } ?? ""
            log.error("the expected label '\(value)' is not one of 'labels'\(hint)", at: reader["value"]?.location,
                      path: reader.path.key("value"), fix: "labels: \(labels.joined(separator: ", ")); add it to 'labels' or correct 'value'")
            return nil
        }
        return valid ? .label(expected: value, labels: labels) : nil
    }

    /// A string field with templates rendered.
    func renderedString(_ key: String, _ reader: ObjectReader, requiredFix: String) -> String? {
        guard let value = reader.string(key, requiredFix: requiredFix), let node = reader[key] else { return nil }
        return scope.render(value, at: node, path: reader.path.key(key))
    }

    /// Whether an empty `value` of a text check was refused (logged): every answer contains and
    /// starts with "", so such a check tells no answer from another (`equals ""` asks for an
    /// empty answer, and is kept).
    private func refusedAsEmpty(_ text: String, of type: String, _ reader: ObjectReader) -> Bool {
        guard text.isEmpty && type != "equals" else { return false }
        log.error("'value' of \(type) is empty: the check would give every answer the same verdict",
                  at: reader["value"]?.location, path: reader.path.key("value"),
                  fix: "write the text to look for; to require an empty answer, use equals with \"\"")
        return true
    }

    /// A judge's rubric, rendered; nil (logged) when missing or blank: the judge would have
    /// nothing to grade by.
    private func rubric(_ reader: ObjectReader) -> String? {
        guard let rubric = renderedString("rubric", reader, requiredFix: "add \"rubric\": what a good answer does") else { return nil }
        guard rubric.allSatisfy(\.isWhitespace) else { return rubric }
        log.error("'rubric' is empty: the judge would have nothing to grade by", at: reader["rubric"]?.location,
                  path: reader.path.key("rubric"), fix: "write what a good answer does")
        return nil
    }

    /// A non-empty array of non-empty strings, each with templates rendered.
    private func renderedStrings(_ key: String, _ reader: ObjectReader, requiredFix: String) -> [String]? {
        guard let node = reader[key] else {
            reader.reportMissing(key, fix: requiredFix)
            return nil
        }
        guard let values = reader.strings(key) else { return nil }
        guard !values.isEmpty else {
            reader.reportInvalid(key, node, must: "a non-empty array of strings")
            return nil
        }
        var rendered: [String] = []
        for (index, value) in values.enumerated() {
            let element = node.arrayValue![index]
            guard !value.isEmpty else {
                log.error("each element of '\(key)' must be non-empty text", at: element.location,
                          path: reader.path.key(key).index(index), fix: "remove the empty string")
                return nil
            }
            rendered.append(scope.render(value, at: element, path: reader.path.key(key).index(index)))
        }
        return rendered
    }

    func compiles(_ pattern: String, ignoreCase: Bool, key: String, _ reader: ObjectReader) -> Bool {
        do {
            _ = try NSRegularExpression(pattern: pattern, options: ignoreCase ? [.caseInsensitive] : [])
            if let shape = BoundedRegex.catastrophicShape(in: pattern) {
                log.error("the pattern '\(pattern.prefix(200))' can take exponential time: \(shape)", at: reader[key]?.location,
                          path: reader.path.key(key),
                          fix: "repeat something that cannot match the same text two ways: (a+)+ is a+, (.*x){3} is (?:[^x]*x){3}; an atomic group (?>…) also works")
                return false
            }
            return true
        } catch {
            log.error("the pattern '\(pattern)' is not a valid regular expression", at: reader[key]?.location,
                      path: reader.path.key(key),
                      fix: "check its ICU syntax (unbalanced '(' or '[' and a quantifier with nothing before it are the usual causes); in JSON a backslash is written twice: \"\\\\d+\"")
            return false
        }
    }
}
