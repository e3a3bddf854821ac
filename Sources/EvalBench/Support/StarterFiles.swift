import Foundation

/// What `evalbench init` writes into an empty folder: a config for the managed local model,
/// a second config with an example of every kind (JSON has no comments, so the examples are a
/// file of their own), and a starter suite with a single-turn, a multi-turn and a structured
/// case, each naming its `$schema`. It refuses to overwrite anything.
package enum StarterFiles {
    /// Every file, by path relative to the folder.
    package static var files: [(path: String, text: String)] { [
        ("evalbench.json", config),
        ("evalbench.examples.json", examples),
        ("evals/starter.json", suite),
        ("evals/qa-chat-template.jinja", chatTemplate),
    ] }

    /// Writes every file into `directory`; throws, writing nothing, when any of them exists.
    /// Returns the paths written.
    package static func write(to directory: URL) throws -> [String] {
        let existing = files.map(\.path).filter {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
        }
        guard existing.isEmpty else {
            throw Diagnostic(file: directory.appendingPathComponent(existing[0]).path,
                             message: "\(existing.joined(separator: ", ")) already exist\(existing.count == 1 ? "s" : ""); evalbench init writes nothing over them",
                             fix: "run evalbench init in an empty folder, or move those files away")
        }
        var written: [String] = []
        for file in files {
            let url = directory.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.text.utf8).write(to: url, options: .withoutOverwriting)
            written.append(url.path)
        }
        return written
    }

    /// The managed local model, as its kind's example has it, and run defaults.
    static var config: String {
        """
        {
          "$schema": "https://evalbench.dev/schemas/config.schema.json",
          "backends": [
            \(LlamaServerKind.example ?? "")
          ],
          "defaults": { "concurrency": 4, "timeoutSeconds": 120, "retries": 3, "backends": ["local"] }
        }

        """
    }

    /// One backend of every built-in kind that has an example, each as its kind gives it.
    static var examples: String {
        let backends = BackendKindRegistry.builtIn.kinds.compactMap { $0.example }
        return """
            {
              "$schema": "https://evalbench.dev/schemas/config.schema.json",
              "backends": [
                \(backends.joined(separator: ",\n    "))
              ],
              "defaults": { "backends": ["local"] }
            }

            """
    }

    static let suite = #"""
        {
          "$schema": "https://evalbench.dev/schemas/suite.schema.json",
          "format": "evalbench.suite/1",
          "suite": "starter",
          "description": "A single-turn, a multi-turn and a structured case to start from. The few-shot instructions suit Gemma 3 270M, a small base model; replace them with your feature's own.",
          "instructions": "You are a quiz assistant. Answer every question with a single word or name, and nothing else.\n\nQ: What is the capital of Italy?\nA: Rome\nQ: What is the capital of Germany?\nA: Berlin\nQ: What is the capital of Kenya?\nA: Nairobi",
          "options": { "temperature": 0, "maxOutputTokens": 16, "stop": ["\n"] },
          "cases": [
            {
              "id": "capital",
              "tags": ["single-turn"],
              "prompt": "What is the capital of France?",
              "expect": [ { "type": "contains", "value": "Paris", "ignoreCase": true } ]
            },
            {
              "id": "follow-up",
              "tags": ["multi-turn"],
              "turns": [
                { "prompt": "What is the capital of Japan?", "expect": [ { "type": "contains", "value": "Tokyo", "ignoreCase": true } ] },
                { "prompt": "What is the capital of Spain?", "expect": [ { "type": "contains", "value": "Madrid", "ignoreCase": true } ] }
              ]
            },
            {
              "id": "animal",
              "tags": ["structured"],
              "instructions": "Name the animal that makes the sound. Reply with JSON.\n\nQ: Woof\nA: {\"label\": \"dog\"}\nQ: Moo\nA: {\"label\": \"cow\"}",
              "options": { "maxOutputTokens": 24, "stop": [] },
              "prompt": "Meow",
              "output": {
                "name": "animal",
                "schema": {
                  "type": "object",
                  "properties": { "label": { "type": "string", "enum": ["cat", "dog", "cow", "duck"] } },
                  "required": ["label"],
                  "additionalProperties": false
                }
              },
              "expect": [
                { "type": "json", "name": "answers in JSON" },
                { "type": "jsonPointer", "pointer": "/label", "equals": "cat", "name": "right animal" }
              ]
            }
          ]
        }

        """#

    static let chatTemplate = """
        {#- A plain Q:/A: transcript for base (non-chat) models such as Gemma 3 270M: the system message is a preamble, each user turn "Q: ...", each answer "A: ...". -#}
        {%- for message in messages -%}
        {%- if message['role'] == 'system' -%}{{ message['content'] | trim + '\\n\\n' }}
        {%- elif message['role'] == 'user' -%}{{ 'Q: ' + message['content'] | trim + '\\n' }}
        {%- elif message['role'] == 'assistant' -%}{{ 'A: ' + message['content'] | trim + '\\n' }}
        {%- endif -%}
        {%- endfor -%}
        {%- if add_generation_prompt -%}{{ 'A:' }}{%- endif -%}

        """
}
