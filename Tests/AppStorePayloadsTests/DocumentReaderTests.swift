import AppStorePayloads
import Foundation
import SubscriptionModel
import TestSupport
import Testing

@Suite struct DocumentReaderTests {
    let reader = DocumentReader()
    let decoder = PayloadDecoder(verifier: Base64URLVerifier())

    func documents(_ text: String, name: String = "") -> [SourceDocument] {
        reader.documents(in: Data(text.utf8), name: name)
    }

    /// `location: reason` of every document the reader or the decoder rejects, in order.
    func rejections(_ docs: [SourceDocument]) -> [String] {
        docs.compactMap { doc -> String? in
            if let rejection = doc.rejection { return doc.message(rejection) }
            do throws(PayloadError) {
                _ = try decoder.decode(doc.bytes ?? Data())
                return nil
            } catch {
                return doc.message(error)
            }
        }
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    @Test func aPrettyPrintedFileIsOneDocument() throws {
        let data = try Examples.data("v1/DID_RENEW.json")
        let docs = reader.documents(in: data)
        #expect(docs.count == 1)
        #expect(docs[0].location == nil)
        #expect(docs[0].rejection == nil)
        #expect(docs[0].bytes == data.dropLast())  // the trailing newline is not part of the document
        #expect(try decoder.decode(docs[0].bytes!).notifications[0].notificationType == "DID_RENEW")
    }

    @Test func aJSONArrayIsCutIntoIndexedDocuments() throws {
        let docs = documents(#" [ {"status":21007}, {"a":1} ,"x.y.z", [1,{"b":"]"}] ] "#)
        #expect(docs.map(\.location) == ["index 0", "index 1", "index 2", "index 3"])
        #expect(
            docs.map { String(decoding: $0.bytes ?? Data(), as: UTF8.self) } == [
                #"{"status":21007}"#, #"{"a":1}"#, #""x.y.z""#, #"[1,{"b":"]"}]"#,
            ])
        #expect(documents("[]").isEmpty)
    }

    @Test func ndjsonRejectsOnlyTheBadLine() throws {
        let text = """
            {"status":21007}

            {"notification_type": oops}
            \(unsignedJWS(#"{"notificationType":"TEST","notificationUUID":"u","signedDate":1700000000000}"#))\r
            {"a":1}
            """
        let docs = documents(text)
        #expect(docs.map(\.location) == ["line 1", "line 3", "line 4", "line 5"])
        #expect(
            rejections(docs) == [
                "line 1: verifyReceipt status 21007: this receipt is from the sandbox but was sent to production for verification (verify it against the sandbox); the response holds no receipt to import",
                "line 3: invalid JSON at byte 22: expected a value, found 'o'",
                "line 5: unrecognised document: an object with key a is not a v1 or v2 notification, verifyReceipt response or App Store Server API response",
            ])
    }

    @Test func aLineOverTheLimitIsRejectedOnItsOwn() throws {
        let path = URL(fileURLWithPath: TemporaryDirectory.uniquePath("long-line.ndjson"))
        defer { try? FileManager.default.removeItem(at: path) }
        #expect(FileManager.default.createFile(atPath: path.path, contents: nil))
        let handle = try FileHandle(forWritingTo: path)
        let good = #"{"status":0,"receipt":{}}"#
        handle.write(Data((good + "\n" + good + "\n").utf8))
        let chunk = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<50 { handle.write(chunk) }
        handle.write(Data(("\n" + good + "\n").utf8))
        try handle.close()

        let docs = Array(try reader.documents(atPath: path.path))
        #expect(docs.map(\.location) == ["line 1", "line 2", "line 3", "line 4"])
        #expect(docs[2].bytes == nil)
        #expect(docs[2].byteCount == 52_428_800)
        #expect(rejections(docs) == ["line 3: document is 52428800 bytes, over the 16 MiB limit"])
    }

    @Test func smallLimitsApplyToEveryShape() {
        let small = DocumentReader(sizeLimit: 10)
        let lines = small.documents(in: Data("{\"a\":1}\n{\"abcdefgh\":1}\n{}".utf8))
        #expect(lines.map { $0.rejection?.reason } == [nil, "document is 14 bytes, over the 10 bytes limit", nil])
        let array = small.documents(in: Data(#"[{"a":1},{"abcdefgh":1}]"#.utf8))
        #expect(array.map { $0.rejection?.reason } == [nil, "document is 14 bytes, over the 10 bytes limit"])
        let whole = small.documents(in: Data("{\n \"abcdefgh\": 1\n}\n".utf8))
        #expect(whole.map { $0.rejection?.reason } == ["document is 19 bytes, over the 10 bytes limit"])
    }

    @Test func truncatedFilesSayWhy() throws {
        var pretty = try Examples.data("v1/DID_RENEW.json")
        pretty.removeLast(200)
        let docs = reader.documents(in: pretty)
        #expect(docs.count == 1)
        let reason = try #require(rejections(docs).first)
        #expect(reason.hasPrefix("truncated JSON: the document ends inside "))
        #expect(reason.hasSuffix("is the file cut short?)"))

        #expect(
            rejections(documents(#"[{"a":1}, {"status":21"#)).last
                == "index 1: truncated file: it ends inside this element of the JSON array")
        #expect(
            rejections(documents(#"[{"status":21007}"#)).last
                == "index 1: truncated file: it ends before the JSON array's closing ']'")
        #expect(
            rejections(documents("{\"status\":21007}\n{\"status\":")).last
                == "line 2: truncated JSON: the document ends inside an object that opened at byte 0 (10 bytes read; is the file cut short?)"
        )
    }

    @Test func gzipIsReadTransparently() throws {
        let gz = try Data(contentsOf: Self.fixtures.appendingPathComponent("mixed.ndjson.gz"))
        let docs = reader.documents(in: gz, name: "mixed.ndjson.gz")
        #expect(docs.map(\.location) == ["line 1", "line 2", "line 4"])
        #expect(rejections(docs).isEmpty)
        let types = try docs.map { try decoder.decode($0.bytes!).notifications[0].notificationType }
        #expect(types == ["DID_RENEW", "INITIAL_BUY", "DID_RENEW"])

        let streamed = Array(try reader.documents(atPath: Self.fixtures.appendingPathComponent("mixed.ndjson.gz").path))
        #expect(streamed == docs)
    }

    @Test func aTruncatedGzipFileSaysSo() throws {
        var gz = try Data(contentsOf: Self.fixtures.appendingPathComponent("mixed.ndjson.gz"))
        gz.removeLast(gz.count / 3)
        let docs = reader.documents(in: gz)
        #expect(
            docs.last?.rejection?.reason
                == "truncated gzip file: the compressed data ends before the end of the stream (is the file cut short?)")
        #expect(docs.count >= 2)
    }

    @Test func customersCSV() throws {
        let csv = #"""
            email,userId,originalTransactionId
            ann@example.com,u-1,1000000900000001

            "Doe, Jane <jane@example.com>",u-2,
            bob@example.com,"u-""3""",2000000900000001
            ,,
            carol@example.com,u-4
            """#
        let docs = documents(csv, name: "customers.csv")
        #expect(docs.map(\.location) == ["line 2", "line 4", "line 5", "line 6", "line 7"])
        #expect(rejections(docs) == ["line 6: the row has no value in any column", "line 7: expected 3 fields, found 2"])
        let customers = try docs.prefix(3).map { try decoder.decode($0.bytes!).customers[0] }
        #expect(
            customers == [
                CustomerFact(userId: "u-1", email: "ann@example.com", originalTransactionId: "1000000900000001"),
                CustomerFact(userId: "u-2", email: "Doe, Jane <jane@example.com>"),
                CustomerFact(userId: #"u-"3""#, email: "bob@example.com", originalTransactionId: "2000000900000001"),
            ])
        #expect(try decoder.decode(docs[0].bytes!).format == .customersCSV)
    }

    @Test func csvWithoutTheNameHintAndWithABadHeader() throws {
        let docs = documents("appAccountToken\n7E3FB20B-4CDB-47CC-936D-99D65F608138\n")
        #expect(
            try decoder.decode(docs[0].bytes!).customers == [
                CustomerFact(appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138")
            ])
        let afterBlankLines = documents("\n\nuserId,email\nu-9,z@example.com\n")
        #expect(afterBlankLines.map(\.location) == ["line 4"])
        #expect(try decoder.decode(afterBlankLines[0].bytes!).customers == [CustomerFact(userId: "u-9", email: "z@example.com")])
        let bad = documents("\nuser,email\nu,e\n", name: "people.csv")
        #expect(
            rejections(bad) == [
                #"line 2: unknown column "user" in the CSV header (expected any of userId, email, appAccountToken, originalTransactionId)"#
            ])
    }

    @Test func sha256OfTheDocumentBytes() {
        let doc = documents(#"{"a":1}"#)[0]
        #expect(doc.sha256Hex == PayloadDecoder.sha256Hex(Data(#"{"a":1}"#.utf8)))
    }
}
