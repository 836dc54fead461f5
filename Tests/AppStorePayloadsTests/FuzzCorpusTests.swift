import AppStorePayloads
import Foundation
import SubscriptionModel
import Testing

@testable import LifecycleSimulator

/// Thousands of mutants of every SampleData example and a signed notification: each is cut into
/// documents and decoded with real signature verification. Every mutant must end in rejections
/// or clean documents — a crash or a hang fails the whole run.
@Suite struct FuzzCorpusTests {
    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        var seeds: [(String, [UInt8])] = []
        let walker = FileManager.default.enumerator(atPath: Examples.directory.path)
        while let item = walker?.nextObject() as? String {
            guard item.hasSuffix(".json") else { continue }
            seeds.append((item, Array(try Examples.data(item))))
        }
        let signed = try NestedSignatureTests.sign(
            NestedSignatureTests.payload(
                transactionInfo: try NestedSignatureTests.sign(NestedSignatureTests.transaction),
                renewalInfo: try NestedSignatureTests.sign(NestedSignatureTests.renewal)))
        seeds.append(("signed v2", Array(#"{"signedPayload":"\#(signed)"}"#.utf8)))
        return seeds.sorted { $0.0 < $1.0 }
    }

    struct Tally { var mutants = 0, documents = 0, accepted = 0, rejected = 0 }

    /// Every mutant of every seed, `perKind` of each kind (huge strings once per run).
    static func run(perKind: Int, seed: UInt64) throws -> Tally {
        let verifier = try NestedSignatureTests.Counting()
        let decoder = PayloadDecoder(verifier: verifier)
        let reader = DocumentReader()
        var rng = SplitMix64(state: seed)
        let mutator = PayloadMutator()
        var tally = Tally()
        var hugeDone = false
        for (_, bytes) in try seeds() {
            for kind in PayloadMutator.Kind.allCases {
                let count = kind == .hugeString ? (hugeDone ? 0 : 1) : perKind
                if kind == .hugeString && count > 0 { hugeDone = true }
                for _ in 0..<count {
                    let mutant = mutator.mutate(bytes, kind: kind, rng: &rng)
                    tally.mutants += 1
                    for doc in reader.documents(in: Data(mutant)) {
                        tally.documents += 1
                        guard doc.rejection == nil, let body = doc.bytes else {
                            tally.rejected += 1
                            continue
                        }
                        do {
                            _ = try decoder.decode(body)
                            tally.accepted += 1
                        } catch {
                            #expect(!error.reason.isEmpty)
                            tally.rejected += 1
                        }
                    }
                }
            }
        }
        return tally
    }

    @Test func everyMutantIsARejectionOrACleanAccept() throws {
        let started = Date()
        let tally = try Self.run(perKind: 6, seed: 14)
        #expect(tally.mutants > 3000)
        #expect(tally.rejected > tally.mutants / 2)
        #expect(tally.accepted > 0)
        #expect(Date().timeIntervalSince(started) < 300)
    }
}
