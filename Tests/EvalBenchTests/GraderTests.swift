import Testing
@testable import EvalBench

private func grade(_ check: Assertion.Check, output: String = "", latency: Double? = nil, ttft: Double? = nil,
                   usage: Usage = Usage()) -> AssertionResult {
    Grader().grade(Assertion(check), GradingInput(output: output, latencyMs: latency, ttftMs: ttft, usage: usage))
}

@Suite("Assertions")
struct GraderTests {
    @Test("contains is case-sensitive unless ignoreCase is set")
    func contains() {
        #expect(grade(.contains("Paris", ignoreCase: false), output: " Paris.").passed)
        #expect(!grade(.contains("paris", ignoreCase: false), output: " Paris.").passed)
        #expect(grade(.contains("paris", ignoreCase: true), output: " Paris.").passed)
    }

    @Test("notContains fails when the text appears, and says what came back")
    func notContains() {
        let result = grade(.notContains("Blue", ignoreCase: false), output: "Blue sky")
        #expect(!result.passed)
        #expect(result.message?.contains("\"Blue sky\"") == true)
        #expect(grade(.notContains("blue", ignoreCase: false), output: "Blue sky").passed)
        #expect(!grade(.notContains("blue", ignoreCase: true), output: "Blue sky").passed)
    }

    @Test("equals compares the trimmed answer")
    func equals() {
        #expect(grade(.equals("Lisbon", ignoreCase: false), output: " Lisbon\n").passed)
        #expect(!grade(.equals("Lisbon", ignoreCase: false), output: "Lisbon, Portugal").passed)
        #expect(grade(.equals("lisbon", ignoreCase: true), output: "LISBON").passed)
    }

    @Test("startsWith ignores leading whitespace")
    func startsWith() {
        #expect(grade(.startsWith("Cairo", ignoreCase: false), output: "  Cairo is").passed)
        #expect(!grade(.startsWith("Cairo", ignoreCase: false), output: "It is Cairo").passed)
        #expect(grade(.startsWith("cairo", ignoreCase: true), output: "Cairo").passed)
        #expect(!grade(.startsWith("Cairo", ignoreCase: false), output: "Cai").passed)
    }

    @Test("regex and notRegex, with ignoreCase and inline flags")
    func regex() {
        #expect(grade(.regex("\\b(8|eight)\\b", ignoreCase: false), output: "It has 8 legs").passed)
        #expect(!grade(.regex("\\b(8|eight)\\b", ignoreCase: false), output: "It has 80 legs").passed)
        #expect(grade(.regex("museum|temple", ignoreCase: true), output: "Visit a Temple").passed)
        #expect(grade(.regex("(?i)museum", ignoreCase: false), output: "MUSEUM").passed)
        #expect(!grade(.notRegex("\\d", ignoreCase: false), output: "2 legs").passed)
        #expect(grade(.notRegex("\\d", ignoreCase: false), output: "two legs").passed)
    }

    @Test("latency and TTFT limits compare measured values; unmeasured ones fail")
    func timing() {
        #expect(grade(.maxLatencyMs(100), latency: 99.5).passed)
        #expect(!grade(.maxLatencyMs(100), latency: 100.5).passed)
        #expect(grade(.maxTTFTMs(50), ttft: 50).passed)
        let unmeasured = grade(.maxTTFTMs(50), ttft: nil)
        #expect(!unmeasured.passed)
        #expect(unmeasured.message?.contains("not measured") == true)
    }

    @Test("maxOutputTokens needs a reported figure")
    func outputTokens() {
        #expect(grade(.maxOutputTokens(8), usage: Usage(outputTokens: 8)).passed)
        #expect(!grade(.maxOutputTokens(8), usage: Usage(outputTokens: 9)).passed)
        #expect(!grade(.maxOutputTokens(8), usage: Usage()).passed)
    }

    @Test("minCacheHitRatio is cached over total input")
    func cacheRatio() {
        #expect(grade(.minCacheHitRatio(0.5), usage: Usage(inputTokens: 100, cachedInputTokens: 50)).passed)
        let low = grade(.minCacheHitRatio(0.5), usage: Usage(inputTokens: 100, cachedInputTokens: 49))
        #expect(!low.passed)
        #expect(low.message?.contains("49 of 100") == true)
        #expect(!grade(.minCacheHitRatio(0.5), usage: Usage(inputTokens: 100)).passed)
    }

    @Test("an assertion's name defaults to a description of it")
    func names() {
        #expect(grade(.contains("Paris", ignoreCase: false)).name == "contains \"Paris\"")
        let named = Grader().grade(Assertion(.contains("x", ignoreCase: false), name: "mentions x"),
                                   GradingInput(output: "x", latencyMs: nil, ttftMs: nil, usage: Usage()))
        #expect(named.name == "mentions x")
        #expect(named.type == "contains")
    }
}
