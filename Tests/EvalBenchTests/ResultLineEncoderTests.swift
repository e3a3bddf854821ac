import Foundation
import Testing
@testable import EvalBench

/// `ResultLineEncoder` must write every result byte for byte as the store's `JSONEncoder`
/// writes it, or give nil (and leave the line to `JSONEncoder`).
@Suite("results.jsonl lines written by hand")
struct ResultLineEncoderTests {
    private let encoder = ResultStore.makeEncoder()

    private func expectSameAsJSONEncoder(_ result: RequestResult, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let expected = try encoder.encode(result)
        let fast = try #require(ResultLineEncoder.encode(result, nested: encoder), sourceLocation: sourceLocation)
        #expect(String(decoding: fast, as: UTF8.self) == String(decoding: expected, as: UTF8.self), sourceLocation: sourceLocation)
        #expect(fast == expected, sourceLocation: sourceLocation)
    }

    @Test("every kind of member, nested values included, is written as JSONEncoder writes it")
    func variedResults() throws {
        var results = ResultLineDecoderTests.variedResults()
        var judged = results[0]
        judged.assertions.append(AssertionResult(type: "judge", name: "judge: polite", passed: false, message: "rude",
                                                 judge: JudgeCall(backend: "cloud", latencyMs: 12.5, error: "timed out")))
        results.append(judged)
        var empty = results[2]
        empty.tags = []
        empty.assertions = []
        empty.usage = Usage()
        results.append(empty)
        for result in results { try expectSameAsJSONEncoder(result) }
    }

    @Test("2,000 results of random strings, numbers, dates and members present or not are written as JSONEncoder writes them")
    func randomResults() throws {
        var generator = SplitMix64(seed: 20)
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1F}", "\u{7F}",
                      "é", "\u{2028}", "✓", "😀", "\u{10FFFF}", "</script>", "{\"k\":1}"]
        func text() -> String {
            (0..<Int(generator.next() % 12)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
        }
        func maybe<T>(_ make: () -> T) -> T? { generator.next() % 3 == 0 ? nil : make() }
        func number() -> Double {
            switch generator.next() % 8 {
            case 0: return Double(Int64(bitPattern: generator.next()) % 10_000)
            case 1: return Double(generator.next() % 1_000_000) / 1_000
            case 2: return Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF) // any finite magnitude
            case 3: return [0.0, -0.0, Double.leastNonzeroMagnitude, 1e16, 1e21, 0.1 + 0.2, 1e-7, 123_456_789_012_345_680][Int(generator.next() % 8)]
            case 4: return -Double(generator.next() % 100_000) / 7
            default: return Double(generator.next() % 100_000) / 8
            }
        }
        func integer() -> Int { generator.next() % 4 == 0 ? Int(bitPattern: UInt(generator.next())) : Int(generator.next() % 1_000) }
        for index in 0..<2_000 {
            var result = fixtureResult(caseID: text(), status: [.pass, .fail, .error, .skipped][index % 4])
            result.key = text()
            result.suite = text()
            result.prompt = text()
            result.turn = integer()
            result.turns = integer()
            result.repeatIndex = integer()
            result.attempts = integer()
            result.model = maybe(text)
            result.tags = (0..<Int(generator.next() % 3)).map { _ in text() }
            result.errorKind = maybe { ErrorKind.allCases[Int(generator.next() % UInt64(ErrorKind.allCases.count))] }
            result.errorMessage = maybe(text)
            result.instructions = maybe(text)
            result.output = maybe(text)
            result.reasoningText = maybe(text)
            result.finishReason = maybe(text)
            result.costUSD = maybe(number)
            result.score = maybe(number)
            result.threshold = maybe(number)
            result.caseScore = maybe(number)
            result.cached = maybe { generator.next() % 2 == 0 }
            result.replayed = maybe { generator.next() % 2 == 0 }
            result.planIndex = maybe(integer)
            result.unknownFigures = maybe { [text()] }
            result.toolDefinitionTokens = maybe(integer)
            // Dates from 1970 to 9999, fractions of a second included.
            let startedAt = Date(timeIntervalSince1970: Double(generator.next() % 253_402_300_800) + Double(generator.next() % 1_000) / 1_000)
            result.timing = maybe { RequestTiming(startedAt: startedAt, firstTokenMs: maybe(number), firstAnswerTokenMs: maybe(number),
                                                  endMs: maybe(number)) }
            result.usage = Usage(inputTokens: maybe(integer), cachedInputTokens: maybe(integer), cacheWriteInputTokens: maybe(integer),
                                 outputTokens: maybe(integer), reasoningTokens: maybe(integer),
                                 source: maybe { [TokenSource.reported, .counted, .estimated][Int(generator.next() % 3)] })
            result.usage.suspect = maybe(text)
            result.assertions = (0..<Int(generator.next() % 3)).map { _ in
                AssertionResult(type: text(), name: text(), passed: generator.next() % 2 == 0, message: maybe(text), metric: maybe(text),
                                weight: number(), inverted: generator.next() % 2 == 0, expected: maybe(text), actual: maybe(text),
                                pointer: maybe(text), note: maybe(text))
            }
            try expectSameAsJSONEncoder(result)
        }
    }

    @Test("a figure that is not finite, or a date before 1970, is left to JSONEncoder")
    func givesUp() {
        var result = ResultLineDecoderTests.variedResults()[0]
        result.score = .infinity
        #expect(ResultLineEncoder.encode(result, nested: encoder) == nil)
        result.score = nil
        result.timing = RequestTiming(startedAt: Date(timeIntervalSince1970: -1), endMs: 5)
        #expect(ResultLineEncoder.encode(result, nested: encoder) == nil)
        result.timing = RequestTiming(startedAt: Date(timeIntervalSince1970: 0), endMs: 5)
        #expect(ResultLineEncoder.encode(result, nested: encoder) != nil)
    }
}
