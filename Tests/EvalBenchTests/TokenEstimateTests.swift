import Testing
@testable import EvalBench

@Suite("Token estimates by script")
struct TokenEstimateTests {
    @Test("Latin at 4 characters a token, CJK at 2 tokens for 3 characters, other alphabets at 3, an emoji a token; rounded up", arguments: [
        ("", 0), ("abcd", 1), ("abcde", 2), ("東京都", 2), ("東京は日本の首都です。", 8), ("서울", 2),
        ("Москва", 2), ("👍🎉", 2), ("Tokyo 東京", 3),
    ])
    func rule(text: String, tokens: Int) {
        #expect(TokenEstimate.tokens(in: text) == tokens)
    }

    @Test("The rule's wording is what reports and plan print")
    func wording() {
        #expect(TokenEstimate.rule.contains("4 characters a token for Latin script"))
        #expect(TokenEstimate.rule.contains("Chinese, Japanese and Korean"))
    }
}
