import AppStorePayloads
import Foundation
import GRDB
import StoreImport
import SubscriberStore
import TestSupport
import Testing

@testable import LifecycleSimulator

/// The archive's compact layout gives back every document byte for byte (docs/architecture.md,
/// "The archive's layout"): every kind of document of the fuzz corpus — v1 and v2 notifications,
/// verifyReceipt responses, Server API pages, and their hostile mutants — either round-trips
/// through it or is kept as received, with zstd and with zlib.
@Suite struct ArchiveRoundTripTests {
    static let codecs = [ArchiveCodec.current, ArchiveCodec(zstdAvailable: false)]

    /// The bytes `codec` gives back for `body` archived by it.
    static func roundTrip(_ body: Data, _ codec: ArchiveCodec) throws -> (ArchivedBody, Data) {
        let stored = codec.archive(body)
        return (stored, try codec.restore(stored, originalCount: body.count, chains: stored.chains.map(\.text)))
    }

    @Test func everySeedAndMutantOfTheFuzzCorpusComesBackExactly() throws {
        var rng = SplitMix64(state: 36)
        let mutator = PayloadMutator()
        var compact = 0
        var asReceived = 0
        var seedsInLayout = Set<String>()
        let kinds: [PayloadMutator.Kind?] = [nil] + PayloadMutator.Kind.allCases.filter { $0 != .hugeString }
        for (name, seed) in try FuzzCorpusTests.seeds() {
            for kind in kinds {
                for _ in 0..<(kind == nil ? 1 : 3) {
                    let bytes = kind.map { mutator.mutate(seed, kind: $0, rng: &rng) } ?? seed
                    for codec in Self.codecs {
                        let (stored, restored) = try Self.roundTrip(Data(bytes), codec)
                        #expect(restored == Data(bytes), "\(name), \(kind?.rawValue ?? "as is")")
                        if stored.layout == "jws" {
                            compact += 1
                            seedsInLayout.insert(name)
                        } else {
                            asReceived += 1
                        }
                    }
                }
            }
        }
        // Every signed seed (the v2 examples, the API's signed pages, the signed notification) and
        // mutants of both outcomes.
        #expect(seedsInLayout.contains("signed v2"))
        #expect(seedsInLayout.contains { $0.hasPrefix("v2/") })
        #expect(seedsInLayout.contains { $0.hasPrefix("api/") })
        #expect(compact > 500 && asReceived > 500, "\(compact) compact, \(asReceived) as received")
    }

    @Test func aSignedNotificationKeepsOneChainForItsThreeJWSAndShrinks() throws {
        let signed = try FuzzCorpusTests.seeds().first { $0.name == "signed v2" }!.bytes
        let stored = ArchiveCodec.current.archive(Data(signed))
        #expect(stored.layout == "jws")
        #expect(stored.chains.count == 1)
        #expect(String(decoding: stored.chains[0].text, as: UTF8.self).hasPrefix("[\""))
        let asReceived = ArchiveCodec.current.archiveAsReceived(Data(signed))
        #expect(stored.data.count * 3 < asReceived.data.count, "\(stored.data.count) against \(asReceived.data.count)")
    }

    /// Hand-made hostile JWS: each comes back exactly, in the compact layout when its parts are
    /// strict base64url, else as received.
    @Test func hostileJWSComeBackExactly() throws {
        func b64(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let sig = String(repeating: "AbC-_9", count: 14)
        let odd: [(String, compact: Bool)] = [
            // x5c with spaces and the alg after it.
            (
                #"{"signedPayload":""# + b64(#"{"x5c" : [ "QUJD", "REVG" ] , "alg":"ES256"}"#) + "." + b64(#"{"a":1}"#)
                    + ".\(sig)\"}", true
            ),
            // A payload that is not JSON (control bytes, invalid UTF-8 as text).
            (b64(#"{"alg":"none"}"#) + "." + Data([0, 0xff, 0xfe, 10, 13]).base64EncodedString() + "." + sig, false),
            (b64(#"{"alg":"none"}"#) + "." + b64("not json at all \u{1}") + "." + sig, true),
            // Unused bits set in the last character: not what an encoder writes.
            (b64(#"{"alg":"ES256"}"#) + "." + b64(#"{"a":1}"#) + ".AB", false),
            // Padding, four parts, a truncated token.
            (b64(#"{"alg":"ES256"}"#) + "==." + b64(#"{"a":1}"#) + "." + sig, false),
            (b64(#"{"alg":"ES256"}"#) + "." + b64("{}") + "." + sig + "." + sig, false),
            // An empty signature (SampleData's examples are so: unsigned).
            (b64(#"{"alg":"ES256"}"#) + "." + b64("{\"a\":\"\(String(repeating: "x", count: 300))\"}") + ".", true),
            ("eyJ", false),
            // An unterminated x5c array.
            (b64(#"{"alg":"ES256","x5c":["QUJD""#) + "." + b64(#"{"a":1}"#) + "." + sig, true),
            // JWS nested five deep: the deepest kept as text.
            (
                (0..<5).reduce(b64(#"{"a":1}"#)) { inner, _ in
                    b64(#"{"alg":"ES256"}"#) + "." + b64("{\"s\":\"\(inner)\"}") + "." + sig
                }, true
            ),
        ]
        for (text, compact) in odd {
            for codec in Self.codecs {
                let (stored, restored) = try Self.roundTrip(Data(text.utf8), codec)
                #expect(restored == Data(text.utf8), "\(text)")
                #expect((stored.layout == "jws") == compact, "\(text): \(stored.layout ?? "as received")")
            }
        }
    }

    /// `subdash archive export`'s reader gives back every SampleData document exactly as the import
    /// archived it (a v1 notification's shared secret redacted, as before the compact layout), and
    /// the v2 ones are kept in the compact layout with SampleData's one chain stored once.
    @Test func everySampleDataDocumentComesBackFromTheStoreExactly() throws {
        var received: [String: Data] = [:]
        let root = URL(fileURLWithPath: SampleData.generated)
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!.compactMap { $0 as? URL }
            .filter { $0.lastPathComponent.contains(".ndjson") }
        #expect(files.count >= 2)
        for file in files {
            for document in try DocumentReader().documents(atPath: file.path) {
                if let bytes = document.bytes, let sha = document.sha256Hex { received[sha] = SecretRedaction.redacted(bytes) }
            }
        }
        let store = try SampleDataStore.shared()
        var exported = 0
        try store.forEachArchivedDocument { sha, source, bytes in
            guard let expected = received[sha] else { return }
            exported += 1
            #expect((try? bytes?.get()) == expected, "\(source)")
        }
        #expect(exported == received.count)
        let (compact, chains) = try store.writer.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document WHERE bodyLayout = 'jws'") ?? 0,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM archiveChain") ?? 0
            )
        }
        #expect(compact > 1000, "\(compact) documents in the compact layout")
        #expect(chains == 1)
        // SampleData holds more than a thousand bodies of each kind: the import trained a
        // dictionary for each once it had stored that many, converted those stored before, and
        // compressed every later one with it (the documents in flight meanwhile included).
        let (kinds, withoutDictionary, perKind) = try store.writer.read { db in
            (
                try String.fetchAll(db, sql: "SELECT kind FROM archiveDictionary ORDER BY kind"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document WHERE bodyEncoding = 'zstd' AND bodyDictionary IS NULL"),
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT d.kind, COUNT(*) AS n, SUM(length(body)) / COUNT(*) AS bytes FROM document
                        JOIN archiveDictionary d ON d.id = document.bodyDictionary GROUP BY d.kind ORDER BY d.kind
                        """)
            )
        }
        #expect(kinds == ["jws", "received"])
        #expect(withoutDictionary == 0)
        #expect(perKind.map { $0["kind"] as String } == ["jws", "received"])
        // Without a dictionary: 954 bytes a v2 layout, 733 a v1 notification (docs/performance.md,
        // "A dictionary per kind of body").
        #expect(perKind.map { $0["bytes"] as Int }.allSatisfy { $0 < 450 }, "\(perKind)")
    }
}
