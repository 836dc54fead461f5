import AppStorePayloads
import Foundation
import SubscriptionModel
import TestSupport
import Testing

/// Input crafted to hurt: bombs, special bytes, forged dates. Each gives per-document
/// rejections (or clean documents), never unbounded memory or time.
@Suite struct HostileInputTests {
    let decoder = PayloadDecoder(verifier: Base64URLVerifier())

    func temporaryFile(_ name: String) -> URL {
        URL(fileURLWithPath: TemporaryDirectory.uniquePath("hostile-\(name)"))
    }

    /// gzip of `url`, through the system's gzip (as a user would make one).
    func gzip(_ url: URL) throws -> URL {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-f", "-1", url.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return URL(fileURLWithPath: url.path + ".gz")
    }

    @Test func aJSONArrayIsStreamedElementByElement() throws {
        // 40 MB of whitespace between elements, and an element over the limit: both pass through
        // a 1 MiB limit without the array being held whole.
        let url = temporaryFile("array.json")
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        handle.write(Data(#"[{"a":1},"#.utf8))
        let blanks = Data(repeating: 0x20, count: 1 << 20)
        for _ in 0..<40 { handle.write(blanks) }
        handle.write(Data(#"{"big":""#.utf8))
        for _ in 0..<3 { handle.write(Data(repeating: UInt8(ascii: "x"), count: 1 << 20)) }
        handle.write(Data(#"\"x"}"#.utf8))
        handle.write(Data(#" , {"b":[2]} ]"#.utf8))
        try handle.close()

        let docs = Array(try DocumentReader(sizeLimit: 1 << 20).documents(atPath: url.path))
        #expect(docs.map(\.location) == ["index 0", "index 1", "index 2"])
        #expect(docs.map { $0.bytes.map { String(decoding: $0, as: UTF8.self) } } == [#"{"a":1}"#, nil, #"{"b":[2]}"#])
        #expect(docs[1].rejection?.reason == "document is 3145741 bytes, over the 1 MiB limit")
    }

    @Test func anArrayNamesTheByteOfTheFileWhereItGoesWrong() {
        let docs = DocumentReader().documents(in: Data(#"[{"a":1} {"b":2}]"#.utf8))
        #expect(
            docs.map { doc in doc.rejection.map { "\(doc.location ?? ""): \($0.reason)" } } == [
                nil, "index 1: invalid JSON at byte 9 of the file: expected ',' or ']' after an array element",
            ])
    }

    @Test func aGzipBombOfAnArrayIsReadWithBoundedBuffers() throws {
        let url = temporaryFile("bomb.json")
        defer {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(atPath: url.path + ".gz")
        }
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        handle.write(Data("[".utf8))
        let blanks = Data(repeating: 0x20, count: 1 << 20)
        for _ in 0..<64 { handle.write(blanks) }
        handle.write(Data(#"{"status":0}]"#.utf8))
        try handle.close()
        let gz = try gzip(url)
        let docs = Array(try DocumentReader().documents(atPath: gz.path))
        #expect(docs.count == 1)
        #expect(docs[0].bytes == Data(#"{"status":0}"#.utf8))
    }

    @Test func headerOnlyAndEmptyGzipFilesAreErrors() throws {
        let header = temporaryFile("header.ndjson.gz")
        let empty = temporaryFile("empty.ndjson.gz")
        defer {
            try? FileManager.default.removeItem(at: header)
            try? FileManager.default.removeItem(at: empty)
        }
        try Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]).write(to: header)
        try Data().write(to: empty)
        let fromHeader = Array(try DocumentReader().documents(atPath: header.path))
        #expect(
            fromHeader.map { $0.rejection?.reason } == [
                "truncated gzip file: the compressed data ends before the end of the stream (is the file cut short?)"
            ])
        let fromEmpty = Array(try DocumentReader().documents(atPath: empty.path))
        #expect(fromEmpty.map { $0.rejection?.reason } == ["empty gzip file: it holds no data at all"])
    }

    @Test func aDeviceIsNotRead() {
        #expect(throws: PayloadError("cannot read /dev/zero: not a regular file")) {
            _ = try DocumentReader().documents(atPath: "/dev/zero")
        }
    }

    /// Blank lines are scanned once: a file of blank lines takes about as long as a file of
    /// documents of the same size (it took time quadratic in the size, 1,603 s for 2 GiB).
    @Test func blankLinesAreScannedInLinearTime() throws {
        let size = 16 << 20
        let blank = Data(repeating: 0x0A, count: size) + Data(#"{"status":0}"#.utf8)
        let line = Data((String(repeating: " ", count: 100) + #"{"status":0}"# + "\n").utf8)
        var normal = Data(capacity: size + line.count)
        while normal.count < size { normal.append(line) }

        func seconds(_ data: Data) -> (Double, Int) {
            let start = DispatchTime.now()
            let count = DocumentReader().documents(in: data).count
            return (Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9, count)
        }
        let (normalTime, normalCount) = seconds(normal)
        let (blankTime, blankCount) = seconds(blank)
        #expect(blankCount == 1)
        #expect(normalCount == normal.count / line.count)
        #expect(blankTime < 3 * normalTime + 0.5, "blank lines: \(blankTime) s, documents: \(normalTime) s")
    }

    @Test func leadingBlankLinesKeepLineNumbers() {
        let docs = DocumentReader().documents(in: Data("\n\n  \n{\"a\":1}\n\n{\"b\":2}".utf8))
        #expect(docs.map(\.location) == ["line 4", "line 6"])
    }

    @Test func implausibleDatesAreRejectedNamingTheField() throws {
        var text = String(decoding: try Examples.data("v1/DID_RENEW.json"), as: UTF8.self)
        let range = try #require(text.range(of: #""expires_date_ms" *: *"[0-9]+""#, options: .regularExpression))
        text.replaceSubrange(range, with: #""expires_date_ms": "99061218000000000""#)
        #expect(throws: PayloadError.self) { try decoder.decode(Data(text.utf8)) }
        do {
            _ = try decoder.decode(Data(text.utf8))
        } catch {
            #expect(
                error.reason.hasPrefix(
                    "unified_receipt.latest_receipt_info[0].expires_date_ms: 99061218000000000 ms is in the year 314"))
            #expect(error.reason.contains(", outside the plausible range 2008-07-01 to 20"))
        }
        let v2 = #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1}"#
        #expect(
            throws: PayloadError(
                "signedDate: 1 ms is in the year 1970, outside the plausible range 2008-07-01 to \(PlausibleDates.range(.happened).upperBound.isoDate)"
            )
        ) {
            try decoder.decode(Data(v2.utf8))
        }
    }

    /// `SampleData/examples/v1/REFUND.json` with every `*_date_ms` moved to `instant`.
    static func refund(datedAt instant: Instant) throws -> String {
        let text = String(decoding: try Examples.data("v1/REFUND.json"), as: UTF8.self)
        return text.replacingOccurrences(
            of: #"("[a-z_]*_date_ms": *)"[0-9]+""#, with: "$1\"\(instant.milliseconds)\"", options: .regularExpression)
    }

    /// A purchase, cancellation or signature cannot lie in the future: more than a day ahead of
    /// this machine's clock it rejects the document, signed or not, naming the field. An expiry may
    /// lie years ahead.
    @Test func whatHasHappenedMayNotLieMoreThanADayAhead() throws {
        let now = Instant(Date())
        let threeYears = now.adding(days: 3 * 366)
        let error = #expect(throws: PayloadError.self) { try decoder.decode(Data(try Self.refund(datedAt: threeYears).utf8)) }
        let reason = error?.reason ?? ""
        #expect(
            reason.hasPrefix(
                "unified_receipt.latest_receipt_info[0].cancellation_date_ms: \(threeYears.milliseconds) ms is \(threeYears.iso8601), more than a day ahead of this machine's clock ("
            ), "\(reason)")
        #expect(reason.hasSuffix("): a purchase, cancellation or signature cannot lie in the future"), "\(reason)")
        // Twelve hours ahead is a clock that runs fast: accepted.
        #expect(throws: Never.self) { try decoder.decode(Data(try Self.refund(datedAt: now.adding(hours: 12)).utf8)) }

        func v2(signedDate: Instant, expiresDate: Instant) -> String {
            let transaction = unsignedJWS(
                #"{"transactionId":"t1","originalTransactionId":"t1","productId":"p","purchaseDate":\#(now.adding(days: -1).milliseconds),"expiresDate":\#(expiresDate.milliseconds),"bundleId":"com.example.app"}"#
            )
            return
                #"{"signedPayload":"\#(unsignedJWS(#"{"notificationType":"DID_RENEW","notificationUUID":"u","signedDate":\#(signedDate.milliseconds),"data":{"bundleId":"com.example.app","signedTransactionInfo":"\#(transaction)"}}"#))"}"#
        }
        let early = now.adding(days: -1)
        #expect(rejection(v2(signedDate: early, expiresDate: threeYears)) == nil, "an expiry years ahead is plausible")
        let ahead = now.adding(days: 2)
        let reason2 = rejection(v2(signedDate: ahead, expiresDate: now.adding(days: 30))) ?? ""
        #expect(
            reason2.hasPrefix("signedPayload.signedDate: \(ahead.milliseconds) ms is \(ahead.iso8601), more than a day ahead"),
            "\(reason2)")
    }

    @Test func invalidUTF8IsRejected() {
        var bytes = Array(#"{"notificationType":"TEST","notificationUUID":"u","signedDate":1700000000000}"#.utf8)
        #expect(throws: Never.self) { try decoder.decode(Data(bytes)) }
        bytes.insert(0xFF, at: 45)
        #expect(throws: PayloadError("the document is not valid UTF-8 (byte 45): App Store documents are UTF-8 JSON or CSV")) {
            try decoder.decode(Data(bytes))
        }
    }

    @Test func aNULInAnIdentifierIsRejected() {
        let text = #"{"notificationType":"TEST","notificationUUID":"u\u0000v","signedDate":1700000000000}"#
        #expect(throws: PayloadError(#"notificationId holds a NUL character (\u0000): not an identifier"#)) {
            try decoder.decode(Data(text.utf8))
        }
    }
}

/// What held when subdash was first attacked, kept holding.
@Suite struct AlreadyHoldsTests {
    @Test func a100kDeepNestingIsRejectedCleanly() {
        let decoder = PayloadDecoder(verifier: Base64URLVerifier())
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: PayloadError.self) { try decoder.decode(Data(deep.utf8)) }
        let docs = DocumentReader().documents(in: Data(deep.utf8))
        #expect(docs.count == 1)
    }
}
