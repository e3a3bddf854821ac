import Foundation

/// Reads one streamed HTTP response into a `ModelResponse`: each provider's reader turns
/// transport events into text, timings and usage.
protocol StreamReading {
    /// Takes one transport event; a failure ends the response for good.
    mutating func consume(_ event: HTTPStreamEvent) -> BackendFailure?
    /// A transport failure, with the measurements so far attached.
    func failing(_ failure: BackendFailure) -> BackendFailure
    /// The response once the stream has ended normally.
    mutating func finish() -> Result<ModelResponse, BackendFailure>
}

/// The most bytes one response body may have: a server that streams without end, or a 200 MB
/// answer, is cut off there instead of filling the memory. The runner sets it per request
/// from `defaults.maxResponseBytes`; a task-local, so that no backend needs to pass it on.
package enum ResponseSizeLimit {
    package static let defaultBytes = 16 * 1024 * 1024
    @TaskLocal package static var bytes = defaultBytes

    /// The failure of a response from `what` that passed `limit` bytes.
    static func exceeded(_ limit: Int, by what: String) -> BackendFailure {
        BackendFailure(kind: .responseTooLarge,
                       message: "\(what): the response passed \(limit) bytes and was cut off; raise defaults.maxResponseBytes if responses this long are expected")
    }
}

/// The one loop every HTTP provider's request goes through.
enum StreamedResponse {
    /// Builds the request, sends it on `transport`, reads the stream with `reader`, and removes
    /// the request's secrets from whatever comes back (see `SecretRedactor`).
    static func respond<Reader: StreamReading>(_ build: () throws -> HTTPStreamRequest, on transport: any HTTPStreaming,
                                               backend: String, with reader: Reader) async -> Result<ModelResponse, BackendFailure> {
        let request: HTTPStreamRequest
        do {
            request = try build()
        } catch {
            return .failure(BackendFailure(kind: .badRequest, message: "\(backend): could not encode the request: \(error)"))
        }
        var reader = reader
        let result = await read(request, on: transport, backend: backend, with: &reader)
        return SecretRedactor(request).redact(result)
    }

    /// Sends `request` on `transport` and feeds every event to `reader`; transport errors and
    /// cancellation become failures of `backend`, never thrown.
    static func read<Reader: StreamReading>(_ request: HTTPStreamRequest, on transport: any HTTPStreaming,
                                            backend: String, with reader: inout Reader) async -> Result<ModelResponse, BackendFailure> {
        let limit = ResponseSizeLimit.bytes
        var received = 0
        do {
            var events = transport.events(request)
            while let event = try await events.next() {
                if case let .bytes(data, _) = event {
                    received += data.count
                    if received > limit {
                        return .failure(reader.failing(ResponseSizeLimit.exceeded(limit, by: backend)))
                    }
                }
                if let failure = reader.consume(event) { return .failure(failure) }
            }
        } catch let failure as BackendFailure {
            return .failure(reader.failing(failure))
        } catch is CancellationError {
            return .failure(reader.failing(BackendFailure(kind: .cancelled, message: "\(backend): cancelled")))
        } catch {
            return .failure(reader.failing(BackendFailure(kind: .network, message: "\(backend): \(error.localizedDescription)")))
        }
        return reader.finish()
    }
}
