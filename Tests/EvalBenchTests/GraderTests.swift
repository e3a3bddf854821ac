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

    @Test("an answer is quoted as before on the one-pass path: cut at the limit by characters, escaped, CR LF and marks kept whole")
    func quotesAsByCharacters() {
        /// The quote as the grader made it before the one-pass path: by characters throughout.
        func byCharacters(_ text: String, limit: Int) -> String {
            let clipped = text.count > limit ? String(text.prefix(limit)) + "…" : text
            let escaped = clipped.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
            return "\"\(escaped)\""
        }
        let pieces = ["a", "Paris ", "\r\n", "\r", "\n", "\"", "\\", "é", "e\u{301}", "\u{301}", "👍🏽", "\t", "z"]
        var generator = SystemRandomNumberGenerator()
        for limit in [0, 1, 2, 5, 80, 200] {
            for length in [0, 1, limit - 1, limit, limit + 1, limit + 2, limit * 2 + 3] where length >= 0 {
                let plain = String(repeating: "a", count: length)
                #expect(Grader.quote(plain, limit: limit) == byCharacters(plain, limit: limit))
                for _ in 0..<40 {
                    var text = String((0..<length).map { _ in Character("a") })
                    // A few pieces anywhere, most often right at the cut.
                    for _ in 0..<Int.random(in: 1...3, using: &generator) {
                        let piece = pieces.randomElement(using: &generator)!
                        let at = Bool.random(using: &generator) ? min(limit, text.count) : Int.random(in: 0...text.count, using: &generator)
                        text.insert(contentsOf: piece, at: text.index(text.startIndex, offsetBy: at))
                    }
                    #expect(Array(Grader.quote(text, limit: limit).utf8) == Array(byCharacters(text, limit: limit).utf8),
                            "\(text.debugDescription) at \(limit)")
                }
            }
        }
    }
}
