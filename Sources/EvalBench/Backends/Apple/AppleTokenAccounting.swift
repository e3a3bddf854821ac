import Foundation

/// Token figures for one Apple request from the best source there is, the source recorded
/// with them: the usage the framework reports (OS 27: the change in the session's usage across
/// the request, else the last snapshot's), then the model's own `tokenCount(for:)` (26.4) of
/// the instructions, every message, the schema and the answer, then `TokenEstimate`. A usage
/// whose figures are all 0 is what OS 27 reports before counting: unknown, not `reported`.
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

        var best: AppleUsage? {
            if let change = AppleUsage.change(from: sessionBefore, to: sessionAfter), !change.isEmpty,
               change.inputTokens != nil || change.outputTokens != nil {
                return change
            }
            if let snapshot, !snapshot.isEmpty, snapshot.inputTokens != nil || snapshot.outputTokens != nil { return snapshot }
            return nil
        }
    }

    static func usage(_ reported: Reported, request: ModelRequest, schema: AppleSchema?, output: String,
                      counter: any AppleModelDriving) async -> Usage {
        if let usage = reported.best {
            return Usage(inputTokens: usage.inputTokens, cachedInputTokens: usage.cachedInputTokens,
                         outputTokens: usage.outputTokens, reasoningTokens: usage.reasoningTokens, source: .reported)
        }
        if let input = await countedInput(request, schema: schema, counter: counter),
           let outputTokens = await counter.tokenCount(of: .prompt(output)) {
            // A counter sees text, not the KV cache: cached tokens stay unknown, not 0.
            return Usage(inputTokens: input, outputTokens: outputTokens, source: .counted)
        }
        var input = TokenEstimate.tokens(in: inputText(instructions: request.instructions, messages: request.messages))
        if let schemaText = request.output?.schemaText { input += TokenEstimate.tokens(in: schemaText) }
        return Usage(inputTokens: input, outputTokens: TokenEstimate.tokens(in: output), source: .estimated)
    }

    /// The model's count of everything the request puts before the model; nil when any part
    /// cannot be counted.
    private static func countedInput(_ request: ModelRequest, schema: AppleSchema?, counter: any AppleModelDriving) async -> Int? {
        var parts: [AppleTokenInput] = request.instructions.map { [.instructions($0)] } ?? []
        parts += request.messages.map { .prompt($0.content) }
        if let schema { parts.append(.schema(schema)) }
        var total = 0
        for part in parts {
            guard let count = await counter.tokenCount(of: part) else { return nil }
            total += count
        }
        return total
    }
}
