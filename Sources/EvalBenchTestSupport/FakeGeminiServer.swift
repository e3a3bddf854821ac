import Foundation

/// A test double for the Gemini API: it streams scripted
/// `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` replies in the real wire format
/// (`data: {GenerateContentResponse}` events separated by CRLF CRLF), with timed thought and
/// text parts, `usageMetadata`, finish reasons, prompt blocks, Google error bodies and stream
/// faults, and records every request. For tests and benchmarks only.
///
/// Any other path answers 404 with a Google `NOT_FOUND` error body.
public final class FakeGeminiServer: Sendable {
    /// One timed piece of the scripted answer, each sent as its own chunk.
    public enum Step: Sendable {
        /// A part with `"thought": true`: a thought summary.
        case thought(String, afterMs: Double = 0)
        /// A text part of the answer.
        case text(String, afterMs: Double = 0)
        /// A `functionCall` part.
        case functionCall(name: String, afterMs: Double = 0)
        /// A `functionCall` part with `args` (JSON object text) and, when given, a `thoughtSignature`.
        case functionCallWithArguments(name: String, argumentsJSON: String, signature: String? = nil, afterMs: Double = 0)
    }

    /// The final `usageMetadata`; a nil count is left out of the JSON, as proto3 JSON leaves
    /// out zeros. Earlier chunks carry only `promptTokenCount`, as the real API's do.
    public struct ReportedUsage: Sendable {
        public var promptTokenCount: Int?
        public var cachedContentTokenCount: Int?
        public var candidatesTokenCount: Int?
        public var thoughtsTokenCount: Int?
        public var toolUsePromptTokenCount: Int?

        public init(promptTokenCount: Int? = nil, cachedContentTokenCount: Int? = nil, candidatesTokenCount: Int? = nil,
                    thoughtsTokenCount: Int? = nil, toolUsePromptTokenCount: Int? = nil) {
            self.promptTokenCount = promptTokenCount
            self.cachedContentTokenCount = cachedContentTokenCount
            self.candidatesTokenCount = candidatesTokenCount
            self.thoughtsTokenCount = thoughtsTokenCount
            self.toolUsePromptTokenCount = toolUsePromptTokenCount
        }

        /// The sum the API reports as `totalTokenCount`.
        public var totalTokenCount: Int {
            [promptTokenCount, candidatesTokenCount, thoughtsTokenCount, toolUsePromptTokenCount].compactMap { $0 }.reduce(0, +)
        }
    }

    /// A way for the reply to go wrong.
    public enum Fault: Sendable {
        /// No stream: this status, headers and body instead.
        case httpError(status: Int, headers: [String: String] = [:], body: String)
        /// The connection is reset (TCP RST) after this many steps.
        case resetAfter(steps: Int)
        /// Nothing more after this many steps, until the client gives up.
        case stallAfter(steps: Int)
        /// A `data: {"error": …}` event after this many steps, then the body ends.
        case errorEventAfter(steps: Int, code: Int, status: String, message: String)
        /// A bare, pretty-printed `{"error": …}` appended outside any SSE event after this many
        /// steps, as the API does when it sheds load mid-stream.
        case bareErrorAfter(steps: Int, code: Int, status: String, message: String)

        /// Google's error body: `{"error": {"code", "message", "status", "details"}}`.
        public static func googleError(code: Int, status: String, message: String, details: [[String: String]] = [],
                                       violations: [(quotaMetric: String, quotaId: String)] = [],
                                       retryDelay: String? = nil, headers: [String: String] = [:]) -> Fault {
            var detailObjects: [[String: Any]] = details
            if !violations.isEmpty {
                detailObjects.append([
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": violations.map { ["quotaMetric": $0.quotaMetric, "quotaId": $0.quotaId] },
                ])
            }
            detailObjects.append(["@type": "type.googleapis.com/google.rpc.Help",
                                  "links": [["description": "Learn more about Gemini API quotas",
                                             "url": "https://ai.google.dev/gemini-api/docs/rate-limits"]]])
            if let retryDelay {
                detailObjects.append(["@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retryDelay])
            }
            let error: [String: Any] = ["code": code, "message": message, "status": status, "details": detailObjects]
            return .httpError(status: code, headers: headers, body: json(["error": error], pretty: true))
        }

        /// 429 for a per-minute quota, with a `RetryInfo` delay: it recovers, so it is retried.
        public static func rateLimited(retryDelay: String = "0s") -> Fault {
            googleError(code: 429, status: "RESOURCE_EXHAUSTED",
                        message: "You exceeded your current quota, please check your plan and billing details. "
                            + "Please retry in \(retryDelay).",
                        violations: [("generativelanguage.googleapis.com/generate_content_free_tier_requests",
                                      "GenerateRequestsPerMinutePerProjectPerModel-FreeTier")],
                        retryDelay: retryDelay)
        }

        /// 429 for the per-day request quota: it will not recover within a retry's wait.
        public static var dailyQuotaExhausted: Fault {
            googleError(code: 429, status: "RESOURCE_EXHAUSTED",
                        message: "You exceeded your current quota, please check your plan and billing details.",
                        violations: [("generativelanguage.googleapis.com/generate_content_free_tier_requests",
                                      "GenerateRequestsPerDayPerProjectPerModel-FreeTier")],
                        retryDelay: "13s")
        }

        /// 503 `UNAVAILABLE`, "The model is overloaded."
        public static var overloaded: Fault {
            googleError(code: 503, status: "UNAVAILABLE", message: "The model is overloaded. Please try again later.")
        }

        /// 400 `INVALID_ARGUMENT` with `API_KEY_INVALID`, as the API answers a wrong key.
        public static var invalidAPIKey: Fault {
            googleError(code: 400, status: "INVALID_ARGUMENT", message: "API key not valid. Please pass a valid API key.",
                        details: [["@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                                   "domain": "googleapis.com"]])
        }

        /// 400 `INVALID_ARGUMENT` for a prompt longer than the model's input limit.
        public static func inputTooLong(tokens: Int = 1_200_000, maximum: Int = 1_048_576) -> Fault {
            googleError(code: 400, status: "INVALID_ARGUMENT",
                        message: "The input token count (\(tokens)) exceeds the maximum number of tokens allowed (\(maximum)).")
        }
    }

    /// One scripted reply.
    public struct Script: Sendable {
        public var modelVersion: String
        public var steps: [Step]
        /// The last chunk's `finishReason`; nil sends none, as a stream cut short would.
        public var finishReason: String?
        public var usage: ReportedUsage?
        /// When set, the reply is a single chunk with `promptFeedback.blockReason` and no candidates.
        public var blockReason: String?
        public var fault: Fault?

        public init(modelVersion: String = "gemini-fake-001", steps: [Step] = [], finishReason: String? = "STOP",
                    usage: ReportedUsage? = nil, blockReason: String? = nil, fault: Fault? = nil) {
            self.modelVersion = modelVersion
            self.steps = steps
            self.finishReason = finishReason
            self.usage = usage
            self.blockReason = blockReason
            self.fault = fault
        }
    }

    /// A generate request as received, with the fields tests most often look at decoded.
    public struct GenerateRequest: Sendable {
        /// The model named in the path (`models/{model}:streamGenerateContent`).
        public var model: String
        /// The path without the query.
        public var path: String
        /// The query string, e.g. `alt=sse`.
        public var query: String
        /// The `x-goog-api-key` header.
        public var apiKey: String?
        /// `contents`, as (role, text of its parts joined).
        public var contents: [(role: String, text: String)]
        /// The text parts of `systemInstruction`, joined with "\n".
        public var systemInstruction: String?
        /// The raw request, for anything else (headers, the full JSON body).
        public var http: FakeHTTPRequest

        init(_ http: FakeHTTPRequest) {
            self.http = http
            let target = http.path.split(separator: "?", maxSplits: 1).map(String.init)
            path = target.first ?? ""
            query = target.count > 1 ? target[1] : ""
            let name = path.split(separator: "/").last.map(String.init) ?? ""
            model = name.split(separator: ":").first.map(String.init) ?? ""
            apiKey = http.headers["x-goog-api-key"]
            let object = (try? JSONSerialization.jsonObject(with: http.body)) as? [String: Any] ?? [:]
            contents = (object["contents"] as? [[String: Any]] ?? []).map { content in
                let parts = content["parts"] as? [[String: Any]] ?? []
                return (content["role"] as? String ?? "", parts.compactMap { $0["text"] as? String }.joined())
            }
            let system = ((object["systemInstruction"] as? [String: Any])?["parts"] as? [[String: Any]])?
                .compactMap { $0["text"] as? String }
            systemInstruction = system?.joined(separator: "\n")
        }

        /// The JSON body as Foundation objects.
        public var body: [String: Any] {
            (try? JSONSerialization.jsonObject(with: http.body)) as? [String: Any] ?? [:]
        }

        /// `generationConfig`, empty when absent.
        public var generationConfig: [String: Any] { body["generationConfig"] as? [String: Any] ?? [:] }

        /// `generationConfig.thinkingConfig`, empty when absent.
        public var thinkingConfig: [String: Any] { generationConfig["thinkingConfig"] as? [String: Any] ?? [:] }
    }

    private let server: FakeHTTPServer

    /// A server that answers the first request with `replies[0]`, the second with
    /// `replies[1]`, and every later one with the last reply.
    public convenience init(replies: [Script]) {
        precondition(!replies.isEmpty, "FakeGeminiServer needs at least one reply")
        let counter = RequestCounter()
        self.init { _ in replies[min(counter.next(), replies.count - 1)] }
    }

    /// A server that answers each generate request with `reply(request)`.
    public init(reply: @escaping @Sendable (GenerateRequest) -> Script) {
        let counter = RequestCounter()
        server = FakeHTTPServer { http in
            let request = GenerateRequest(http)
            guard http.method == "POST", request.path.hasPrefix("/v1beta/models/"),
                  request.path.hasSuffix(":streamGenerateContent") else {
                let error: [String: Any] = ["code": 404, "status": "NOT_FOUND",
                                            "message": "models/\(request.model) is not found for API version v1beta, "
                                                + "or is not supported for streamGenerateContent."]
                return Self.errorResponse(status: 404, headers: [:], body: json(["error": error], pretty: true))
            }
            let number = counter.next() + 1
            return Self.response(to: reply(request), responseID: "fake-response-\(number)")
        }
    }

    /// Starts listening on 127.0.0.1 on a free port.
    public func start() throws { try server.start() }

    /// Stops the server and closes every connection. Safe to call more than once.
    public func stop() { server.stop() }

    /// `http://127.0.0.1:<port>`; the API lives under `/v1beta`.
    public var baseURL: URL { server.baseURL }

    /// Every request received so far, in order of arrival.
    public var requests: [GenerateRequest] { server.requests.map(GenerateRequest.init) }

    // MARK: - Wire format

    private static func response(to script: Script, responseID: String) -> FakeHTTPResponse {
        if case let .httpError(status, headers, body)? = script.fault {
            return errorResponse(status: status, headers: headers, body: body)
        }
        let writer = ChunkWriter(responseID: responseID, script: script)
        let headers = ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"]
        if let blockReason = script.blockReason {
            return .stream(headers: headers, pieces: [.init(writer.blocked(blockReason))])
        }
        let faultStep: Int? = switch script.fault {
        case let .resetAfter(steps)?, let .stallAfter(steps)?, let .errorEventAfter(steps, _, _, _)?,
             let .bareErrorAfter(steps, _, _, _)?: steps
        default: nil
        }
        var pieces = script.steps.prefix(faultStep ?? script.steps.count).map(writer.piece(for:))
        switch script.fault {
        case .resetAfter?:
            return .streamThenReset(headers: headers, pieces: pieces)
        case .stallAfter?:
            return .stall(headers: headers, pieces: pieces)
        case let .errorEventAfter(_, code, status, message)?:
            let error: [String: Any] = ["code": code, "message": message, "status": status]
            pieces.append(.init("data: \(json(["error": error]))\r\n\r\n"))
        case let .bareErrorAfter(_, code, status, message)?:
            let error: [String: Any] = ["code": code, "message": message, "status": status]
            pieces.append(.init(json(["error": error], pretty: true) + "\n"))
        case .httpError?, nil:
            pieces.append(.init(writer.ending()))
        }
        return .stream(headers: headers, pieces: pieces)
    }

    private static func errorResponse(status: Int, headers: [String: String], body: String) -> FakeHTTPResponse {
        var allHeaders = ["Content-Type": "application/json; charset=UTF-8"]
        allHeaders.merge(headers) { $1 }
        return .full(status: status, headers: allHeaders, body: Data(body.utf8))
    }
}

/// Builds the `GenerateContentResponse` events of one reply.
private struct ChunkWriter {
    let responseID: String
    let script: FakeGeminiServer.Script

    func piece(for step: FakeGeminiServer.Step) -> FakeHTTPResponse.Piece {
        switch step {
        case let .thought(text, afterMs): .init(afterMs: afterMs, event(parts: [["text": text, "thought": true]]))
        case let .text(text, afterMs): .init(afterMs: afterMs, event(parts: [["text": text]]))
        case let .functionCall(name, afterMs):
            .init(afterMs: afterMs, event(parts: [["functionCall": ["name": name, "args": [String: Any]()]]]))
        case let .functionCallWithArguments(name, argumentsJSON, signature, afterMs):
            .init(afterMs: afterMs, event(parts: [Self.functionCallPart(name: name, argumentsJSON: argumentsJSON, signature: signature)]))
        }
    }

    private static func functionCallPart(name: String, argumentsJSON: String, signature: String?) -> [String: Any] {
        let args = (try? JSONSerialization.jsonObject(with: Data(argumentsJSON.utf8))) ?? [String: Any]()
        var part: [String: Any] = ["functionCall": ["name": name, "args": args]]
        if let signature { part["thoughtSignature"] = signature }
        return part
    }

    /// The last chunk: an empty text part, the finish reason when scripted, and the full usage.
    func ending() -> String {
        var candidate: [String: Any] = ["content": ["parts": [["text": ""]], "role": "model"], "index": 0]
        if let finishReason = script.finishReason { candidate["finishReason"] = finishReason }
        var chunk = base()
        chunk["candidates"] = [candidate]
        if let usage = script.usage { chunk["usageMetadata"] = Self.encode(usage) }
        return "data: \(json(chunk))\r\n\r\n"
    }

    /// The one chunk of a blocked prompt: feedback, usage, no candidates.
    func blocked(_ reason: String) -> String {
        var chunk = base()
        chunk["promptFeedback"] = ["blockReason": reason,
                                   "safetyRatings": [["category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH"]]]
        if let usage = script.usage { chunk["usageMetadata"] = Self.encode(usage) }
        return "data: \(json(chunk))\r\n\r\n"
    }

    private func event(parts: [[String: Any]]) -> String {
        var chunk = base()
        chunk["candidates"] = [["content": ["parts": parts, "role": "model"], "index": 0]]
        if let prompt = script.usage?.promptTokenCount {
            chunk["usageMetadata"] = ["promptTokenCount": prompt, "totalTokenCount": prompt]
        }
        return "data: \(json(chunk))\r\n\r\n"
    }

    private func base() -> [String: Any] {
        ["modelVersion": script.modelVersion, "responseId": responseID]
    }

    private static func encode(_ usage: FakeGeminiServer.ReportedUsage) -> [String: Any] {
        var object: [String: Any] = ["totalTokenCount": usage.totalTokenCount]
        object["promptTokenCount"] = usage.promptTokenCount
        object["cachedContentTokenCount"] = usage.cachedContentTokenCount
        object["candidatesTokenCount"] = usage.candidatesTokenCount
        object["thoughtsTokenCount"] = usage.thoughtsTokenCount
        object["toolUsePromptTokenCount"] = usage.toolUsePromptTokenCount
        return object
    }
}
