import EvalBenchTestSupport
import Foundation
import Testing
import EvalBench

/// The raw body of one POST to the fake, read through the real transport.
private func post(_ server: FakeGeminiServer, path: String = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
    async throws -> (status: Int?, headers: [String: String], body: String) {
    let request = HTTPStreamRequest(url: URL(string: server.baseURL.absoluteString + path)!,
                                    headers: ["Content-Type": "application/json", "x-goog-api-key": "k"],
                                    body: Data(#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#.utf8), timeoutSeconds: 10)
    var status: Int?
    var headers: [String: String] = [:]
    var body = Data()
    for try await event in URLSessionStreamTransport().stream(request) {
        switch event {
        case let .response(code, head):
            status = code
            headers = head
        case let .bytes(bytes, _):
            body += bytes
        }
    }
    return (status, headers, String(decoding: body, as: UTF8.self))
}

/// The JSON objects of the `data:` events of a body.
private func events(_ body: String) -> [[String: Any]] {
    body.components(separatedBy: "\r\n\r\n").filter { $0.hasPrefix("data: ") }.compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.dropFirst(6).utf8))) as? [String: Any]
    }
}

private func parts(_ event: [String: Any]) -> [[String: Any]] {
    (((event["candidates"] as? [[String: Any]])?.first?["content"] as? [String: Any])?["parts"] as? [[String: Any]]) ?? []
}

extension LoopbackNetworkTests {
    @Suite("Fake Gemini server")
    struct FakeGeminiServerTests {
        @Test("A scripted reply streams thought and text parts, then finishReason and the full usageMetadata, CRLF-separated")
        func wireFormat() async throws {
            let server = FakeGeminiServer(replies: [.init(
                modelVersion: "gemini-2.5-flash-001", steps: [.thought("Hmm"), .text("Paris")], finishReason: "MAX_TOKENS",
                usage: .init(promptTokenCount: 1000, cachedContentTokenCount: 900, candidatesTokenCount: 2, thoughtsTokenCount: 5))])
            try server.start()
            defer { server.stop() }
            let reply = try await post(server)
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == "text/event-stream")
            let chunks = events(reply.body)
            #expect(chunks.count == 3)
            #expect(chunks.allSatisfy { $0["modelVersion"] as? String == "gemini-2.5-flash-001" })
            #expect(parts(chunks[0]).first?["thought"] as? Bool == true)
            #expect(parts(chunks[1]).first?["text"] as? String == "Paris")
            #expect(parts(chunks[1]).first?["thought"] == nil)
            #expect((chunks[0]["usageMetadata"] as? [String: Any])?.keys.sorted() == ["promptTokenCount", "totalTokenCount"])
            let last = try #require(chunks.last)
            #expect((last["candidates"] as? [[String: Any]])?.first?["finishReason"] as? String == "MAX_TOKENS")
            let usage = try #require(last["usageMetadata"] as? [String: Any])
            #expect(usage["cachedContentTokenCount"] as? Int == 900)
            #expect(usage["totalTokenCount"] as? Int == 1007)
            #expect(usage["toolUsePromptTokenCount"] == nil, "an unscripted count is left out, as proto3 JSON does")
            let received = try #require(server.requests.first)
            #expect(received.model == "gemini-2.5-flash")
            #expect(received.apiKey == "k")
            #expect(received.contents.first?.text == "hi")
        }

        @Test("HTTP errors carry the scripted headers and Google error body; an unknown path is a NOT_FOUND")
        func errors() async throws {
            let server = FakeGeminiServer(replies: [
                .init(fault: .googleError(code: 429, status: "RESOURCE_EXHAUSTED", message: "slow down", retryDelay: "3s",
                                          headers: ["Retry-After": "3"])),
            ])
            try server.start()
            defer { server.stop() }
            let limited = try await post(server)
            #expect(limited.status == 429)
            #expect(limited.headers["retry-after"] == "3")
            #expect(limited.body.contains(#""status" : "RESOURCE_EXHAUSTED""#) || limited.body.contains(#""status": "RESOURCE_EXHAUSTED""#))
            #expect(limited.body.contains("google.rpc.RetryInfo"))
            let missing = try await post(server, path: "/v1/chat/completions")
            #expect(missing.status == 404)
            #expect(missing.body.contains("NOT_FOUND"))
        }

        @Test("A blocked prompt is one chunk with promptFeedback and no candidates")
        func blocked() async throws {
            let server = FakeGeminiServer(replies: [.init(blockReason: "SAFETY")])
            try server.start()
            defer { server.stop() }
            let chunks = events(try await post(server).body)
            #expect(chunks.count == 1)
            #expect((chunks[0]["promptFeedback"] as? [String: Any])?["blockReason"] as? String == "SAFETY")
            #expect(chunks[0]["candidates"] == nil)
        }
    }
}
