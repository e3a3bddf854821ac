import Foundation
import Testing
@testable import EvalBench

private let openAI = URL(string: "https://api.openai.com/v1")!
private let local = URL(string: "http://127.0.0.1:8080/v1")!
private let sampled = GenerationOptions(temperature: 0, maxOutputTokens: 64, topP: 0.9, seed: 3, stop: ["\n\n"])

private func backend(_ url: URL, model: String = "gpt-5.1", reasoningModel: Bool, sendReasoningNone: Bool? = nil,
                     maxTokensField: String? = nil, overrides: [String: ReasoningOverride] = [:]) -> OpenAIBackend {
    OpenAIBackend(name: "gpt", model: model, baseURL: url, apiKey: nil, concurrency: 1, reasoningModel: reasoningModel,
                  sendReasoningNone: sendReasoningNone, reasoningOverrides: overrides, maxTokensField: maxTokensField,
                  transport: URLSessionStreamTransport())
}

private func body(_ backend: OpenAIBackend, _ level: ReasoningLevel) -> [String: Any] {
    backend.body(for: ModelRequest(instructions: nil, messages: [ChatMessage(role: .user, content: "q")],
                                   options: sampled, reasoning: level))
}

/// The backend the `openai` kind makes from a config entry.
private func configured(_ fields: String) throws -> OpenAIBackend {
    let config = try ConfigLoader.load(data: Data(#"{ "backends": [ { "name": "gpt", "kind": "openai", \#(fields) } ] }"#.utf8),
                                       file: "evalbench.json", baseDirectory: "/")
    let entry = try #require(config.backends.first)
    let made = try entry.makeBackend(context: BackendContext(environment: [:], transport: URLSessionStreamTransport(),
                                                             logDirectory: FileManager.default.temporaryDirectory,
                                                             defaultConcurrency: 1))
    return try #require(made as? OpenAIBackend)
}

@Suite("OpenAI kind: request shaping for reasoning models")
struct OpenAIReasoningRequestTests {
    @Test("a reasoning model at light, moderate and deep gets max_completion_tokens and no temperature, top_p or stop",
          arguments: [ReasoningLevel.light, .moderate, .deep])
    func reasoningLevels(_ level: ReasoningLevel) {
        let sent = body(backend(openAI, reasoningModel: true), level)
        #expect(sent["reasoning_effort"] as? String == OpenAIBackend.effort(level))
        #expect(sent["max_completion_tokens"] as? Int == 64)
        #expect(sent["max_tokens"] == nil)
        #expect(sent["temperature"] == nil && sent["top_p"] == nil && sent["stop"] == nil)
        #expect(sent["seed"] as? Int == 3)
    }

    @Test("a reasoning model at none gets an explicit reasoning_effort \"none\", and its sampling options")
    func reasoningModelAtNone() {
        let sent = body(backend(openAI, reasoningModel: true), .none)
        #expect(sent["reasoning_effort"] as? String == "none")
        #expect(sent["max_completion_tokens"] as? Int == 64)
        #expect(sent["temperature"] as? Double == 0)
        #expect(sent["top_p"] as? Double == 0.9)
        #expect(sent["stop"] as? [String] == ["\n\n"])
    }

    @Test("sendReasoningNone false leaves the field out at none; the model then reasons at its default, so sampling is left out too")
    func reasoningNoneOff() {
        let sent = body(backend(openAI, reasoningModel: true, sendReasoningNone: false), .none)
        #expect(sent["reasoning_effort"] == nil)
        #expect(sent["temperature"] == nil)
    }

    @Test("a model without effort none (gpt-5-mini) mapped to minimal at none gets no sampling options there")
    func minimalAtNone() {
        let mini = backend(openAI, model: "gpt-5-mini", reasoningModel: true, overrides: ["none": ReasoningOverride(effort: "minimal")])
        let sent = body(mini, .none)
        #expect(sent["reasoning_effort"] as? String == "minimal")
        #expect(sent["temperature"] == nil)
        #expect(mini.reasoningSupport(.none)
            == .supported(#"reasoning_effort: "minimal", output limit as max_completion_tokens, temperature, top_p and stop not sent"#))
    }

    @Test("a reasoning model with no effort none (o-series, GPT-5 before 5.1) skips level none with a fix, unless the config maps it",
          arguments: ["o3", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5-nano-2025-08-07"])
    func noNoneEffort(_ model: String) {
        guard case let .unsupported(reason) = backend(openAI, model: model, reasoningModel: true).reasoningSupport(.none) else {
            Issue.record("level none must be unsupported for \(model)")
            return
        }
        #expect(reason.contains("has no reasoning_effort \"none\"") && reason.contains(#""effort": "minimal""#))
        #expect(backend(openAI, model: model, reasoningModel: true).reasoningSupport(.deep) != .unsupported(reason))
        let mapped = backend(openAI, model: model, reasoningModel: true, overrides: ["none": ReasoningOverride(effort: "low")])
        #expect(mapped.reasoningSupport(.none)
            == .supported(#"reasoning_effort: "low", output limit as max_completion_tokens, temperature, top_p and stop not sent"#))
        let atDefault = backend(openAI, model: model, reasoningModel: true, sendReasoningNone: false)
        #expect(atDefault.reasoningSupport(.none)
            == .supported("reasoning_effort omitted, output limit as max_completion_tokens, temperature, top_p and stop not sent"))
    }

    @Test("GPT-5.1 and later take effort none; a compatible server is never judged by its model name", arguments: ["gpt-5.1", "gpt-5.2-pro", "gpt-6"])
    func noneEffortSupported(_ model: String) {
        #expect(backend(openAI, model: model, reasoningModel: true).reasoningSupport(.none)
            == .supported(#"reasoning_effort: "none", output limit as max_completion_tokens"#))
        #expect(backend(local, model: "o3", reasoningModel: false).reasoningSupport(.none) == .supported("reasoning_effort omitted"))
    }

    @Test("other servers (llama-server, vLLM) keep today's body at every level: max_tokens, sampling options, no effort at none",
          arguments: ReasoningLevel.allCases)
    func compatibleServers(_ level: ReasoningLevel) {
        let sent = body(backend(local, model: "qwen3", reasoningModel: false), level)
        #expect(sent["max_tokens"] as? Int == 64)
        #expect(sent["max_completion_tokens"] == nil)
        #expect(sent["temperature"] as? Double == 0)
        #expect(sent["top_p"] as? Double == 0.9)
        #expect(sent["stop"] as? [String] == ["\n\n"])
        #expect((sent["reasoning_effort"] as? String) == (level == .none ? nil : OpenAIBackend.effort(level)))
    }

    @Test("the reasoning mapping in reports says what is sent")
    func mappingText() {
        let reasoning = backend(openAI, reasoningModel: true)
        #expect(reasoning.reasoningSupport(.deep)
            == .supported(#"reasoning_effort: "high", output limit as max_completion_tokens, temperature, top_p and stop not sent"#))
        #expect(reasoning.reasoningSupport(.none) == .supported(#"reasoning_effort: "none", output limit as max_completion_tokens"#))
        #expect(backend(local, reasoningModel: false).reasoningSupport(.deep) == .supported(#"reasoning_effort: "high""#))
    }

    @Test("OpenAI's reasoning families on api.openai.com are detected; other models and other hosts are not", arguments: [
        ("https://api.openai.com/v1", "o3", true), ("https://api.openai.com/v1", "o4-mini", true),
        ("https://api.openai.com/v1", "o1-2024-12-17", true), ("https://api.openai.com/v1", "gpt-5", true),
        ("https://api.openai.com/v1", "gpt-5-mini", true), ("https://api.openai.com/v1", "gpt-5.1", true),
        ("https://api.openai.com/v1", "gpt-6", true), ("https://api.openai.com/v1", "gpt-4o", false),
        ("https://api.openai.com/v1", "gpt-4.1-mini", false), ("https://api.openai.com/v1", "o3x", false),
        ("http://127.0.0.1:8080/v1", "gpt-5", false), ("https://openrouter.ai/api/v1", "openai/gpt-5", false),
    ])
    func detection(_ url: String, _ model: String, _ expected: Bool) {
        #expect(OpenAIBackend.isOpenAIReasoningModel(baseURL: URL(string: url)!, model: model) == expected)
    }

    @Test("config: detected by default, reasoningModel overrides either way, maxTokensField and sendReasoningNone still win")
    func configOverrides() throws {
        let detected = try configured(#""baseURL": "https://api.openai.com/v1", "model": "gpt-5.1""#)
        #expect(body(detected, .deep)["temperature"] == nil)
        #expect(body(detected, .none)["reasoning_effort"] as? String == "none")

        let off = try configured(#""baseURL": "https://api.openai.com/v1", "model": "gpt-5.1", "reasoningModel": false"#)
        #expect(body(off, .deep)["temperature"] as? Double == 0)
        #expect(body(off, .deep)["max_tokens"] as? Int == 64)

        let proxied = try configured(#""baseURL": "https://proxy.example/v1", "model": "o3", "reasoningModel": true, "maxTokensField": "max_tokens", "sendReasoningNone": false"#)
        #expect(body(proxied, .deep)["max_tokens"] as? Int == 64)
        #expect(body(proxied, .deep)["temperature"] == nil)
        #expect(body(proxied, .none)["reasoning_effort"] == nil)

        let local = try configured(#""baseURL": "http://127.0.0.1:8080/v1""#)
        #expect(body(local, .none)["reasoning_effort"] == nil)
        #expect(body(local, .deep)["temperature"] as? Double == 0)
    }
}
