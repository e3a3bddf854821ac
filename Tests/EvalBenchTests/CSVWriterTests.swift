import Testing
@testable import EvalBench

@Test("CSV quotes fields with commas, quotes or line breaks, doubles quotes, and ends records in CRLF")
func csvQuoting() {
    var csv = CSVWriter(header: ["a", "b"])
    csv.append([.text("plain"), .text("one, two")])
    csv.append([.text("say \"hi\""), .text("line\nbreak")])
    csv.append([.text("carriage\rreturn"), .text("")])
    #expect(csv.text == "a,b\r\nplain,\"one, two\"\r\n\"say \"\"hi\"\"\",\"line\nbreak\"\r\n\"carriage\rreturn\",\r\n")
}

@Test("CSV text that a spreadsheet would run as a formula is quoted and prefixed with an apostrophe")
func csvFormulaProtection() {
    var csv = CSVWriter(header: ["x"])
    for text in ["=SUM(A1)", "+1", "-2", "@cmd", "\tTab", "\rCR", "a=b"] {
        csv.append([.text(text)])
    }
    let lines = csv.text.components(separatedBy: "\r\n")
    #expect(Array(lines[1...7]) == ["\"'=SUM(A1)\"", "\"'+1\"", "\"'-2\"", "\"'@cmd\"", "\"'\tTab\"", "\"'\rCR\"", "a=b"])
}

@Test("CSV numbers are plain numbers, negative ones unprotected, and nil is an empty cell")
func csvNumbers() {
    var csv = CSVWriter(header: ["n"])
    csv.append([.integer(-3), .fixed(-1.5, places: 2), .fixed(2.0 / 3.0, places: 4), .trimmed(0.00125, maxPlaces: 6)])
    csv.append([.integer(nil), .fixed(nil, places: 2), .trimmed(nil, maxPlaces: 6), .text(nil)])
    csv.append([.trimmed(3, maxPlaces: 6), .fixed(0.005, places: 2), .fixed(.nan, places: 2), .fixed(-0.001, places: 2)])
    #expect(csv.text == "n\r\n-3,-1.50,0.6667,0.00125\r\n,,,\r\n3,0.01,,0.00\r\n")
}

@Test("Decimal text is the same in every locale: a dot, no grouping, half away from zero")
func decimalText() {
    #expect(DecimalText.fixed(1234567.891, places: 2) == "1234567.89")
    #expect(DecimalText.fixed(12.5, places: 0) == "13")
    #expect(DecimalText.fixed(-12.5, places: 0) == "-13")
    #expect(DecimalText.fixed(0.1, places: 9) == "0.100000000")
    #expect(DecimalText.trimmed(0.000000, maxPlaces: 6) == "0")
    #expect(DecimalText.trimmed(1.10, maxPlaces: 6) == "1.1")
    #expect(DecimalText.fixed(.infinity, places: 2) == nil)
}
