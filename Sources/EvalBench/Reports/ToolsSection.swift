import Foundation

/// summary.md's Tools section: per backend × reasoning × variant, tool-call accuracy, calls
/// and rounds per turn, how many calls' arguments parsed, and the most frequent wrong calls.
enum ToolsSection {
    static func render(_ aggregate: RunAggregate) -> String? {
        let groups = aggregate.groups.compactMap { summary in summary.tools.map { (summary.group.label, $0) } }
        guard !groups.isEmpty else { return nil }
        var table = MarkdownTable([("Backend × level × variant", .left), ("Turns with tools", .right), ("Tool accuracy", .right),
                                   ("Calls per turn", .right), ("Rounds per turn", .right), ("Arguments parsed", .right),
                                   ("Tool definitions (tokens, share of 4,096)", .right), ("Most frequent wrong calls", .left)])
        for (label, tools) in groups {
            let accuracy = tools.accuracy.map { "\(ReportFormat.percentNumber($0))% (\(tools.passedTurns)/\(tools.gradedTurns))" } ?? "n/a"
            let perTurn = { (value: Int) in tools.turns > 0 ? DecimalText.fixed(Double(value) / Double(tools.turns), places: 2) ?? "n/a" : "n/a" }
            let parsed = tools.calls > 0 ? "\(ReportFormat.percentNumber(Double(tools.parsedCalls) / Double(tools.calls)))% (\(tools.parsedCalls)/\(tools.calls))" : "n/a"
            let wrong = tools.mostFrequentWrongCalls().map { "\($0.call) ×\($0.count)" }.joined(separator: "; ")
            let share = { (tokens: Int) in "\(ReportFormat.percentNumber(Double(tokens) / 4096))%" }
            var cost = tools.largestToolSetTokens.map { "\($0) estimated (\(share($0)))" } ?? "n/a"
            if let counted = tools.largestCountedToolSetTokens {
                cost += "; \(counted) \(tools.countedToolSetMethod ?? "counted") (\(share(counted)))"
            }
            table.appendRow([label, String(tools.turns), accuracy, perTurn(tools.calls), perTurn(tools.rounds), parsed, cost,
                             wrong.isEmpty ? "—" : wrong])
        }
        return "## Tools\n\nTool accuracy is the share of turns graded by tool assertions whose tool assertions all passed. "
            + "A wrong call is one no canned result matched (an unknown tool, malformed or unexpected arguments). "
            + "Tool definitions: the largest tool set a turn sent, estimated at about 4 characters a token, and its share "
            + "of the on-device model's 4,096-token window.\n\n" + table.text
    }
}
