import AppStoreServerAPI
import ArgumentParser
import Dashboard
import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// Apple's `deliveryStatus` values, as the command line names them.
enum DeliveryStatus: String, ExpressibleByArgument, CaseIterable {
    case delivered
    case undeliveredQuality = "undelivered-quality"
    case undeliveredWrongItem = "undelivered-wrong-item"
    case undeliveredOutage = "undelivered-outage"
    case undeliveredOther = "undelivered-other"

    var apple: String {
        switch self {
        case .delivered: "DELIVERED"
        case .undeliveredQuality: "UNDELIVERED_QUALITY_ISSUE"
        case .undeliveredWrongItem: "UNDELIVERED_WRONG_ITEM"
        case .undeliveredOutage: "UNDELIVERED_SERVER_OUTAGE"
        case .undeliveredOther: "UNDELIVERED_OTHER"
        }
    }
}

/// Apple's `refundPreference` values.
enum RefundPreference: String, ExpressibleByArgument, CaseIterable {
    case decline
    case grantFull = "grant-full"
    case grantProrated = "grant-prorated"

    var apple: String {
        switch self {
        case .decline: "DECLINE"
        case .grantFull: "GRANT_FULL"
        case .grantProrated: "GRANT_PRORATED"
        }
    }
}

struct Consumption: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consumption",
        abstract: "Apple's refund consumption requests: the queue (--pending), and answering one (Send Consumption Information).",
        discussion: """
            Without TRANSACTION_ID: every CONSUMPTION_REQUEST stored, with the subscriber, product, Apple's \
            reason, its age, how much of the period was used when it came, who answered and, once the REFUND or \
            REFUND_DECLINED notification arrives, the outcome. With TRANSACTION_ID: sends the answer, after \
            Apple's rules are checked (the customer's consent; a percentage only with --delivery delivered; no \
            percentage with grant-prorated for a subscription). The answer and Apple's reply go to `subdash log`.
            """)
    @OptionGroup var store: StoreOptions
    @OptionGroup var verification: VerificationOptions
    @OptionGroup var api: APIOptions
    @OptionGroup var identity: SupportIdentity
    @Argument(help: "The transaction Apple asked about.") var transactionId: String?
    @Flag(help: "Only the requests not answered yet.") var pending = false
    @Option(help: "How to print the queue.") var format: OutputFormat = .table
    @Option(help: "Whether the purchase was delivered and working.") var delivery: DeliveryStatus?
    @Option(help: "Percent of the purchase consumed (0–100), only with --delivery delivered.") var consumed: Int?
    @Option(help: "Your preference: decline, grant-full or grant-prorated.") var refund: RefundPreference?
    @Flag(name: .customLong("customer-consented"), help: "The customer consented to sending this information.")
    var customerConsented = false
    @Flag(name: .customLong("sample-content"), help: "The customer was given sample content (a free trial, a preview).")
    var sampleContent = false
    @Flag(help: "Confirm without asking.") var yes = false

    func validate() throws {
        guard transactionId != nil else {
            if delivery != nil || consumed != nil || refund != nil || customerConsented || sampleContent {
                throw ValidationError("the answer's options go with a TRANSACTION_ID")
            }
            return
        }
        guard delivery != nil else {
            throw ValidationError("give --delivery (\(DeliveryStatus.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        guard refund != nil else { throw ValidationError("give --refund decline, grant-full or grant-prorated") }
        guard customerConsented else {
            throw ValidationError(
                "Apple takes consumption information only with the customer's consent: pass --customer-consented once they gave it"
            )
        }
        // Apple's rules, as the dashboard's :answer form checks them (ConsumptionRules).
        switch ConsumptionRules.refusal(
            delivery: delivery?.rawValue ?? "", consumed: consumed, refund: refund?.rawValue ?? "", consented: true)
        {
        case nil, .noConsent: break
        case .percentOutOfRange(let consumed): throw ValidationError("--consumed \(consumed): a percentage is 0 to 100")
        case .percentUndelivered:
            throw ValidationError(
                "--consumed goes only with --delivery delivered (Apple: an undelivered purchase was not consumed)")
        case .percentProrated:
            throw ValidationError("--consumed goes not with --refund grant-prorated: Apple prorates a subscription by itself")
        }
    }

    mutating func run() async throws {
        guard let transactionId else { return try list() }
        let (delivery, consumed, refund, sample, yes, who) = (
            delivery!, consumed, refund!, sampleContent, yes, try identity.resolve()
        )
        try await FetchRun.run(
            store: store, verification: verification, api: api, actionLog: try await identity.team.actionLog()
        ) { run in
            run.summary = false
            let database = run.sink.database
            let requests = try database.consumptionRequests().filter { $0.transactionId == transactionId }
            guard let request = requests.last else {
                throw CLIError(
                    "not sent: Apple has asked for no consumption information about \(TextSanitizer.visible(transactionId)) (no CONSUMPTION_REQUEST stored)",
                    code: 2)
            }
            if let done = try database.supportActions(target: transactionId, kind: .consumption).last(where: {
                $0.settled?.outcome == .done
            }),
                done.at >= request.at
            {
                throw CLIError(
                    "not sent: \(transactionId) was answered by \(done.operatorName) at \(done.at.iso8601) (\(done.summary))",
                    code: 2)
            }
            if let id = request.originalTransactionId {
                let report = try SubscriberAnalytics(database: database).subscriber(
                    originalTransactionId: id, asOf: Instant(Date()))
                try SupportChecks.sameAppAndEnvironment(report, run: run, database: database)
            }
            let body = Data(
                ConsumptionRules.body(
                    delivery: delivery.rawValue, consumed: consumed, refund: refund.rawValue, sampleContent: sample
                ).utf8)
            let summary = ConsumptionRules.summary(
                delivery: delivery.rawValue, consumed: consumed, refund: refund.rawValue, sampleContent: sample)
            try ActionConfirmation.confirm(
                "Answer Apple's consumption request about \(transactionId) (\(run.environment.rawValue), \(request.reason ?? "no reason given")): \(summary).",
                yes: yes)
            try await run.audited(
                .consumption, target: transactionId, summary: summary, request: String(decoding: body, as: UTF8.self),
                operatorName: who
            ) {
                try await run.client.sendConsumptionInformation(transactionId: transactionId, body: body)
                return ((), SupportAnswer(outcome: .done, answer: "accepted", at: Instant(Date())))
            }
            printOutput("answered Apple's consumption request about \(transactionId): accepted")
        }
    }

    func list() throws {
        let database: AppDatabase
        do { database = try store.open(readOnly: true) } catch let e as CLIError { e.exit() }
        let analytics = SubscriberAnalytics(database: database)
        let now = Instant(Date())
        var rows: [[String]] = []
        var json: [JSONOutput] = []
        for request in try database.consumptionRequests() {
            let id = request.transactionId ?? ""
            let answered = try database.supportActions(target: id, kind: .consumption).last {
                $0.settled?.outcome == .done && $0.at >= request.at
            }
            if pending && answered != nil { continue }
            var product = ""
            var used: String = ""
            var paidPeriods = ""
            if let original = request.originalTransactionId,
                let report = try? analytics.subscriber(originalTransactionId: original, asOf: now)
            {
                paidPeriods = "\(report.paidPeriodsInAllRuns)"
                if let period = report.timeline.periods.first(where: { $0.transactionId == id }) {
                    product = period.productId
                    let length = max(1, period.end.milliseconds - period.start.milliseconds)
                    let elapsed = min(max(0, request.at.milliseconds - period.start.milliseconds), length)
                    used = "\(elapsed * 100 / length) %"
                }
            }
            let hours = max(0, now.milliseconds - request.at.milliseconds) / 3_600_000
            let age = hours < 48 ? "\(hours) h" : "\(hours / 24) d"
            let answer = answered.map { "\($0.operatorName) \($0.at.iso8601): \($0.summary)" } ?? ""
            let outcome = request.outcome.map { "\($0.type) \($0.at.iso8601)" } ?? ""
            rows.append(
                [
                    request.at.iso8601, age, id, request.originalTransactionId ?? "", product, request.reason ?? "", used,
                    paidPeriods, answer, outcome,
                ]
                .map(TextSanitizer.visible))
            var o = JSONOutputObject()
            o["requestedAt"] = .string(request.at.iso8601)
            o["transactionId"] = .string(id)
            o["originalTransactionId"] = request.originalTransactionId.map(JSONOutput.string) ?? .null
            o["productId"] = product.isEmpty ? .null : .string(product)
            o["reason"] = request.reason.map(JSONOutput.string) ?? .null
            o["periodUsed"] = used.isEmpty ? .null : .string(used)
            o["answeredBy"] = answered.map { .string($0.operatorName) } ?? .null
            o["answer"] = answered.map { .string($0.summary) } ?? .null
            o["outcome"] = request.outcome.map { .string($0.type) } ?? .null
            json.append(.object(o))
        }
        switch format {
        case .json: print(JSONOutput.array(json).text)
        case .csv:
            printCSV(
                CSV.render(
                    header: [
                        "requestedAt", "age", "transactionId", "subscription", "product", "reason", "periodUsed", "paidPeriods",
                        "answered", "outcome",
                    ],
                    rows: rows))
        case .table:
            if rows.isEmpty {
                printOutput(pending ? "no consumption request waits for an answer" : "no consumption request stored")
                return
            }
            var table = TextTable(headers: [
                "requested", "age", "transaction", "subscription", "product", "reason", "period used", "paid periods", "answered",
                "outcome",
            ])
            table.rows = rows
            table.footer = ["\(rows.count) request\(rows.count == 1 ? "" : "s")"] + Array(repeating: "", count: 9)
            print(table.render())
        }
    }
}
