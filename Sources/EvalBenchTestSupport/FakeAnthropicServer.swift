import Foundation

/// A test double for Anthropic's Messages API: it streams scripted `/v1/messages` replies in
/// the real wire format (`message_start`, content blocks, `message_delta`, `message_stop`),
/// with timed thinking and text steps, usage with cache reads and writes, stop reasons, HTTP
/// errors and error events mid-stream, and it keeps every request it received (body and
/// headers) for tests to inspect. For tests and benchmarks only.
///
/// Every reply is streamed (`text/event-stream`), whatever the request's `stream` says.
/// Any other path answers 404 with an Anthropic `not_found_error` body.
public final class FakeAnthropicServer: Sendable {
    /// One timed piece of the scripted answer. Consecutive steps of one kind form one content block.
    public enum Step: Sendable {
        /// A `thinking_delta` in a `thinking` block (closed with a `signature_delta`).
        case thinking(String, afterMs: Double = 0)
        /// A `text_delta` in a `text` block.
        case text(String, afterMs: Double = 0)
        /// A whole `redacted_thinking` block.
        case redactedThinking(afterMs: Double = 0)
        /// A `tool_use` block with one `input_json_delta`.
        case toolUse(name: String, inputJSON: String, afterMs: Double = 0)
        /// A `tool_use` block with this id whose input streams as one `input_json_delta` per fragment.
        case toolUseFragments(id: String, name: String, fragments: [String], afterMs: Double = 0)
        /// An `event: ping`.
        case ping(afterMs: Double = 0)
    }

    /// The usage a reply reports; a nil figure is left out of the JSON.
    public struct ReportedUsage: Sendable {
        /// Input tokens that were neither read from nor written to the cache.
        public var inputTokens: Int?
        public var cacheCreationInputTokens: Int?
        public var cacheReadInputTokens: Int?
        /// The final, cumulative output count, sent in `message_delta`.
        public var outputTokens: Int?
        /// Whether `message_delta` repeats the input and cache figures, as newer API versions do.
        public var repeatsInputInMessageDelta: Bool

        public init(inputTokens: Int? = nil, cacheCreationInputTokens: Int? = nil, cacheReadInputTokens: Int? = nil,
                    outputTokens: Int? = nil, repeatsInputInMessageDelta: Bool = false) {
            self.inputTokens = inputTokens
            self.cacheCreationInputTokens = cacheCreationInputTokens
            self.cacheReadInputTokens = cacheReadInputTokens
            self.outputTokens = outputTokens
            self.repeatsInputInMessageDelta = repeatsInputInMessageDelta
        }
    }

    /// A way for the reply to go wrong.
    public enum Fault: Sendable {
        /// No stream: this status, headers and body instead.
        case httpError(status: Int, headers: [String: String] = [:], body: String)
        /// An `event: error` after `message_start` and this many steps, then the stream ends.
        case errorEventAfter(steps: Int, type: String, message: String)
        /// The body ends cleanly after this many steps, with no `message_delta` or `message_stop`.
        case endAfter(steps: Int)
        /// The connection is reset (TCP RST) after this many steps.
        case resetAfter(steps: Int)
        /// `member` of every `event` event (`message_start`, `content_block_delta`,
        /// `message_delta`, …) is `value`, a JSON text such as `"\"Paris\""` or `5`, in place of
        /// what the API sends there, as a broken server or a proxy that rewrites events might.
        case mistypedMember(event: String, member: String, value: String)

        /// `{"type": "error", "error": {"type": type, "message": message}}` with this status.
        public static func anthropicError(status: Int, type: String, message: String,
                                          headers: [String: String] = [:]) -> Fault {
            .httpError(status: status, headers: headers,
                       body: json(["type": "error", "error": ["type": type, "message": message]]))
        }

        /// 529 `overloaded_error`.
        public static var overloaded: Fault {
            anthropicError(status: 529, type: "overloaded_error", message: "Overloaded")
        }

        /// 429 `rate_limit_error` with `retry-after`.
        public static func rateLimited(retryAfterSeconds: Int = 1) -> Fault {
            anthropicError(status: 429, type: "rate_limit_error",
                           message: "This request would exceed the rate limit for your organization of 50 requests per minute.",
                           headers: ["retry-after": String(retryAfterSeconds)])
        }

        /// 400 `billing_error`: the account has no credit.
        public static var billing: Fault {
            anthropicError(status: 400, type: "billing_error",
                           message: "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.")
        }

        /// 401 `authentication_error`.
        public static var authentication: Fault {
            anthropicError(status: 401, type: "authentication_error", message: "invalid x-api-key")
        }

        /// 400 `invalid_request_error` for a prompt over the context window.
        public static func promptTooLong(tokens: Int = 208_310, maximum: Int = 200_000) -> Fault {
            anthropicError(status: 400, type: "invalid_request_error",
                           message: "prompt is too long: \(tokens) tokens > \(maximum) maximum")
        }

        /// `overloaded_error` as an event after the first step.
        public static var overloadedMidStream: Fault {
            .errorEventAfter(steps: 1, type: "overloaded_error", message: "Overloaded")
        }
    }

    /// One scripted reply.
    public struct Script: Sendable {
        public var model: String
        public var steps: [Step]
        /// `end_turn`, `max_tokens`, `stop_sequence`, `tool_use`, `pause_turn`, `refusal`,
        /// `model_context_window_exceeded`.
        public var stopReason: String
        /// When nil, neither `message_start` nor `message_delta` carries usage.
        public var usage: ReportedUsage?
        public var fault: Fault?

        public init(model: String = "claude-fake", steps: [Step] = [], stopReason: String = "end_turn",
                    usage: ReportedUsage? = nil, fault: Fault? = nil) {
            self.model = model
            self.steps = steps
            self.stopReason = stopReason
            self.usage = usage
            self.fault = fault
        }
    }

    /// A Messages request as received, with the fields tests most often look at decoded.
    public struct MessagesRequest: Sendable {
        public struct Message: Sendable, Equatable {
            public var role: String
            /// The text; the text blocks of an array content are joined.
            public var text: String

            public init(role: String, text: String) {
                self.role = role
                self.text = text
            }
        }

        /// The raw request: method, path, headers (lowercased names) and body bytes.
        public var http: FakeHTTPRequest

        /// The decoded JSON body; empty when it was not a JSON object.
        public var body: [String: Any] {
            (try? JSONSerialization.jsonObject(with: http.body)) as? [String: Any] ?? [:]
        }

        public var headers: [String: String] { http.headers }
        public var model: String? { body["model"] as? String }
        public var maxTokens: Int? { body["max_tokens"] as? Int }
        public var stream: Bool { body["stream"] as? Bool ?? false }

        /// The `system` text, whether sent as a string or as text blocks.
        public var system: String? {
            let system = body["system"]
            return (system as? String) ?? (system as? [[String: Any]]).map(Self.text(of:))
        }

        public var messages: [Message] {
            (body["messages"] as? [[String: Any]] ?? []).map { message in
                let content = message["content"]
                let text = (content as? String) ?? (content as? [[String: Any]]).map(Self.text(of:)) ?? ""
                return Message(role: message["role"] as? String ?? "", text: text)
            }
        }

        init(_ http: FakeHTTPRequest) {
            self.http = http
        }

        private static func text(of blocks: [[String: Any]]) -> String {
            blocks.compactMap { $0["text"] as? String }.joined()
        }
    }

    private let server: FakeHTTPServer

    /// A server that answers the first request with `replies[0]`, the second with
    /// `replies[1]`, and every later one with the last reply.
    public convenience init(replies: [Script]) {
        precondition(!replies.isEmpty, "FakeAnthropicServer needs at least one reply")
        let counter = RequestCounter()
        self.init { _ in replies[min(counter.next(), replies.count - 1)] }
    }

    /// A server that answers each Messages request with `reply(request)`.
    public init(reply: @escaping @Sendable (MessagesRequest) -> Script) {
        let counter = RequestCounter()
        server = FakeHTTPServer { http in
            guard http.method == "POST", http.path.hasPrefix("/v1/messages") else {
                let body = json(["type": "error", "error": ["type": "not_found_error",
                                                            "message": "Not found: \(http.method) \(http.path)"]])
                return Self.errorResponse(status: 404, headers: [:], body: body)
            }
            let number = counter.next() + 1
            return Self.response(to: reply(MessagesRequest(http)), messageID: "msg_fake\(number)")
        }
    }

    /// Starts listening on 127.0.0.1 on a free port.
    public func start() throws { try server.start() }

    /// Stops the server and closes every connection. Safe to call more than once.
    public func stop() { server.stop() }

    /// `http://127.0.0.1:<port>`: the base URL an `anthropic` backend takes.
    public var baseURL: URL { server.baseURL }

    /// `http://127.0.0.1:<port>/v1/messages`.
    public var messagesURL: URL { server.baseURL.appendingPathComponent("v1/messages") }

    /// Every request received so far, in order of arrival.
    public var requests: [MessagesRequest] { server.requests.map(MessagesRequest.init) }

    // MARK: - Wire format

    private static func response(to script: Script, messageID: String) -> FakeHTTPResponse {
        if case let .httpError(status, headers, body)? = script.fault {
            return errorResponse(status: status, headers: headers, body: body)
        }
        var writer = EventWriter(script: script)
        var pieces: [FakeHTTPResponse.Piece] = [.init(writer.start(id: messageID))]
        let faultStep: Int? = switch script.fault {
        case let .errorEventAfter(steps, _, _)?, let .endAfter(steps)?, let .resetAfter(steps)?: steps
        default: nil
        }
        for step in script.steps.prefix(faultStep ?? script.steps.count) {
            pieces.append(writer.piece(for: step))
        }
        let headers = ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"]
        switch script.fault {
        case let .errorEventAfter(_, type, message)?:
            pieces.append(.init(EventWriter.event("error", ["type": "error", "error": ["type": type, "message": message]])))
        case .endAfter?:
            break
        case .resetAfter?:
            return .streamThenReset(headers: headers, pieces: pieces)
        case .httpError?, .mistypedMember?, nil:
            pieces.append(.init(writer.ending()))
        }
        return .stream(headers: headers, pieces: pieces)
    }

    private static func errorResponse(status: Int, headers: [String: String], body: String) -> FakeHTTPResponse {
        var allHeaders = ["Content-Type": "application/json"]
        allHeaders.merge(headers) { $1 }
        return .full(status: status, headers: allHeaders, body: Data(body.utf8))
    }
}

/// Builds the events of one reply, keeping track of the open content block.
private struct EventWriter {
    private enum Block: Equatable { case thinking, text, other }

    let script: FakeAnthropicServer.Script
    private var open: Block?
    private var index = -1

    init(script: FakeAnthropicServer.Script) {
        self.script = script
    }

    /// `message_start` (with the input usage) and a ping, as the API begins every stream.
    func start(id: String) -> String {
        var message: [String: Any] = [
            "id": id, "type": "message", "role": "assistant", "content": [], "model": script.model,
            "stop_reason": NSNull(), "stop_sequence": NSNull(),
        ]
        if let usage = script.usage {
            var reported = Self.inputUsage(usage)
            if let output = usage.outputTokens { reported["output_tokens"] = min(1, output) }
            message["usage"] = reported
        }
        return emit("message_start", ["type": "message_start", "message": message])
            + emit("ping", ["type": "ping"])
    }

    mutating func piece(for step: FakeAnthropicServer.Step) -> FakeHTTPResponse.Piece {
        switch step {
        case let .thinking(text, afterMs):
            let opening = enter(.thinking, ["type": "thinking", "thinking": ""])
            return .init(afterMs: afterMs, opening + delta(["type": "thinking_delta", "thinking": text]))
        case let .text(text, afterMs):
            let opening = enter(.text, ["type": "text", "text": ""])
            return .init(afterMs: afterMs, opening + delta(["type": "text_delta", "text": text]))
        case let .redactedThinking(afterMs):
            let opening = enter(.other, ["type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT"])
            return .init(afterMs: afterMs, opening)
        case let .toolUse(name, inputJSON, afterMs):
            let opening = enter(.other, ["type": "tool_use", "id": "toolu_fake\(index + 1)", "name": name, "input": [:]])
            return .init(afterMs: afterMs, opening + delta(["type": "input_json_delta", "partial_json": inputJSON]))
        case let .toolUseFragments(id, name, fragments, afterMs):
            let opening = enter(.other, ["type": "tool_use", "id": id, "name": name, "input": [:]])
            let deltas = fragments.map { delta(["type": "input_json_delta", "partial_json": $0]) }.joined()
            return .init(afterMs: afterMs, opening + deltas)
        case let .ping(afterMs):
            return .init(afterMs: afterMs, emit("ping", ["type": "ping"]))
        }
    }

    /// Closes the last block, then `message_delta` with the stop reason and usage, and `message_stop`.
    mutating func ending() -> String {
        var text = close()
        var messageDelta: [String: Any] = [
            "type": "message_delta", "delta": ["stop_reason": script.stopReason, "stop_sequence": NSNull()],
        ]
        if let usage = script.usage {
            var reported = usage.repeatsInputInMessageDelta ? Self.inputUsage(usage) : [:]
            if let output = usage.outputTokens { reported["output_tokens"] = output }
            messageDelta["usage"] = reported
        }
        text += emit("message_delta", messageDelta)
        text += emit("message_stop", ["type": "message_stop"])
        return text
    }

    /// Opens a block of `kind` unless one is open already (a block of `other` kind always opens anew).
    private mutating func enter(_ kind: Block, _ contentBlock: [String: Any]) -> String {
        if open == kind, kind != .other { return "" }
        var text = close()
        index += 1
        open = kind
        text += emit("content_block_start", ["type": "content_block_start", "index": index, "content_block": contentBlock])
        return text
    }

    private mutating func close() -> String {
        guard let block = open else { return "" }
        open = nil
        var text = ""
        if block == .thinking {
            text += delta(["type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pk"])
        }
        return text + emit("content_block_stop", ["type": "content_block_stop", "index": index])
    }

    private func delta(_ delta: [String: Any]) -> String {
        emit("content_block_delta", ["type": "content_block_delta", "index": index, "delta": delta])
    }

    private static func inputUsage(_ usage: FakeAnthropicServer.ReportedUsage) -> [String: Any] {
        var reported: [String: Any] = [:]
        reported["input_tokens"] = usage.inputTokens
        reported["cache_creation_input_tokens"] = usage.cacheCreationInputTokens
        reported["cache_read_input_tokens"] = usage.cacheReadInputTokens
        return reported
    }

    static func event(_ name: String, _ data: [String: Any]) -> String {
        "event: \(name)\ndata: \(json(data))\n\n"
    }

    /// The event `name` as the script's fault has it: a member of the wrong kind, or as it is.
    private func emit(_ name: String, _ data: [String: Any]) -> String {
        guard case let .mistypedMember(event, member, value)? = script.fault, event == name,
              let replacement = try? JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed) else {
            return Self.event(name, data)
        }
        var data = data
        data[member] = replacement
        return Self.event(name, data)
    }
}
