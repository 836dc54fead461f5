import Foundation
import TestSupport
import Testing

/// What a user sees when the input is hostile: the real binary, its stdout and stderr.
@Suite struct HostileCommandLineTests {
    typealias CLI = CommandLineTests

    static let example = SampleData.examples + "/v1/DID_RENEW.json"
    static let subscription = "1000000900000001"
    static let title = "evil\u{1B}]0;pwned\u{07}\u{1B}[2J"

    func store() throws -> String {
        let db = CLI.temporary("db.sqlite")
        #expect(try Subdash.run(["import", "--db", db, Self.example]).status == 0)
        return db
    }

    func remove(_ db: String) { for p in [db, db + "-wal", db + "-shm"] { try? FileManager.default.removeItem(atPath: p) } }

    @Test func flagNotesAndOperatorsAreShownNotActedOnInEveryTable() throws {
        let db = try store()
        defer { remove(db) }
        let flag = try Subdash.run([
            "flag", "--db", db, "--offer", "winBack", "--operator", Self.title, "--note", "clip\u{1B}]52;c;aGk=\u{07}",
            Self.subscription,
        ])
        #expect(flag.status == 0)
        let flags = try Subdash.run(["flags", "--db", db])
        #expect(!flags.stdout.contains("\u{1B}"))
        #expect(flags.stdout.contains(#"evil\x1b]0;pwned\x07\x1b[2J"#))
        #expect(flags.stdout.contains(#"clip\x1b]52;c;aGk=\x07"#))
        let subscriber = try Subdash.run(["report", "subscriber", "--db", db, "--format", "table", Self.subscription])
        #expect(!subscriber.stdout.contains("\u{1B}"))
        #expect(subscriber.stdout.contains(#"evil\x1b]0;pwned\x07\x1b[2J"#))
    }

    /// The reproduction as reported (a customers CSV's user id, printed by `report subscriber`),
    /// and the flag command's "already flagged" message and the flag log, which quote notes.
    @Test func customerIdsAndEarlierFlagsAreShownNotActedOn() throws {
        let db = try store()
        let csv = CLI.temporary("customers.csv")
        defer {
            remove(db)
            try? FileManager.default.removeItem(atPath: csv)
        }
        try "userId,email,originalTransactionId\n\(Self.title),a@example.com,\(Self.subscription)\n".write(
            toFile: csv, atomically: true, encoding: .utf8)
        // An identifier with control characters is not stored at all (so no report can print
        // it); the rejection quotes nothing raw.
        let imported = try Subdash.run(["import", "--db", db, csv])
        #expect(imported.status == 1)
        #expect(imported.stderr.contains("\(csv):line 2: userId holds the control character U+001B: not an identifier"))
        #expect(!imported.stderr.contains("\u{1B}"))
        let subscriber = try Subdash.run(["report", "subscriber", "--db", db, "--format", "table", Self.subscription])
        #expect(subscriber.status == 0)
        #expect(!subscriber.stdout.contains("evil"))

        #expect(
            try Subdash.run([
                "flag", "--db", db, "--offer", "winBack", "--operator", "ann", "--note", Self.title, Self.subscription,
            ]).status == 0)
        let again = try Subdash.run(["flag", "--db", db, "--offer", "winBack", "--operator", "bob", Self.subscription])
        #expect(again.stderr.contains(#"(note: evil\x1b]0;pwned\x07\x1b[2J); kept"#))
        #expect(!again.stderr.contains("\u{1B}"))
        let log = try Subdash.run(["flags", "--db", db, "--log"])
        #expect(log.stdout.contains(#"evil\x1b]0;pwned\x07\x1b[2J"#))
        #expect(!log.stdout.contains("\u{1B}"))
    }

    @Test func importMessagesQuotingTheInputAreShownNotActedOn() throws {
        let db = CLI.temporary("db.sqlite")
        let file = CLI.temporary("osc.ndjson")
        defer {
            remove(db)
            try? FileManager.default.removeItem(atPath: file)
        }
        try "{\"\\u001b]52;c;aGk=\\u0007\": 1}\n".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try Subdash.run(["import", "--db", db, file])
        #expect(result.status == 1)
        #expect(!result.stderr.contains("\u{1B}"))
        #expect(result.stderr.contains(#"\x1b]52;c;aGk=\x07"#))
    }

    @Test func csvCellsThatLookLikeFormulasAreNeutralised() throws {
        let db = try store()
        defer { remove(db) }
        _ = try Subdash.run([
            "flag", "--db", db, "--offer", "winBack", "--operator", "=cmd|calc", "--note", #"=HYPERLINK("http://x","y")"#,
            Self.subscription,
        ])
        let csv = try Subdash.run(["flags", "--db", db, "--format", "csv"])
        let row = try #require(csv.stdout.split(separator: "\n").dropFirst().first)
        #expect(row.hasPrefix(#"\#(Self.subscription),winBack,"'=HYPERLINK(""http://x"",""y"")",'=cmd|calc,"#))
    }

    @Test func specialFilesAreSkippedWithALineEach() throws {
        let dir = CLI.temporary("dir")
        let db = CLI.temporary("db.sqlite")
        defer {
            remove(db)
            try? FileManager.default.removeItem(atPath: dir)
        }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.example, toPath: dir + "/a.json")
        #expect(mkfifo(dir + "/b.fifo", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: dir + "/c.json", withDestinationPath: "/dev/zero")
        let result = try Subdash.run(["import", "--db", db, dir])
        #expect(result.status == 0)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains("\(dir)/b.fifo: skipped: a FIFO, not a regular file"))
        #expect(lines.contains("\(dir)/c.json: skipped: a character device, not a regular file (through a symbolic link)"))
        #expect(
            lines.contains {
                $0.hasPrefix(
                    "1 document read from 1 file: 1 applied, 0 duplicates, 0 rejected; 1 subscription touched; 2 special files skipped;"
                )
            })
    }

    @Test func emptyAndHeaderOnlyGzipFilesAreErrorsNamingTheFile() throws {
        let db = CLI.temporary("db.sqlite")
        let gz = CLI.temporary("header.ndjson.gz")
        defer {
            remove(db)
            try? FileManager.default.removeItem(atPath: gz)
        }
        try Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]).write(to: URL(fileURLWithPath: gz))
        let result = try Subdash.run(["import", "--db", db, gz])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(gz): truncated gzip file: the compressed data ends before the end of the stream"))
    }

    @Test func anUnreadableDirectoryIsAnErrorNamingIt() throws {
        // Root reads any directory; the check needs an ordinary user.
        guard getuid() != 0 else { return }
        let dir = CLI.temporary("locked")
        let db = CLI.temporary("db.sqlite")
        defer {
            chmod(dir + "/inner", 0o700)
            remove(db)
            try? FileManager.default.removeItem(atPath: dir)
        }
        try FileManager.default.createDirectory(atPath: dir + "/inner", withIntermediateDirectories: true)
        chmod(dir + "/inner", 0)
        let result = try Subdash.run(["import", "--db", db, dir])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(dir)/inner: cannot read the directory: Permission denied"))
    }

    @Test func aDocumentOverTheLimitIsRejectedWithItsSize() throws {
        let db = CLI.temporary("db.sqlite")
        defer { remove(db) }
        let result = try Subdash.run(["import", "--db", db, "--max-document-bytes", "1000", Self.example])
        #expect(result.status == 1)
        #expect(result.stderr.contains(": document is "))
        #expect(result.stderr.contains("bytes, over the 1000 bytes limit"))
    }
}
