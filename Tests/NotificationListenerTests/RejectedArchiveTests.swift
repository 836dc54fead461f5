import Foundation
import GRDB
import NotificationListener
import SubscriberStore
import TestSupport
import Testing

/// What unauthenticated junk can add to the store: rejected requests are archived up to a number
/// of bytes an hour, then answered and counted only.
@Suite(.serialized) struct RejectedArchiveTests {
    /// `count` different junk bodies of `size` bytes each.
    static func junk(_ count: Int, size: Int) -> [Data] {
        (0..<count).map { i in
            var body = Data("junk \(i) ".utf8)
            body.append(Data(repeating: UInt8(ascii: "x"), count: size - body.count))
            return body
        }
    }

    static func archived(_ store: String) throws -> (rows: Int, bytes: Int) {
        try AppDatabase.open(path: store).writer.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT COUNT(*), COALESCE(SUM(LENGTH(body)), 0) FROM document WHERE outcome = 'rejected'")!
            return (row[0], row[1])
        }
    }

    @Test func pastTheHoursLimitRejectedRequestsAreAnsweredAndCountedNotArchived() throws {
        let binary = try ListenTests.binary()
        let store = ListenTests.temporaryPath("junk") + ".sqlite"
        defer { ListenTests.remove(store) }
        let listener = try ListenerProcess(
            binary: binary, store: store, extra: ["--trust-root", ListenTests.trustRoot, "--rejected-archive-mib", "1"])
        // 400 bodies of 64 KiB: each archives its first 4 KiB, so about 250 fit in 1 MiB.
        let bodies = Self.junk(400, size: 64 << 10)
        let answers = PostAnswers()
        let port = listener.port
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for i in stride(from: worker, to: bodies.count, by: 8) {
                let response = try? LoopbackHTTP(port: port).post("/notifications", bodies[i])
                answers.add(response?.status ?? 0, response?.body ?? "")
            }
        }
        #expect(answers.statuses == [400: 400], "every one answered as rejected, archived or not")
        #expect(answers.bodies.keys.allSatisfy { $0.hasPrefix("rejected: ") })
        let (rows, bytes) = try Self.archived(store)
        #expect(rows > 200 && rows < 256, "\(rows) rows")
        #expect(bytes <= 1 << 20)
        let health = try listener.http.get("/healthz")
        #expect(health.status == 200, "junk keeps no notification out")
        #expect(
            health.body.contains(
                "rejected requests: \(400 - rows) counted, not archived, this hour (1 MiB archived at most per hour)"),
            "\(health.body)")
        // A notification still gets in.
        let genuine = try listener.http.post("/notifications", ListenTests.v2.get()[0])
        #expect(genuine.status == 200 && genuine.body == "applied\n")
        #expect(listener.stop().status == 0)
        let said = listener.stderr.components(separatedBy: "over 1 MiB of rejected requests archived this hour")
        #expect(said.count == 2, "said once")
        #expect(listener.stderr.components(separatedBy: #""archived":false"#).count - 1 == 400 - rows)
    }

    @Test func withNoRoomNothingRejectedIsArchived() throws {
        let binary = try ListenTests.binary()
        let store = ListenTests.temporaryPath("no-junk") + ".sqlite"
        defer { ListenTests.remove(store) }
        let listener = try ListenerProcess(
            binary: binary, store: store, extra: ["--trust-root", ListenTests.trustRoot, "--rejected-archive-mib", "0"])
        let answer = try listener.http.post("/notifications", Data("hello".utf8))
        #expect(answer.status == 400 && answer.body.hasPrefix("rejected: "))
        #expect(try Self.archived(store).rows == 0)
        #expect(listener.stop().status == 0)
        #expect(listener.stderr.contains(#""outcome":"rejected""#) && listener.stderr.contains(#""archived":false"#))
    }

    @Test func theLimitIsPerWindowAndEachWindowBeginsAfresh() throws {
        let archive = RejectedArchive(bytesPerWindow: 10_000, window: .seconds(3600))
        // 4 KiB that do not compress: each row is counted at a little over 4 KiB.
        var seed: UInt32 = 12345
        let noise = Data(
            (0..<4096).map { _ in
                seed = seed &* 1_103_515_245 &+ 12345
                return UInt8(truncatingIfNeeded: seed >> 16)
            })
        let document = IncomingDocument(
            sha256: String(repeating: "a", count: 64), source: "listen", byteCount: 4096, body: noise,
            content: .rejected(reason: "not JSON"))
        let start = ContinuousClock.now
        var admissions: [RejectedArchive.Admission] = []
        for i in 0..<4 { admissions.append(archive.admit(document, at: start + .seconds(i))) }
        #expect(admissions == [.archived, .archived, .counted(firstInWindow: true), .counted(firstInWindow: false)])
        #expect(archive.state(at: start + .seconds(4)).archivedBytes > 8192)
        let full = RejectedArchive(bytesPerWindow: 0, window: .seconds(3600))
        #expect(full.admit(document, at: start) == .counted(firstInWindow: true))
        #expect(full.admit(document, at: start + .seconds(1)) == .counted(firstInWindow: false))
        #expect(full.state(at: start + .seconds(2)).counted == 2)
        // An hour later, a new window: counted afresh, said again.
        #expect(full.state(at: start + .seconds(3600)).counted == 0)
        #expect(full.admit(document, at: start + .seconds(3600)) == .counted(firstInWindow: true))
        let roomy = RejectedArchive(bytesPerWindow: 1 << 20)
        #expect(roomy.admit(document) == .archived)
    }
}
