import AppStorePayloads
import AppStoreServerAPI
import ArgumentParser
import Dashboard
import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// Who acts and on what environment, for every support command: the operator identity flags
/// use, and the environment the credentials act on, written into the audit log with each action.
struct SupportIdentity: ParsableArguments {
    @Option(name: .customLong("operator"), help: "Who acts, for the audit log (default: $USER, else the login name).")
    var operatorName: String?
    @OptionGroup var team: TeamOptions

    func resolve() throws -> String {
        guard let who = OperatorIdentity.resolve(option: operatorName) else {
            throw CLIError(OperatorIdentity.missingMessage, code: ExitStatus.usage)
        }
        return who
    }
}

extension AppStoreServerEnvironment {
    /// The store's name of this environment (`Production`, `Sandbox`).
    var storeEnvironment: StoreEnvironment { self == .production ? .production : .sandbox }
}

extension FetchRun {
    /// Writes the action before it is sent, runs `body`, and appends Apple's answer (what `body`
    /// returns) or the error, said as the command says it.
    func audited<T>(
        _ kind: SupportAction.Kind, target: String, summary: String, request: String? = nil, requestIdentifier: String? = nil,
        operatorName: String, _ body: () async throws -> (T, SupportAnswer)
    ) async throws -> T {
        let database = sink.database
        let id = try database.beginSupportAction(
            kind: kind, target: target, environment: environment.rawValue, summary: summary, request: request,
            requestIdentifier: requestIdentifier, operatorName: operatorName, at: Instant(Date()))
        do {
            let (value, answer) = try await body()
            try database.recordSupportAnswer(answer, action: id)
            return value
        } catch let error as AppStoreAPIError {
            // An answer with an error code is Apple's refusal; anything else leaves it unknown.
            let outcome: SupportAnswer.Outcome = error.status.map { $0 < 500 && $0 != 429 } == true ? .refused : .failed
            try database.recordSupportAnswer(
                SupportAnswer(outcome: outcome, answer: error.message, errorCode: error.appleErrorCode, at: Instant(Date())),
                action: id)
            throw error
        }
    }
}

extension Fetch {
    struct OrderLookupCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "order",
            abstract: "Look Up Order ID: find a customer by the order ID of Apple's receipt email, import and show them.",
            discussion: """
                Imports the signed transactions Apple returns for the order (verified, as every fetch) and prints \
                each subscription as `report subscriber` does. Apple does not offer the lookup in the sandbox. \
                The lookup is written to the audit log (`subdash log`).
                """)
        @OptionGroup var store: StoreOptions
        @OptionGroup var verification: VerificationOptions
        @OptionGroup var api: APIOptions
        @OptionGroup var identity: SupportIdentity
        @Argument(help: "The order ID on the customer's receipt (e.g. MK4H9N2XQ1).") var orderId: String

        func validate() throws {
            guard Self.isOrderIdShaped(orderId) else {
                throw ValidationError(
                    "\(TextSanitizer.visible(orderId)) is not an order ID: Apple's are letters and digits (e.g. MK4H9N2XQ1)")
            }
        }

        /// Letters and digits, 6 to 32 of them: the shape of the order ID on Apple's receipt.
        static func isOrderIdShaped(_ s: String) -> Bool { OrderID.isShaped(s) }

        mutating func run() async throws {
            let (orderId, who) = (orderId.uppercased(), try identity.resolve())
            var found: [String] = []
            try await FetchRun.run(
                store: store, verification: verification, api: api, actionLog: try await identity.team.actionLog()
            ) { run in
                guard run.environment == .production else {
                    throw CLIError(
                        "Apple does not offer Look Up Order ID in the sandbox: sandbox purchases have no order ID. "
                            + "Find a sandbox customer by a transaction id (`subdash fetch history ID --sandbox`)", code: 2)
                }
                let lookup = try await run.audited(
                    .lookupOrder, target: orderId, summary: "look up order \(orderId)", operatorName: who
                ) {
                    let lookup = try await run.client.lookUpOrder(orderId)
                    let answer =
                        lookup.valid
                        ? "status 0: \(lookup.transactionCount) transaction\(lookup.transactionCount == 1 ? "" : "s")"
                        : "status 1: not a valid order ID"
                    return (lookup, SupportAnswer(outcome: lookup.valid ? .done : .refused, answer: answer, at: Instant(Date())))
                }
                guard lookup.valid else {
                    throw CLIError(
                        "Apple says \(orderId) is not a valid order ID (status 1): check it against the customer's receipt email")
                }
                let stored = try run.store(lookup.body, source: "api:lookup/\(orderId)")
                if case .body(let body) = lookup.body { found = try Self.subscriptions(in: body, database: run.sink.database) }
                if lookup.transactionCount == 0 || stored.transactions == 0 && found.isEmpty {
                    throw CLIError("Apple knows order \(orderId) but returned no transaction of this app")
                }
            }
            let analytics = SubscriberAnalytics(database: try store.open(readOnly: true))
            for (index, id) in found.enumerated() {
                let report = try analytics.subscriber(originalTransactionId: id, asOf: Instant(Date()))
                print((index > 0 ? "\n" : "") + SubscriberOutput(report).table)
            }
        }

        /// The subscriptions of the order's transactions that the store holds now (the
        /// transactions that failed verification were not applied and name none).
        static func subscriptions(in body: Data, database: AppDatabase) throws -> [String] {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                let signed = object["signedTransactions"] as? [String]
            else { return [] }
            var ids: [String] = []
            for jws in signed {
                let parts = jws.split(separator: ".")
                guard parts.count == 3, let data = Data(base64URL: String(parts[1])),
                    let payload = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    let transactionId = payload["transactionId"] as? String
                else { continue }
                for id in try database.subscriptions(matching: transactionId) where !ids.contains(id) { ids.append(id) }
            }
            return ids
        }
    }

    struct RefundsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refunds",
            abstract: "Get Refund History: every refund Apple granted the customer, imported (every page).",
            discussion: """
                Refunds of earlier months appear where their notifications were missed. Only refunds Apple \
                approved are listed. Written to the audit log (`subdash log`).
                """)
        @OptionGroup var store: StoreOptions
        @OptionGroup var verification: VerificationOptions
        @OptionGroup var api: APIOptions
        @OptionGroup var identity: SupportIdentity
        @Argument(help: "Any transaction id of the customer.") var transactionId: String

        mutating func run() async throws {
            let (id, who) = (transactionId, try identity.resolve())
            try await FetchRun.run(
                store: store, verification: verification, api: api, actionLog: try await identity.team.actionLog()
            ) { run in
                try await run.audited(.refundHistory, target: id, summary: "refund history of \(id)", operatorName: who) {
                    var (transactions, pages) = (0, 0)
                    try await run.client.refundHistory(id) { body, page in
                        transactions += try run.store(body, source: "api:refund-history/\(id) page \(page)").transactions
                        pages = page
                        run.progress.show("fetch refunds \(id): page \(page), \(transactions) refunded transactions")
                    }
                    run.progress.clear()
                    printOutput(
                        "\(transactions) refunded transaction\(transactions == 1 ? "" : "s") from Apple (\(pages) page\(pages == 1 ? "" : "s"))"
                    )
                    return (
                        (),
                        SupportAnswer(
                            outcome: .done, answer: "\(transactions) refunded transactions, \(pages) pages", at: Instant(Date()))
                    )
                }
            }
        }
    }
}
