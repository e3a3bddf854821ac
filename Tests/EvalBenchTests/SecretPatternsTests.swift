import Foundation
import Testing
@testable import EvalBench

private let key = "sk-probe/SECRET+key=1234567890abcdefXYZ"

private func redactor(_ secret: String = key) -> SecretRedactor {
    SecretRedactor(HTTPStreamRequest(url: URL(string: "http://127.0.0.1:9")!, headers: ["Authorization": "Bearer \(secret)"]))
}

/// A server may echo a key in any form; each form a server was seen to use is found.
@Suite("The redactor finds a key in the forms a server echoes it in")
struct SecretPatternsTests {
    @Test("a key followed by a combining mark is found: bytes are compared, not characters")
    func combiningMark() {
        let text = "invalid key \(key)\u{301} (see docs)"
        let redacted = redactor().redact(text)
        #expect(!redacted.utf8.elementsEqual(text.utf8))
        #expect(redacted.range(of: "sk-probe") == nil, "\(redacted)")
        #expect(redacted == "invalid key [redacted]\u{301} (see docs)")
    }

    @Test("percent-encoded, JSON-escaped and form-encoded keys are found", arguments: [
        "key=sk-probe%2FSECRET%2Bkey%3D1234567890abcdefXYZ",
        "key=sk-probe%2fSECRET%2bkey%3d1234567890abcdefXYZ",
        "key=%73%6B%2D%70%72%6F%62%65%2F%53%45%43%52%45%54%2B%6B%65%79%3D%31%32%33%34%35%36%37%38%39%30%61%62%63%64%65%66%58%59%5A",
        #"key=\u0073\u006b\u002d\u0070\u0072\u006f\u0062\u0065\/SECRET+key=1234567890abcdefXYZ"#,
        #"key=sk-probe\/SECRET+key=1234567890abcdefXYZ"#,
    ])
    func encodedForms(_ text: String) {
        #expect(redactor().redact(text) == "key=[redacted]", "\(text)")
    }

    @Test("base64 of a key is found at every alignment, in both alphabets")
    func base64() {
        for prefix in ["", "u", "us", "user:"] {
            let encoded = Data((prefix + key).utf8).base64EncodedString()
            let redacted = redactor().redact("Basic \(encoded) rejected")
            #expect(!redacted.contains(String(encoded.dropFirst(8).prefix(16))), "\(prefix): \(redacted)")
            #expect(redacted.contains("[redacted]"), "\(prefix): \(redacted)")
            let urlSafe = encoded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            #expect(redactor().redact(urlSafe).contains("[redacted]"), "\(prefix): url-safe \(urlSafe)")
        }
    }

    @Test("a key cut short by a clip loses what is left of it in a message; an answer keeps its words")
    func cutShort() {
        for keep in [4, 10, key.count - 1] {
            let cut = String(key.prefix(keep))
            #expect(redactor().redactMessage("error: \(cut)…") == "error: [redacted]…", "\(keep)")
            #expect(redactor().redactMessage("error: \(cut)… and more") == "error: [redacted]… and more", "\(keep)")
        }
        let clipped = ServerText.clip(String(repeating: "x", count: 290) + key, 300)
        #expect(clipped.hasSuffix("…") && clipped.contains(String(key.prefix(10))))
        #expect(redactor().redactMessage(clipped) == String(repeating: "x", count: 290) + "[redacted]…")
        #expect(redactor().redactMessage("keys start with sk-, as in sk-…") == "keys start with sk-, as in sk-…",
                "three bytes of a key say nothing about it and are kept")
        // A cut through an escape or through the key's base64 loses what is left of it too.
        #expect(redactor().redactMessage("key=sk-probe%2FSECRET%2…") == "key=[redacted]…")
        #expect(redactor().redactMessage(#"key=\u0073\u006b\u002d\u0070\u00…"#) == "key=[redacted]…")
        let base64 = Data(("user:" + key).utf8).base64EncodedString()
        let cutBase64 = redactor().redactMessage("Basic " + base64.prefix(30) + "…")
        #expect(cutBase64.hasSuffix("[redacted]…") && !cutBase64.contains(String(base64.dropFirst(8).prefix(12))), "\(cutBase64)")
        let bearer = redactor("bear-0123456789abcdef")
        #expect(bearer.redact("my teddy Bear…") == "my teddy Bear…", "an answer is not searched for cut keys")
        #expect(bearer.redact("my teddy bear") == "my teddy bear")
        #expect(bearer.redactMessage("the key bear-0123…") == "the key [redacted]…")
    }

    @Test("a key holding an escape's first byte is found raw and escaped; the longest secret goes first in any order")
    func ambiguousBytes() {
        let percent = redactor("p%ss-0123456789%41bc")
        #expect(percent.redact("got p%ss-0123456789%41bc") == "got [redacted]")
        #expect(percent.redact("got p%25ss-0123456789%2541bc") == "got [redacted]")
        let backslash = redactor(#"a\b-0123456789"#)
        #expect(backslash.redact(#"got "a\\b-0123456789""#) == #"got "[redacted]""#)
        // A run of backslashes, each readable raw or as an escape, costs its length, not 2^30.
        let slashes = redactor(String(repeating: "\\", count: 30) + "key-0123456789")
        let echoed = "x" + String(repeating: "\\", count: 60) + "kez"
        #expect(slashes.redact(echoed) == echoed)
        #expect(slashes.redact(String(repeating: "\\", count: 60) + "key-0123456789") == "[redacted]")
        let patterns = SecretPatterns(["sk-0123456789", "Bearer sk-0123456789"])
        #expect(patterns.redact("Authorization: Bearer sk-0123456789", mark: "[x]") == "Authorization: [x]")
    }

    @Test("a run of 16 or more of a key's bytes goes wherever it is: the key with its start or end cut off, or its middle")
    func fragments() {
        let suffix = String(key.dropFirst(8))
        #expect(redactor().redact("your key ends \(suffix)!") == "your key ends [redacted]!")
        #expect(redactor().redact("it starts \(key.prefix(20)) and") == "it starts [redacted] and", "no clip mark needed")
        let middle = String(key.dropFirst(5).prefix(16))
        #expect(redactor().redact("<\(middle)>") == "<[redacted]>")
        #expect(redactor().redactMessage("error: \(suffix.prefix(18))…") == "error: [redacted]…")
        // 15 bytes are kept: shorter runs occur in ordinary text.
        let fifteen = String(key.dropFirst(5).prefix(15))
        #expect(redactor().redact("<\(fifteen)>") == "<\(fifteen)>")
        // A run of one repeated byte says nothing of a key, however long.
        let dashes = redactor("----------------------------x9Kq2")
        #expect(dashes.redact("a rule: --------------------------") == "a rule: --------------------------")
        // A short secret is only found whole.
        // Two runs side by side, the byte before the second being the byte before it in the key too.
        let twin = "abcdefghiXklmnoX0123456789ABCDEFG"
        let halves = String(twin.prefix(16)) + String(twin.dropFirst(10).prefix(20))
        #expect(redactor(twin).redact("<\(halves)>") == "<[redacted][redacted]>")
        let short = redactor("bear-0123456789abc")
        #expect(short.redact("0123456789abcdefghij") == "0123456789abcdefghij", "12 bytes of it")
        #expect(short.redact("x bear-0123456789ab y") == "x [redacted] y", "17 of its 18 bytes")
    }

    @Test("ordinary text is left as it is, escapes and all")
    func ordinaryText() {
        let texts = ["Paris", "", "100% sure", #"a \"quoted\" \u00e9 word"#, "a+b=c", String(repeating: "%", count: 50), "…"]
        for text in texts { #expect(redactor().redact(text) == text, "\(text)") }
        let plain = SecretRedactor(HTTPStreamRequest(url: URL(string: "http://127.0.0.1:9")!, headers: [:]))
        #expect(plain.redact("sk-anything") == "sk-anything")
    }

    @Test("clips say where they cut, and read no more bytes than they need")
    func clips() {
        #expect(ServerText.clip("abcdef", 3) == "abc…")
        #expect(ServerText.clip("abc", 3) == "abc")
        #expect(ServerText.clip("ab", 3) == "ab")
        #expect(ServerText.clip("", 3) == "")
        #expect(ServerText.clip(bytes: Data("abcdef".utf8), 3) == "abc…")
        #expect(ServerText.clip(bytes: Data(repeating: 0x61, count: 1_000_000), 2) == "aa…")
        #expect(ServerText.clip(bytes: Data("é".utf8), 1) == "é")
    }

    @Test("every string of a response is redacted: model, stop reason, tool calls, usage notes")
    func everyString() {
        let response = ModelResponse(
            text: "ok", timing: RequestTiming(startedAt: Date()), usage: Usage(), finishReason: "stop \(key)", model: "gpt-\(key)",
            toolCalls: [ToolCall(id: "call_\(key)", name: "fn_\(key)", argumentsText: "{\"k\": \"\(key)\"}", signature: key)],
            handledToolCalls: [ToolCallRecord(round: 1, id: key, name: key, arguments: .object([key: .string(key)]),
                                              argumentsText: key, result: key, isError: false, matched: true)])
        var withNote = response
        withNote.usage.suspect = "completion_tokens is \"\(key)\", not a whole number"
        let redacted = redactor().redact(withNote)
        let text = "\(redacted)"
        #expect(!text.contains("SECRET"), "\(text)")
        #expect(redacted.model == "gpt-[redacted]" && redacted.finishReason == "stop [redacted]")
        #expect(redacted.toolCalls.first?.name == "fn_[redacted]" && redacted.toolCalls.first?.id == "call_[redacted]")
    }
}
