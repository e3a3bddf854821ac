import Testing
@testable import EvalBench

@Suite("Cost per request")
struct CostTests {
    let pricing = Pricing(inputPerMTok: 3, cachedInputPerMTok: 0.3, outputPerMTok: 15)

    @Test("uncached input, cached input and output are each charged at their price")
    func handComputed() throws {
        // 1,000 input of which 800 cached, 200 output:
        // 200 × 3 + 800 × 0.3 + 200 × 15 = 600 + 240 + 3,000 = 3,840 per million = $0.00384
        let cost = try #require(pricing.costUSD(for: Usage(inputTokens: 1000, cachedInputTokens: 800, outputTokens: 200)))
        #expect(abs(cost - 0.00384) < 1e-12)
    }

    @Test("cached input costs the input price when no cached price is set; a per-request price adds")
    func defaults() throws {
        let plain = Pricing(inputPerMTok: 2, outputPerMTok: 4, perRequest: 0.01)
        let cost = try #require(plain.costUSD(for: Usage(inputTokens: 500_000, cachedInputTokens: 250_000, outputTokens: 250_000)))
        #expect(abs(cost - (1.0 + 1.0 + 0.01)) < 1e-12)
    }

    @Test("cache writes are part of input, charged at the cache-write price (else the input price)")
    func cacheWrites() throws {
        // Anthropic: 1,000 input = 100 uncached + 600 read from cache + 300 written to it.
        // 100 × 3 + 600 × 0.3 + 300 × 3.75 + 50 × 15 = 300 + 180 + 1,125 + 750 = 2,355 per million.
        let anthropic = Pricing(inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75, outputPerMTok: 15)
        let usage = Usage(inputTokens: 1000, cachedInputTokens: 600, cacheWriteInputTokens: 300, outputTokens: 50)
        #expect(abs(try #require(anthropic.costUSD(for: usage)) - 0.002355) < 1e-12)
        // Without a write price: 100 × 3 + 600 × 0.3 + 300 × 3 + 750 = 2,130 per million.
        #expect(abs(try #require(pricing.costUSD(for: usage)) - 0.00213) < 1e-12)
    }

    @Test("an unreported figure or no price at all leaves the cost empty, never 0")
    func unknown() {
        #expect(pricing.costUSD(for: Usage(inputTokens: 10)) == nil)
        #expect(pricing.costUSD(for: Usage(outputTokens: 10)) == nil)
        #expect(Pricing().costUSD(for: Usage(inputTokens: 10, outputTokens: 10)) == nil)
    }
}
