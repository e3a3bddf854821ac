import Foundation

/// The checks on a turn's tool calls. Each failure lists the calls that were made.
enum ToolChecks {
    static func notCalled(_ name: String?, _ use: ToolUse) -> CheckOutcome {
        let offending = use.calls.filter { name == nil || $0.name == name }
        return CheckOutcome(holds: offending.isEmpty, expected: name.map { "no call of \($0)" } ?? "no tool call",
                            actual: made(use.calls))
    }

    static func sequence(_ names: [String], strict: Bool, _ use: ToolUse) -> CheckOutcome {
        CheckOutcome(holds: follows(names, use.calls.map(\.name), strict: strict),
                     expected: "the calls \(strict ? "to be exactly, in a row" : "to include, in order"): \(names.joined(separator: " → "))",
                     actual: made(use.calls))
    }

    static func maxCalls(_ limit: Int, _ use: ToolUse) -> CheckOutcome {
        CheckOutcome(holds: use.calls.count <= limit, expected: "at most \(limit) tool calls", actual: made(use.calls))
    }

    static func maxRounds(_ limit: Int, _ use: ToolUse) -> CheckOutcome {
        CheckOutcome(holds: use.rounds <= limit, expected: "at most \(limit) rounds of tool calls",
                     actual: "\(use.rounds) rounds: " + made(use.calls))
    }

    static func called(_ name: String, _ arguments: JSONValue?, times: Int?, min minimum: Int?, max maximum: Int?,
                               _ use: ToolUse) -> CheckOutcome {
        let matching = use.calls.filter { call in
            call.name == name && (arguments.map { wanted in call.arguments.map { ToolAnswering.contains($0, wanted) } ?? false } ?? true)
        }
        let count = matching.count
        let holds: Bool
        let bound: String
        if let times {
            holds = count == times
            bound = "exactly \(times) time\(times == 1 ? "" : "s")"
        } else {
            let low = minimum ?? (maximum == nil ? 1 : 0)
            holds = count >= low && maximum.map { count <= $0 } ?? true
            bound = maximum.map { "\(low) to \($0) times" } ?? "at least \(low) time\(low == 1 ? "" : "s")"
        }
        let with = arguments.map { " with arguments containing \(JSONWriter.string($0.foundationObject))" } ?? ""
        return CheckOutcome(holds: holds, expected: "\(name) called\(with) \(bound)",
                            actual: "\(count) matching; " + made(use.calls))
    }

    /// Whether `names` appear in `calls` in order (`strict`: as one run with nothing between).
    static func follows(_ names: [String], _ calls: [String], strict: Bool) -> Bool {
        if strict {
            guard calls.count >= names.count else { return false }
            return (0...(calls.count - names.count)).contains { Array(calls[$0..<($0 + names.count)]) == names }
        }
        var next = names.startIndex
        for call in calls where next < names.endIndex && call == names[next] { next += 1 }
        return next == names.endIndex
    }

    static func argumentsValid(_ use: ToolUse) -> CheckOutcome {
        var problems: [String] = []
        for call in use.calls {
            guard let tool = use.tools.first(where: { $0.name == call.name }) else {
                problems.append("\(call.summary): no such tool")
                continue
            }
            guard let arguments = call.arguments else {
                problems.append("\(call.summary): not valid JSON")
                continue
            }
            if let violation = tool.parameters.validate(arguments).first {
                problems.append("\(call.summary): at \(violation.pointer.description.isEmpty ? "/" : violation.pointer.description): \(violation.message)")
            }
        }
        return CheckOutcome(holds: problems.isEmpty, expected: "every call's arguments valid against its tool's parameters",
                            actual: problems.isEmpty ? made(use.calls) : problems.joined(separator: "; "))
    }

    /// `2 calls: get_weather({"city":"Paris"}) (round 1), …`, or `no tool calls`.
    static func made(_ calls: [ToolCallRecord]) -> String {
        guard !calls.isEmpty else { return "no tool calls" }
        let listed = calls.prefix(6).map { "\($0.summary) (round \($0.round))" }.joined(separator: ", ")
        return "\(calls.count) call\(calls.count == 1 ? "" : "s"): \(listed)" + (calls.count > 6 ? ", …" : "")
    }
}
