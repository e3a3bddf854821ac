import Foundation

/// How one reasoning level is sent to the Messages API (DESIGN.md, "Reasoning levels"):
/// `none` disables thinking; `light`, `moderate` and `deep` send adaptive thinking with
/// `output_config.effort` `low`, `medium` and `high`. A backend's override may replace the
/// effort, ask for a fixed thinking budget (`thinking.type: enabled`, for models before
/// adaptive thinking; a budget of 0 disables thinking), add body fields, or mark the level unsupported.
struct AnthropicReasoning {
    enum Thinking: Equatable {
        case disabled
        case adaptive
        case enabled(budgetTokens: Int)
    }

    var thinking: Thinking
    var effort: String?
    var extraBody: [String: JSONValue]?
    var unsupported: String?

    init(level: ReasoningLevel, override: ReasoningOverride?) {
        unsupported = override?.unsupported
        extraBody = override?.extraBody
        if let budget = override?.thinkingBudget {
            thinking = budget > 0 ? .enabled(budgetTokens: budget) : .disabled
            effort = override?.effort
            return
        }
        switch level {
        case .none:
            thinking = .disabled
            effort = override?.effort
        case .light, .moderate, .deep:
            thinking = .adaptive
            effort = override?.effort ?? Self.defaultEffort(level)
        }
    }

    static func defaultEffort(_ level: ReasoningLevel) -> String? {
        switch level {
        case .none: nil
        case .light: "low"
        case .moderate: "medium"
        case .deep: "high"
        }
    }

    var thinkingIsOn: Bool { thinking != .disabled }

    var thinkingObject: [String: Any] {
        switch thinking {
        case .disabled: ["type": "disabled"]
        case .adaptive: ["type": "adaptive"]
        case let .enabled(budget): ["type": "enabled", "budget_tokens": budget]
        }
    }

    /// Exactly what is sent, for plans and reports.
    var description: String {
        var parts: [String] = switch thinking {
        case .disabled: ["thinking: disabled"]
        case .adaptive: ["thinking: adaptive"]
        case let .enabled(budget): ["thinking: enabled, budget_tokens: \(budget)"]
        }
        if let effort { parts.append("output_config.effort: \"\(effort)\"") }
        if let extraBody, !extraBody.isEmpty { parts.append("extra body \(RequestBody.describe(extraBody))") }
        if thinkingIsOn { parts.append("temperature (unless 1) and top_p below 0.95 not sent") }
        return parts.joined(separator: ", ")
    }
}
