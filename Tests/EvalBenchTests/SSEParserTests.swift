import Foundation
import Testing
import EvalBench

/// Feeds the pieces in order, then finishes the stream (which dispatches nothing more).
private func parse(_ pieces: [[UInt8]]) -> [SSEEvent] {
    var parser = SSEParser()
    var events: [SSEEvent] = []
    for piece in pieces { events += parser.feed(Data(piece)) }
    parser.finish()
    return events
}

private func parse(_ body: String) -> [SSEEvent] { parse([Array(body.utf8)]) }

@Suite("SSE parser")
struct SSEParserTests {
    static let openAIStream = """
        data: {"choices":[{"delta":{"role":"assistant","content":""}}]}

        : keep-alive

        data: {"choices":[{"delta":{"content":"Pa"}}]}

        data: {"choices":[{"delta":{"content":"ris ☕️"}}]}

        data: [DONE]


        """

    static let openAIEvents = [
        SSEEvent(data: #"{"choices":[{"delta":{"role":"assistant","content":""}}]}"#),
        SSEEvent(data: #"{"choices":[{"delta":{"content":"Pa"}}]}"#),
        SSEEvent(data: #"{"choices":[{"delta":{"content":"ris ☕️"}}]}"#),
        SSEEvent(data: "[DONE]"),
    ]

    @Test("A stream split into two pieces at every byte offset parses the same")
    func splitAtEveryOffset() {
        let bytes = Array(Self.openAIStream.utf8)
        for offset in 0...bytes.count {
            let events = parse([Array(bytes[..<offset]), Array(bytes[offset...])])
            #expect(events == Self.openAIEvents, "split at byte \(offset)")
        }
    }

    @Test("A stream fed one byte at a time parses the same, multi-byte characters included")
    func oneByteAtATime() {
        let pieces = Array(Self.openAIStream.utf8).map { [$0] }
        #expect(parse(pieces) == Self.openAIEvents)
    }

    @Test("Comment lines are ignored and dispatch nothing")
    func comments() {
        #expect(parse(": keep-alive\n\n:\n\n").isEmpty)
        #expect(parse(": note\ndata: a\n: another\n\n") == [SSEEvent(data: "a")])
    }

    @Test("CRLF, CR and LF line ends are all accepted, mixed in one stream")
    func lineEnds() {
        let events = parse("data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\n\n")
        #expect(events.map(\.data) == ["a", "b", "c", "d"])
    }

    @Test("A CRLF split across two pieces ends one line, not two")
    func crlfSplitAcrossPieces() {
        let events = parse([Array("data: a\r".utf8), Array("\ndata: b\r".utf8), Array("\n\r\n".utf8)])
        #expect(events == [SSEEvent(data: "a\nb")])
    }

    @Test("Multiple data lines are joined with newlines")
    func multiLineData() {
        #expect(parse("data: first\ndata:second\ndata\ndata:  indented\n\n")
            == [SSEEvent(data: "first\nsecond\n\n indented")])
    }

    @Test("Event type, id and retry are read; the id persists, retry must be digits")
    func fields() {
        let events = parse("event: ping\nid: 7\nretry: 1500\ndata: x\n\ndata: y\nretry: 1.5\n\n")
        #expect(events == [
            SSEEvent(event: "ping", data: "x", id: "7", retry: 1500),
            SSEEvent(data: "y", id: "7"),
        ])
    }

    @Test("An event with no data and no type is not dispatched; a typed one is")
    func emptyEvents() {
        #expect(parse("id: 1\n\nretry: 10\n\n\n\n").isEmpty)
        #expect(parse("event: ping\n\n") == [SSEEvent(event: "ping", data: "")])
        #expect(parse("data:\n\n") == [SSEEvent(data: "")])
    }

    @Test("Anthropic-style named events keep their type and JSON data")
    func namedEvents() {
        let body = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n"
        #expect(parse(body) == [SSEEvent(event: "content_block_delta", data: #"{"type":"content_block_delta"}"#)])
    }

    @Test("[DONE] passes through as ordinary data")
    func done() {
        #expect(parse("data: [DONE]\n\n") == [SSEEvent(data: "[DONE]")])
    }

    @Test("A leading byte-order mark is skipped, even split across pieces; a later one is kept")
    func byteOrderMark() {
        let events = parse([[0xEF], [0xBB], Array("\u{FEFF}".utf8.dropFirst(2)) + Array("data: a\n\n".utf8)])
        #expect(events == [SSEEvent(data: "a")])
        let later = parse("data: a\n\n\u{FEFF}data: b\n\n")
        #expect(later == [SSEEvent(data: "a")])
    }

    @Test("A UTF-8 character split between pieces decodes whole")
    func splitUTF8() {
        let bytes = Array("data: 日本\n\n".utf8)
        let events = parse([Array(bytes[..<8]), Array(bytes[8..<10]), Array(bytes[10...])])
        #expect(events == [SSEEvent(data: "日本")])
    }

    @Test("feed returns each event as soon as its blank line arrives")
    func incrementalDispatch() {
        var parser = SSEParser()
        #expect(parser.feed(Data("data: a\n".utf8)).isEmpty)
        #expect(parser.feed(Data("\ndata: b".utf8)) == [SSEEvent(data: "a")])
        #expect(parser.feed(Data("\n".utf8)).isEmpty)
        #expect(parser.feed(Data("\n".utf8)) == [SSEEvent(data: "b")])
    }

    @Test("finish discards an event not ended by a blank line (WHATWG: an incomplete event is not dispatched), says so, and resets the parser")
    func finishDiscardsIncompleteEvent() {
        var parser = SSEParser()
        #expect(parser.feed(Data("id: 3\ndata: tail\n".utf8)).isEmpty)
        #expect(parser.finish() == true)
        #expect(parser.feed(Data("data: next\n\n".utf8)) == [SSEEvent(data: "next")])
    }

    @Test("finish discards an unterminated last line too; after a complete event it discards nothing")
    func finishDiscardsUnterminatedLine() {
        var parser = SSEParser()
        #expect(parser.feed(Data("data: whole\n\ndata: half".utf8)) == [SSEEvent(data: "whole")])
        #expect(parser.finish() == true)
        #expect(parser.feed(Data("data: whole\n\n".utf8)) == [SSEEvent(data: "whole")])
        #expect(parser.finish() == false)
    }

    @Test("a stream whose last event has one line end but no blank line loses that event only", arguments: ["\n", "\r\n", "\r"])
    func lastEventWithoutBlankLine(_ lineEnd: String) {
        let body = "event: a\(lineEnd)data: 1\(lineEnd)\(lineEnd)event: b\(lineEnd)data: 2\(lineEnd)"
        #expect(parse(body) == [SSEEvent(event: "a", data: "1")])
    }

    @Test("A large body in many small pieces parses in linear time")
    func largeBody() {
        let line = "data: " + String(repeating: "x", count: 200_000) + "\n\n"
        let bytes = Array(line.utf8)
        var parser = SSEParser()
        var events: [SSEEvent] = []
        for start in stride(from: 0, to: bytes.count, by: 7) {
            events += parser.feed(Data(bytes[start..<min(start + 7, bytes.count)]))
        }
        #expect(events.count == 1)
        #expect(events.first?.data.utf8.count == 200_000)
    }
}
