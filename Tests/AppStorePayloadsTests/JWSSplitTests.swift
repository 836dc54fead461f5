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
}
