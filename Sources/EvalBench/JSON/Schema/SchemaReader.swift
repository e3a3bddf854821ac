/// Loads a JSON Schema written in a suite, reporting each problem at its line and column
/// with its JSON path. Used by the `jsonSchema` assertion; any other key that holds a schema
/// (such as a case's structured-output schema) reads it the same way.
struct SchemaReader {
    let log: DiagnosticLog

    /// The schema at `node`, or nil after reporting every problem in it.
    func read(_ node: JSONNode, path: JSONPath) -> JSONSchema? {
        do {
            return try JSONSchema(validating: JSONValue(node))
        } catch {
            for problem in error.problems {
                let (target, keyLocation, targetPath) = locate(problem.pointer, from: node, path: path)
                log.error("invalid schema: \(problem.message)", at: problem.isAboutKey ? keyLocation ?? target.location : target.location,
                          path: targetPath, fix: problem.fix)
            }
            return nil
        }
    }

    /// The node a schema pointer names, where its key was written, and its JSON path; it
    /// stops at the deepest node that exists.
    private func locate(_ pointer: JSONPointer, from root: JSONNode, path: JSONPath) -> (JSONNode, SourceLocation?, JSONPath) {
        var node = root
        var keyLocation: SourceLocation?
        var path = path
        for token in pointer.tokens {
            if let member = node.members?.first(where: { $0.key.unicodeScalars.elementsEqual(token.unicodeScalars) }) {
                node = member.value
                keyLocation = member.keyLocation
                path = path.key(token)
            } else if let elements = node.arrayValue, let index = Int(token), elements.indices.contains(index) {
                node = elements[index]
                keyLocation = nil
                path = path.index(index)
            } else {
                break
            }
        }
        return (node, keyLocation, path)
    }
}
