import Foundation

/// What a tool set costs in tokens before anything is asked: every request that carries it
/// spends them, and on the on-device model they come out of a 4,096-token window.
package enum ToolCost {
    /// The on-device model's window on OS 26, which the share is given of.
    package static let onDeviceWindow = 4096

    /// Estimated tokens of `tools` as a request carries them (the OpenAI-style JSON of each
    /// definition), at about 4 characters a token; providers render them a little differently.
    package static func estimatedTokens(_ tools: [ToolDefinition]) -> Int {
        let rendered = tools.map { tool in
            "{\"type\":\"function\",\"function\":{\"name\":\(JSONWriter.string(tool.name)),\"description\":"
                + "\(JSONWriter.string(tool.description)),\"parameters\":\(tool.parametersText)}}"
        }
        return TokenEstimate.tokens(in: "[" + rendered.joined(separator: ",") + "]")
    }

    /// One `plan` line per distinct tool set of the plan's cases (a case's own, and those its
    /// turns switch to): its tools, how many cases send it, its tokens and its share of the window,
    /// estimated, and counted by each of `counters` that can count here (a managed server is
    /// not started by `plan`, so it cannot; the Apple kinds can where `tokenCount(for:)` exists).
    package static func lines(_ plan: RunPlan, counters: [(name: String, counter: any ToolTokenCounting)] = []) async -> [String] {
        var sets: [[ToolDefinition]] = []
        var cases: [[ToolDefinition]: Set<String>] = [:]
        for caseRun in plan.caseRuns {
            let evalCase = caseRun.evalCase
            for tools in [evalCase.tools] + evalCase.turns.compactMap(\.switchTo?.tools) where !tools.isEmpty {
                let definitions = tools.map(\.definition)
                if cases[definitions] == nil { sets.append(definitions) }
                cases[definitions, default: []].insert("\(caseRun.suite)/\(evalCase.id)")
            }
        }
        var lines: [String] = []
        for tools in sets {
            let tokens = estimatedTokens(tools)
            let count = cases[tools]?.count ?? 0
            var line = "tools \(tools.map(\.name).joined(separator: ", ")) (\(count) case\(count == 1 ? "" : "s")): "
                + "about \(tokens) tokens per request (estimated, about 4 characters a token), "
                + "\(share(tokens))% of the on-device model's \(onDeviceWindow)-token window"
            for (name, counter) in counters {
                guard let counted = await counter.countToolTokens(tools) else { continue }
                line += "; \(name): \(counted.tokens) tokens \(counted.method), \(share(counted.tokens))%"
            }
            lines.append(line)
        }
        return lines
    }

    private static func share(_ tokens: Int) -> String {
        DecimalText.fixed(Double(tokens) / Double(onDeviceWindow) * 100, places: 1) ?? "?"
    }
}
