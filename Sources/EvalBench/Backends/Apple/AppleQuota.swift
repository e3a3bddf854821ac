import Foundation

/// PCC's `quotaUsage.status`, as a value recorded with each request.
public enum AppleQuotaState: String, Sendable, Codable, CaseIterable {
    /// `.belowLimit` with `isApproachingLimit` false.
    case belowLimit = "below_limit"
    /// `.belowLimit` with `isApproachingLimit` true.
    case approachingLimit = "approaching_limit"
    /// `.limitReached`, or a `quotaLimitReached` error.
    case limitReached = "limit_reached"
}

/// One reading of the PCC quota.
public struct AppleQuotaReading: Sendable, Codable, Equatable {
    /// How close to the limit the quota was.
    public var state: AppleQuotaState
    /// When the quota resets, if the framework says.
    public var resetDate: Date?

    /// A reading of `state`, with its reset date when the framework gave one.
    public init(state: AppleQuotaState, resetDate: Date? = nil) {
        self.state = state
        self.resetDate = resetDate
    }

    enum CodingKeys: String, CodingKey {
        case state
        case resetDate = "reset_date"
    }
}
