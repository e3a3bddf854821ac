import Foundation
import Testing
@testable import EvalBench

@Test("trimmingWhitespace equals Foundation's trimmingCharacters(in: .whitespaces), ASCII ends or not")
func trimmingWhitespaceMatchesFoundation() {
    let samples = ["", " ", "\t \t", "ok", "  ok  ", "\tdata: {\"a\": 1}\t ", " [DONE] ", "a b", "\n x \n", " \r\n",
                   "\u{00A0}nbsp\u{00A0}", " \u{2003}em space ", "é ", " naïve", "\u{3000}ideographic\u{3000}", "x\u{00A0}"]
    for sample in samples {
        #expect(sample.trimmingWhitespace() == sample.trimmingCharacters(in: .whitespaces), "\(sample.debugDescription)")
        let padded = "<" + sample + ">"
        let inner = padded.dropFirst().dropLast()
        #expect(inner.trimmingWhitespace() == inner.trimmingCharacters(in: .whitespaces), "substring \(sample.debugDescription)")
    }
}
