import Testing
@testable import EvalBench

private func grade(_ check: Assertion.Check, output: String = "", latency: Double? = nil, ttft: Double? = nil,
                   usage: Usage = Usage()) async -> AssertionResult {
    await Grader().grade(Assertion(check), GradingInput(output: output, latencyMs: latency, ttftMs: ttft, usage: usage))
}

@Suite("Assertions")
struct GraderTests {
    @Test("contains is case-sensitive unless ignoreCase is set")
    func contains() async {
        #expect(await grade(.contains("Paris", ignoreCase: false), output: " Paris.").passed)
        #expect(await !grade(.contains("paris", ignoreCase: false), output: " Paris.").passed)
        #expect(await grade(.contains("paris", ignoreCase: true), output: " Paris.").passed)
    }

    @Test("notContains fails when the text appears, and says what came back")
    func notContains() async {
        let result = await grade(.notContains("Blue", ignoreCase: false), output: "Blue sky")
        #expect(!result.passed)
        #expect(result.message?.contains("\"Blue sky\"") == true)
        #expect(await grade(.notContains("blue", ignoreCase: false), output: "Blue sky").passed)
        #expect(await !grade(.notContains("blue", ignoreCase: true), output: "Blue sky").passed)
    }

    @Test("equals compares the trimmed answer")
    func equals() async {
        #expect(await grade(.equals("Lisbon", ignoreCase: false), output: " Lisbon\n").passed)
        #expect(await !grade(.equals("Lisbon", ignoreCase: false), output: "Lisbon, Portugal").passed)
        #expect(await grade(.equals("lisbon", ignoreCase: true), output: "LISBON").passed)
    }

    @Test("startsWith ignores leading whitespace")
    func startsWith() async {
        #expect(await grade(.startsWith("Cairo", ignoreCase: false), output: "  Cairo is").passed)
        #expect(await !grade(.startsWith("Cairo", ignoreCase: false), output: "It is Cairo").passed)
        #expect(await grade(.startsWith("cairo", ignoreCase: true), output: "Cairo").passed)
        #expect(await !grade(.startsWith("Cairo", ignoreCase: false), output: "Cai").passed)
    }

    @Test("regex and notRegex, with ignoreCase and inline flags")
    func regex() async {
        #expect(await grade(.regex("\\b(8|eight)\\b", ignoreCase: false), output: "It has 8 legs").passed)
        #expect(await !grade(.regex("\\b(8|eight)\\b", ignoreCase: false), output: "It has 80 legs").passed)
        #expect(await grade(.regex("museum|temple", ignoreCase: true), output: "Visit a Temple").passed)
        #expect(await grade(.regex("(?i)museum", ignoreCase: false), output: "MUSEUM").passed)
        #expect(await !grade(.notRegex("\\d", ignoreCase: false), output: "2 legs").passed)
        #expect(await grade(.notRegex("\\d", ignoreCase: false), output: "two legs").passed)
    }

    @Test("latency and TTFT limits compare measured values; unmeasured ones fail")
    func timing() async {
        #expect(await grade(.maxLatencyMs(100), latency: 99.5).passed)
        #expect(await !grade(.maxLatencyMs(100), latency: 100.5).passed)
        #expect(await grade(.maxTTFTMs(50), ttft: 50).passed)
        let unmeasured = await grade(.maxTTFTMs(50), ttft: nil)
        #expect(!unmeasured.passed)
        #expect(unmeasured.message?.contains("not measured") == true)
    }

    @Test("maxOutputTokens needs a reported figure")
    func outputTokens() async {
        #expect(await grade(.maxOutputTokens(8), usage: Usage(outputTokens: 8)).passed)
        #expect(await !grade(.maxOutputTokens(8), usage: Usage(outputTokens: 9)).passed)
        #expect(await !grade(.maxOutputTokens(8), usage: Usage()).passed)
    }

    @Test("minCacheHitRatio is cached over total input")
    func cacheRatio() async {
        #expect(await grade(.minCacheHitRatio(0.5), usage: Usage(inputTokens: 100, cachedInputTokens: 50)).passed)
        let low = await grade(.minCacheHitRatio(0.5), usage: Usage(inputTokens: 100, cachedInputTokens: 49))
        #expect(!low.passed)
        #expect(low.message?.contains("49 of 100") == true)
        #expect(await !grade(.minCacheHitRatio(0.5), usage: Usage(inputTokens: 100)).passed)
    }

    @Test("an assertion's name defaults to a description of it")
    func names() async {
        #expect(await grade(.contains("Paris", ignoreCase: false)).name == "contains \"Paris\"")
        let named = await Grader().grade(Assertion(.contains("x", ignoreCase: false), name: "mentions x"),
                                   GradingInput(output: "x", latencyMs: nil, ttftMs: nil, usage: Usage()))
        #expect(named.name == "mentions x")
        #expect(named.type == "contains")
    }
}
