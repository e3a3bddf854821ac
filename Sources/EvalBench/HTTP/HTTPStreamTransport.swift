import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request whose response body is to be streamed.
package struct HTTPStreamRequest: Sendable {
    package var url: URL
    package var method: String
    /// Request headers; they may carry API keys, so no error message ever includes them.
    package var headers: [String: String]
    package var body: Data?
    /// The limit for the whole exchange, from sending the request to the end of the body.
    package var timeoutSeconds: Double
    /// What of `url` and `headers` was written in plain sight in a config (which refuses
    /// secrets there), and so is left in what comes back (`SecretRedactor`).
    package var publicParts: PublicRequestParts

    package init(url: URL, method: String = "POST", headers: [String: String] = [:], body: Data? = nil,
                timeoutSeconds: Double = 120, publicParts: PublicRequestParts = .none) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeoutSeconds = timeoutSeconds
        self.publicParts = publicParts
    }
}

/// The parts of a request a config wrote in plain sight: the names (lowercased) of the headers
/// it gave literal values, and whether the URL's query is its `baseURL`'s. The config refuses a
/// secret in either place (a key-like value or a secret's name), so these are not secrets, and
/// the redactor leaves them in answers: an Azure `?api-version=2024-10-21` or an `X-Title`
/// header would otherwise turn every answer that quotes the date or the title into
/// `[redacted]`. A header `headersFromEnv` sends is never public, whatever the case of its name.
package struct PublicRequestParts: Sendable, Hashable {
    package var headerNames: Set<String>
    package var query: Bool

    package init(headerNames: some Sequence<String> = [String](), query: Bool = false) {
        self.headerNames = Set(headerNames.map { $0.lowercased() })
        self.query = query
    }

    /// Nothing is known to be public: every long header value and query value is a secret.
    package static let none = PublicRequestParts()

    /// A config's literal `headers` and its `baseURL`'s query, less any header that
    /// `headersFromEnv` also names.
    package static func config(literal: [String: String]?, fromEnvironment: [String: String]?) -> PublicRequestParts {
        let secret = Set((fromEnvironment ?? [:]).keys.map { $0.lowercased() })
        return PublicRequestParts(headerNames: (literal ?? [:]).keys.map { $0.lowercased() }.filter { !secret.contains($0) }, query: true)
    }
}

/// What a streamed HTTP exchange yields: the response head once, then body bytes as they arrive.
package enum HTTPStreamEvent: Sendable {
    /// The status and headers; header names are lowercased.
    case response(status: Int, headers: [String: String])
    /// Body bytes, stamped with `DispatchTime.now().uptimeNanoseconds` the moment they arrived.
    case bytes(Data, receivedAtNanos: UInt64)
}

/// Sends HTTP requests and streams their responses: the seam where tests put a fake.
package protocol HTTPStreaming: Sendable {
    /// Starts the request. The stream ends when the body ends, or throws a `BackendFailure`
    /// (`.timeout`, `.network`, or `.cancelled` when the request was cancelled from outside).
    /// Cancelling the consuming task cancels the request and ends the stream without an
    /// error, as for any `AsyncThrowingStream`: the caller checks `Task.isCancelled` and
    /// records `.cancelled` itself.
    func stream(_ request: HTTPStreamRequest) -> AsyncThrowingStream<HTTPStreamEvent, any Error>

    /// Starts the request, as `stream(_:)` does, for one reader: what `StreamedResponse`
    /// reads. By default the events of `stream(_:)`; the socket transport hands them over
    /// without an `AsyncThrowingStream` (see `HTTPEventChannel`).
    func events(_ request: HTTPStreamRequest) -> HTTPEvents
}

extension HTTPStreaming {
    package func events(_ request: HTTPStreamRequest) -> HTTPEvents {
        HTTPEvents(stream(request))
    }
}

/// The production transport: one `URLSession` shared by all streams, driven by a data
/// delegate so that bytes are delivered as they arrive (Linux has no `bytes(for:)`).
///
/// It keeps no cache and no cookies, and allows enough connections per host for 64 and
/// more concurrent streams.
package final class URLSessionStreamTransport: HTTPStreaming {
    private let session: URLSession
    private let delegate: StreamingDelegate

    /// A transport allowing up to `maximumConnectionsPerHost` concurrent connections to one host.
    package init(maximumConnectionsPerHost: Int = 256) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        let queue = OperationQueue()
        // One serial queue keeps each task's callbacks in order.
        queue.maxConcurrentOperationCount = 1
        delegate = StreamingDelegate()
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit { session.finishTasksAndInvalidate() }

    package func stream(_ request: HTTPStreamRequest) -> AsyncThrowingStream<HTTPStreamEvent, any Error> {
        AsyncThrowingStream { continuation in
            var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData,
                                        timeoutInterval: request.timeoutSeconds)
            urlRequest.httpMethod = request.method
            urlRequest.httpBody = request.body
            for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
            let task = session.dataTask(with: urlRequest)
            delegate.register(task, request: request, continuation: continuation)
            continuation.onTermination = { [delegate] termination in
                if case .cancelled = termination { delegate.consumerLeft(task) }
            }
            task.resume()
        }
    }
}

/// Routes URLSession callbacks to each task's stream and enforces the whole-request timeout.
private final class StreamingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Sendable because its only stored state, `streams`, is read and written only while
    // holding `lock`; the values it holds (continuations, tasks, work items) are thread-safe.
    private struct TaskStream {
        let continuation: AsyncThrowingStream<HTTPStreamEvent, any Error>.Continuation
        let task: URLSessionTask
        let timeout: DispatchWorkItem
        let target: String
        let timeoutSeconds: Double
        var status: Int?
        var bytesReceived = 0

        /// How far the exchange got, for error messages.
        var progress: String { HTTPTarget.progress(status: status, bytesReceived: bytesReceived) }
    }

    private let lock = NSLock()
    private var streams: [Int: TaskStream] = [:]

    func register(_ task: URLSessionTask, request: HTTPStreamRequest,
                  continuation: AsyncThrowingStream<HTTPStreamEvent, any Error>.Continuation) {
        let id = task.taskIdentifier
        let timeout = DispatchWorkItem { [weak self] in self?.timedOut(id) }
        lock.withLock {
            streams[id] = TaskStream(continuation: continuation, task: task, timeout: timeout,
                                     target: HTTPTarget.describe(request.url), timeoutSeconds: request.timeoutSeconds)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + request.timeoutSeconds, execute: timeout)
    }

    /// The consumer stopped listening: the request is no longer wanted.
    func consumerLeft(_ task: URLSessionTask) {
        remove(task.taskIdentifier)?.timeout.cancel()
        task.cancel()
    }

    private func timedOut(_ id: Int) {
        guard let stream = remove(id) else { return }
        stream.continuation.finish(throwing: BackendFailure(
            kind: .timeout,
            message: HTTPTarget.timeoutMessage(stream.target, seconds: stream.timeoutSeconds, progress: stream.progress),
            httpStatus: stream.status))
        stream.task.cancel()
    }

    private func remove(_ id: Int) -> TaskStream? {
        lock.withLock { streams.removeValue(forKey: id) }
    }

    // MARK: URLSessionDataDelegate

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        var headers: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            headers[String(describing: name).lowercased()] = String(describing: value)
        }
        let continuation = lock.withLock { () -> AsyncThrowingStream<HTTPStreamEvent, any Error>.Continuation? in
            streams[dataTask.taskIdentifier]?.status = status
            return streams[dataTask.taskIdentifier]?.continuation
        }
        continuation?.yield(.response(status: status, headers: headers))
        completionHandler(continuation == nil ? .cancel : .allow)
    }

    /// Redirects are not followed: the request's credentials would go wherever one points. The
    /// 3xx response itself comes back, and the reader says where it pointed.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let receivedAt = DispatchTime.now().uptimeNanoseconds
        let continuation = lock.withLock { () -> AsyncThrowingStream<HTTPStreamEvent, any Error>.Continuation? in
            streams[dataTask.taskIdentifier]?.bytesReceived += data.count
            return streams[dataTask.taskIdentifier]?.continuation
        }
        continuation?.yield(.bytes(data, receivedAtNanos: receivedAt))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let stream = remove(task.taskIdentifier) else { return }
        stream.timeout.cancel()
        if let error {
            stream.continuation.finish(throwing: Self.failure(error, stream))
        } else {
            stream.continuation.finish()
        }
    }

    // MARK: Errors

    private static func failure(_ error: any Error, _ stream: TaskStream) -> BackendFailure {
        let nsError = error as NSError
        let code = nsError.domain == NSURLErrorDomain ? URLError.Code(rawValue: nsError.code) : nil
        let (kind, what): (ErrorKind, String) = switch code {
        case .cancelled?: (.cancelled, "the request was cancelled")
        case .timedOut?: (.timeout, "the connection was idle longer than the request timeout")
        case .cannotConnectToHost?: (.network, "could not connect (connection refused or unreachable)")
        case .cannotFindHost?, .dnsLookupFailed?: (.network, "the host name could not be resolved")
        case .networkConnectionLost?: (.network, "the connection was lost")
        case .notConnectedToInternet?: (.network, "there is no network connection")
        case .secureConnectionFailed?, .serverCertificateUntrusted?, .serverCertificateHasBadDate?,
             .serverCertificateNotYetValid?, .serverCertificateHasUnknownRoot?:
            (.network, "the TLS connection failed")
        case .badURL?, .unsupportedURL?: (.badRequest, "the URL cannot be requested")
        default: (.network, "the exchange failed")
        }
        return BackendFailure(
            kind: kind,
            message: "\(stream.target): \(what) \(stream.progress) (\(nsError.domain) \(nsError.code))",
            httpStatus: stream.status)
    }
}

/// How a request's URL is named in error messages: scheme, host, port and path only, since a
/// query may hold an API key.
enum HTTPTarget {
    static func describe(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        components?.user = nil
        components?.password = nil
        return components?.string ?? "the server"
    }

    /// How far an exchange got: `after status 200 and 12 body bytes`, or `before any response`.
    static func progress(status: Int?, bytesReceived: Int) -> String {
        status.map { "after status \($0) and \(bytesReceived) body bytes" } ?? "before any response"
    }

    /// What a request that ran past its whole-request timeout says.
    static func timeoutMessage(_ target: String, seconds: Double, progress: String) -> String {
        "\(target) did not finish within the request timeout of \(seconds) s (\(progress)); raise timeoutSeconds if the model is slow"
    }
}
