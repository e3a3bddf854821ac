import Foundation
import Testing
@testable import EvalBench

/// What JSONDecoder makes of `payload`, as text to compare (nil when it refuses it).
private func decoded(_ payload: String) -> String? {
    (try? JSONDecoder().decode(OpenAIChunk.self, from: Data(payload.utf8))).map { String(reflecting: $0) }
}

@Suite("OpenAI stream chunks read from their bytes")
struct OpenAIChunkBytesTests {
    /// Every `data:` payload of the recorded OpenAI streams (the SDKs' own fixtures, from the
    /// manifest the conformance tests serve).
    static func fixturePayloads() throws -> [String] {
        var payloads: [String] = []
        for fixture in ProviderFixture.all where fixture.provider == "openai" && fixture.file.hasSuffix(".sse") {
            let text = String(decoding: try fixture.body(), as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix("data: ") && line != "data: [DONE]" {
                payloads.append(String(line.dropFirst(6)))
            }
        }
        return payloads
    }

    /// The fast path takes `payload` and reads it to what JSONDecoder reads.
    private func expectReadAsJSONDecoderReads(_ payload: String) {
        let fast = OpenAIChunk.fromBytes(payload, nested: JSONDecoder())
        #expect(fast != nil, "\(payload.prefix(200))")
        #expect(fast.map { String(reflecting: $0) } == decoded(payload), "\(payload.prefix(200))")
    }

    @Test("every recorded chunk reads to the same value as with JSONDecoder, and the fast path takes them")
    func fixtures() throws {
        let payloads = try Self.fixturePayloads()
        #expect(payloads.count > 50)
        payloads.forEach(expectReadAsJSONDecoderReads)
    }

    @Test("hand-written chunks: nulls, unknown keys, escapes, usage, timings, errors and tool calls read as JSONDecoder reads them")
    func handWritten() {
        let payloads = [
            #"{"choices":[{"index":0,"delta":{"content":"caf\u00e9 \"q\" \n 😀","reasoning_content":null},"finish_reason":null}],"model":null}"#,
            #"{"choices":[{"delta":{"reasoning":"think"},"finish_reason":"stop","extra":{"a":[1,2,{"b":null}]}}],"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":3}}}"#,
            #"{"choices":[],"timings":{"cache_n":7,"prompt_n":2,"predicted_n":9},"usage":null}"#,
            #"{"error":{"message":"overloaded","type":"server_error","code":503}}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":"{\"x\":"}}]}}]}"#,
            #" { "choices" : [ { "index" : 2 , "delta" : { } } ] } "#,
            #"{}"#,
            #"{"usage":{"prompt_tokens":12,"completion_tokens":30,"total_tokens":42,"prompt_tokens_details":{"cached_tokens":null,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":20,"accepted_prediction_tokens":0}}}"#,
            #"{"usage":{"prompt_tokens":null,"completion_tokens_details":null,"prompt_tokens_details":{}}}"#,
            #"{"choices":[],"timings":{"cache_n":0,"prompt_n":14,"prompt_ms":12.5,"predicted_n":3,"predicted_per_second":80.1}}"#,
        ]
        payloads.forEach(expectReadAsJSONDecoderReads)
    }

    @Test("what JSONDecoder might read differently is refused, and left to it")
    func refusals() {
        let refused = [
            #"{"choices":[{"index":1.0}]}"#,           // an integer written as a fraction
            #"{"model":"a","model":"b"}"#,              // a key given twice
            #"{"choices":[{"delta":{"content":"\ud800"}}]}"#, // a lone surrogate
            #"{"choices":[null]}"#,                     // a null choice, which JSONDecoder rejects
            #"{"choices":{"index":0}}"#,                // an object where an array belongs
            #"{"model":"a"} trailing"#,
            #"{"usage":{"prompt_tokens":5.0}}"#,         // a count written as a fraction
            #"{"usage":{"prompt_tokens_details":{"cached_tokens":1,"cached_tokens":2}}}"#,
            #"{"timings":{"cache_n":"7"}}"#,              // a count written as a string
            #"{"usage":[1]}"#,
            #"not json"#,
        ]
        for payload in refused { #expect(OpenAIChunk.fromBytes(payload, nested: JSONDecoder()) == nil, "\(payload)") }
    }

    @Test("a key given twice is refused in an object of any size: before and after the reader's short list of keys fills")
    func duplicatesInWideObjects() {
        let keys = (0..<40).map { #""k\#($0)":\#($0)"# }
        let wide = "{" + keys.joined(separator: ",") + #","model":"m"}"#
        expectReadAsJSONDecoderReads(wide)
        for repeated in [3, 15, 16, 30] {
            let payload = "{" + keys.joined(separator: ",") + #","k\#(repeated)":0}"#
            #expect(OpenAIChunk.fromBytes(payload, nested: JSONDecoder()) == nil, "k\(repeated) given twice among 41 keys")
        }
        #expect(OpenAIChunk.fromBytes(#"{"k1":1,"k2":2,"k1":3}"#, nested: JSONDecoder()) == nil)
    }
}
