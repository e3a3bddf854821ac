import Foundation

/// Reads a `tools` list (of a suite, a case or a turn): each tool's `name`, `description`,
/// `parameters` (a JSON Schema, compiled here like every other schema) and canned `results`.
struct ToolSetReader {
    let log: DiagnosticLog

    /// The keys of one tool.
    static let toolKeys = ["name", "description", "parameters", "results"]

    func read(_ node: JSONNode, path: JSONPath) -> [CannedTool] {
        guard let elements = node.arrayValue else {
            log.error("'tools' must be an array of tools, found \(node.kindDescription)", at: node.location, path: path,
                      fix: "write \"tools\": [ { \"name\": \"get_weather\", \"description\": \"...\", \"parameters\": {...}, \"results\": [...] } ]")
            return []
        }
        var tools: [CannedTool] = []
        var firstUse: [String: SourceLocation] = [:]
        for (index, element) in elements.enumerated() {
            guard let reader = ObjectReader(element, path: path.index(index), log: log, what: "a tool") else { continue }
            guard let tool = readTool(reader) else { continue }
            if let first = firstUse[tool.name], let nameNode = reader["name"] {
                log.error("duplicate tool name '\(tool.name)'; it is first used at line \(first.line)", at: nameNode.location,
                          path: reader.path.key("name"), fix: "give each tool of a set a unique name")
                continue
            }
            firstUse[tool.name] = reader["name"]?.location
            tools.append(tool)
        }
        return tools
    }

    private func readTool(_ reader: ObjectReader) -> CannedTool? {
        reader.rejectUnknownKeys(allowed: Self.toolKeys)
        let name = reader.string("name", requiredFix: "add \"name\": e.g. \"get_weather\"")
        if let name, let node = reader["name"], !Self.isToolName(name) {
            log.error("the tool name '\(name)' may contain only letters, digits, '_' and '-' (1 to 64)", at: node.location,
                      path: reader.path.key("name"), fix: "OpenAI, Anthropic and Gemini require such a name; e.g. \"get_weather\"")
        }
        let description = reader.string("description", requiredFix: "add \"description\": what the tool does, for the model")
        let parameters = readParameters(reader)
        let results = readResults(reader)
        guard let name, Self.isToolName(name), let description, let parameters, let results else { return nil }
        return CannedTool(definition: ToolDefinition(name: name, description: description, parametersText: parameters.text),
                          parameters: parameters.schema, results: results)
    }

    /// `parameters`: an object schema; without it, a tool that takes no arguments.
    private func readParameters(_ reader: ObjectReader) -> (schema: JSONSchema, text: String)? {
        let path = reader.path.key("parameters")
        guard let node = reader["parameters"] else {
            let empty = JSONValue.object(["type": .string("object"), "properties": .object([:])])
            return (try? JSONSchema(validating: empty)).map { ($0, #"{"type":"object","properties":{}}"#) }
        }
        guard node.members != nil, node["type"]?.stringValue == "object" else {
            log.error("'parameters' must be a JSON Schema of an object (\"type\": \"object\")", at: node.location, path: path,
                      fix: "write \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}")
            return nil
        }
        guard let schema = SchemaReader(log: log).read(node, path: path) else { return nil }
        return (schema, node.compactJSON)
    }

    /// `results`: `{"when": {...}, "result": ...}` or `{"when": {...}, "error": "..."}`, tried in
    /// order; one without `when` is the default and must come last.
    private func readResults(_ reader: ObjectReader) -> [CannedResult]? {
        let path = reader.path.key("results")
        guard let node = reader["results"] else {
            reader.reportMissing("results", fix: "add \"results\": [ { \"when\": { \"city\": \"Paris\" }, \"result\": { \"celsius\": 18 } }, { \"result\": \"unknown city\" } ]")
            return nil
        }
        guard let elements = node.arrayValue, !elements.isEmpty else {
            reader.reportInvalid("results", node, must: "a non-empty array of canned results")
            return nil
        }
        var results: [CannedResult] = []
        var sawDefault: SourceLocation?
        for (index, element) in elements.enumerated() {
            guard let entry = ObjectReader(element, path: path.index(index), log: log, what: "a canned result") else { continue }
            if let line = sawDefault?.line {
                log.error("this result can never be used: the result without \"when\" at line \(line) answers every call first",
                          at: element.location, path: path.index(index), fix: "move the result without \"when\" to the end")
            }
            guard let result = readResult(entry) else { continue }
            if result.when == nil { sawDefault = element.location }
            results.append(result)
        }
        return results.count == elements.count ? results : nil
    }

    private func readResult(_ entry: ObjectReader) -> CannedResult? {
        entry.rejectUnknownKeys(allowed: ["when", "result", "error"])
        var when: JSONValue?
        if let node = entry["when"] {
            guard node.members != nil else {
                entry.reportInvalid("when", node, must: "an object: the arguments (a subset) this result answers")
                return nil
            }
            when = JSONValue(node)
        }
        switch (entry["result"], entry["error"]) {
        case let (result?, nil):
            return CannedResult(when: when, content: result.stringValue ?? result.compactJSON)
        case let (nil, error?):
            guard let message = error.stringValue else {
                entry.reportInvalid("error", error, must: "a string: the failing tool's message")
                return nil
            }
            return CannedResult(when: when, content: message, isError: true)
        case (.some, .some):
            log.error("a canned result has either 'result' or 'error', not both", at: entry.node.location, path: entry.path,
                      fix: "use \"result\" for what the tool returns, \"error\" to simulate a failing tool")
        case (nil, nil):
            entry.reportMissing("result", fix: "add \"result\": JSON or text the tool returns, or \"error\": \"...\"")
        }
        return nil
    }

    /// OpenAI's, Anthropic's and Gemini's rule for function names.
    static func isToolName(_ name: String) -> Bool {
        (1...64).contains(name.count)
            && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") }
    }
}
