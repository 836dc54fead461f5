import AppStorePayloads
import Foundation
import GRDB
import StoreImport
import SubscriberStore

/// SampleData imported once per test process, for the many tests that read it.
///
/// Importing the 700 simulated subscribers takes seconds, and every test target runs in the same
/// process: each store is built at its first use, into a file store as `subdash import` makes
/// one, and then handed out read-only (a write fails) or copied for tests that write.
public enum SampleDataStore {
    /// Which SampleData documents are trusted.
    public enum Trust: Sendable {
        /// Signed documents only, as `subdash import --trust-root` without `--shared-secret`: the
        /// unsigned v1 documents are stored but not applied.
        case signedOnly
        /// The v1 documents carrying SampleData's shared secret are trusted too.
        case sharedSecret
    }

    /// A built store: its file, the import's summary, the store opened read-only.
    struct Built: Sendable {
        let path: String
        let summary: ImportSummary
        let database: AppDatabase
    }

    private static let signedOnly = Result { try build(.signedOnly) }
    private static let withSharedSecret = Result { try build(.sharedSecret) }
    private static let signedOnlyDump = Result { try storeDump(signedOnly.get().database) }
    private static let withSharedSecretDump = Result { try storeDump(withSharedSecret.get().database) }

    private static func built(_ trust: Trust) throws -> Built {
        switch trust {
        case .signedOnly: try signedOnly.get()
        case .sharedSecret: try withSharedSecret.get()
        }
    }

    /// The verifier SampleData's signatures pass: Apple's root and the simulator's.
    public static func verifier() throws -> AppleJWSVerifier {
        try AppleJWSVerifier(additionalRootsPEM: [String(contentsOfFile: SampleData.trustRoot, encoding: .utf8)])
    }

    private static func build(_ trust: Trust) throws -> Built {
        let path = try directory.get().path(trust == .signedOnly ? "signed-only.sqlite" : "shared-secret.sqlite")
        let rejections = Lines()
        let summary: ImportSummary
        do {
            let database = try AppDatabase.open(path: path)
            summary = try Importer.appStore(
                database: database, verifier: verifier(),
                sharedSecret: trust == .sharedSecret ? SampleData.sharedSecret : nil,
                report: { rejections.append($0) }
            ).importPaths([SampleData.generated])
            // Closing the only writer checkpoints the WAL into the file: one file to copy.
            try (database.writer as? DatabasePool)?.close()
        }
        guard summary.rejected == 0, rejections.all.isEmpty else {
            throw TestSupportError("SampleData did not import cleanly: \(rejections.all.prefix(5))")
        }
        return Built(path: path, summary: summary, database: try AppDatabase.open(path: path, readOnly: true))
    }

    /// The shared store, read-only: every reader of the process shares it, and a write throws.
    public static func shared(_ trust: Trust = .sharedSecret) throws -> AppDatabase {
        try built(trust).database
    }

    /// What the one import of SampleData said.
    public static func summary(_ trust: Trust = .sharedSecret) throws -> ImportSummary {
        try built(trust).summary
    }

    /// The shared store's file, for `subdash report --db` and other readers; never write it.
    public static func path(_ trust: Trust = .sharedSecret) throws -> String {
        try built(trust).path
    }

    /// `storeDump` of the shared store, computed once.
    public static func dump(_ trust: Trust = .sharedSecret) throws -> [String: [String]] {
        switch trust {
        case .signedOnly: try signedOnlyDump.get()
        case .sharedSecret: try withSharedSecretDump.get()
        }
    }

    /// A writable copy of the store in memory, for a test that writes.
    public static func copy(_ trust: Trust = .sharedSecret) throws -> AppDatabase {
        let queue = try DatabaseQueue()
        try built(trust).database.writer.backup(to: queue)
        return try AppDatabase(queue)
    }

    /// A writable copy of the store's file at `path` (which must not exist), opened.
    public static func copyFile(_ trust: Trust = .sharedSecret, to path: String) throws -> AppDatabase {
        try FileManager.default.copyItem(atPath: built(trust).path, toPath: path)
        return try AppDatabase.open(path: path)
    }

    /// The stores' directory, removed when the process exits (Swift Testing has no hook after
    /// the last test).
    private static let directory: Result<TemporaryDirectory, any Error> = Result {
        let directory = try TemporaryDirectory("sampledata")
        atexit { try? SampleDataStore.directory.get().remove() }
        return directory
    }
}
