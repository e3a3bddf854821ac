import Testing
@testable import EvalBench

@Test("The cache-hit ratio is cached over input, and null when either is missing")
func cacheHitRatio() {
    #expect(Usage(inputTokens: 200, cachedInputTokens: 50).cacheHitRatio == 0.25)
    #expect(Usage(inputTokens: 200).cacheHitRatio == nil)
    #expect(Usage(inputTokens: 0, cachedInputTokens: 0).cacheHitRatio == nil)
}
