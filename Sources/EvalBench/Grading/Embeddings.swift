import Foundation

/// A backend that can embed text (OpenAI-compatible `/v1/embeddings`; llama-server started
/// with `--embeddings`), for the `similar` assertion.
package protocol EmbeddingBackend: Sendable {
    var name: String { get }
    /// One vector per text, in order.
    func embed(_ texts: [String], timeoutSeconds: Double) async -> Result<[[Double]], BackendFailure>
}

/// `POST {baseURL}/embeddings` with `{"model", "input": [...]}`; reads `data[].embedding` by `index`.
struct OpenAIEmbeddings: Sendable {
    let backend: String
    let baseURL: URL
    let model: String?
    let apiKey: String?
    let headers: [String: String]
    var publicParts = PublicRequestParts.none
    let transport: any HTTPStreaming

    func embed(_ texts: [String], timeoutSeconds: Double) async -> Result<[[Double]], BackendFailure> {
        let headers = HeaderLayers.merged(["Content-Type": "application/json"], self.headers,
                                          apiKey.map { ["Authorization": "Bearer \($0)"] } ?? [:])
        var body: [String: Any] = ["input": texts]
        if let model { body["model"] = model }
        let request = HTTPStreamRequest(url: baseURL.appendingPathComponent("embeddings"), method: "POST", headers: headers,
                                        body: JSONWriter.data(body), timeoutSeconds: timeoutSeconds,
                                        publicParts: publicParts)
        return SecretRedactor(request).redact(await send(request, count: texts.count))
    }

    private func send(_ request: HTTPStreamRequest, count: Int) async -> Result<[[Double]], BackendFailure> {
        var status: Int?
        var responseHeaders: [String: String] = [:]
        var data = Data()
        let limit = ResponseSizeLimit.bytes
        do {
            for try await event in transport.stream(request) {
                switch event {
                case let .response(code, fields):
                    status = code
                    responseHeaders = fields
                case let .bytes(bytes, _):
                    guard data.count + bytes.count <= limit else {
                        return .failure(ResponseSizeLimit.exceeded(limit, by: "\(backend): embeddings"))
                    }
                    data.append(bytes)
                }
            }
        } catch let failure as BackendFailure {
            return .failure(failure)
        } catch {
            return .failure(BackendFailure(kind: .network, message: "\(backend): embeddings: \(error.localizedDescription)"))
        }
        guard let status else {
            return .failure(BackendFailure(kind: .network, message: "\(backend): embeddings: no response"))
        }
        guard (200..<300).contains(status) else {
            var failure = HTTPFailureClassifier.openAI(status: status, headers: responseHeaders, body: data, backend: backend)
            failure.message = "embeddings: " + failure.message
            return .failure(failure)
        }
        return Self.vectors(from: data, count: count, backend: backend)
    }

    /// The vectors of an embeddings response, ordered by `index`. Read with evalbench's own JSON
    /// reader, which keeps numbers apart from booleans and strings: a value that is not a number
    /// is refused by name (it was dropped, or read as 1, and the vector kept its other values).
    static func vectors(from data: Data, count: Int, backend: String) -> Result<[[Double]], BackendFailure> {
        func failure(_ message: String) -> Result<[[Double]], BackendFailure> {
            .failure(BackendFailure(kind: .decoding, message: "\(backend): \(message)"))
        }
        guard let document = try? JSONDocument(data: data, file: "embeddings"), case let .object(object) = JSONValue(document.root),
              case let .array(items)? = object["data"] else {
            return failure("the embeddings response has no \"data\" array: \(ServerText.clip(bytes: data, 200))")
        }
        var vectors = [[Double]?](repeating: nil, count: count)
        for (position, item) in items.enumerated() {
            guard case let .object(fields) = item else { continue }
            var index = position
            if case let .number(value)? = fields["index"] {
                guard let whole = Int(exactly: value) else { continue }
                index = whole
            }
            guard index >= 0, index < count, case let .array(values)? = fields["embedding"] else { continue }
            var vector: [Double] = []
            vector.reserveCapacity(values.count)
            for value in values {
                guard case let .number(number) = value else {
                    return failure("embedding \(index) holds \(value.kindDescription), not a number: \(Diagnostic.excerpt(value.jsonText, limit: 40))")
                }
                vector.append(number)
            }
            vectors[index] = vector
        }
        let found = vectors.compactMap { $0 }
        guard found.count == count, found.allSatisfy({ !$0.isEmpty && $0.count == found[0].count }) else {
            return failure("expected \(count) embeddings of one length, got \(found.map(\.count))")
        }
        return .success(found)
    }
}

/// Cosine similarity of two vectors of one length, from -1 to 1; nil when either is empty, all
/// zeros or holds a value that is not finite. Each vector is scaled by its largest magnitude
/// first, so that a server's absurd values (1e200, which squared is infinite; 1e-200, which
/// squared is 0) give the direction they have, not NaN or nothing.
package func cosineSimilarity(_ a: [Double], _ b: [Double]) -> Double? {
    guard a.count == b.count, !a.isEmpty, a.allSatisfy(\.isFinite), b.allSatisfy(\.isFinite) else { return nil }
    let scaleA = a.reduce(0) { max($0, abs($1)) }, scaleB = b.reduce(0) { max($0, abs($1)) }
    guard scaleA > 0, scaleB > 0 else { return nil }
    var dot = 0.0, normA = 0.0, normB = 0.0
    for index in a.indices {
        let x = a[index] / scaleA, y = b[index] / scaleB
        dot += x * y
        normA += x * x
        normB += y * y
    }
    return min(1, max(-1, dot / (normA.squareRoot() * normB.squareRoot())))
}

extension OpenAIBackend: EmbeddingBackend {
    package func embed(_ texts: [String], timeoutSeconds: Double) async -> Result<[[Double]], BackendFailure> {
        await OpenAIEmbeddings(backend: name, baseURL: baseURL, model: model, apiKey: apiKey, headers: headers, publicParts: publicParts,
                               transport: transport).embed(texts, timeoutSeconds: timeoutSeconds)
    }
}
