import Foundation

/// The tool assertions: `toolCalled`, `toolNotCalled`, `toolSequence`, `toolArgumentsValid`,
/// `maxToolCalls` and `maxToolRounds`. The tool is named by `tool`, since `name` names the assertion.
extension AssertionReader {
    func readToolCheck(_ type: String, _ reader: ObjectReader) -> Assertion.Check? {
        switch type {
        case "toolCalled":
            return readToolCalled(reader)
        case "toolNotCalled":
            return .toolNotCalled(name: reader.string("tool"))
        case "toolSequence":
            guard let names = reader.strings("names"), !names.isEmpty else {
                if let node = reader["names"] {
                    reader.reportInvalid("names", node, must: "a non-empty array of tool names")
                } else {
                    reader.reportMissing("names", fix: "add \"names\": the tools in the order they must be called, e.g. [\"find_city\", \"get_weather\"]")
                }
                return nil
            }
            return .toolSequence(names: names, strict: reader.bool("strict") ?? false)
        case "toolArgumentsValid":
            return .toolArgumentsValid
        case "maxToolCalls", "maxToolRounds":
            guard reader["value"] != nil else {
                reader.reportMissing("value", fix: "add \"value\": the most \(type == "maxToolCalls" ? "tool calls" : "rounds of tool calls") allowed")
                return nil
            }
            return reader.integer("value", atLeast: 0).map { type == "maxToolCalls" ? .maxToolCalls($0) : .maxToolRounds($0) }
        default:
            return nil
        }
    }

    private func readToolCalled(_ reader: ObjectReader) -> Assertion.Check? {
        let name = reader.string("tool", requiredFix: "add \"tool\": the name of the tool that must be called")
        var arguments: JSONValue?
        if let node = reader["arguments"] {
            guard node.members != nil else {
                reader.reportInvalid("arguments", node, must: "an object: arguments (a subset) the call must have")
                return nil
            }
            arguments = JSONValue(node)
        }
        let times = reader.integer("times", atLeast: 0)
        let minimum = reader.integer("min", atLeast: 0)
        let maximum = reader.integer("max", atLeast: 0)
        if times != nil, minimum != nil || maximum != nil {
            log.error("'times' cannot be combined with 'min' or 'max'", at: reader["times"]?.location, path: reader.path.key("times"),
                      fix: "use \"times\" for an exact count, or \"min\"/\"max\" for a range")
            return nil
        }
        if let minimum, let maximum, minimum > maximum {
            log.error("'min' (\(minimum)) is greater than 'max' (\(maximum)), so no turn can pass", at: reader["min"]?.location,
                      path: reader.path.key("min"), fix: "swap them, or correct one of the two")
            return nil
        }
        guard let name else { return nil }
        return .toolCalled(name: name, arguments: arguments, times: times, min: minimum, max: maximum)
    }
}
