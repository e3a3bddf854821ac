import Foundation

/// Token figures for one Apple request from the best source there is, the source recorded
/// with them: the usage the framework reports (OS 27: the change in the session's usage across
/// the request, else the last snapshot's), then the model's own `tokenCount(for:)` (26.4) of
/// the instructions, the tool set, every message, the schema and the answer, then `TokenEstimate`.
/// A usage whose figures are all 0 is what OS 27 reports before counting: unknown, not `reported`.
/// When the framework ran tool rounds inside the request, a count or estimate adds each call's
/// arguments to the output and each call's arguments and result to the input, once: the
/// session keeps its context from round to round, so the model reads each of them once.
enum AppleTokenAccounting {
    /// The text the model reads for a request: the instructions and every message so far.
    static func inputText(instructions: String?, messages: [ChatMessage]) -> String {
        ([instructions].compactMap { $0 } + messages.map(\.content)).joined(separator: "\n\n")
    }

    /// What the framework reported about one request.
    struct Reported {
        /// `session.usage` before and after the request.
        var sessionBefore: AppleUsage?
        var sessionAfter: AppleUsage?
        /// The last snapshot's (or response's) usage.
        var snapshot: AppleUsage?

        /// The first negative count of the session's readings, said as the notes of other
        /// backends say theirs (`session usage before the request: input_tokens -4 is negative`); nil when none.
        var impossibleReading: String? {
            let readings: [(String, AppleUsage?)] = [("session usage before the request", sessionBefore),
                                                    ("session usage after the request", sessionAfter), ("snapshot usage", snapshot)]
            let keys: [(String, KeyPath<AppleUsage, Int?>)] = [("input_tokens", \.inputTokens), ("cached_input_tokens", \.cachedInputTokens),
                                                               ("output_tokens", \.outputTokens), ("reasoning_tokens", \.reasoningTokens)]
            for (name, reading) in readings {
                guard let reading else { continue }
                for (key, path) in keys {
                    if let value = reading[keyPath: path], value < 0 { return "\(name): \(key) \(value) is negative" }
                }
            }
            return nil
        }

        var best: AppleUsage? {
            if let change = AppleUsage.change(from: sessionBefore, to: sessionAfter), !change.isEmpty,
               change.inputTokens != nil || change.outputTokens != nil {
                return change
            }
            if let snapshot, !snapshot.isEmpty, snapshot.inputTokens != nil || snapshot.outputTokens != nil { return snapshot }
            return nil
        }
    }

    static func usage(_ reported: Reported, request: ModelRequest, schema: AppleSchema?, tools: [AppleToolSpec] = [],
                      calls: [ToolCallRecord] = [], output: String, counter: any AppleModelDriving) async -> Usage {
        if let usage = reported.best {
            var figures = Usage(inputTokens: usage.inputTokens, cachedInputTokens: usage.cachedInputTokens,
                                outputTokens: usage.outputTokens, reasoningTokens: usage.reasoningTokens, source: .reported)
            // A figure left unknown because a reading was impossible says so, as other backends' do.
            figures.suspect = reported.impossibleReading
            return figures
        }
        let written = calls.map(\.writtenArguments)
        let read = calls.flatMap { [$0.writtenArguments, $0.result].compactMap { $0 } }
        if let input = await counted(inputParts(request, schema: schema, tools: tools) + read.map { .prompt($0) }, counter: counter),
           let outputTokens = await counted([.prompt(output)] + written.map { .prompt($0) }, counter: counter) {
            // A counter sees text, not the KV cache: cached tokens stay unknown, not 0.
            return Usage(inputTokens: input, outputTokens: outputTokens, source: .counted)
        }
        var input = TokenEstimate.tokens(in: inputText(instructions: request.instructions, messages: request.messages))
        if let schemaText = request.output?.schemaText { input += TokenEstimate.tokens(in: schemaText) }
        if !tools.isEmpty { input += ToolCost.estimatedTokens(request.tools) }
        input += read.reduce(0) { $0 + TokenEstimate.tokens(in: $1) }
        let outputTokens = ([output] + written).reduce(0) { $0 + TokenEstimate.tokens(in: $1) }
        return Usage(inputTokens: input, outputTokens: outputTokens, source: .estimated)
    }

    /// Everything the request puts before the model: instructions, the session's tools, every
    /// message, the schema.
    private static func inputParts(_ request: ModelRequest, schema: AppleSchema?, tools: [AppleToolSpec]) -> [AppleTokenInput] {
        var parts: [AppleTokenInput] = request.instructions.map { [.instructions($0)] } ?? []
        if !tools.isEmpty { parts.append(.tools(tools)) }
        parts += request.messages.map { .prompt($0.content) }
        if let schema { parts.append(.schema(schema)) }
        return parts
    }

    /// The model's count of `parts` together; nil when any part cannot be counted.
    private static func counted(_ parts: [AppleTokenInput], counter: any AppleModelDriving) async -> Int? {
        var total = 0
        for part in parts {
            guard let count = await counter.tokenCount(of: part) else { return nil }
            total += count
        }
        return total
    }
}
