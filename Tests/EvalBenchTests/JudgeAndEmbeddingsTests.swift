import Foundation
import Testing
@testable import EvalBench

@Suite("Judge verdicts and embeddings, the pieces model-graded assertions use")
struct JudgeAndEmbeddingsTests {
    @Test("a verdict parses with or without a code fence; a missing or out-of-range field is named")
    func verdicts() throws {
        let plain = try JudgePrompt.parse(#"{"reason": "names Paris", "pass": true, "score": 0.9}"#).get()
        #expect(plain == JudgeVerdict(reason: "names Paris", pass: true, score: 0.9))
        let fenced = try JudgePrompt.parse("```json\n{\"reason\": \"wrong city\", \"pass\": false, \"score\": 0}\n```").get()
        #expect(fenced == JudgeVerdict(reason: "wrong city", pass: false, score: 0))
        func problem(_ text: String) -> String? {
            if case let .failure(error) = JudgePrompt.parse(text) { return error.message }
            return nil
        }
        #expect(problem("I think it passes.")?.hasPrefix("the judge's answer is not a JSON object") == true)
        #expect(problem(#"{"pass": true, "score": 1}"#)?.contains(#"no string "reason""#) == true)
        #expect(problem(#"{"reason": "x", "pass": "yes", "score": 1}"#)?.contains(#"no boolean "pass""#) == true)
        #expect(problem(#"{"reason": "x", "pass": true, "score": 7}"#)?.contains(#""score" from 0 to 1"#) == true)
        // The schema's types, strictly: a number is no boolean, a boolean no number.
        #expect(problem(#"{"reason": "x", "pass": 1, "score": 1}"#)?.contains(#"no boolean "pass""#) == true)
        #expect(problem(#"{"reason": "x", "pass": true, "score": true}"#)?.contains(#""score" from 0 to 1"#) == true)
        #expect(problem(#"{"reason": 5, "pass": true, "score": 1}"#)?.contains(#"no string "reason""#) == true)
        #expect(problem(#"{"reason": "x", "pass": true, "score": 1e400}"#) != nil, "an infinite score is out of range")
        #expect(problem(#"[{"reason": "x", "pass": true, "score": 1}]"#)?.hasPrefix("the judge's answer is not a JSON object") == true)
        #expect(try JudgePrompt.parse(#"{"reason": "x", "pass": false, "score": 0.25, "extra": [1]}"#).get().score == 0.25,
                "other keys are ignored")
    }

    @Test("the judge's request asks for the reason first and carries the rubric, question and answer")
    func judgeRequest() {
        let request = JudgePrompt.request(question: "Capital of France?", answer: "Lyon", rubric: "Names Paris.", timeoutSeconds: 30)
        #expect(request.output?.schemaText.hasPrefix(#"{"type":"object","properties":{"reason":"#) == true)
        #expect(request.output?.schemaText.range(of: "reason")!.lowerBound ?? "".endIndex
                < request.output!.schemaText.range(of: "\"pass\"")!.lowerBound)
        #expect(request.messages.last?.content == "Rubric:\nNames Paris.\n\nQuestion:\nCapital of France?\n\nAnswer:\nLyon")
        #expect(request.options.temperature == 0)
        // The schema text and the schema value say the same thing.
        #expect(JudgePrompt.output.schema == JSONValue(try! JSONDocument(data: Data(JudgePrompt.output.schemaText.utf8), file: "x").root))
    }

    @Test("cosine similarity by hand, and embeddings read by index")
    func embeddings() throws {
        #expect(cosineSimilarity([1, 0], [1, 0]) == 1)
        #expect(cosineSimilarity([1, 0], [0, 1]) == 0)
        let value = try #require(cosineSimilarity([1, 2, 3], [2, 4, 7]))
        // 1·2 + 2·4 + 3·7 = 31; |a| = √14, |b| = √69.
        #expect(abs(value - 31 / (14.0.squareRoot() * 69.0.squareRoot())) < 1e-12)
        #expect(cosineSimilarity([], []) == nil)
        #expect(cosineSimilarity([0, 0], [1, 1]) == nil)
        // A hostile server's values: squared, 1e200 overflows and 1e-200 underflows.
        #expect(cosineSimilarity([1e200, 1e200], [2e200, 2e200]).map { abs($0 - 1) < 1e-12 } == true)
        #expect(cosineSimilarity([1e-200, 0], [1, 0]) == 1)
        #expect(cosineSimilarity([.infinity, 1], [1, 1]) == nil && cosineSimilarity([.nan, 1], [1, 1]) == nil)
        #expect(cosineSimilarity([1, 1], [-1, -1]).map { abs($0 + 1) < 1e-12 } == true)
        for _ in 0..<200 {
            let a = (0..<8).map { _ in Double.random(in: -1e6...1e6) }, b = (0..<8).map { _ in Double.random(in: -1e6...1e6) }
            #expect(cosineSimilarity(a, b).map { (-1...1).contains($0) } == true, "\(a) \(b)")
        }

        let response = #"{"data": [{"index": 1, "embedding": [0.5, 0.5]}, {"index": 0, "embedding": [1, 0]}], "usage": {"prompt_tokens": 4}}"#
        let vectors = try OpenAIEmbeddings.vectors(from: Data(response.utf8), count: 2, backend: "e").get()
        #expect(vectors == [[1, 0], [0.5, 0.5]])
        if case let .failure(failure) = OpenAIEmbeddings.vectors(from: Data(#"{"data": [{"index": 0, "embedding": [1]}]}"#.utf8), count: 2, backend: "e") {
            #expect(failure.kind == .decoding)
        } else {
            Issue.record("one vector for two texts must fail")
        }
        // A value that is not a number is refused by name, not dropped or read as 1.
        for (bad, named) in [(#"[1, "x", 2]"#, #"a string, not a number: "x""#), ("[true, 0, 1]", "a boolean, not a number: true"),
                             ("[1, null, 1]", "null, not a number: null"), ("[[1], 1, 1]", "an array, not a number: [1]")] {
            let body = #"{"data": [{"index": 0, "embedding": \#(bad)}, {"index": 1, "embedding": \#(bad)}]}"#
            guard case let .failure(failure) = OpenAIEmbeddings.vectors(from: Data(body.utf8), count: 2, backend: "e") else {
                Issue.record("\(bad) must be refused")
                continue
            }
            #expect(failure.kind == .decoding && failure.message == "e: embedding 0 holds \(named)", "\(failure.message)")
        }
        if case .success = OpenAIEmbeddings.vectors(from: Data(#"{"data": 5}"#.utf8), count: 1, backend: "e") {
            Issue.record("a \"data\" that is no array must fail")
        }
    }
}
