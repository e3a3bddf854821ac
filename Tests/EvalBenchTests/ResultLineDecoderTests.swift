import Foundation
import Testing
@testable import EvalBench

/// `ResultLineDecoder` must read every line to the value `JSONDecoder` reads, and refuse
/// (leaving the line to `JSONDecoder`) whatever it would read otherwise.
struct ResultLineDecoderTests {
    static func jsonDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// Results with every kind of member: required ones only, every optional one, nested
    /// values, odd strings and extreme numbers.
    static func variedResults() -> [RequestResult] {
        var plain = fixtureResult(caseID: "capital", status: .pass, latencyMs: 90.125, ttftMs: 40,
                                  usage: Usage(inputTokens: 120, cachedInputTokens: 100, outputTokens: 4, source: .reported))
        plain.planIndex = 0
        var full = fixtureResult(caseID: "ünïcode ✓ 😀", turn: 2, turns: 3, reasoning: .deep, repeatIndex: 4, status: .fail,
                                 latencyMs: 1e-7, ttftMs: 0.1 + 0.2, usage: Usage(inputTokens: Int.max, cachedInputTokens: 0,
                                 cacheWriteInputTokens: 7, outputTokens: -3, reasoningTokens: 2, source: .estimated),
                                 failedAssertion: "contains \"Paris\"\n\t\\ /", costUSD: 0.000_012_5)
        full.usage.suspect = "cached above input"
        full.tags = ["a", "b\"c", "\u{1}"]
        full.instructions = "Answer in one word.\r\n\u{7F}\u{2028}"
        full.output = String(repeating: "é", count: 40) + "\u{10FFFF}"
        full.reasoningText = "thinking…"
        full.finishReason = "length"
        full.errorMessage = "timed out"
        full.skipReason = "quota"
        full.switched = "cloud"
        full.cached = true
        full.historyNote = "kept 2 turns"
        full.score = 0.5
        full.threshold = 0.75
        full.caseScore = 1
        full.replayed = false
        full.replayedFrom = "runs/a"
        full.planIndex = Int.min + 1
        full.unknownFigures = ["latency_ms"]
        full.toolDefinitionTokens = 12
        full.toolDefinitionTokensCounted = 11
        full.toolDefinitionTokensMethod = "llama-server /tokenize"
        full.details = RequestDetails(fallback: .init(backend: "local", reason: "quota"), session: nil)
        full.slo = ServiceLevel(ttftMs: 100, latencyMs: nil)
        full.rounds = [ToolRound(round: 1, latencyMs: 3, ttftMs: nil, usage: Usage(inputTokens: 1), toolCalls: 1)]
        full.toolCalls = [ToolCallRecord(round: 1, id: "c1", name: "weather", arguments: .object(["city": .string("Paris")]),
                                         argumentsText: #"{"city":"Paris"}"#, result: "sunny", isError: false, matched: true)]
        full.assertions.append(AssertionResult(type: "latency", name: "fast", passed: true, message: nil, metric: "speed",
                                               weight: 2.5, inverted: true, expected: "< 5", actual: "3", pointer: "/a/0", note: "n"))
        var errored = fixtureResult(caseID: "broken", status: .error, errorKind: .timeout, errorMessage: "timed out after 60 s")
        errored.timing = RequestTiming(startedAt: Date(timeIntervalSince1970: 1_764_806_400)) // 2025-12-04, no offsets
        var skipped = fixtureResult(caseID: "skipped", model: nil, status: .skipped)
        skipped.timing = RequestTiming(startedAt: Date(timeIntervalSince1970: 951_782_400), endMs: 0) // 2000-02-29
        return [plain, full, errored, skipped]
    }

    @Test("every kind of member is read by the fast decoder to the value JSONDecoder reads")
    func sameAsJSONDecoder() throws {
        let encoder = ResultStore.makeEncoder()
        for result in Self.variedResults() {
            let line = try encoder.encode(result)
            let expected = try Self.jsonDecoder().decode(RequestResult.self, from: line)
            let fast = try #require(ResultLineDecoder().decode(line), "refused \(String(decoding: line, as: UTF8.self))")
            #expect(fast == expected)
        }
    }

    @Test("JSON written by hand: escapes, surrogate pairs, whitespace, null and unknown members")
    func handWritten() throws {
        let line = #"""
         { "key" : "s/c/default/b/none/1", "suite":"s", "case":"c\u00e9\ud83d\ude00\/\b\f", "turn":1, "turns":1,
           "variant":"default", "backend":"b", "model":null, "reasoning":"none", "repeat":1, "tags":[ ], "status":"pass",
           "prompt":"Q\u0000", "usage":{"input_tokens":-0, "output_tokens":null, "future":{"x":[1,2.5e-3,true,null]}},
           "attempts":0, "assertions":[{"type":"t","name":"n","passed":true,"weight":null,"not":null}],
           "timing":{"started_at":"1970-01-01T00:00:00Z","end_ms":1E+2}, "cost_usd":-0.0, "newer_field":"ignored" }
        """#
        let data = Data(line.utf8)
        let expected = try Self.jsonDecoder().decode(RequestResult.self, from: data)
        let fast = try #require(ResultLineDecoder().decode(data))
        #expect(fast == expected)
        #expect(fast.caseID == "cé😀/\u{8}\u{C}")
        #expect(fast.prompt == "Q\u{0}")
        #expect(fast.timing?.endMs == 100)
        #expect(fast.assertions.first?.weight == 1)
    }

    @Test("what the fast decoder refuses is left to JSONDecoder, which reads it or says what is wrong")
    func refusals() throws {
        let base = #""key":"k","suite":"s","case":"c","turn":1,"turns":1,"variant":"v","backend":"b","reasoning":"none","repeat":1,"tags":[],"status":"pass","prompt":"p","usage":{},"attempts":1,"assertions":[]"#
        let refused = [
            #"{\#(base),"timing":{"started_at":"2026-12-04T00:51:19.250Z"}}"#, // fractional seconds
            #"{\#(base),"timing":{"started_at":"2026-02-30T00:00:00Z"}}"#, // no such day
            #"{\#(base),"plan_index":1.0}"#, // an Int written with a fraction
            #"{\#(base),"plan_index":01}"#, // not JSON
            #"{\#(base),"plan_index":99999999999999999999}"#, // beyond Int
            #"{\#(base),"output":"\ud800"}"#, // a lone surrogate
            "{\(base),\"output\":\"tab\tinside\"}", // a raw control character (a tab the string holds as it is)
            #"{\#(base),"cost_usd":1e400}"#, // not finite
            #"{\#(base)} trailing"#,
            #"{"suite":"s"}"#, // required members missing
            #"{\#(base),"status":"passed"}"#, // not a status
            #"{\#(base),"assertions":[{"type":"t","name":"n","passed":true,"judge":{"backend":"j"}}]}"#, // left to JSONDecoder
        ]
        for line in refused {
            #expect(ResultLineDecoder().decode(Data(line.utf8)) == nil, "read \(line)")
        }
        let invalidUTF8 = Data(#"{\#(base),"output":""#.utf8) + Data([0xFF, 0xFE]) + Data(#""}"#.utf8)
        #expect(ResultLineDecoder().decode(invalidUTF8) == nil)
        #expect(ResultLineDecoder().decode(Data("{\(base)}".utf8)) != nil)
    }

    @Test("ResultStore.read gives the same results through the fast path as JSONDecoder alone")
    func storeReadsTheSame() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("line-decoder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("results.jsonl")
        let encoder = ResultStore.makeEncoder()
        var text = Data()
        for result in Self.variedResults() { text += try encoder.encode(result) + Data([0x0A]) }
        text += Data(#"{"not":"a result"}"#.utf8) + Data([0x0A])
        try text.write(to: url)
        var skipped: [Diagnostic] = []
        let read = try ResultStore.read(url) { skipped.append($0) }
        let expected = try Self.variedResults().map { try Self.jsonDecoder().decode(RequestResult.self, from: encoder.encode($0)) }
        #expect(read == expected)
        #expect(skipped.count == 1)
        #expect(skipped.first?.location?.line == 5)
    }
}
