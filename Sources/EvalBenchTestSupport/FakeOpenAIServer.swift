import Foundation

/// A test double for an OpenAI-compatible server (OpenAI, llama.cpp, vLLM): it streams
/// scripted `/v1/chat/completions` replies in the real wire format, with timed steps,
/// usage, llama.cpp `timings`, HTTP errors and stream faults. For tests and benchmarks only.
///
/// Every reply is streamed (`text/event-stream`), whatever the request's `stream` says.
/// Any other path answers 404 with an OpenAI error body.
public final class FakeOpenAIServer: Sendable {
    /// One timed piece of the scripted answer.
    public enum Step: Sendable {
        /// A chunk whose delta carries `reasoning_content` (as llama.cpp, vLLM and DeepSeek send it).
        case reasoning(String, afterMs: Double = 0)
        /// A chunk whose delta carries answer `content`.
        case content(String, afterMs: Double = 0)
        /// An SSE comment line, `: keep-alive`, as servers send while a model thinks.
        case comment(afterMs: Double = 0)
        /// A tool call at `index` of the delta's `tool_calls`: a first chunk with its `id` and
        /// name and empty arguments, then one chunk per fragment of its arguments, as OpenAI streams them.
        case toolCall(index: Int = 0, id: String, name: String, argumentFragments: [String], afterMs: Double = 0)
    }

    /// The `usage` object of the final chunk; a nil figure is left out of the JSON.
    public struct ReportedUsage: Sendable {
        public var promptTokens: Int?
        public var completionTokens: Int?
        public var totalTokens: Int?
        /// `prompt_tokens_details.cached_tokens`; the details object is left out when nil.
        public var cachedTokens: Int?
        /// `completion_tokens_details.reasoning_tokens`; the details object is left out when nil.
        public var reasoningTokens: Int?

        public init(promptTokens: Int? = nil, completionTokens: Int? = nil, totalTokens: Int? = nil,
                    cachedTokens: Int? = nil, reasoningTokens: Int? = nil) {
            self.promptTokens = promptTokens
            self.completionTokens = completionTokens
            self.totalTokens = totalTokens
            self.cachedTokens = cachedTokens
            self.reasoningTokens = reasoningTokens
        }
    }

    /// llama.cpp's `timings` object, sent on the last chunk: `cache_n` prompt tokens were reused
    /// from the KV cache, `prompt_n` were evaluated, `predicted_n` were generated.
    public struct LlamaTimings: Sendable {
        public var cacheN: Int
        public var promptN: Int
        public var predictedN: Int
        public var promptMs: Double
        public var predictedMs: Double

        public init(cacheN: Int, promptN: Int, predictedN: Int, promptMs: Double = 12.5, predictedMs: Double = 40) {
            self.cacheN = cacheN
            self.promptN = promptN
            self.predictedN = predictedN
            self.promptMs = promptMs
            self.predictedMs = predictedMs
        }
    }

    /// A way for the reply to go wrong.
    public enum Fault: Sendable {
        /// No stream: this status, headers and body instead.
        case httpError(status: Int, headers: [String: String] = [:], body: String)
        /// The connection is reset (TCP RST) after the role chunk and this many steps.
        case resetAfter(steps: Int)
        /// A `data:` line that is not JSON after this many steps, then `[DONE]`.
        case malformedAfter(steps: Int)
        /// Nothing more after this many steps, until the client gives up.
        case stallAfter(steps: Int)
        /// An OpenAI `{"error": …}` data event after this many steps, then the stream ends
        /// without `[DONE]`, as when a provider fails mid-generation.
        case errorEventAfter(steps: Int, message: String, type: String, code: String?)

        /// A `data:` line that is not JSON, straight after the role chunk.
        public static var malformed: Fault { .malformedAfter(steps: 0) }
        /// Headers, the role chunk, then nothing.
        public static var stall: Fault { .stallAfter(steps: 0) }

        /// An OpenAI error body: `{"error": {"message", "type", "param", "code"}}`.
        public static func openAIError(status: Int, message: String, type: String, code: String?,
                                       param: String? = nil, headers: [String: String] = [:]) -> Fault {
            let error: [String: Any] = ["message": message, "type": type,
                                        "param": param ?? NSNull(), "code": code ?? NSNull()]
            return .httpError(status: status, headers: headers, body: json(["error": error]))
        }

        /// 429 with `Retry-After`, as OpenAI sends for a request or token rate limit.
        public static func rateLimited(retryAfterSeconds: Int = 1) -> Fault {
            openAIError(status: 429, message: "Rate limit reached for requests. Please try again in \(retryAfterSeconds)s.",
                        type: "requests", code: "rate_limit_exceeded",
                        headers: ["Retry-After": String(retryAfterSeconds)])
        }

        /// 429 `insufficient_quota`: the account is out of credit, so retrying cannot help.
        public static var insufficientQuota: Fault {
            openAIError(status: 429,
                        message: "You exceeded your current quota, please check your plan and billing details.",
                        type: "insufficient_quota", code: "insufficient_quota")
        }

        /// 400 `context_length_exceeded`, in OpenAI's words.
        public static func contextLengthExceeded(maximum: Int = 4096, requested: Int = 5000) -> Fault {
            openAIError(status: 400,
                        message: "This model's maximum context length is \(maximum) tokens. However, your messages "
                            + "resulted in \(requested) tokens. Please reduce the length of the messages.",
                        type: "invalid_request_error", code: "context_length_exceeded", param: "messages")
        }

        /// 400 `exceed_context_size_error`, in llama-server's words and shape.
        public static func llamaContextExceeded(promptTokens: Int, contextSize: Int) -> Fault {
            let error: [String: Any] = [
                "code": 400, "type": "exceed_context_size_error",
                "message": "request (\(promptTokens) tokens) exceeds the available context size (\(contextSize) tokens), try increasing it",
                "n_prompt_tokens": promptTokens, "n_ctx": contextSize,
            ]
            return .httpError(status: 400, body: json(["error": error]))
        }
    }

    /// One scripted reply.
    public struct Script: Sendable {
        public var model: String
        /// Whether the stream opens with `{"role":"assistant","content":""}`, as OpenAI's does.
        public var sendsRoleChunk: Bool
        public var steps: [Step]
        public var finishReason: String
        /// When set, a usage chunk (`"choices": []`) precedes `[DONE]` and every other chunk
        /// carries `"usage": null`, as with `stream_options.include_usage`.
        public var usage: ReportedUsage?
        /// When set, llama.cpp `timings` ride on the last chunk.
        public var timings: LlamaTimings?
        public var fault: Fault?

        public init(model: String = "fake-model", sendsRoleChunk: Bool = true, steps: [Step] = [],
                    finishReason: String = "stop", usage: ReportedUsage? = nil, timings: LlamaTimings? = nil,
                    fault: Fault? = nil) {
            self.model = model
            self.sendsRoleChunk = sendsRoleChunk
            self.steps = steps
            self.finishReason = finishReason
            self.usage = usage
            self.timings = timings
            self.fault = fault
        }
    }

    /// A chat request as received, with the fields scripts most often look at decoded.
    public struct ChatRequest: Sendable {
        public struct Message: Sendable, Equatable {
            public var role: String
            /// The text content; text parts of an array content are joined.
            public var content: String
            /// A `role: tool` message's `tool_call_id`.
            public var toolCallID: String?
            /// An assistant message's `tool_calls`, as `name(arguments)`.
            public var toolCalls: [String]

            public init(role: String, content: String, toolCallID: String? = nil, toolCalls: [String] = []) {
                self.role = role
                self.content = content
                self.toolCallID = toolCallID
                self.toolCalls = toolCalls
            }
        }

        /// The decoded JSON body; empty when it was not a JSON object.
        public var body: [String: Any] {
            (try? JSONSerialization.jsonObject(with: http.body)) as? [String: Any] ?? [:]
        }

        public var model: String?
        public var messages: [Message]
        public var stream: Bool
        public var includeUsage: Bool
        public var reasoningEffort: String?
        public var maxTokens: Int?
        /// The raw request, for anything else (headers, the full JSON body).
        public var http: FakeHTTPRequest

        init(_ http: FakeHTTPRequest) {
            self.http = http
            let object = (try? JSONSerialization.jsonObject(with: http.body)) as? [String: Any] ?? [:]
            model = object["model"] as? String
            stream = object["stream"] as? Bool ?? false
            includeUsage = (object["stream_options"] as? [String: Any])?["include_usage"] as? Bool ?? false
            reasoningEffort = object["reasoning_effort"] as? String
            maxTokens = (object["max_completion_tokens"] ?? object["max_tokens"]) as? Int
            messages = (object["messages"] as? [[String: Any]] ?? []).map { message in
                let content: String
                if let parts = message["content"] as? [[String: Any]] {
                    content = parts.compactMap { $0["text"] as? String }.joined()
                } else {
                    content = message["content"] as? String ?? ""
                }
                let calls = (message["tool_calls"] as? [[String: Any]] ?? []).map { call -> String in
                    let function = call["function"] as? [String: Any] ?? [:]
                    return "\(function["name"] as? String ?? "")(\(function["arguments"] as? String ?? ""))"
                }
                return Message(role: message["role"] as? String ?? "", content: content,
                               toolCallID: message["tool_call_id"] as? String, toolCalls: calls)
            }
        }
    }

    private let server: FakeHTTPServer

    /// A server that answers the first chat request with `replies[0]`, the second with
    /// `replies[1]`, and every later one with the last reply.
    public convenience init(replies: [Script]) {
        precondition(!replies.isEmpty, "FakeOpenAIServer needs at least one reply")
        let counter = RequestCounter()
        self.init { _ in replies[min(counter.next(), replies.count - 1)] }
    }

    /// A server that answers each chat request with `reply(request)`. With `recordsRequests`
    /// false it keeps no log of them (`requests` is empty), for benchmarks of many requests.
    public init(recordsRequests: Bool = true, reply: @escaping @Sendable (ChatRequest) -> Script) {
        let counter = RequestCounter()
        server = FakeHTTPServer(recordsRequests: recordsRequests) { http in
            guard http.method == "POST", http.path.hasPrefix("/v1/chat/completions") else {
                let error: [String: Any] = ["message": "Unknown request URL: \(http.method) \(http.path).",
                                            "type": "invalid_request_error", "param": NSNull(), "code": "unknown_url"]
                return Self.errorResponse(status: 404, headers: [:], body: json(["error": error]))
            }
            let number = counter.next() + 1
            return Self.response(to: reply(ChatRequest(http)), completionID: "chatcmpl-fake\(number)")
        }
    }

    /// Starts listening on 127.0.0.1 on a free port.
    public func start() throws { try server.start() }

    /// Stops the server and closes every connection. Safe to call more than once.
    public func stop() { server.stop() }

    /// `http://127.0.0.1:<port>`; the API lives under `/v1`.
    public var baseURL: URL { server.baseURL }

    /// `http://127.0.0.1:<port>/v1/chat/completions`.
    public var chatCompletionsURL: URL { server.baseURL.appendingPathComponent("v1/chat/completions") }

    /// Every request received so far, chat or not, in order of arrival.
    public var requests: [ChatRequest] { server.requests.map(ChatRequest.init) }

    // MARK: - Wire format

    private static func response(to script: Script, completionID: String) -> FakeHTTPResponse {
        if case let .httpError(status, headers, body)? = script.fault {
            return errorResponse(status: status, headers: headers, body: body)
        }
        let chunks = ChunkWriter(id: completionID, script: script)
        var pieces: [FakeHTTPResponse.Piece] = []
        if script.sendsRoleChunk {
            pieces.append(.init(chunks.event(delta: ["role": "assistant", "content": ""])))
        }
        let faultStep: Int? = switch script.fault {
        case let .resetAfter(steps)?, let .malformedAfter(steps)?, let .stallAfter(steps)?,
             let .errorEventAfter(steps, _, _, _)?: steps
        default: nil
        }
        for step in script.steps.prefix(faultStep ?? script.steps.count) {
            pieces.append(chunks.piece(for: step))
        }
        let headers = ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"]
        switch script.fault {
        case .resetAfter?:
            return .streamThenReset(headers: headers, pieces: pieces)
        case .stallAfter?:
            return .stall(headers: headers, pieces: pieces)
        case .malformedAfter?:
            pieces.append(.init("data: {\"choices\": [{\"delta\": {\"content\": \"unterminated\n\n"))
            pieces.append(.init("data: [DONE]\n\n"))
        case let .errorEventAfter(_, message, type, code)?:
            let error: [String: Any] = ["message": message, "type": type, "param": NSNull(), "code": code ?? NSNull()]
            pieces.append(.init("data: \(json(["error": error]))\n\n"))
        case .httpError?, nil:
            pieces += chunks.ending()
        }
        return .stream(headers: headers, pieces: pieces)
    }

    private static func errorResponse(status: Int, headers: [String: String], body: String) -> FakeHTTPResponse {
        var allHeaders = ["Content-Type": "application/json"]
        allHeaders.merge(headers) { $1 }
        return .full(status: status, headers: allHeaders, body: Data(body.utf8))
    }
}

/// Builds the `chat.completion.chunk` events of one reply.
private struct ChunkWriter {
    let id: String
    let script: FakeOpenAIServer.Script
    let created = Int(Date().timeIntervalSince1970)

    func piece(for step: FakeOpenAIServer.Step) -> FakeHTTPResponse.Piece {
        switch step {
        case let .reasoning(text, afterMs): .init(afterMs: afterMs, event(delta: ["reasoning_content": text]))
        case let .content(text, afterMs): .init(afterMs: afterMs, event(delta: ["content": text]))
        case let .comment(afterMs): .init(afterMs: afterMs, ": keep-alive\n\n")
        case let .toolCall(index, id, name, fragments, afterMs):
            .init(afterMs: afterMs, event(delta: ["tool_calls": [["index": index, "id": id, "type": "function",
                                                                   "function": ["name": name, "arguments": ""]]]])
                + fragments.map { event(delta: ["tool_calls": [["index": index, "function": ["arguments": $0]]]]) }.joined())
        }
    }

    /// The finish chunk, the usage chunk when scripted, and `[DONE]`.
    func ending() -> [FakeHTTPResponse.Piece] {
        var finish = chunk(choices: [choice(delta: [:], finishReason: script.finishReason)])
        var last: [String: Any]?
        if let usage = script.usage {
            last = chunk(choices: [])
            last?["usage"] = Self.encode(usage)
        }
        if let timings = script.timings {
            if last == nil { finish["timings"] = Self.encode(timings) } else { last?["timings"] = Self.encode(timings) }
        }
        return [finish, last].compactMap { $0 }.map { .init("data: \(json($0))\n\n") } + [.init("data: [DONE]\n\n")]
    }

    func event(delta: [String: Any]) -> String {
        "data: \(json(chunk(choices: [choice(delta: delta, finishReason: nil)])))\n\n"
    }

    private func chunk(choices: [[String: Any]]) -> [String: Any] {
        var chunk: [String: Any] = [
            "id": id, "object": "chat.completion.chunk", "created": created, "model": script.model,
            "system_fingerprint": "fp_fake", "choices": choices,
        ]
        if script.usage != nil { chunk["usage"] = NSNull() }
        return chunk
    }

    private func choice(delta: [String: Any], finishReason: String?) -> [String: Any] {
        ["index": 0, "delta": delta, "logprobs": NSNull(), "finish_reason": finishReason ?? NSNull()]
    }

    private static func encode(_ usage: FakeOpenAIServer.ReportedUsage) -> [String: Any] {
        var object: [String: Any] = [:]
        object["prompt_tokens"] = usage.promptTokens
        object["completion_tokens"] = usage.completionTokens
        object["total_tokens"] = usage.totalTokens
        if let cached = usage.cachedTokens { object["prompt_tokens_details"] = ["cached_tokens": cached] }
        if let reasoning = usage.reasoningTokens {
            object["completion_tokens_details"] = ["reasoning_tokens": reasoning]
        }
        return object
    }

    private static func encode(_ timings: FakeOpenAIServer.LlamaTimings) -> [String: Any] {
        func perToken(_ ms: Double, _ n: Int) -> Double { n > 0 ? ms / Double(n) : 0 }
        func perSecond(_ ms: Double, _ n: Int) -> Double { ms > 0 ? 1000 * Double(n) / ms : 0 }
        return [
            "cache_n": timings.cacheN,
            "prompt_n": timings.promptN, "prompt_ms": timings.promptMs,
            "prompt_per_token_ms": perToken(timings.promptMs, timings.promptN),
            "prompt_per_second": perSecond(timings.promptMs, timings.promptN),
            "predicted_n": timings.predictedN, "predicted_ms": timings.predictedMs,
            "predicted_per_token_ms": perToken(timings.predictedMs, timings.predictedN),
            "predicted_per_second": perSecond(timings.predictedMs, timings.predictedN),
        ]
    }
}
