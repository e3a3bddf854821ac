import Foundation
import Testing
@testable import EvalBench

private func request(_ instructions: String?, _ messages: [(ChatRole, String)]) -> CanonicalPrompt {
    CanonicalPrompt(ModelRequest(instructions: instructions, messages: messages.map { ChatMessage(role: $0.0, content: $0.1) },
                                 options: GenerationOptions()))
}

@Suite("Prefix analysis: the ideal cache-hit ratio and the segment that broke the prefix")
struct PrefixAnalysisTests {
    @Test("an appended turn keeps the whole previous request as its prefix: nothing broke")
    func appended() throws {
        let first = request("Be brief.", [(.user, "one")])
        let second = request("Be brief.", [(.user, "one"), (.assistant, "1"), (.user, "two")])
        let comparison = PrefixComparison(previous: first, current: second)
        // "system:Be brief.\nuser:one" is 25 scalars; the second adds "\nassistant:1\nuser:two" (21).
        #expect(comparison.sharedCharacters == 25)
        #expect(comparison.totalCharacters == 46)
        #expect(comparison.idealRatio == 25.0 / 46.0)
        #expect(comparison.brokenSegment == nil)
        #expect(comparison.explanation == nil)
    }

    @Test("a changed value in the instructions breaks the prefix there, and says where")
    func changedInstructions() {
        let first = request("Today is Monday. Be brief.", [(.user, "one")])
        let second = request("Today is Tuesday. Be brief.", [(.user, "one"), (.assistant, "1"), (.user, "two")])
        let comparison = PrefixComparison(previous: first, current: second)
        #expect(comparison.brokenSegment == "instructions")
        #expect(comparison.brokenAt == 9, "\"Today is \" is shared")
        #expect(comparison.sharedCharacters == "system:Today is ".count)
        #expect(comparison.explanation == "instructions changed at character 9")
        #expect((comparison.idealRatio ?? 1) < 0.3)
    }

    @Test("a rewritten history entry is named by its index; the role marker counts as part of the prefix")
    func rewrittenHistory() {
        let first = request(nil, [(.user, "one"), (.assistant, "uno"), (.user, "two")])
        let second = request(nil, [(.user, "one"), (.assistant, "UNO"), (.user, "two"), (.assistant, "dos"), (.user, "three")])
        let comparison = PrefixComparison(previous: first, current: second)
        #expect(comparison.brokenSegment == "history[1]")
        #expect(comparison.brokenAt == 0)
        #expect(comparison.sharedCharacters == "user:one\nassistant:".count)
    }

    @Test("new instructions where there were none break at the first segment")
    func addedInstructions() {
        let comparison = PrefixComparison(previous: request(nil, [(.user, "q")]), current: request("New.", [(.user, "q")]))
        #expect(comparison.sharedCharacters == 0)
        #expect(comparison.brokenSegment == "instructions")
        #expect(comparison.brokenAt == 0)
    }
}
