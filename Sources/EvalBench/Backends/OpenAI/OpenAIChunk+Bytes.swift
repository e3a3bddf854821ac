import Foundation

extension OpenAIChunk {
    /// The chunk in an SSE event's payload, read straight from its bytes: `JSONDecoder` built
    /// containers for every key of every event, about 7% of a request's CPU at concurrency 256.
    /// The rare members (`error`, `tool_calls`) go to `nested`; `usage` and `timings`, which
    /// every request's last chunk carries, are read here too. Anything
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
            case "usage": chunk.usage = try OpenAIUsage.read(&reader)
            case "timings": chunk.timings = try LlamaTimings.read(&reader)
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

extension OpenAIUsage {
    fileprivate static func read(_ reader: inout JSONByteReader) throws -> Self {
        var usage = Self()
        try reader.uniqueMembers { reader, key in
            switch key {
            case "prompt_tokens": usage.promptTokens = try reader.int()
            case "completion_tokens": usage.completionTokens = try reader.int()
            case "prompt_tokens_details":
                var details = PromptDetails()
                try reader.uniqueMembers { reader, key in
                    if key == "cached_tokens" { details.cachedTokens = try reader.int() } else { try reader.skipValue() }
                }
                usage.promptTokensDetails = details
            case "completion_tokens_details":
                var details = CompletionDetails()
                try reader.uniqueMembers { reader, key in
                    if key == "reasoning_tokens" { details.reasoningTokens = try reader.int() } else { try reader.skipValue() }
                }
                usage.completionTokensDetails = details
            default: try reader.skipValue()
            }
        }
        return usage
    }
}

extension LlamaTimings {
    fileprivate static func read(_ reader: inout JSONByteReader) throws -> Self {
        var timings = Self()
        try reader.uniqueMembers { reader, key in
            switch key {
            case "cache_n": timings.cacheN = try reader.int()
            case "prompt_n": timings.promptN = try reader.int()
            case "predicted_n": timings.predictedN = try reader.int()
            default: try reader.skipValue()
            }
        }
        return timings
    }
}

extension JSONByteReader {
    /// An object whose optional members are read by `member`, as `decodeIfPresent` reads them:
    /// a null member is absent (`member` is not called). A key given twice is refused, as
    /// `JSONDecoder`'s choice between the two is its own.
    mutating func uniqueMembers(_ member: (inout JSONByteReader, String) throws -> Void) throws {
        // An object's few keys are compared in a list on the stack (a growing array cost three
        // allocations an object, 18 a streamed answer); a server's object with many goes to a set.
        let listed = 16
        try withUnsafeTemporaryAllocation(of: String.self, capacity: listed) { seen in
            var count = 0
            defer { seen.baseAddress!.deinitialize(count: count) }
            var many: Set<String> = []
            try object { reader, key in
                if count < listed {
                    for index in 0..<count where seen[index] == key { throw Refused() }
                    (seen.baseAddress! + count).initialize(to: key)
                    count += 1
                    if count == listed { many = Set(seen) }
                } else {
                    guard many.insert(key).inserted else { throw Refused() }
                }
                if reader.null() { return }
                try member(&reader, key)
            }
        }
    }
}
