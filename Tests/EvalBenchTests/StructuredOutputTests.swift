import Foundation
import Testing
@testable import EvalBench

private let labelSchema: JSONValue = .object([
    "type": .string("object"),
    "properties": .object(["label": .object(["type": .string("string"), "enum": .array([.string("cat"), .string("dog")])])]),
    "required": .array([.string("label")]),
])

private func request(_ output: StructuredOutput?, reasoning: ReasoningLevel = .none) -> ModelRequest {
    ModelRequest(instructions: "Classify.", messages: [ChatMessage(role: .user, content: "Meow")],
                 options: GenerationOptions(maxOutputTokens: 16), reasoning: reasoning, output: output)
}

private let transport = URLSessionStreamTransport()

/// A body as the server receives it: written, then parsed back.
private func sent(_ body: [String: Any]) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: JSONWriter.data(body)) as? [String: Any])
}
private let local = URL(string: "http://127.0.0.1:9")!

@Suite("Structured output: the case's schema in each kind's own request field")
struct StructuredOutputTests {
    @Test("A case's output schema loads; a schema that is not an object, a missing one and a bad name are reported where they are")
    func loads() throws {
        let suite = try SuiteLoader.load(data: Data("""
        { "format": "evalbench.suite/1", "suite": "s",
          "cases": [ { "id": "pet", "prompt": "Meow", "output": { "name": "pet_label", "schema": { "type": "object" } } } ] }
        """.utf8), file: "s.json")
        #expect(suite.cases.first?.output == StructuredOutput(schema: .object(["type": .string("object")]), name: "pet_label"))

        func problems(_ output: String) -> [Diagnostic] {
            do {
                _ = try SuiteLoader.load(data: Data(#"{"format": "evalbench.suite/1", "suite": "s", "cases": [{"id": "c", "prompt": "p", "output": \#(output)}]}"#.utf8), file: "s.json")
                return []
            } catch {
                return error.diagnostics
            }
        }
        #expect(problems(#"{"schema": "object"}"#).map(\.message) == ["'schema' must be a JSON Schema object, found a string"])
        #expect(problems(#"{"schema": "object"}"#).first?.path == "$.cases[0].output.schema")
        #expect(problems(#"{}"#).map(\.message) == ["missing required key 'schema'"])
        #expect(problems(#"{"schema": {}, "name": "a b"}"#).first?.message.contains("may contain only letters") == true)
        #expect(problems(#"{"schem": {}}"#).map(\.message).contains("unknown key 'schem'; did you mean 'schema'?"))
        let invalid = problems(#"{"schema": {"type": "strng"}}"#)
        #expect(invalid.count == 1)
        #expect(invalid.first?.message.hasPrefix("invalid schema:") == true, "\(invalid)")
        #expect(invalid.first?.path == "$.cases[0].output.schema.type")
    }

    @Test("openai and llama-server send response_format json_schema, strict; nothing without a schema")
    func openAI() throws {
        let backend = OpenAIBackend(name: "o", model: "m", baseURL: local, apiKey: nil, concurrency: 1, transport: transport)
        let body = try sent(backend.body(for: request(StructuredOutput(schema: labelSchema, name: "pet"))))
        let format = try #require(body["response_format"] as? [String: Any])
        #expect(format["type"] as? String == "json_schema")
        let jsonSchema = try #require(format["json_schema"] as? [String: Any])
        #expect(jsonSchema["name"] as? String == "pet")
        #expect(jsonSchema["strict"] as? Bool == true)
        let schema = try #require(jsonSchema["schema"] as? [String: Any])
        #expect((schema["required"] as? [String]) == ["label"])
        #expect(backend.body(for: request(nil))["response_format"] == nil)
        #expect(backend.structuredOutputSupport == "native (response_format json_schema, strict)")
    }

    @Test("anthropic sends output_config.format beside the level's effort; gemini sends responseJsonSchema")
    func anthropicAndGemini() throws {
        let anthropic = AnthropicBackend(name: "a", model: "claude", apiKey: nil, concurrency: 1, transport: transport)
        let body = try sent(anthropic.body(for: request(StructuredOutput(schema: labelSchema), reasoning: .light)))
        let outputConfig = try #require(body["output_config"] as? [String: Any])
        #expect(outputConfig["effort"] as? String == "low")
        let format = try #require(outputConfig["format"] as? [String: Any])
        #expect(format["type"] as? String == "json_schema")
        #expect((format["schema"] as? [String: Any])?["type"] as? String == "object")
        #expect(anthropic.body(for: request(StructuredOutput(schema: labelSchema)))["output_config"] != nil)
        #expect(anthropic.body(for: request(nil))["output_config"] == nil)

        let gemini = GeminiBackend(name: "g", model: "gemini-x", apiKey: "k", concurrency: 1, transport: transport)
        let config = try #require(try sent(gemini.body(for: request(StructuredOutput(schema: labelSchema))))["generationConfig"] as? [String: Any])
        #expect(config["responseMimeType"] as? String == "application/json")
        #expect((config["responseJsonSchema"] as? [String: Any])?["required"] as? [String] == ["label"])
        #expect(gemini.structuredOutputSupport == "native (generationConfig.responseJsonSchema)")
    }

    @Test("prompt mode puts the schema into the instructions and sends no native field, on every kind")
    func promptMode() throws {
        let output = StructuredOutput(schema: labelSchema)
        let expected = #"Classify.\#n\#nReply with only a JSON value that follows this JSON Schema, with no other text:\#n{"properties":{"label":{"enum":["cat","dog"],"type":"string"}},"required":["label"],"type":"object"}"#

        let openAI = OpenAIBackend(name: "o", model: "m", baseURL: local, apiKey: nil, concurrency: 1,
                                   structuredOutput: .prompt, transport: transport)
        let body = openAI.body(for: request(output))
        #expect(body["response_format"] == nil)
        #expect(((body["messages"] as? [[String: Any]])?.first?["content"] as? String) == expected)
        #expect(openAI.structuredOutputSupport == "in the prompt (not enforced by the server)")

        let anthropic = AnthropicBackend(name: "a", model: "claude", apiKey: nil, concurrency: 1, promptCache: false,
                                         structuredOutput: .prompt, transport: transport)
        let anthropicBody = anthropic.body(for: request(output))
        #expect(anthropicBody["output_config"] == nil)
        #expect(anthropicBody["system"] as? String == expected)

        let gemini = GeminiBackend(name: "g", model: "gemini-x", apiKey: "k", concurrency: 1, structuredOutput: .prompt, transport: transport)
        let geminiBody = gemini.body(for: request(output))
        #expect((geminiBody["generationConfig"] as? [String: Any])?["responseJsonSchema"] == nil)
        let system = (geminiBody["systemInstruction"] as? [String: Any])?["parts"] as? [[String: Any]]
        #expect(system?.first?["text"] as? String == expected)
    }

    @Test("the schema goes out with its keys in the order the suite wrote them, so a reason can come before a verdict")
    func keyOrder() throws {
        let suite = try SuiteLoader.load(data: Data("""
        { "format": "evalbench.suite/1", "suite": "s",
          "cases": [ { "id": "c", "prompt": "p", "output": { "schema":
            { "type": "object", "properties": { "reason": { "type": "string" }, "pass": { "type": "boolean" }, "score": { "type": "number", "maximum": 1.0, "minimum": 0 } },
              "required": ["reason", "pass", "score"] } } } ] }
        """.utf8), file: "s.json")
        let output = try #require(suite.cases.first?.output)
        let ordered = #"{"type":"object","properties":{"reason":{"type":"string"},"pass":{"type":"boolean"},"score":{"type":"number","maximum":1.0,"minimum":0}},"required":["reason","pass","score"]}"#
        #expect(output.schemaText == ordered)
        let backend = OpenAIBackend(name: "o", model: "m", baseURL: local, apiKey: nil, concurrency: 1, transport: transport)
        let text = String(decoding: JSONWriter.data(backend.body(for: request(output))), as: UTF8.self)
        #expect(text.contains(#""schema":"# + ordered), "\(text)")
        #expect(output.schema == JSONValue(try JSONDocument(data: Data(ordered.utf8), file: "x").root), "the text and the value agree")
    }

    @Test("the body writer escapes strings, keeps numbers exact and sorts keys, as JSONSerialization would read it")
    func writer() throws {
        let body: [String: Any] = ["b": "quote \" backslash \\ newline \n tab \t bell \u{07} é 🙂", "a": [1, 2.5, true, false, NSNull()],
                                   "n": ["z": 0.1, "y": -3, "x": 1e-7], "r": RawJSON(#"{"k":[1,2]}"#)]
        let text = JSONWriter.string(body)
        #expect(text.hasPrefix(#"{"a":[1,2.5,true,false,null],"b":"quote \" backslash \\ newline \n tab \t bell \u0007 é 🙂","n":{"x":1e-07,"y":-3,"z":0.1},"r":{"k":[1,2]}}"#), "\(text)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(parsed["b"] as? String == body["b"] as? String)
        #expect((parsed["n"] as? [String: Any])?["z"] as? Double == 0.1)
    }

    @Test("structuredOutput loads for every HTTP kind and rejects other values")
    func configKey() throws {
        let config = try ConfigLoader.load(data: Data("""
        { "backends": [ { "name": "a", "kind": "anthropic", "model": "m", "baseURL": "http://127.0.0.1:8080", "structuredOutput": "prompt" } ] }
        """.utf8), file: "evalbench.json", baseDirectory: "/")
        #expect(config.backends.first?.options(as: AnthropicKind.self)?.structuredOutput == .prompt)
        do {
            _ = try ConfigLoader.load(data: Data("""
            { "backends": [ { "name": "o", "kind": "openai", "baseURL": "http://127.0.0.1:1/v1", "structuredOutput": "grammar" } ] }
            """.utf8), file: "evalbench.json", baseDirectory: "/")
            Issue.record("an unknown mode must not load")
        } catch {
            #expect(error.diagnostics.first?.message.contains(#"must be one of "native", "prompt""#) == true)
            #expect(error.diagnostics.first?.path == "$.backends[0].structuredOutput")
        }
    }
}
