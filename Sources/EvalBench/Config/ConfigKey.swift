import Foundation

/// One key a backend kind accepts in its config object, with the type the loader checks.
public struct ConfigKey: Sendable {
    /// The key as written in the config object, e.g. `baseURL`.
    public var name: String
    /// The type the loader reads and checks the value as.
    public var type: ConfigValueType
    /// A required key that is absent is reported as "kind 'K' needs \"key\"".
    public var isRequired: Bool
    /// A further check of a value of the right type; a problem is reported at the value and
    /// the value dropped.
    public var check: (@Sendable (ConfigValue) -> ConfigProblem?)?

    /// A key `name` of `type`; optional and without a further check unless given.
    public init(_ name: String, _ type: ConfigValueType, required: Bool = false,
                check: (@Sendable (ConfigValue) -> ConfigProblem?)? = nil) {
        self.name = name
        self.type = type
        self.isRequired = required
        self.check = check
    }

    /// This key, required.
    public var required: ConfigKey {
        var key = self
        key.isRequired = true
        return key
    }
}

/// The types of config values, each read and checked with a message that says where.
public enum ConfigValueType: Sendable, Equatable {
    case string
    case bool
    case strings
    /// A whole number of at least 1.
    case positiveInteger
    /// A number greater than 0.
    case positiveNumber
    /// An http:// or https:// URL with a host (never repeated in messages: it may carry a key).
    case url
    /// The name of an environment variable, refused when it looks like a pasted key.
    case environmentVariable
    /// A file path: `~` expanded, a relative path taken from the config file's directory.
    case filePath
    /// A string that must be one of these.
    case choice([String])
    /// HTTP headers: an object of strings, none of them named like a secret.
    case headers
    /// HTTP headers whose values are secrets: header name → the environment variable that holds the value.
    case environmentHeaders
    /// An object of request-body fields, passed through as written.
    case requestBody
    /// A `Pricing` object.
    case pricing
    /// Per-level `ReasoningOverride`s, checked against the kind's `reasoningRules`.
    case reasoning
}

/// A value the loader read for a `ConfigKey`.
public enum ConfigValue: Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case strings([String])
    case integer(Int)
    case number(Double)
    case headers([String: String])
    case object([String: JSONValue])
    case pricing(Pricing)
    case reasoning([String: ReasoningOverride])
}

/// The values of one backend's config object, by key, as its kind decodes its options from them.
public struct ConfigValues: Sendable {
    /// The values read, by key; a key that was absent or had a problem has none.
    public var values: [String: ConfigValue]

    /// Values by key, as the loader read them (or a test builds them).
    public init(_ values: [String: ConfigValue] = [:]) {
        self.values = values
    }

    /// The value read for `key`, if any.
    public subscript(key: String) -> ConfigValue? { values[key] }

    /// A `.string`, `.url`, `.environmentVariable`, `.filePath` or `.choice` value.
    public func string(_ key: String) -> String? {
        if case let .string(text)? = values[key] { return text }
        return nil
    }

    /// A `.bool` value.
    public func bool(_ key: String) -> Bool? {
        if case let .bool(flag)? = values[key] { return flag }
        return nil
    }

    /// A `.strings` value.
    public func strings(_ key: String) -> [String]? {
        if case let .strings(list)? = values[key] { return list }
        return nil
    }

    /// A `.positiveInteger` value.
    public func integer(_ key: String) -> Int? {
        if case let .integer(number)? = values[key] { return number }
        return nil
    }

    /// A `.positiveNumber` value.
    public func number(_ key: String) -> Double? {
        if case let .number(number)? = values[key] { return number }
        return nil
    }

    /// A `.headers` value.
    public func headers(_ key: String) -> [String: String]? {
        if case let .headers(headers)? = values[key] { return headers }
        return nil
    }

    /// A `.requestBody` value.
    public func object(_ key: String) -> [String: JSONValue]? {
        if case let .object(members)? = values[key] { return members }
        return nil
    }

    /// A `.pricing` value.
    public func pricing(_ key: String) -> Pricing? {
        if case let .pricing(pricing)? = values[key] { return pricing }
        return nil
    }

    /// A `.reasoning` value, by level name.
    public func reasoning(_ key: String) -> [String: ReasoningOverride]? {
        if case let .reasoning(overrides)? = values[key] { return overrides }
        return nil
    }
}

/// A problem a kind finds in its config; the loader reports it at `key`'s value.
public struct ConfigProblem: Sendable, Equatable {
    /// The config key the problem is reported at.
    public var key: String
    /// What is wrong, in one sentence (never repeating a secret).
    public var message: String
    /// What to do about it; nil when there is nothing to suggest.
    public var fix: String?

    /// A problem at `key`.
    public init(key: String, message: String, fix: String? = nil) {
        self.key = key
        self.message = message
        self.fix = fix
    }
}

extension ConfigKey {
    /// The model name sent to the server and shown in reports.
    public static let model = ConfigKey("model", .string)
    /// Requests in flight at once on this backend.
    public static let concurrency = ConfigKey("concurrency", .positiveInteger)
    /// Overrides `defaults.timeoutSeconds` for this backend.
    public static let timeoutSeconds = ConfigKey("timeoutSeconds", .positiveNumber)
    /// The model's context window in tokens.
    public static let contextSize = ConfigKey("contextSize", .positiveInteger)
    /// Call the kind's prewarm on each new session.
    public static let prewarm = ConfigKey("prewarm", .bool)
    /// Prices in US dollars.
    public static let pricing = ConfigKey("pricing", .pricing)
    /// Per-level overrides of the kind's reasoning mapping.
    public static let reasoning = ConfigKey("reasoning", .reasoning)
    /// Base URL of an HTTP API.
    public static let baseURL = ConfigKey("baseURL", .url)
    /// The environment variable that holds the API key (never the key itself).
    public static let apiKeyEnv = ConfigKey("apiKeyEnv", .environmentVariable)
    /// Extra HTTP headers (values must not be secrets).
    public static let headers = ConfigKey("headers", .headers)
    /// Extra HTTP headers whose values are read from environment variables (header → variable),
    /// for credentials a gateway wants in a header of its own.
    public static let headersFromEnv = ConfigKey("headersFromEnv", .environmentHeaders)
    /// Fields merged into every request body.
    public static let extraBody = ConfigKey("extraBody", .requestBody)
    /// `native` or `prompt`.
    public static let structuredOutput = ConfigKey("structuredOutput", .choice(["native", "prompt"]))
    /// OpenAI-compatible: send `reasoning_effort: "none"` for level `none`.
    public static let sendReasoningNone = ConfigKey("sendReasoningNone", .bool)
}
