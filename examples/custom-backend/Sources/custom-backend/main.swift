import EvalBench
import Foundation

/// A backend of one's own in a few lines: a closure that answers. An app would wrap its own
/// `LanguageModelSession` setup here (its instructions, tools and options) the same way.
struct ClosureBackend: Backend {
    let name: String
    let answer: @Sendable (String) -> String

    func startConversation() async -> any Conversation { Answering(answer: answer) }

    struct Answering: Conversation {
        let answer: @Sendable (String) -> String

        func respond(to request: ModelRequest) async -> Result<ModelResponse, BackendFailure> {
            let watch = Stopwatch()
            let text = answer(request.messages.last?.content ?? "")
            let end = watch.ms()
            return .success(ModelResponse(
                text: text,
                timing: RequestTiming(startedAt: watch.startedAt, firstTokenMs: end, firstAnswerTokenMs: end, endMs: end),
                usage: Usage()))  // a closure reports no tokens: they stay unknown, never 0
        }
    }
}

let capitals = ["France": "Paris", "Japan": "Tokyo", "Kenya": "Nairobi"]
let backend = ClosureBackend(name: "lookup") { prompt in
    capitals.first { prompt.contains($0.key) }.map { "The capital is \($0.value)." } ?? "I do not know."
}

// A suite built in Swift: three capitals the closure knows, and one it does not.
let suite = Suite(name: "capitals", cases: [
    EvalCase(id: "france", prompt: "What is the capital of France?", expect: [Assertion(.contains("Paris", ignoreCase: false))]),
    EvalCase(id: "japan", prompt: "What is the capital of Japan?", expect: [Assertion(.contains("Tokyo", ignoreCase: false))]),
    EvalCase(id: "kenya", prompt: "What is the capital of Kenya?", expect: [Assertion(.contains("Nairobi", ignoreCase: false))]),
    EvalCase(id: "peru", prompt: "What is the capital of Peru?", expect: [Assertion(.contains("Lima", ignoreCase: false))]),
])

var evaluation = Evaluation(suites: [.suite(suite)], backends: [backend])
evaluation.gate = Gate(minPassRate: 0.75)
let arguments = CommandLine.arguments.dropFirst()
if let index = arguments.firstIndex(of: "--out"), arguments.index(after: index) < arguments.endIndex {
    evaluation.outputDirectory = arguments[arguments.index(after: index)]
}
do {
    let report = try await evaluation.run()
    print(report.headline)
    print("pass rate \(report.passRate); failed: \(report.failures.map(\.caseID).joined(separator: ", "))")
    for reason in report.verdict.reasons { print("gate: \(reason)") }
    print("reports: \(report.outputDirectory.path)")
    exit(report.exitStatus.rawValue)
} catch let error as LoadError {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(ExitStatus.usage.rawValue)
}
