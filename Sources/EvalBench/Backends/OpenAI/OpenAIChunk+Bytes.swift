import Foundation

extension OpenAIChunk {
    /// The chunk in an SSE event's payload, read straight from its bytes: `JSONDecoder` built
    /// containers for every key of every event, about 7% of a request's CPU at concurrency 256.
    /// The rare members (`usage`, `timings`, `error`, `tool_calls`) go to `nested`. Anything
    /// read differently from `JSONDecoder` is refused (nil, and the caller uses `JSONDecoder`):
    /// a number in another form, a lone surrogate, a key given twice, a value of another type.
    static func fromBytes(_ payload: String, nested: JSONDecoder) -> OpenAIChunk? {
        var payload = payload
        return payload.withUTF8 { utf8 in
            var reader = JSONByteReader(bytes: UnsafeRawBufferPointer(utf8))
            guard let chunk = try? read(&reader, nested: nested), reader.atEnd() else { return nil }
            return chunk
        }
    }

    private static func read(_ reader: inout JSONByteReader, nested: JSONDecoder) throws -> OpenAIChunk {
        var chunk = OpenAIChunk()
        try reader.uniqueMembers { reader, key in
            switch key {
            case "model": chunk.model = try reader.string()
            case "choices": chunk.choices = try reader.array { try Choice.read(&$0, nested: nested) }
            case "usage": chunk.usage = try reader.nested(OpenAIUsage.self, with: nested)
            case "timings": chunk.timings = try reader.nested(LlamaTimings.self, with: nested)
            case "error": chunk.error = try reader.nested(OpenAIErrorBody.self, with: nested)
            default: try reader.skipValue()
            }
        }
        return chunk
    }
}

extension OpenAIChunk.Choice {
    fileprivate static func read(_ reader: inout JSONByteReader, nested: JSONDecoder) throws -> Self {
        var choice = Self()
        try reader.uniqueMembers { reader, key in
            switch key {
            case "index": choice.index = try reader.int()
            case "delta": choice.delta = try OpenAIChunk.Delta.read(&reader, nested: nested)
            case "finish_reason": choice.finishReason = try reader.string()
            default: try reader.skipValue()
            }
        }
        return choice
    }
}

extension OpenAIChunk.Delta {
    fileprivate static func read(_ reader: inout JSONByteReader, nested: JSONDecoder) throws -> Self {
        var delta = Self()
        try reader.uniqueMembers { reader, key in
            switch key {
            case "content": delta.content = try reader.string()
            case "reasoning_content": delta.reasoningContent = try reader.string()
            case "reasoning": delta.reasoning = try reader.string()
            case "refusal": delta.refusal = try reader.string()
            case "tool_calls": delta.toolCalls = try reader.nested([OpenAIChunk.ToolCallDelta].self, with: nested)
            default: try reader.skipValue()
            }
        }
        return delta
    }
}

extension JSONByteReader {
    /// An object whose optional members are read by `member`, as `decodeIfPresent` reads them:
    /// a null member is absent (`member` is not called). A key given twice is refused, as
    /// `JSONDecoder`'s choice between the two is its own.
    mutating func uniqueMembers(_ member: (inout JSONByteReader, String) throws -> Void) throws {
        var seen: Set<String> = []
        try object { reader, key in
            guard seen.insert(key).inserted else { throw Refused() }
            if reader.null() { return }
            try member(&reader, key)
        }
    }
}
