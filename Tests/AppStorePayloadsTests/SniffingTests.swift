import AppStorePayloads
import Foundation
import SubscriptionModel
import Testing

@Suite struct SniffingTests {
    static let examples: [(String, PayloadFormat)] = [
        ("v1/DID_RENEW.json", .v1Notification),
        ("v1/RENEWAL.json", .v1Notification),
        ("v2/DID_RENEW.json", .v2Notification),
        ("v2/DID_RENEW.decoded.json", .v2Notification),
        ("api/verifyReceipt.json", .verifyReceipt),
        ("api/StatusResponse.json", .statusResponse),
        ("api/TransactionHistory.json", .transactionHistory),
        ("api/NotificationHistory.json", .notificationHistory),
    ]

    @Test(arguments: examples)
    func recognisesExamples(file: String, format: PayloadFormat) throws {
        #expect(try PayloadFormat(sniffing: Examples.data(file)) == format)
    }

    @Test func recognisesSmallShapes() throws {
        #expect(try PayloadFormat(sniffing: Data(#"{"status":21007}"#.utf8)) == .verifyReceipt)
        #expect(try PayloadFormat(sniffing: Data(#"{"data":[],"bundleId":"b"}"#.utf8)) == .statusResponse)
        #expect(try PayloadFormat(sniffing: Data("eyJhbGciOiJFUzI1NiJ9.eyJ4IjoxfQ.".utf8)) == .v2Notification)
        #expect(try PayloadFormat(sniffing: Data("userId,email\nu1,a@example.com".utf8)) == .customersCSV)
    }

    @Test func unknownShapesNameTheirKeys() {
        #expect(
            rejection(#"{"a":1,"b":2,"c":3}"#)
                == "unrecognised document: an object with keys a, b, c is not a v1 or v2 notification, verifyReceipt response or App Store Server API response"
        )
        #expect(
            rejection("{}")
                == "unrecognised document: an empty object is not a v1 or v2 notification, verifyReceipt response or App Store Server API response"
        )
        #expect(
            rejection("[1]")
                == "unrecognised document: an array is not a v1 or v2 notification, verifyReceipt response or App Store Server API response"
        )
        #expect(
            rejection(#""hello""#) == "unrecognised document: a JSON string that is not a compact JWS (header.payload.signature)")
        #expect(rejection(#"{"signedPayload":42}"#) == "signedPayload: expected a compact JWS string, found 42")
    }

    @Test func invalidJSONSaysWhere() {
        #expect(
            rejection(#"{"notification_type":"DID_RENEW",}"#)
                == "invalid JSON at byte 33: expected a member name in quotes, found '}'")
        #expect(rejection("{\"a\":tru}") == "invalid JSON at byte 5: expected true, found '}'")
        #expect(rejection("hello") == "invalid JSON at byte 0: expected a value, found 'h'")
        #expect(rejection(#"{"a":1} x"#) == "invalid JSON at byte 8: unexpected 'x' after the end of the document")
        #expect(rejection("  ") == "empty document")
    }

    @Test func truncatedJSONSaysSo() {
        #expect(
            rejection(#"{"notification_type":"DID_RENEW","unified_receipt":{"status":0"#)
                == "truncated JSON: the document ends inside an object that opened at byte 51 (62 bytes read; is the file cut short?)"
        )
        #expect(
            rejection(#"{"notification_type":"DID_RE"#)
                == "truncated JSON: the document ends inside a string that opened at byte 21 (28 bytes read; is the file cut short?)"
        )
    }
}

/// `subdash import --no-verify SampleData/examples` must apply every file.
@Suite struct ExampleFolderTests {
    @Test func everyExampleFileDecodesWithSignaturesOff() throws {
        let root = Examples.directory
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count == 13 + 2 * 40 + 4)
        let decoder = PayloadDecoder(verifier: Base64URLVerifier())
        for file in files {
            let docs = DocumentReader().documents(in: try Data(contentsOf: root.appendingPathComponent(file)), name: file)
            #expect(docs.count == 1, "\(file)")
            for doc in docs {
                #expect(doc.rejection == nil, "\(file)")
                #expect(throws: Never.self, "\(file)") { try decoder.decode(doc.bytes ?? Data()) }
            }
        }
    }
}
