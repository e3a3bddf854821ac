/// A request's headers from layers, each later one winning: the protocol's own (`Content-Type`,
/// `Accept`), then the config's, then the credential. A header name is the same whatever its
/// case, so a later layer's `content-type` replaces an earlier `Content-Type` rather than
/// sending both (and the two HTTP clients, one keeping both lines and the other one of them,
/// would send different credentials for the same config).
enum HeaderLayers {
    static func merged(_ layers: [String: String]...) -> [String: String] {
        var headers: [String: String] = [:]
        var nameOf: [String: String] = [:]
        for layer in layers {
            // Sorted: within a layer two cases of one name (refused in a config) keep one value, always the same.
            for (name, value) in layer.sorted(by: { $0.key < $1.key }) {
                let folded = name.lowercased()
                if let earlier = nameOf[folded] { headers.removeValue(forKey: earlier) }
                nameOf[folded] = name
                headers[name] = value
            }
        }
        return headers
    }
}
