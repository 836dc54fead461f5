import Foundation
import SubscriberStore
import TestSupport
import Testing

/// Where the listener writes, and what of a stranger's text reaches its log: it never creates a
/// store (only `import` does), no store is created through a link to nothing, and control
/// characters from a request reach stderr and `--log` escaped.
@Suite(.serialized) struct ListenerStoreTests {
    @Test func listenRefusesToCreateAStoreWithTheDashboardsMessage() throws {
        let directory = try TemporaryDirectory("listen-no-store")
        defer { directory.remove() }
        let store = directory.path("shop.sqlite")
        let listen = try Subdash.run(["listen", "--db", store, "--port", "0"], timeout: 30)
        #expect(listen.status == 3)
        #expect(
            listen.stderr == "subdash: no store at \(store): import data into it first (`subdash import FILES… --db \(store)`)\n")
        // The dashboard says the same.
        let dashboard = try Subdash.run(["--db", store], timeout: 30)
        #expect(dashboard.stderr == listen.stderr)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing created")
    }

    @Test func noStoreIsCreatedThroughASymbolicLinkToNothing() throws {
        let directory = try TemporaryDirectory("dangling")
        defer { directory.remove() }
        let link = directory.path("shop.sqlite")
        let target = directory.path("elsewhere.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let empty = directory.path("empty.ndjson")
        try #require(FileManager.default.createFile(atPath: empty, contents: Data()))

        let imported = try Subdash.run(["import", "--db", link, empty], timeout: 60)
        #expect(imported.status == 3)
        #expect(
            imported.stderr
                == "subdash: \(link) is a symbolic link to \(target), which does not exist: subdash does not create a store "
                + "through a link; pass the path it should have (--db \(target)) or remove the link\n")
        let listen = try Subdash.run(["listen", "--db", link, "--port", "0"], timeout: 30)
        #expect(listen.status == 3)
        #expect(listen.stderr.contains("no store at \(link)"))
        #expect(!FileManager.default.fileExists(atPath: target), "nothing created where the link points")
        #expect(throws: StoreError.self) { try AppDatabase.open(path: link) }
        #expect(!FileManager.default.fileExists(atPath: target))

        // A relative link is named from here.
        let relative = directory.path("relative.sqlite")
        try FileManager.default.createSymbolicLink(atPath: relative, withDestinationPath: "sub/gone.sqlite")
        let refused = try Subdash.run(["import", "--db", relative, empty], timeout: 60)
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("is a symbolic link to \(directory.path("sub/gone.sqlite")), which does not exist"))

        // Through a link to a store that is there, as before.
        _ = try AppDatabase.open(path: target)
        let again = try Subdash.run(["import", "--db", link, empty], timeout: 60)
        #expect(again.status == 0, "\(again.stderr)")
    }

    /// SampleData's v1 REFUND example with a right-to-left override and an isolate in its
    /// `notification_type` (not an identifier: C0 and C1 controls there are rejected, these are
    /// not): unsigned, so anyone can send it.
    static func hostileV1() throws -> (body: Data, type: String) {
        let example = try String(contentsOfFile: packagePath("SampleData/examples/v1/REFUND.json"), encoding: .utf8)
        let type = "REFUND\u{202E}lapyap\u{2066}"
        let escaped = #"REFUND\u202elapyap\u2066"#
        let body = example.replacingOccurrences(
            of: #""notification_type": "REFUND""#, with: #""notification_type": ""# + escaped + "\"")
        try #require(body != example)
        return (Data(body.utf8), type)
    }

    /// A v1 notification whose `auto_renew_status` holds C1 controls (CSI, then `2J`: clear the
    /// screen) and a right-to-left override: rejected, its reason quoting the value.
    static let hostileEnvironment = Data(
        #"{"notification_type":"DID_CHANGE_RENEWAL_STATUS","auto_renew_status_change_date_ms":"1700000000000","auto_renew_status":"P\u009b2J\u202eX"}"#
            .utf8)

    static let raw: [Unicode.Scalar] = ["\u{9B}", "\u{202E}", "\u{2066}"]

    static func post(_ listener: ListenerProcess, _ body: Data) throws {
        #expect(try listener.http.post("/notifications", body).status == 200)
        #expect(try listener.http.post("/notifications", hostileEnvironment).status == 400)
    }

    @Test func controlAndBidiCharactersFromARequestReachTheLogEscaped() throws {
        let binary = try ListenTests.binary()
        let store = ListenTests.temporaryPath("hostile") + ".sqlite"
        let log = ListenTests.temporaryPath("hostile") + ".ndjson"
        defer { ListenTests.remove(store, log) }
        let (body, type) = try Self.hostileV1()
        // To a file, then to stderr.
        let toFile = try ListenerProcess(binary: binary, store: store, extra: ["--log", log])
        try Self.post(toFile, body)
        #expect(toFile.stop().status == 0)
        let toStderr = try ListenerProcess(binary: binary, store: store)
        try Self.post(toStderr, body)
        #expect(toStderr.stop().status == 0)

        let fromFile = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let fromStderr = toStderr.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }.map(String.init)
        for lines in [fromFile, fromStderr] {
            try #require(lines.count == 2, "\(lines)")
            for line in lines {
                #expect(!line.unicodeScalars.contains { Self.raw.contains($0) }, "\(line.debugDescription)")
            }
            #expect(lines[0].contains(#""type":"REFUND\u202elapyap\u2066""#), "\(lines[0])")
            #expect(lines[1].contains(#"found \"P\u009b2J\u202eX\""#), "\(lines[1])")
            // The same strings to a JSON reader.
            let entries = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            #expect(entries[0]["type"] as? String == type)
            #expect(
                entries[1]["reason"] as? String
                    == "auto_renew_status: expected \"true\" or \"false\", found \"P\u{9B}2J\u{202E}X\"")
        }
    }
}
