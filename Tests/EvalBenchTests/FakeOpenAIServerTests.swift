import Foundation
import Testing
import EvalBench
import EvalBenchTestSupport

/// A reply as a client sees it: status, headers and the parsed SSE events with arrival times.
private struct Reply {
    var status: Int?
    var headers: [String: String] = [:]
    var body = Data()
    var events: [(event: SSEEvent, atNanos: UInt64)] = []
    var failure: BackendFailure?

    /// The JSON objects of the data events, `[DONE]` excluded.
    var chunks: [[String: Any]] {
        events.compactMap { try? JSONSerialization.jsonObject(with: Data($0.event.data.utf8)) as? [String: Any] }
    }
}

private func post(_ server: FakeOpenAIServer, url: URL? = nil, body: [String: Any] = [:],
                  timeoutSeconds: Double = 10) async throws -> Reply {
    let request = HTTPStreamRequest(url: url ?? server.chatCompletionsURL,
                                    headers: ["Content-Type": "application/json"],
                                    body: try JSONSerialization.data(withJSONObject: body),
                                    timeoutSeconds: timeoutSeconds)
    var reply = Reply()
    var parser = SSEParser()
    do {
        for try await event in URLSessionStreamTransport().stream(request) {
            switch event {
            case let .response(status, headers):
                reply.status = status
                reply.headers = headers
            case let .bytes(bytes, receivedAtNanos):
                reply.body += bytes
                reply.events += parser.feed(bytes).map { ($0, receivedAtNanos) }
            }
        }
    } catch {
        reply.failure = error as? BackendFailure
    }
    return reply
}

private func startedServer(_ replies: [FakeOpenAIServer.Script]) throws -> FakeOpenAIServer {
    let server = FakeOpenAIServer(replies: replies)
    try server.start()
    return server
}

private func delta(_ chunk: [String: Any]) -> [String: Any]? {
    ((chunk["choices"] as? [[String: Any]])?.first)?["delta"] as? [String: Any]
}

extension LoopbackNetworkTests {
    @Suite("Fake OpenAI server")
    struct FakeOpenAIServerTests {
        @Test("A scripted reply streams role, reasoning, content, finish, usage, timings and [DONE] as parseable SSE")
        func fullReply() async throws {
            let server = try startedServer([FakeOpenAIServer.Script(
                model: "gemma-3-270m",
                steps: [.reasoning("Thinking", afterMs: 10), .comment(), .content("Pa", afterMs: 100), .content("ris")],
                usage: .init(promptTokens: 20, completionTokens: 3, totalTokens: 23, cachedTokens: 16),
                timings: .init(cacheN: 16, promptN: 4, predictedN: 3))])
            defer { server.stop() }
            let start = DispatchTime.now().uptimeNanoseconds
            let reply = try await post(server, body: ["model": "gemma-3-270m", "stream": true])

            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == "text/event-stream")
            #expect(reply.events.last?.event.data == "[DONE]")
            // Every data event but [DONE] is a JSON chunk; the comment dispatches nothing.
            #expect(reply.chunks.count == reply.events.count - 1)
            #expect(reply.chunks.count == 6)
            #expect(String(decoding: reply.body, as: UTF8.self).contains("\n: keep-alive\n"))

            let chunks = reply.chunks
            #expect(chunks.allSatisfy { $0["object"] as? String == "chat.completion.chunk" && $0["model"] as? String == "gemma-3-270m" })
            #expect(delta(chunks[0])?["role"] as? String == "assistant")
            #expect(delta(chunks[1])?["reasoning_content"] as? String == "Thinking")
            #expect(chunks.compactMap { delta($0)?["content"] as? String }.joined() == "Paris")
            let finish = try #require((chunks[4]["choices"] as? [[String: Any]])?.first)
            #expect(finish["finish_reason"] as? String == "stop")
            #expect(chunks.dropLast().allSatisfy { $0["usage"] is NSNull })

            let usageChunk = chunks[5]
            #expect((usageChunk["choices"] as? [Any])?.isEmpty == true)
            let usage = try #require(usageChunk["usage"] as? [String: Any])
            #expect(usage["prompt_tokens"] as? Int == 20)
            #expect(usage["total_tokens"] as? Int == 23)
            #expect((usage["prompt_tokens_details"] as? [String: Any])?["cached_tokens"] as? Int == 16)
            #expect(usage["completion_tokens_details"] == nil)
            let timings = try #require(usageChunk["timings"] as? [String: Any])
            #expect(timings["cache_n"] as? Int == 16)
            #expect(timings["prompt_n"] as? Int == 4)
            #expect(timings["predicted_n"] as? Int == 3)

            // The server cannot send "Pa" before its scheduled 10 + 100 ms, and it arrives as its own read.
            #expect(Double(reply.events[2].atNanos - start) / 1_000_000 >= 110)
            #expect(reply.events[2].atNanos > reply.events[1].atNanos)
        }

        @Test("Without usage, no chunk carries a usage key and timings ride on the finish chunk")
        func noUsage() async throws {
            let server = try startedServer([.init(steps: [.content("Hi")], finishReason: "length",
                                                  timings: .init(cacheN: 0, promptN: 5, predictedN: 1))])
            defer { server.stop() }
            let chunks = try await post(server).chunks
            #expect(chunks.count == 3)
            #expect(chunks.allSatisfy { $0["usage"] == nil })
            let finish = try #require((chunks[2]["choices"] as? [[String: Any]])?.first)
            #expect(finish["finish_reason"] as? String == "length")
            #expect((chunks[2]["timings"] as? [String: Any])?["cache_n"] as? Int == 0)
        }

        @Test("Replies follow the script in order, the last repeating; requests are recorded decoded")
        func replySequence() async throws {
            let server = try startedServer([
                .init(fault: .rateLimited(retryAfterSeconds: 2)),
                .init(steps: [.content("ok")]),
            ])
            defer { server.stop() }
            let body: [String: Any] = [
                "model": "m", "stream": true, "stream_options": ["include_usage": true], "reasoning_effort": "low",
                "max_tokens": 16, "messages": [["role": "user", "content": [["type": "text", "text": "Hello"]]]],
            ]
            let first = try await post(server, body: body)
            #expect(first.status == 429)
            #expect(first.headers["retry-after"] == "2")
            let error = try #require((try JSONSerialization.jsonObject(with: first.body) as? [String: Any])?["error"] as? [String: Any])
            #expect(error["code"] as? String == "rate_limit_exceeded")
            let second = try await post(server, body: body)
            let third = try await post(server, body: body)
            #expect(second.status == 200 && third.status == 200)
            #expect(third.chunks.compactMap { delta($0)?["content"] as? String } == ["", "ok"])

            let recorded = server.requests
            #expect(recorded.count == 3)
            #expect(recorded[0].model == "m")
            #expect(recorded[0].stream && recorded[0].includeUsage)
            #expect(recorded[0].reasoningEffort == "low")
            #expect(recorded[0].maxTokens == 16)
            #expect(recorded[0].messages == [.init(role: "user", content: "Hello")])
        }

        @Test("A reply closure sees the decoded request")
        func replyClosure() async throws {
            let server = FakeOpenAIServer { request in
                .init(steps: [.content("echo: " + (request.messages.last?.content ?? ""))])
            }
            try server.start()
            defer { server.stop() }
            let reply = try await post(server, body: ["messages": [["role": "user", "content": "ping"]]])
            #expect(reply.chunks.compactMap { delta($0)?["content"] as? String }.joined() == "echo: ping")
        }

        @Test("Error bodies have the providers' shapes: quota, context length, llama.cpp context size")
        func errorBodies() async throws {
            let server = try startedServer([
                .init(fault: .insufficientQuota),
                .init(fault: .contextLengthExceeded()),
                .init(fault: .llamaContextExceeded(promptTokens: 4476, contextSize: 4096)),
            ])
            defer { server.stop() }
            var errors: [[String: Any]] = []
            var statuses: [Int?] = []
            for _ in 0..<3 {
                let reply = try await post(server)
                statuses.append(reply.status)
                let object = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
                errors.append(try #require(object?["error"] as? [String: Any]))
            }
            #expect(statuses == [429, 400, 400])
            #expect(errors[0]["type"] as? String == "insufficient_quota")
            #expect(errors[1]["code"] as? String == "context_length_exceeded")
            #expect(errors[2]["type"] as? String == "exceed_context_size_error")
            #expect(errors[2]["code"] as? Int == 400)
            #expect(errors[2]["n_prompt_tokens"] as? Int == 4476)
            #expect(errors[2]["n_ctx"] as? Int == 4096)
        }

        @Test("Stream faults: a malformed line, an error event, a reset, a stall")
        func streamFaults() async throws {
            let steps: [FakeOpenAIServer.Step] = [.content("a"), .content("b")]
            let server = try startedServer([
                .init(steps: steps, fault: .malformed),
                .init(steps: steps, fault: .errorEventAfter(steps: 1, message: "The server had an error",
                                                            type: "server_error", code: nil)),
                .init(steps: steps, fault: .resetAfter(steps: 1)),
                .init(steps: steps, fault: .stall),
            ])
            defer { server.stop() }

            let malformed = try await post(server)
            #expect(malformed.events.map(\.event.data).last == "[DONE]")
            #expect(malformed.events.count == 3)
            #expect(malformed.chunks.count == 1)

            let errorEvent = try await post(server)
            let error = try #require(errorEvent.chunks.last?["error"] as? [String: Any])
            #expect(error["type"] as? String == "server_error")
            #expect(!errorEvent.events.contains { $0.event.data == "[DONE]" })

            let reset = try await post(server)
            #expect(reset.failure?.kind == .network)
            #expect(reset.chunks.count == 2)

            let stall = try await post(server, timeoutSeconds: 0.3)
            #expect(stall.failure?.kind == .timeout)
            #expect(stall.chunks.count == 1)
        }

        @Test("Other paths answer 404 with an OpenAI error body")
        func unknownPath() async throws {
            let server = try startedServer([.init()])
            defer { server.stop() }
            let reply = try await post(server, url: server.baseURL.appendingPathComponent("v1/embeddings"))
            #expect(reply.status == 404)
            #expect(String(decoding: reply.body, as: UTF8.self).contains("unknown_url"))
        }
    }
}
