/// What a summary row compares: one backend at one reasoning level with one prompt variant.
public struct SummaryGroupKey: Sendable, Hashable {
    public var backend: String
    public var reasoning: ReasoningLevel
    public var variant: String

    /// The group of `backend` at `reasoning` with prompt variant `variant`.
    public init(backend: String, reasoning: ReasoningLevel, variant: String) {
        self.backend = backend
        self.reasoning = reasoning
        self.variant = variant
    }

    /// The group a request belongs to.
    public init(_ request: RequestResult) {
        self.init(backend: request.backend, reasoning: request.reasoning, variant: request.variant)
    }

    /// `backend · reasoning · variant`, for column headings.
    public var label: String { "\(backend) · \(reasoning.rawValue) · \(variant)" }
}
