/// The estimate used where no tokenizer can be asked, by script, per character (grapheme):
/// about 4 characters a token for Latin script (and spaces, digits, punctuation), 3 for other
/// alphabets (Cyrillic, Greek, Arabic, Devanagari, Thai…), 2 tokens for 3 characters of
/// Chinese, Japanese and Korean, and a token for each emoji; the sum rounded up.
///
/// Measured against Gemma 3's tokenizer (llama-server's `/tokenize`,
/// `TokenEstimateLocalModelIntegrationTests`): Japanese, Chinese and English samples within 20%.
/// A CJK text at 4 characters a token was under-counted about 2.3–2.4× against it (and about 4×
/// against the on-device Apple model, which a shipped app measured at about a token per Japanese
/// character); Apple platforms ask the model's own `tokenCount(for:)` where it exists instead.
package enum TokenEstimate {
    /// The rule in words, for reports and `evalbench plan`.
    package static let rule = "about 4 characters a token for Latin script, 3 for other alphabets, 1.5 for Chinese, Japanese and Korean"

    /// Tokens per character in twelfths, by kind of character.
    private static let latin = 3, alphabet = 4, cjk = 8, emoji = 12

    package static func tokens(in text: String) -> Int {
        if let ascii = asciiCharacters(in: text) { return (ascii * latin + 11) / 12 }
        var twelfths = 0
        for character in text {
            guard let scalar = character.unicodeScalars.first else { continue }
            twelfths += weight(scalar.value)
        }
        return (twelfths + 11) / 12
    }

    /// How many characters an ASCII `text` has, without breaking it into graphemes (a report
    /// estimates every prompt and answer of a run): one a byte, except that CR LF is one
    /// character. Nil when `text` is not ASCII.
    static func asciiCharacters(in text: String) -> Int? {
        var text = text
        return text.withUTF8 { bytes in
            var characters = 0
            var previous: UInt8 = 0
            for byte in bytes {
                guard byte < 0x80 else { return nil }
                if !(byte == 0x0A && previous == 0x0D) { characters += 1 }
                previous = byte
            }
            return characters
        }
    }

    private static func weight(_ value: UInt32) -> Int {
        switch value {
        case 0..<0x0250, 0x2000...0x206F: latin
        case 0x1100...0x11FF, 0x2E80...0x2FDF, 0x3000...0x303F, 0x3040...0x30FF, 0x3100...0x31FF, 0x3200...0x9FFF,
             0xA960...0xA97F, 0xAC00...0xD7FF, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFFEF, 0x20000...0x3FFFF:
            cjk
        case 0x2600...0x27BF, 0x1F000...0x1FAFF: emoji
        default: alphabet
        }
    }
}
