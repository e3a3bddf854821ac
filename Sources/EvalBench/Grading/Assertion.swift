import Foundation

/// One check on a turn's answer or measurements, as written in a suite's `expect`.
public struct Assertion: Sendable, Codable, Equatable {
    /// What the assertion checks (its `type` and that type's fields).
    public var check: Check
    /// A name for reports; a named assertion is also a named metric, summarised per backend ×
    /// reasoning × variant. Unnamed, it is described by its check.
    public var name: String?
    /// Weight in a case's weighted score; 1 when absent.
    public var weight: Double?
    /// `not: true`: the assertion passes when its check fails.
    public var inverted: Bool

    /// An assertion of `check`; unnamed, weight 1 and not inverted by default.
    public init(_ check: Check, name: String? = nil, weight: Double? = nil, inverted: Bool = false) {
        self.check = check
        self.name = name
        self.weight = weight
        self.inverted = inverted
    }

    /// The assertion types of `evalbench.suite/1`. A check that needs a model call (a judge,
    /// an embedding similarity) is a case here like any other, graded by calling that backend.
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
        /// The answer is one JSON value, optionally inside a Markdown code fence.
        case json
        /// The answer's JSON is valid against the schema.
        case jsonSchema(JSONSchema)
        /// A value the JSONPath selects meets the expectation.
        case jsonPath(JSONPathQuery, JSONExpectation)
        /// The value at the JSON pointer meets the expectation.
        case jsonPointer(JSONPointer, JSONExpectation)
        /// The answer contains every one of the values.
        case containsAll([String], ignoreCase: Bool)
        /// The answer contains at least one of the values.
        case containsAny([String], ignoreCase: Bool)
        /// The trimmed answer has between `min` and `max` characters (either bound optional).
        case lengthBetween(min: Int?, max: Int?)
        /// The normalised answer is one of `labels` and equals `expected`.
        case label(expected: String, labels: [String])
        /// At least `minRatio` of the values appear in the answer.
        case keywords([String], minRatio: Double, ignoreCase: Bool)
        /// Another configured backend grades the answer against `rubric`; passes when its
        /// verdict passes and, with `minScore`, its score reaches it.
        case judge(ModelGrader, rubric: String, minScore: Double?)
        /// Embedding cosine similarity of the answer and `value` is at least `threshold`.
        case similar(ModelGrader, value: String, threshold: Double)
        /// The tool `name` was called (with arguments containing `arguments`, when given) a
        /// number of times within the bounds: exactly `times`, or `min`…`max`; at least once by default.
        case toolCalled(name: String, arguments: JSONValue?, times: Int?, min: Int?, max: Int?)
        /// The tool `name` was not called; with no name, no tool was.
        case toolNotCalled(name: String?)
        /// The calls include `names` in this order; `strict`: with no other call between them.
        case toolSequence(names: [String], strict: Bool)
        /// Every call's arguments parse and validate against the called tool's `parameters`.
        case toolArgumentsValid
        /// The turn made at most this many tool calls.
        case maxToolCalls(Int)
        /// The turn's tool loop took at most this many rounds of calls.
        case maxToolRounds(Int)
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
        case .json: "json"
        case .jsonSchema: "jsonSchema"
        case .jsonPath: "jsonPath"
        case .jsonPointer: "jsonPointer"
        case .containsAll: "containsAll"
        case .containsAny: "containsAny"
        case .lengthBetween: "lengthBetween"
        case .label: "label"
        case .keywords: "keywords"
        case .judge: "judge"
        case .similar: "similar"
        case .toolCalled: "toolCalled"
        case .toolNotCalled: "toolNotCalled"
        case .toolSequence: "toolSequence"
        case .toolArgumentsValid: "toolArgumentsValid"
        case .maxToolCalls: "maxToolCalls"
        case .maxToolRounds: "maxToolRounds"
        }
    }

    /// Every `type` a suite may use, for validation and "did you mean" suggestions.
    public static let types = [
        "contains", "notContains", "equals", "startsWith", "regex", "notRegex",
        "maxLatencyMs", "maxTTFTMs", "maxOutputTokens", "minCacheHitRatio",
        "json", "jsonSchema", "jsonPath", "jsonPointer", "containsAll", "containsAny",
        "lengthBetween", "label", "keywords", "judge", "similar",
        "toolCalled", "toolNotCalled", "toolSequence", "toolArgumentsValid", "maxToolCalls", "maxToolRounds",
    ]

    /// The weight in a weighted score.
    public var effectiveWeight: Double { weight ?? 1 }
}

/// The backend a model-graded assertion calls, and where the suite named it.
public struct ModelGrader: Sendable, Codable, Equatable {
    /// The configured backend that grades (the assertion's `backend` key).
    public var backend: String
    /// Where the suite named the backend, for diagnostics; nil for an assertion built in Swift.
    public var location: SourceLocation?
    /// The JSON path of the `backend` key, for diagnostics.
    public var path: String?

    /// A grader on the configured backend `backend`.
    public init(backend: String, location: SourceLocation? = nil, path: String? = nil) {
        self.backend = backend
        self.location = location
        self.path = path
    }
}

/// What a `jsonPath` or `jsonPointer` assertion expects of the value it finds.
public enum JSONExpectation: Sendable, Codable, Equatable {
    /// Only that there is a value.
    case exists
    /// The value equals this one (numbers by value; strings ignoring case when asked).
    case equals(JSONValue, ignoreCase: Bool)
    /// A string value contains this text, an array has this element, or an object has this key.
    case contains(JSONValue, ignoreCase: Bool)
    /// A string value matches this regular expression.
    case matches(String, ignoreCase: Bool)
    /// A number within `tolerance` of the target.
    case approx(Double, tolerance: Double)
}
