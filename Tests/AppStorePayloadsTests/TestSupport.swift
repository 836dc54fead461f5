import AppStorePayloads
import Foundation
import SubscriptionModel
import TestSupport
import Testing

/// A test-only verifier: checks nothing, base64url-decodes the payload segment. With
/// `verifiesSignatures: true` it stands in for a real verifier where only that flag matters.
struct Base64URLVerifier: SignatureVerifier {
    var verifiesSignatures = false

    func payload(ofJWS jws: String) throws(PayloadError) -> Data {
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else { throw PayloadError("a JWS has 3 segments, found \(segments.count)") }
        var text = segments[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text) else { throw PayloadError("the JWS payload is not base64url") }
        return data
    }
}

enum Examples {
    static let directory = URL(fileURLWithPath: SampleData.examples)

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(relativePath))
    }

    static func decode(_ relativePath: String, verifier: any SignatureVerifier = Base64URLVerifier()) throws -> DocumentFacts {
        try PayloadDecoder(verifier: verifier).decode(data(relativePath))
    }
}

/// Decodes a JSON text with the test verifier.
func decode(_ json: String, verifier: any SignatureVerifier = Base64URLVerifier()) throws(PayloadError) -> DocumentFacts {
    try PayloadDecoder(verifier: verifier).decode(Data(json.utf8))
}

/// The reason a document is rejected, or nil when it decodes.
func rejection(_ json: String, verifier: any SignatureVerifier = Base64URLVerifier()) -> String? {
    do {
        _ = try decode(json, verifier: verifier)
        return nil
    } catch {
        return error.reason
    }
}

/// base64url of a JSON text, for building JWS in tests.
func base64url(_ text: String) -> String {
    Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}

/// An unsigned compact JWS of a JSON payload.
func unsignedJWS(_ payload: String) -> String {
    base64url(#"{"alg":"ES256","x5c":[]}"#) + "." + base64url(payload) + "."
}
