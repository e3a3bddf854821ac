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
        // Cached input priced apart and not reported: which part of the input was cached is unknown.
        let unsplit = Usage(inputTokens: 1000, outputTokens: 10)
        #expect(pricing.pricedCost(for: unsplit) == (nil, "cost unknown: cached input tokens are priced apart from input and were not reported"))
        #expect(Pricing(inputPerMTok: 3, cachedInputPerMTok: 3, outputPerMTok: 15).costUSD(for: unsplit) != nil, "priced alike, the split does not matter")
        #expect(Pricing(inputPerMTok: 3, outputPerMTok: 15).costUSD(for: unsplit) != nil)
        let writesUnknown = Usage(inputTokens: 1000, cachedInputTokens: 600, outputTokens: 50)
        #expect(Pricing(inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75, outputPerMTok: 15).costUSD(for: writesUnknown) == nil)
        #expect(pricing.costUSD(for: Usage(outputTokens: 10)) == nil)
        #expect(Pricing().costUSD(for: Usage(inputTokens: 10, outputTokens: 10)) == nil)
    }

    @Test("the on-device model, Private Cloud Compute and a local llama-server cost 0 dollars; a cloud backend without prices stays unknown")
    func freeKinds() throws {
        let free: [any BackendKind] = [AppleSystemKind(), ApplePCCKind(), LlamaServerKind(modelPath: "/m.gguf")]
        for options in free {
            let kind = type(of: options).name
            let charged = try #require(BackendConfig(name: "b", options: options).chargedPricing)
            #expect(charged.costUSD(for: Usage()) == 0, "\(kind) with nothing reported")
            #expect(charged.costUSD(for: Usage(inputTokens: 4000, outputTokens: 100)) == 0, "\(kind)")
        }
        let charging: [any BackendKind] = [OpenAIKind(baseURL: "http://x/v1"), AnthropicKind(), GeminiKind(), ReplayKind(from: "/run")]
        for options in charging {
            #expect(BackendConfig(name: "b", options: options).chargedPricing == nil, "\(type(of: options).name)")
        }
        // A configured price wins, even for a local server (someone may price their hardware).
        let priced = BackendConfig(name: "b", pricing: Pricing(perRequest: 0.001), options: LlamaServerKind(modelPath: "/m.gguf"))
        #expect(priced.chargedPricing?.costUSD(for: Usage()) == 0.001)
    }

    @Test("a case costs the sum of its turns and a run the sum of its requests, by hand")
    func caseAndRunTotals() throws {
        // Two cases on one backend: a two-turn case (turn 1: 1,000 in / 100 out; turn 2: 1,200 in of
        // which 1,000 cached / 50 out) and a single-turn case (800 in / 20 out), at 3 / 0.3 / 15:
        // turn 1: 1,000 × 3 + 100 × 15 = 4,500; turn 2: 200 × 3 + 1,000 × 0.3 + 50 × 15 = 1,650;
        // single: 800 × 3 + 20 × 15 = 2,700 per million. Case 1 = $0.00615, run = $0.00885.
        let usages = [(case: "a", turn: 1, usage: Usage(inputTokens: 1000, cachedInputTokens: 0, outputTokens: 100)),
                      (case: "a", turn: 2, usage: Usage(inputTokens: 1200, cachedInputTokens: 1000, outputTokens: 50)),
                      (case: "b", turn: 1, usage: Usage(inputTokens: 800, cachedInputTokens: 0, outputTokens: 20))]
        let results = usages.map { item in
            RequestResult(key: "s/\(item.case)/default/cloud/none/1", suite: "s", caseID: item.case, turn: item.turn,
                          turns: item.case == "a" ? 2 : 1, variant: "default", backend: "cloud", model: "m", reasoning: .none,
                          repeatIndex: 1, tags: [], status: .pass, instructions: nil, prompt: "p", usage: item.usage,
                          costUSD: pricing.costUSD(for: item.usage))
        }
        let aggregate = RunAggregate(results)
        let caseA = try #require(aggregate.caseRuns.first { $0.caseID == "a" })
        #expect(abs(try #require(caseA.costUSD) - 0.00615) < 1e-12)
        #expect(abs(try #require(aggregate.groups.first?.costUSD) - 0.00885) < 1e-12)
        #expect(abs(try #require(aggregate.groups.first?.costPerThousandCasesUSD) - 4.425) < 1e-9)
    }
}
