import Foundation

/// One check on a turn's answer or measurements, as written in a suite's `expect`.
public struct Assertion: Sendable, Codable, Equatable {
    public var check: Check
    /// A name for reports; defaults to a description of the check.
    public var name: String?
    /// Weight in a weighted score; 1 when absent.
    public var weight: Double?

    public init(_ check: Check, name: String? = nil, weight: Double? = nil) {
        self.check = check
        self.name = name
        self.weight = weight
    }

    /// The assertion types of `evalbench.suite/1`.
    public enum Check: Sendable, Codable, Equatable {
        case contains(String, ignoreCase: Bool)
        case notContains(String, ignoreCase: Bool)
        case equals(String, ignoreCase: Bool)
        case startsWith(String, ignoreCase: Bool)
        case regex(String, ignoreCase: Bool)
        case notRegex(String, ignoreCase: Bool)
        case maxLatencyMs(Double)
        case maxTTFTMs(Double)
        case maxOutputTokens(Int)
        case minCacheHitRatio(Double)
    }

    /// The `type` string as written in suites.
    public var type: String {
        switch check {
        case .contains: "contains"
        case .notContains: "notContains"
        case .equals: "equals"
        case .startsWith: "startsWith"
        case .regex: "regex"
        case .notRegex: "notRegex"
        case .maxLatencyMs: "maxLatencyMs"
        case .maxTTFTMs: "maxTTFTMs"
        case .maxOutputTokens: "maxOutputTokens"
        case .minCacheHitRatio: "minCacheHitRatio"
        }
    }

    /// Every `type` a suite may use, for validation and "did you mean" suggestions.
    public static let types = [
        "contains", "notContains", "equals", "startsWith", "regex", "notRegex",
        "maxLatencyMs", "maxTTFTMs", "maxOutputTokens", "minCacheHitRatio",
    ]
}
