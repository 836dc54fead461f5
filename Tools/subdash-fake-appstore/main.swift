import AppStoreFake
import ArgumentParser
import Crypto
import Foundation

/// The tests' fake App Store Server API as a process, for end-to-end runs of subdash against
/// loopback (README, "Support actions"). Test tooling: not shipped, never pointed at real data.
@main struct FakeAppStoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subdash-fake-appstore",
        abstract: "Test tooling, not part of subdash: a fake App Store Server API on loopback for end-to-end runs.",
        discussion: """
            Serves the support endpoints (Look Up Order ID, Extend a Subscription Renewal Date, mass \
            extensions, Set App Account Token, Send Consumption Information, Get Refund History) with \
            Apple's validation and error codes, on 127.0.0.1 only. Every request's token is checked as \
            Apple checks it: ES256 signed by --key, key id \(FakeAppStore.keyId), issuer \
            \(FakeAppStore.issuerId), the bundle id given. What it answers is signed by a test \
            certificate chain whose root --root-out writes: subdash verifies it only with \
            `--trust-root` that file. Each request is written to standard error as it arrives.

            --seed is a JSON file: {"orders": {"ORDERID": [TRANSACTION, …]}, "renewalDates": \
            {"ORIGINAL_TRANSACTION_ID": MILLISECONDS}}, TRANSACTION being a JWSTransactionDecodedPayload \
            object; the subscriptions of the orders may be extended from their latest expiresDate.
            """)

    @Option(help: "The loopback port to listen on (0: a free one; the URL is printed).")
    var port = 0

    @Option(help: "The .p8 private key the client signs its tokens with (its public half checks them).")
    var key: String

    @Option(name: .customLong("bundle-id"), help: "The app the tokens must be for.")
    var bundleId = FakeAppStore.bundleId

    @Option(help: "A JSON file of orders and subscriptions (see above).")
    var seed: String?

    @Option(name: .customLong("root-out"), help: "Where to write the test root certificate (PEM) its answers chain to.")
    var rootOut: String?

    func run() async throws {
        let pem: String
        do { pem = try String(contentsOfFile: key, encoding: .utf8) } catch {
            throw ValidationError("--key \(key): cannot read the file")
        }
        let privateKey: P256.Signing.PrivateKey
        do { privateKey = try P256.Signing.PrivateKey(pemRepresentation: pem) } catch {
            throw ValidationError("--key \(key): not a P-256 private key in PEM")
        }
        let fake = try FakeAppStore(publicKey: privateKey.publicKey, bundleId: bundleId) { method, path, body, problem in
            let line = "\(method) \(path) \(body)" + (problem.map { " (token refused: \($0))" } ?? "")
            FileHandle.standardError.write(Data((line.filter { $0 != "\n" } + "\n").utf8))
        }
        if let seed { try Self.load(seed, into: fake) }
        if let rootOut {
            try FakeAppStore.chain.get().rootPEM().write(toFile: rootOut, atomically: true, encoding: .utf8)
        }
        try await fake.serve(port: port) { base in
            FileHandle.standardOutput.write(Data("listening on \(base)\n".utf8))
            while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
        }
    }

    static func load(_ path: String, into fake: FakeAppStore) throws {
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw ValidationError("--seed \(path): not a JSON object") }
        var orders: [String: [String]] = [:]
        var renewals: [String: Int64] = [:]
        for (order, transactions) in object["orders"] as? [String: [[String: Any]]] ?? [:] {
            orders[order] = try transactions.map { transaction in
                if let id = transaction["originalTransactionId"] as? String,
                    let expires = (transaction["expiresDate"] as? NSNumber)?.int64Value
                {
                    renewals[id] = max(renewals[id] ?? 0, expires)
                }
                return String(decoding: try JSONSerialization.data(withJSONObject: transaction), as: UTF8.self)
            }
        }
        for (id, date) in object["renewalDates"] as? [String: NSNumber] ?? [:] { renewals[id] = date.int64Value }
        fake.support.withLock {
            $0.orders.merge(orders) { $1 }
            $0.renewalDates.merge(renewals) { $1 }
        }
        FileHandle.standardError.write(
            Data(
                "seeded \(orders.count) order\(orders.count == 1 ? "" : "s"), \(renewals.count) subscription\(renewals.count == 1 ? "" : "s")\n"
                    .utf8))
    }
}
