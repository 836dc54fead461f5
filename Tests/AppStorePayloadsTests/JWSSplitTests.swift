import Testing

@testable import AppStorePayloads

@Suite struct JWSSplitTests {
    @Test func threeSegmentsAreSlicesOfTheCompactForm() throws {
        let jws = try JWS(compact: "aGVhZA.cGF5bG9hZA.c2ln")
        #expect(jws.headerSegment == "aGVhZA")
        #expect(jws.payloadSegment == "cGF5bG9hZA")
        #expect(jws.signatureSegment == "c2ln")
        #expect(jws.signingInput == "aGVhZA.cGF5bG9hZA")
        #expect(try jws.payload() == Array("payload".utf8).withUnsafeBytes { .init($0) })
    }

    @Test(arguments: [("abc", 1), ("a.b", 2), ("a.b.c.d", 4), ("a.b.c.d.e", 5), ("..", 3)])
    func wrongSegmentCountsSayHowManyThereWere(compact: String, segments: Int) {
        if segments == 3 {
            #expect((try? JWS(compact: compact)) != nil)
            return
        }
        #expect(throws: PayloadError("malformed JWS: expected 3 dot-separated segments, found \(segments)")) {
            try JWS(compact: compact)
        }
    }

    /// Bytes whose base64 uses both `+` and `/` (0xfb 0xff → "+/8"), so the url alphabet shows.
    @Test func base64URLRoundTripsEveryLengthAndUsesTheURLAlphabet() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF, 0x00, 0x10, 0x83]
        for n in 0...bytes.count {
            let encoded = JWS.base64URLEncode(bytes.prefix(n))
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(JWS.base64URLDecode(encoded).map(Array.init) == Array(bytes.prefix(n)))
        }
        #expect(JWS.base64URLEncode([0xFB, 0xFF]) == "-_8")
    }

    @Test(arguments: [("cGF5bG9hZA", Array("payload".utf8)), ("cGF5bG9hZA==", Array("payload".utf8)), ("-_8", [0xFB, 0xFF])])
    func base64URLDecodesWithOrWithoutPadding(text: String, expected: [UInt8]) {
        #expect(JWS.base64URLDecode(text).map(Array.init) == expected)
    }

    @Test(arguments: ["+/8", "ab*d", "a", "abcde", "ab=c", "ab===", "YQ==="])
    func base64URLRefusesOtherCharactersAndImpossibleLengths(text: String) {
        #expect(JWS.base64URLDecode(text) == nil)
    }
}
