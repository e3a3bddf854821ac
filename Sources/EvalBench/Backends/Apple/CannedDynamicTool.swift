#if canImport(FoundationModels)
import FoundationModels

/// A suite's tool as Foundation Models calls it: a dynamic `Tool` whose arguments are
/// `GeneratedContent`, whose `parameters` are the `GenerationSchema` built from the tool's JSON
/// Schema (`AppleToolSpec`), and whose `call` answers from the canned results through
/// `AppleToolAnswerer`, the same `ToolAnswering` the runner's tool loop uses. The framework runs
/// the loop inside one `respond`; the answerer keeps the record of the calls.
/// Written to the `Tool` protocol of the 26.x SDK (not in the reference notes; compile-check on a Mac).
@available(macOS 26.0, iOS 26.0, visionOS 26.0, *)
struct CannedDynamicTool: Tool {
    typealias Arguments = GeneratedContent
    typealias Output = String

    let name: String
    let description: String
    let parameters: GenerationSchema
    let answerer: AppleToolAnswerer

    init(_ spec: AppleToolSpec, answerer: AppleToolAnswerer) throws {
        name = spec.name
        description = spec.description
        parameters = try GenerationSchema(root: FrameworkSession.dynamicSchema(spec.parameters, name: spec.name), dependencies: [])
        self.answerer = answerer
    }

    func call(arguments: GeneratedContent) async throws -> String {
        try answerer.answer(name: name, argumentsJSON: arguments.jsonString)
    }
}

#endif
