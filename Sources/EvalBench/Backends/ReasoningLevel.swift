/// How much a model may reason before answering; Apple's names.
public enum ReasoningLevel: String, Sendable, Codable, CaseIterable, Comparable {
    case none, light, moderate, deep

    /// Orders levels by how much reasoning they allow: none < light < moderate < deep.
    public static func < (lhs: ReasoningLevel, rhs: ReasoningLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
