import Foundation

/// Identifiers and references: `$id` and `$anchor` name schemas of the document, and each
/// `$ref` is resolved against its base URI to one of them, or refused.
extension SchemaCompiler {
    /// Registers the `$id` and `$anchor` of the schema at `pointer`; returns whether its `$id`
    /// gave it a new base URI (pushed on `bases`, for the caller to pop).
    mutating func identify(_ members: [String: JSONValue], at pointer: JSONPointer) -> Bool {
        var entered = false
        // A draft-07 `$id` beside a `$ref` is ignored with the other siblings.
        if let id = members["$id"], !(draft == .draft7 && members["$ref"] != nil) {
            let here = pointer.appending("$id")
            guard case .string(let text) = id else {
                report(here, "'$id' must be a URI in a string, found \(id.kindDescription)")
                return false
            }
            let uri = URIReference(text).resolved(against: bases.last!)
            if let fragment = uri.fragment, !fragment.isEmpty {
                guard draft == .draft7 else {
                    report(here, "'$id' \"\(text)\" has a fragment; in draft 2020-12 a location is named with '$anchor'",
                           fix: "write \"$anchor\": \"\(fragment)\" and keep the '$id' without '#...'")
                    return false
                }
                register(anchor: fragment, in: uri.withoutFragment, at: pointer, keyword: here)
            }
            if !text.hasPrefix("#") {
                let resource = uri.withoutFragment
                if let other = resources[resource.description], other != pointer {
                    report(here, "'$id' \"\(text)\" is also the '$id' at \(other.readable)", fix: "give each schema its own '$id'")
                }
                resources[resource.description] = pointer
                bases.append(resource)
                entered = true
            }
        }
        for keyword in ["$anchor", "$dynamicAnchor"] where draft == .draft2020_12 {
            guard let anchor = members[keyword] else { continue }
            let here = pointer.appending(keyword)
            guard case .string(let name) = anchor, Self.isAnchorName(name) else {
                report(here, "'\(keyword)' must be a name of letters, digits, '-', '_' and '.', starting with a letter or '_', found \(anchor.jsonText)")
                continue
            }
            // A dynamic anchor is also a plain one; a `$ref` may name it.
            register(anchor: name, in: bases.last!, at: pointer, keyword: here)
            if keyword == "$dynamicAnchor" {
                dynamicAnchors[bases.last!.description + "#" + name] = pointer
                dynamicAnchorNames[pointer] = name
            }
        }
        return entered
    }

    private mutating func register(anchor name: String, in resource: URIReference, at pointer: JSONPointer, keyword: JSONPointer) {
        let key = resource.description + "#" + name
        if let other = anchors[key], other != pointer {
            report(keyword, "the anchor '\(name)' is also defined at \(other.readable)", fix: "give each anchor its own name")
        }
        anchors[key] = pointer
    }

    /// Records the `$ref` or `$dynamicRef` at `keyword`, relative to the current base URI,
    /// for `resolveReferences`.
    mutating func reference(_ value: JSONValue, at keyword: JSONPointer, dynamic: Bool = false) -> String? {
        guard case .string(let text) = value else {
            report(keyword, "'\(keyword.tokens.last ?? "$ref")' must be a string such as \"#/$defs/name\", found \(value.kindDescription)")
            return nil
        }
        references.append((text, bases.last!, JSONPointer(tokens: Array(keyword.tokens.dropLast())), dynamic))
        return text
    }

    /// Resolves each `$ref` to a schema of this document, reporting those that lead nowhere
    /// or to another document.
    mutating func resolveReferences() {
        for (text, base, holder, dynamic) in references {
            let here = holder.appending(dynamic ? "$dynamicRef" : "$ref")
            let uri = URIReference(text).resolved(against: base)
            let document = uri.withoutFragment.description
            guard let resource = resources[document] else {
                let named = document.hasPrefix(Self.documentBase.scheme! + ":") ? "" : " (\(document))"
                report(here, "'$ref' \"\(text)\" points into another document\(named); evalbench resolves references only within this schema, by JSON pointer, '$id' or '$anchor'",
                       fix: "copy the referenced schema under \"$defs\" and point at it: \"#/$defs/name\"")
                continue
            }
            let raw = uri.fragment ?? ""
            let fragment = raw.removingPercentEncoding ?? raw
            let target: JSONPointer
            if fragment.isEmpty {
                target = resource
            } else if fragment.hasPrefix("/") {
                do {
                    target = JSONPointer(tokens: resource.tokens + (try JSONPointer(parsing: fragment)).tokens)
                } catch {
                    report(here, "'$ref' \"\(text)\": \(error.message)", fix: "write \"#/$defs/name\"")
                    continue
                }
            } else if let anchored = anchors[document + "#" + fragment] {
                target = anchored
            } else {
                report(here, "'$ref' \"\(text)\" names the anchor '\(fragment)', which no '$anchor' defines",
                       fix: "define it with \"$anchor\": \"\(fragment)\", or point at a JSON pointer such as \"#/$defs/name\"")
                continue
            }
            guard subschemas[target] != nil else {
                unresolved(text, target: target, at: here)
                continue
            }
            if dynamic {
                // Only a target that declares the anchor named makes the reference dynamic.
                let seeks = dynamicAnchorNames[target] == fragment ? fragment : nil
                resolvedDynamicReferences[holder] = DynamicReference(target: target, anchor: seeks)
            } else {
                resolvedReferences[holder] = target
            }
        }
    }

    private mutating func unresolved(_ text: String, target: JSONPointer, at here: JSONPointer) {
        if case .found = target.resolve(in: source) {
            report(here, "'$ref' \"\(text)\" points at a value that is not a schema",
                   fix: "point at a schema, usually one under \"$defs\"")
            return
        }
        let defined = definitions()
        let hint = defined.isEmpty ? "define it under \"$defs\"" : "defined: " + defined.joined(separator: ", ")
        report(here, "'$ref' \"\(text)\" does not resolve", fix: hint)
    }

    /// The root's named definitions, as references: `"#/$defs/name"`.
    private func definitions() -> [String] {
        guard case .object(let root) = source else { return [] }
        return ["$defs", "definitions"].flatMap { container -> [String] in
            guard case .object(let defs)? = root[container] else { return [] }
            return defs.keys.sorted().map { "\"#/\(container)/\($0)\"" }
        }
    }

    /// A `$schema` inside the document must name the draft the document is read as.
    mutating func checkNestedSchemaURI(_ value: JSONValue, at here: JSONPointer) {
        guard here.tokens.count > 1 else { return }
        if case .string(let uri) = value, JSONSchema.Draft(schemaURI: uri) == draft { return }
        report(here, "'$schema' \(value.jsonText) inside the schema differs from the draft it is read as (\(draft.rawValue))",
               fix: "mixing drafts in one schema is not supported; remove it")
    }

    /// `$anchor` names: `[A-Za-z_][-A-Za-z0-9._]*`.
    private static func isAnchorName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic || first == "_" else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) }
    }
}
