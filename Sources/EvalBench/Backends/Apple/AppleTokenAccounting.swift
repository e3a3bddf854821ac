import Foundation

/// Token figures for one Apple request from the best source there is: the usage the framework
/// reports (OS 27), then the model's own `tokenCount(for:)` (26.4), then a character estimate,
/// the source recorded with them.
enum AppleTokenAccounting {
    /// The text the model reads for a request: the instructions and every message so far.
    static func inputText(instructions: String?, messages: [ChatMessage]) -> String {
        ([instructions].compactMap { $0 } + messages.map(\.content)).joined(separator: "\n\n")
    }

    static func usage(reported: AppleUsage?, input: String, output: String,
                      counter: any AppleModelDriving) async -> Usage {
        if let reported, reported.inputTokens != nil || reported.outputTokens != nil {
            return Usage(inputTokens: reported.inputTokens, cachedInputTokens: reported.cachedInputTokens,
                         outputTokens: reported.outputTokens, reasoningTokens: reported.reasoningTokens,
                         source: .reported)
        }
        if let inputTokens = await counter.tokenCount(of: input), let outputTokens = await counter.tokenCount(of: output) {
            // A counter sees text, not the KV cache: cached tokens stay unknown, not 0.
            return Usage(inputTokens: inputTokens, outputTokens: outputTokens, source: .counted)
        }
        return Usage(inputTokens: TokenEstimate.tokens(in: input), outputTokens: TokenEstimate.tokens(in: output),
                     source: .estimated)
    }
}
