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

    @Test("ASCII is counted a byte a character without grapheme breaking, CR LF as one, as Swift counts characters",
          arguments: ["", "a", "abc def", "line\r\nnext", "\r\n\r\n", "\n\r", "\r\r\n", "ends with CR\r", "\t{\"json\": [1, 2]}\n"])
    func asciiCount(text: String) {
        #expect(TokenEstimate.asciiCharacters(in: text) == text.count)
        #expect(TokenEstimate.tokens(in: text) == (text.count * 3 + 11) / 12)
    }

    @Test("Text with any character beyond ASCII is weighed a grapheme at a time", arguments: ["café", "a\r\n東", "é\r\n"])
    func beyondASCII(text: String) {
        #expect(TokenEstimate.asciiCharacters(in: text) == nil)
    }

    @Test("The rule's wording is what reports and plan print")
    func wording() {
        #expect(TokenEstimate.rule.contains("4 characters a token for Latin script"))
        #expect(TokenEstimate.rule.contains("Chinese, Japanese and Korean"))
    }
}
