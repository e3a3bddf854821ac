import Foundation

/// What a backend adds about one request beyond timing and usage: the PCC quota, a fallback
/// to another backend, and whether the session started cold, prewarmed or reused. Absent
/// fields were not observed.
public struct RequestDetails: Sendable, Codable, Equatable {
    /// The PCC quota read after the request.
    public var quota: AppleQuotaReading?
    /// Set when another backend answered instead (a PCC network failure retried on the
    /// on-device model); the answer is graded but left out of latency statistics.
    public var fallback: Fallback?
    /// How the session that answered had started.
    public var session: SessionStart?

    /// Details with the parts a backend observed; nil parts were not observed.
    public init(quota: AppleQuotaReading? = nil, fallback: Fallback? = nil, session: SessionStart? = nil) {
        self.quota = quota
        self.fallback = fallback
        self.session = session
    }

    /// A request answered by a backend other than the one it was planned on.
    public struct Fallback: Sendable, Codable, Equatable {
        /// The backend that answered.
        public var backend: String
        /// Why the planned backend did not.
        public var reason: String

        /// `backend` answered instead, because of `reason`.
        public init(backend: String, reason: String) {
            self.backend = backend
            self.reason = reason
        }
    }

    /// A new session without prewarming, a new prewarmed one, or a later turn on the same one.
    public enum SessionStart: String, Sendable, Codable {
        case cold, prewarmed, reused
    }
}
