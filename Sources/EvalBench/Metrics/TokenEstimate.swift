/// The character estimate used where no tokenizer can be asked: about four characters a
/// token, rounded up, the usual rule of thumb for English text.
package enum TokenEstimate {
    package static let charactersPerToken = 4

    package static func tokens(in text: String) -> Int {
        (text.count + charactersPerToken - 1) / charactersPerToken
    }
}
