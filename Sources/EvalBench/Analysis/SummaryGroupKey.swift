/// What a summary row compares: one backend at one reasoning level with one prompt variant.
public struct SummaryGroupKey: Sendable, Hashable {
    /// The backend's configured name.
    public var backend: String
    /// The reasoning level the requests were sent at.
    public var reasoning: ReasoningLevel
    /// The prompt variant's name; `default` when the suite declares none.
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
