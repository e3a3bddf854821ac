#!/usr/bin/env python3
"""Copies recorded provider responses out of the official SDKs' test fixtures into
Tests/EvalBenchTests/Resources/ProviderFixtures/, and writes manifest.json: for every body its
source (repository, path, commit, which recorded interaction), the HTTP status and content type
it is served with, and the outcome evalbench must report for it.

The expected outcomes are derived here, independently of the Swift code, from each provider's
documented stream semantics (see the `expect_*` functions) and evalbench's error-kind rules in
DESIGN.md. The SSE reading follows the WHATWG standard: an event not ended by a blank line is
discarded.

Usage: scripts/harvest-provider-fixtures.py MIRRORS_DIR
  where MIRRORS_DIR holds bare git clones named owner+name/repo (as the `fetch` tool makes them).
Only recorded data is copied (and each repository's LICENSE), never SDK code.
"""
import json
import os
import re
import subprocess
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "EvalBenchTests", "Resources",
                   "ProviderFixtures")


def git(repo, *args):
    return subprocess.check_output(["git", "--git-dir", repo] + list(args))


class Source:
    def __init__(self, mirrors, slug):
        self.slug = slug
        self.repo = os.path.join(mirrors, slug.replace("/", "+"), "repo")
        self.commit = git(self.repo, "rev-parse", "HEAD").decode().strip()

    def files(self, under):
        return git(self.repo, "ls-tree", "-r", "--name-only", "HEAD", under).decode().split()

    def read(self, path):
        return git(self.repo, "show", f"HEAD:{path}")


# --- WHATWG server-sent events ---------------------------------------------------------------

def sse_events(body: bytes):
    """Events as (type, data); the last one is dropped unless a blank line ends it."""
    text = body.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = re.split(r"\r\n|\r|\n", text)
    # The piece after the last line end is an unterminated line: it ends nothing.
    complete, events = lines[:-1], []
    etype, data = None, None
    for line in complete:
        if line == "":
            if data is not None:
                events.append((etype or "message", "\n".join(data)))
            elif etype:
                events.append((etype, ""))
            etype, data = None, None
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data = (data or []) + [value]
        elif name == "event":
            etype = value
    return events


# --- Anthropic Messages: docs.anthropic.com "Streaming Messages", "Errors" ---------------------

ANTHROPIC_ERROR_KINDS = {
    "invalid_request_error": "bad_request", "not_found_error": "bad_request", "request_too_large": "bad_request",
    "authentication_error": "auth", "permission_error": "auth", "billing_error": "quota_exhausted",
    "rate_limit_error": "rate_limited", "overloaded_error": "overloaded", "api_error": "server",
    "timeout_error": "timeout",
}


def expect_anthropic(body: bytes, status: int):
    if status >= 300:
        error = json.loads(body).get("error", {})
        return {"outcome": "failure", "errorKind": ANTHROPIC_ERROR_KINDS.get(error.get("type"), "bad_request")}
    text, reasoning, usage, model = "", "", {}, None
    started = stopped = False
    stop_reason = None
    protocol_error = None
    for etype, data in sse_events(body):
        event = json.loads(data) if data.strip() else {"type": etype}
        kind = event.get("type", etype)
        if kind == "ping":
            continue
        if kind == "error":
            error = event.get("error", {})
            return {"outcome": "failure", "errorKind": ANTHROPIC_ERROR_KINDS.get(error.get("type"), "server")}
        if stopped or (kind != "message_start" and not started) or (kind == "message_start" and started):
            protocol_error = protocol_error or f"{kind} out of order"
        if kind == "message_start":
            started = True
            model = event["message"].get("model")
            usage.update(event["message"].get("usage") or {})
        elif kind == "content_block_start":
            block = event.get("content_block", {})
            if block.get("type") == "text":
                text += block.get("text", "")
            elif block.get("type") == "thinking":
                reasoning += block.get("thinking", "")
        elif kind == "content_block_delta":
            if stop_reason is not None:
                protocol_error = protocol_error or "content after message_delta"
            delta = event.get("delta", {})
            if delta.get("type") == "text_delta":
                text += delta.get("text", "")
            elif delta.get("type") == "thinking_delta":
                reasoning += delta.get("thinking", "")
        elif kind == "message_delta":
            stop_reason = event.get("delta", {}).get("stop_reason") or stop_reason
            usage.update(event.get("usage") or {})
        elif kind == "message_stop":
            if stop_reason is None:
                protocol_error = protocol_error or "message_stop before a message_delta with stop_reason"
            stopped = True
    reported = anthropic_usage(usage)
    result = {"text": text, "usage": reported}
    if reasoning:
        result["reasoning"] = reasoning
    if protocol_error:
        return {"outcome": "failure", "errorKind": "decoding", **result}
    if stop_reason == "refusal":
        return {"outcome": "failure", "errorKind": "refusal", **result}
    if stop_reason == "model_context_window_exceeded":
        return {"outcome": "failure", "errorKind": "context_overflow", **result}
    if stop_reason is None:
        # Ended before the message was finished: truncated.
        return {"outcome": "failure", "errorKind": "network", **result}
    return {"outcome": "success", "finishReason": stop_reason, "model": model, **result}


def anthropic_usage(usage):
    if not usage:
        return {}
    out = {}
    if "input_tokens" in usage:
        out["input"] = usage["input_tokens"] + (usage.get("cache_read_input_tokens") or 0) \
            + (usage.get("cache_creation_input_tokens") or 0)
    if usage.get("cache_read_input_tokens") is not None:
        out["cached"] = usage["cache_read_input_tokens"]
    if usage.get("cache_creation_input_tokens") is not None:
        out["cacheWrite"] = usage["cache_creation_input_tokens"]
    if usage.get("output_tokens") is not None:
        out["output"] = usage["output_tokens"]
    thinking = (usage.get("output_tokens_details") or {}).get("thinking_tokens")
    if thinking is not None:
        out["reasoning"] = thinking
    return out


# --- OpenAI Chat Completions: platform.openai.com "Streaming", chat.completion.chunk ------------

def expect_openai(body: bytes, status: int):
    if status >= 300:
        return {"outcome": "failure", "errorKind": "rate_limited" if status == 429 else "bad_request"}
    text, refusal, finish, usage, model, done = "", "", None, None, None, False
    for _, data in sse_events(body):
        if data.strip() == "[DONE]":
            done = True
            continue
        chunk = json.loads(data)
        model = chunk.get("model") or model
        if chunk.get("usage"):
            usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            # evalbench records choice 0 only.
            if choice.get("index", 0) != 0:
                continue
            finish = choice.get("finish_reason") or finish
            delta = choice.get("delta") or {}
            text += delta.get("content") or ""
            refusal += delta.get("refusal") or ""
    reported = {}
    if usage:
        reported = {"input": usage["prompt_tokens"], "output": usage["completion_tokens"]}
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
        if cached is not None:
            reported["cached"] = cached
        thinking = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens")
        if thinking is not None:
            reported["reasoning"] = thinking
    result = {"text": text, "usage": reported}
    if refusal and not text:
        return {"outcome": "failure", "errorKind": "refusal", **result}
    if finish == "content_filter":
        return {"outcome": "failure", "errorKind": "guardrail", **result}
    if not done and finish is None:
        return {"outcome": "failure", "errorKind": "network", **result}
    return {"outcome": "success", "finishReason": finish, "model": model, **result}


# --- Gemini streamGenerateContent: ai.google.dev "GenerateContentResponse", "UsageMetadata" -----

GEMINI_GUARDRAIL = {"SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "RECITATION", "IMAGE_SAFETY"}


def expect_gemini(body: bytes, status: int):
    if status >= 300:
        error = json.loads(body)
        error = (error[0] if isinstance(error, list) else error).get("error", {})
        kinds = {404: "bad_request", 400: "bad_request", 401: "auth", 403: "auth", 429: "rate_limited",
                 500: "server", 503: "overloaded", 504: "timeout"}
        return {"outcome": "failure", "errorKind": kinds.get(status, "bad_request")}
    text, reasoning, usage, finish, model = "", "", None, None, None
    for _, data in sse_events(body):
        chunk = json.loads(data)
        model = chunk.get("modelVersion") or model
        if chunk.get("usageMetadata") is not None:
            usage = chunk["usageMetadata"]
        for candidate in chunk.get("candidates") or []:
            if candidate.get("index", 0) != 0:
                continue
            finish = candidate.get("finishReason") or finish
            for part in (candidate.get("content") or {}).get("parts") or []:
                if "text" in part:
                    if part.get("thought"):
                        reasoning += part["text"]
                    else:
                        text += part["text"]
    reported = {}
    if usage:
        thoughts = usage.get("thoughtsTokenCount", 0)
        reported = {"input": usage.get("promptTokenCount", 0) + usage.get("toolUsePromptTokenCount", 0),
                    "cached": usage.get("cachedContentTokenCount", 0),
                    "output": usage.get("candidatesTokenCount", 0) + thoughts, "reasoning": thoughts}
    result = {"text": text, "usage": reported}
    if reasoning:
        result["reasoning"] = reasoning
    if finish is None:
        return {"outcome": "failure", "errorKind": "network", **result}
    if finish in GEMINI_GUARDRAIL:
        return {"outcome": "failure", "errorKind": "guardrail", **result}
    return {"outcome": "success", "finishReason": finish, "model": model, **result}


EXPECT = {"anthropic": expect_anthropic, "openai": expect_openai, "gemini": expect_gemini}

# --- what to copy ----------------------------------------------------------------------------

ANTHROPIC_STREAMS = {
    "tests/fixtures/fable-fallback/stream-a-refusal.sse": "thinking then text, stop_reason refusal; usage.output_tokens_details.thinking_tokens",
    "tests/fixtures/fable-fallback/stream-a-toolrefusal.sse": "tool_use block then stop_reason refusal; thinking_tokens",
    "tests/fixtures/fable-fallback/stream-b-fallback.sse": "a fallback model's answer after a refusal; thinking_tokens",
    "tests/lib/streaming/fixtures/basic_response.txt": "text deltas; the file ends without a line end, so the last event (message_stop) is incomplete and discarded",
    "tests/lib/streaming/fixtures/compaction_response.txt": "a compaction block before the text",
    "tests/lib/streaming/fixtures/fallback_credit_response.txt": "stop_details with a fallback credit token",
    "tests/lib/streaming/fixtures/fallback_response.txt": "a fallback model's stream",
    "tests/lib/streaming/fixtures/incomplete_partial_json_response.txt": "a tool_use block with incomplete partial_json; unterminated last event",
    "tests/lib/streaming/fixtures/refusal_response.txt": "an empty text block, stop_reason refusal with stop_details",
    "tests/lib/streaming/fixtures/tool_use_response.txt": "text then a tool_use block, stop_reason tool_use; unterminated last event",
}
ANTHROPIC_TS_STREAMS = {
    "tests/lib/fixtures/basic_response.txt": "text deltas (TypeScript SDK's copy, different bytes)",
    "tests/lib/fixtures/incomplete_partial_json_response.txt": "tool_use with incomplete partial_json (TypeScript SDK's copy)",
    "tests/lib/fixtures/tool_use_response.txt": "text then tool_use (TypeScript SDK's copy)",
}


def main(mirrors):
    fixtures = []
    skipped = []
    licenses = {}

    def add(provider, source, path, name, body, status, content_type, exercises, transform, interaction=None):
        os.makedirs(os.path.join(OUT, provider), exist_ok=True)
        with open(os.path.join(OUT, provider, name), "wb") as handle:
            handle.write(body)
        entry = {"file": f"{provider}/{name}", "provider": provider, "repository": source.slug, "path": path,
                 "commit": source.commit}
        if interaction is not None:
            entry["interaction"] = interaction
        entry.update({"transform": transform, "status": status, "contentType": content_type,
                      "exercises": exercises, "expected": EXPECT[provider](body, status)})
        fixtures.append(entry)
        licenses[source.slug] = source

    py = Source(mirrors, "anthropics/anthropic-sdk-python")
    for path, what in ANTHROPIC_STREAMS.items():
        add("anthropic", py, path, "python-" + os.path.basename(path).replace(".txt", ".sse"), py.read(path), 200,
            "text/event-stream", what, "verbatim")
    ts = Source(mirrors, "anthropics/anthropic-sdk-typescript")
    for path, what in ANTHROPIC_TS_STREAMS.items():
        add("anthropic", ts, path, "typescript-" + os.path.basename(path).replace(".txt", ".sse"), ts.read(path), 200,
            "text/event-stream", what, "verbatim")
    for path in py.files("tests/lib"):
        if "__inline_snapshot__" not in path or not path.endswith(".json"):
            continue
        for index, exchange in enumerate(json.loads(py.read(path))):
            response = exchange["response"]
            content_type = response["headers"].get("content-type", "")
            body = response["body"]
            if isinstance(body, str) and "event-stream" in content_type:
                data, ext, what = body.encode(), "sse", "a recorded streamed Messages response"
            elif isinstance(body, dict) and body.get("type") == "error":
                data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
                ext, what = "json", f"a recorded HTTP {response['status_code']} {body['error']['type']} body"
            else:
                continue  # a non-streamed message: evalbench always streams
            stem = os.path.basename(path).split("-")[0]
            transform = "the interaction's response body string, verbatim" if ext == "sse" else \
                "the interaction's response body object, written as compact JSON"
            add("anthropic", py, path, f"python-snapshot-{stem}-{index}.{ext}", data, response["status_code"],
                content_type.split(";")[0], what, transform, index)

    oa = Source(mirrors, "openai/openai-python")
    for path in oa.files(".inline-snapshot/external"):
        if not path.endswith(".bin"):
            continue
        body = oa.read(path)
        events = sse_events(body)
        indexes = {c.get("index") for _, d in events if d != "[DONE]" for c in json.loads(d).get("choices", [])}
        has_tools = b"tool_calls" in body
        what = "n=3: three interleaved choices" if len(indexes) > 1 else \
            "tool call deltas" if has_tools else "refusal deltas" if b'"refusal":"I' in body else "content deltas"
        add("openai", oa, path, os.path.basename(path)[:16] + ".sse", body, 200, "text/event-stream", what,
            "verbatim (inline-snapshot external file)")

    node = Source(mirrors, "openai/openai-node")
    snap = "tests/lib/__snapshots__/ChatCompletionStream.test.ts.snap"
    for index, (name, body) in enumerate(jest_snapshots(node.read(snap).decode())):
        slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
        add("openai", node, snap, f"node-{slug}.sse", body.encode(), 200, "text/event-stream",
            f"the stream recorded for the SDK test \"{name}\"",
            "the snapshot's string, its template-literal escapes (\\\\, \\`, \\${) undone", index)

    genai = Source(mirrors, "googleapis/js-genai")
    for path in genai.files("test/system/recordings"):
        try:
            recording = json.loads(genai.read(path))
        except ValueError:
            continue
        for index, interaction in enumerate(recording.get("interactions", [])):
            if "streamGenerateContent" not in interaction["request"]["url"]:
                continue
            response = interaction["response"]
            segments = response.get("bodySegments") or []
            status = response["statusCode"]
            if status >= 300:
                data = json.dumps(segments[0] if len(segments) == 1 else segments, indent=2,
                                  ensure_ascii=False).encode()
                ext, transform = "json", "the interaction's one body segment, written as JSON"
                what = f"a recorded HTTP {status} error body"
            else:
                data = "".join("data: " + json.dumps(s, separators=(",", ":"), ensure_ascii=False) + "\r\n\r\n"
                               for s in segments).encode()
                ext = "sse"
                transform = "each of the interaction's bodySegments as one event, data: <JSON>\\r\\n\\r\\n, as the API frames them"
                what = describe_gemini(segments)
            stem = os.path.basename(path)[:-5]
            if len(data) > 100_000:
                skipped.append(f"{genai.slug} {path} interaction {index}: {len(data)} bytes (image output), left out for size")
                continue
            add("gemini", genai, path, f"{stem}-{index}.{ext}", data, status, "text/event-stream", what, transform, index)

    for slug, source in licenses.items():
        names = [p for p in git(source.repo, "ls-tree", "--name-only", "HEAD").decode().split()
                 if p.upper().startswith("LICENSE")] or ["LICENSE"]
        with open(os.path.join(OUT, "LICENSE-" + slug.replace("/", "+")), "wb") as handle:
            handle.write(source.read(names[0]))
    with open(os.path.join(OUT, "manifest.json"), "w") as handle:
        json.dump({"fixtures": fixtures, "leftOut": skipped}, handle, indent=2, ensure_ascii=False)
        handle.write("\n")
    counts = {}
    for fixture in fixtures:
        counts[fixture["provider"]] = counts.get(fixture["provider"], 0) + 1
    print(counts, len(fixtures))


def jest_snapshots(text):
    """(name, string) of each `exports[`name`] = `"string"`;` entry of a Jest snapshot file."""
    entries = []
    for match in re.finditer(r'^exports\[`(.*?)`\] = `\n"(.*?)"\n`;$', text, re.S | re.M):
        unescape = lambda m: m.group(1)
        name = re.sub(r"\\([\\`$])", unescape, match.group(1))
        entries.append((name, re.sub(r"\\([\\`$])", unescape, match.group(2))))
    return entries


def describe_gemini(segments):
    parts = [p for s in segments for c in s.get("candidates", []) for p in (c.get("content") or {}).get("parts") or []]
    traits = []
    if any("functionCall" in p for p in parts):
        traits.append("function-call parts")
    if any(p.get("thought") for p in parts):
        traits.append("thought parts")
    if any("toolCall" in p or "toolResponse" in p for p in parts):
        traits.append("server-side tool parts")
    if any(c.get("finishReason") == "MAX_TOKENS" for s in segments for c in s.get("candidates", [])):
        traits.append("finishReason MAX_TOKENS")
    if not segments:
        traits.append("no events at all")
    return f"{len(segments)} streamed chunks" + (": " + ", ".join(traits) if traits else " of text")


if __name__ == "__main__":
    main(sys.argv[1])
