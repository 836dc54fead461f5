import AppStoreServerAPI
import ArgumentParser
import Foundation
import ReportOutputs
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import SubscriptionTimeline
import TerminalUI

extension AppStoreServerClient.ExtendReason: ExpressibleByArgument {}

/// Asks the operator to confirm an action that changes something at Apple: `--yes` confirms
/// beforehand; without it a terminal is asked, and anything else is refused (nothing is sent).
enum ActionConfirmation {
    static func confirm(_ plan: String, yes: Bool) throws {
        printOutput(plan)
        if yes { return }
        guard isatty(0) != 0 else {
            throw CLIError(
                "not confirmed: pass --yes to act without a question (nothing was sent to Apple)", code: ExitStatus.usage)
        }
        FileHandle.standardError.write(Data("Proceed? [y/N] ".utf8))
        let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else {
            throw CLIError("not confirmed: nothing was sent to Apple", code: ExitStatus.usage)
        }
    }
}

struct Extend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extend",
        abstract: "Extend a subscription's renewal date at Apple (or every active subscriber's of a product), audited.",
        discussion: """
            Apple's limits are checked in the store before anything is sent: 1 to 90 days; at most twice per \
            365 days per subscription (counted from the stored RENEWAL_EXTENDED notifications and the audit \
            log); not during a free offer period, billing retry, a grace period or after it expired; not \
            family-shared; the credentials' environment and app must be the subscription's. A confirmation \
            names the new renewal date (--yes gives it beforehand). The request and its requestIdentifier are \
            stored before they are sent: after a timeout, running the same command again sends the same \
            request identifier. An extension cannot be undone, and Apple emails the customer. \
            --all extends every active subscriber of --product (Apple's mass extension; --status polls it).
            """)
    @OptionGroup var store: StoreOptions
    @OptionGroup var verification: VerificationOptions
    @OptionGroup var api: APIOptions
    @OptionGroup var identity: SupportIdentity
    @Argument(help: "Any id of the subscriber.") var id: String?
    @Option(help: "Days to add to the renewal date (1–90).") var days: Int?
    @Option(help: "Apple's reason: customer-satisfaction, service-issue, other or undeclared.") var reason:
        AppStoreServerClient.ExtendReason?
    @Flag(help: "Confirm without asking.") var yes = false
    @Flag(help: "Every active subscriber of --product (after an outage).") var all = false
    @Option(help: "The product of --all or --status.") var product: String?
    @Option(name: .customLong("storefront"), help: "With --all: only this storefront (ISO 3166-1 alpha-3, e.g. USA); repeatable.")
    var storefronts: [String] = []
    @Option(help: "The request identifier of a mass extension to poll (with --product).") var status: String?

    func validate() throws {
        if let status {
            guard id == nil, !all, days == nil, reason == nil else {
                throw ValidationError("--status takes only --product (it polls a mass extension)")
            }
            guard product != nil else { throw ValidationError("--status needs --product (the mass extension's product)") }
            guard !status.isEmpty, status.count <= 128 else { throw ValidationError("--status: not a request identifier") }
            return
        }
        guard let days else { throw ValidationError("give --days N (1 to 90)") }
        guard (1...90).contains(days) else {
            throw ValidationError("--days \(days): Apple extends by 1 to 90 days")
        }
        guard reason != nil else {
            throw ValidationError("give --reason customer-satisfaction, service-issue, other or undeclared")
        }
        if all {
            guard id == nil else { throw ValidationError("--all extends every active subscriber of --product: give no ID") }
            guard product != nil else { throw ValidationError("--all needs --product") }
            for code in storefronts where !(code.count == 3 && code.allSatisfy { $0.isASCII && $0.isUppercase }) {
                throw ValidationError(
                    "--storefront \(TextSanitizer.visible(code)): a storefront is three capital letters (USA, FRA, …)")
            }
        } else {
            guard id != nil else { throw ValidationError("give the subscriber's ID (or --all --product ID)") }
            guard storefronts.isEmpty, product == nil else { throw ValidationError("--product and --storefront go with --all") }
        }
    }

    mutating func run() async throws {
        let who = try identity.resolve()
        if let status, let product { return try await poll(status, product: product, who: who) }
        if all { return try await extendAll(who: who) }
        try await extendOne(who: who)
    }

    func extendOne(who: String) async throws {
        let (days, reason, yes, query) = (days!, reason!, yes, id!)
        let now = Instant(Date())
        try await FetchRun.run(
            store: store, verification: verification, api: api, actionLog: try await identity.team.actionLog()
        ) { run in
            run.summary = false
            let database = run.sink.database
            let analytics = SubscriberAnalytics(database: database)
            let target: String
            switch try analytics.subscriber(query, asOf: now) {
            case .notFound: throw CLIError("no subscription matches \(TextSanitizer.visible(query))", code: 2)
            case .ambiguous(_, let matches):
                throw CLIError(
                    "\(TextSanitizer.visible(query)) matches \(matches.count) subscriptions (\(matches.prefix(5).joined(separator: ", "))): "
                        + "give an originalTransactionId", code: 2)
            case .found(let report): target = report.originalTransactionId
            }
            let report = try analytics.subscriber(originalTransactionId: target, asOf: now)
            try SupportChecks.sameAppAndEnvironment(report, run: run, database: database)
            let counted = try database.extensionsCounted(originalTransactionId: target, since: now.adding(days: -365))
            if let refusal = ExtensionEligibility.refusal(report, counted: counted, now: now) {
                throw CLIError("not sent: " + refusal, code: 2)
            }
            guard let renewal = ExtensionEligibility.renewalDate(report) else {
                throw CLIError("not sent: \(target) has no current period to extend", code: 2)
            }
            // An extension that got no answer is sent again as it was: Apple applies a request
            // identifier once.
            var body = AppStoreServerClient.extendRequestBody(days: days, reason: reason, requestIdentifier: UUID().uuidString)
            var requestIdentifier: String?
            var resent: SupportAction?
            let asked = try database.supportActions(target: target, kind: .extend)
            let settled = Set(asked.filter { $0.settled != nil }.compactMap(\.requestIdentifier))
            if let open = asked.last(where: { $0.settled == nil && !settled.contains($0.requestIdentifier ?? "") }),
                let request = open.request
            {
                let same = AppStoreServerClient.extendRequestBody(
                    days: days, reason: reason, requestIdentifier: open.requestIdentifier ?? "")
                guard Data(request.utf8) == same else {
                    throw CLIError(
                        "not sent: an extension of \(target) asked by \(open.operatorName) at \(open.at.iso8601) (\(open.summary)) "
                            + "got no answer from Apple; run that same extension again to send it with its request identifier "
                            + "\(open.requestIdentifier ?? "?"), or check with `subdash fetch statuses \(target)` whether Apple applied it",
                        code: 2)
                }
                body = same
                requestIdentifier = open.requestIdentifier
                resent = open
            }
            if requestIdentifier == nil {
                let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
                requestIdentifier = object?["requestIdentifier"] as? String
            }
            let newDate = renewal.adding(days: Int64(days))
            var plan =
                "Extend \(target) (\(report.productId ?? "?"), \(run.environment.rawValue)) by \(days) day\(days == 1 ? "" : "s"), "
                + "reason \(reason.rawValue): renewal date \(renewal.iso8601) → \(newDate.iso8601).\n"
                + "Apple emails the customer; an extension cannot be undone. Extensions in the last 365 days: \(counted.count) of 2."
            if let resent {
                plan +=
                    "\nSent again: the extension asked by \(resent.operatorName) at \(resent.at.iso8601) got no answer "
                    + "(request identifier \(resent.requestIdentifier ?? "?"))."
            }
            try ActionConfirmation.confirm(plan, yes: yes)
            let request = String(decoding: body, as: UTF8.self)
            let answer = try await run.audited(
                .extend, target: target, summary: "extend by \(days) days (\(reason.rawValue))", request: request,
                requestIdentifier: requestIdentifier, operatorName: who
            ) {
                let answer = try await run.client.extendRenewalDate(originalTransactionId: target, body: body)
                return (
                    answer,
                    SupportAnswer(
                        outcome: answer.success ? .done : .refused, answer: answer.text,
                        effectiveDate: answer.effectiveDateMilliseconds.map(Instant.init(milliseconds:)), at: Instant(Date()))
                )
            }
            guard answer.success else { throw CLIError("Apple did not extend \(target): success false (\(answer.text))") }
            let effective = answer.effectiveDateMilliseconds.map { Instant(milliseconds: $0).iso8601 } ?? "not given"
            printOutput(
                "extended \(target) by \(days) days: Apple's new renewal date \(effective) (request identifier \(requestIdentifier ?? "?")); "
                    + "the RENEWAL_EXTENDED notification that follows is matched to it in `subdash log`")
        }
    }

    func extendAll(who: String) async throws {
        let (days, reason, yes, product, storefronts) = (days!, reason!, yes, product!, storefronts)
        try await FetchRun.run(
            store: store, verification: verification, api: api, actionLog: try await identity.team.actionLog()
        ) { run in
            run.summary = false
            let database = run.sink.database
            if let app = try database.storeApp(), app.bundleId != run.bundleId {
                throw CLIError(
                    "not sent: the credentials are for \(run.bundleId) and the store holds \(app.bundleId)'s subscriptions",
                    code: 2)
            }
            let known = try SubscriberAnalytics(database: database).productIds(scope: ReportScope(environment: .all))
            if !known.contains(product) {
                printError(
                    "warning: the store has no subscription of \(TextSanitizer.visible(product)); Apple knows its products")
            }
            let requestIdentifier = UUID().uuidString
            let body = AppStoreServerClient.massExtendRequestBody(
                productId: product, days: days, reason: reason, requestIdentifier: requestIdentifier, storefronts: storefronts)
            let scope = storefronts.isEmpty ? "every storefront" : "storefronts " + storefronts.joined(separator: ", ")
            try ActionConfirmation.confirm(
                "Extend every active subscriber of \(product) (\(run.environment.rawValue), \(scope)) by \(days) days, "
                    + "reason \(reason.rawValue).\nApple emails each customer; extensions cannot be undone; it can take Apple hours or days.",
                yes: yes)
            let id = try await run.audited(
                .massExtend, target: product,
                summary: "extend every active subscriber by \(days) days (\(reason.rawValue), \(scope))",
                request: String(decoding: body, as: UTF8.self), requestIdentifier: requestIdentifier, operatorName: who
            ) {
                let id = try await run.client.massExtend(body: body)
                return (id, SupportAnswer(outcome: .done, answer: "accepted: requestIdentifier \(id)", at: Instant(Date())))
            }
            printOutput("mass extension requested: \(id)\npoll it with `subdash extend --status \(id) --product \(product)`")
        }
    }

    func poll(_ requestIdentifier: String, product: String, who: String) async throws {
        try await FetchRun.run(
            store: store, verification: verification, api: api, actionLog: try await identity.team.actionLog()
        ) { run in
            run.summary = false
            let status = try await run.audited(
                .massExtendStatus, target: product, summary: "status of mass extension \(requestIdentifier)",
                requestIdentifier: requestIdentifier, operatorName: who
            ) {
                let status = try await run.client.massExtendStatus(productId: product, requestIdentifier: requestIdentifier)
                return (status, SupportAnswer(outcome: .done, answer: status.text, at: Instant(Date())))
            }
            let counts =
                "\(status.succeededCount.map(String.init) ?? "?") succeeded, \(status.failedCount.map(String.init) ?? "?") failed"
            if status.complete {
                let when = status.completeDateMilliseconds.map { " on " + Instant(milliseconds: $0).iso8601 } ?? ""
                printOutput("mass extension \(requestIdentifier): complete\(when): \(counts)")
            } else {
                printOutput("mass extension \(requestIdentifier): running: \(counts) so far")
            }
        }
    }
}

/// Checks every action makes before sending.
enum SupportChecks {
    /// The credentials are for the store's app, and act on the subscription's environment: a
    /// sandbox key never acts on production data, nor a production key on sandbox data.
    static func sameAppAndEnvironment(_ report: SubscriberReport, run: FetchRun, database: AppDatabase) throws {
        if let app = try database.storeApp(), app.bundleId != run.bundleId {
            throw CLIError(
                "not sent: the credentials are for \(run.bundleId) and the store holds \(app.bundleId)'s subscriptions", code: 2)
        }
        let environment = report.timeline.environment
        guard environment == run.environment.storeEnvironment else {
            throw CLIError(
                "not sent: \(report.originalTransactionId) is a \(environment.rawValue) subscription and the credentials act on "
                    + "\(run.environment.rawValue)\(run.environment == .sandbox ? " (--sandbox)" : "")", code: 2)
        }
    }
}

struct Link: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Set App Account Token: link a purchase made without an appAccountToken to your account's UUID, audited.",
        discussion: """
            Refused before sending for a family-shared purchase, a token that is not a UUID, and an id that is \
            not the subscription's original transaction id. When Apple confirms, the transaction history is \
            fetched again so the store holds the token as Apple signs it. Apple keeps one token per purchase: \
            a later link replaces it.
            """)
    @OptionGroup var store: StoreOptions
    @OptionGroup var verification: VerificationOptions
    @OptionGroup var api: APIOptions
    @OptionGroup var identity: SupportIdentity
    @Argument(help: "The original transaction id of the purchase.") var originalTransactionId: String
    @Option(help: "Your account's UUID for the customer.") var token: String
    @Flag(help: "Confirm without asking.") var yes = false

    func validate() throws {
        guard UUID(uuidString: token) != nil else {
            throw ValidationError(
                "--token \(TextSanitizer.visible(token)): an app account token is a UUID (8-4-4-4-12 hex digits)")
        }
    }

    mutating func run() async throws {
        let (id, token, yes, who) = (originalTransactionId, token.lowercased(), yes, try identity.resolve())
        try await FetchRun.run(
            store: store, verification: verification, api: api, actionLog: try await identity.team.actionLog()
        ) { run in
            run.summary = false
            let database = run.sink.database
            let analytics = SubscriberAnalytics(database: database)
            guard case .found(let report) = try analytics.subscriber(id, asOf: Instant(Date())) else {
                throw CLIError("not sent: no subscription matches \(TextSanitizer.visible(id))", code: 2)
            }
            guard report.originalTransactionId == id else {
                throw CLIError(
                    "not sent: \(TextSanitizer.visible(id)) is not an original transaction id; the purchase's is \(report.originalTransactionId)",
                    code: 2)
            }
            if report.timeline.isFamilyShared {
                throw CLIError("not sent: \(id) is family-shared: Apple links only the purchaser's own transaction", code: 2)
            }
            try SupportChecks.sameAppAndEnvironment(report, run: run, database: database)
            let current = report.appAccountToken.map { "currently \($0)" } ?? "none yet"
            try ActionConfirmation.confirm(
                "Link \(id) (\(run.environment.rawValue)) to appAccountToken \(token) (\(current)).", yes: yes)
            let body = (try? JSONSerialization.data(withJSONObject: ["appAccountToken": token])) ?? Data()
            try await run.audited(
                .link, target: id, summary: "link to appAccountToken \(token)", request: String(decoding: body, as: UTF8.self),
                operatorName: who
            ) {
                try await run.client.setAppAccountToken(originalTransactionId: id, body: body)
                return ((), SupportAnswer(outcome: .done, answer: "accepted", at: Instant(Date())))
            }
            // The store changes only with what Apple signs: the history carries the token now.
            try await run.client.transactionHistory(id) { body, page in
                _ = try run.store(body, source: "api:history/\(id) page \(page)")
            }
            let after = try SubscriberAnalytics(database: database).subscriber(originalTransactionId: id, asOf: Instant(Date()))
            if after.appAccountToken?.lowercased() == token {
                printOutput("linked \(id) to \(token): Apple confirmed and its signed transactions carry the token")
            } else {
                printOutput("linked \(id) to \(token): Apple confirmed; its signed transactions do not carry the token yet")
            }
        }
    }
}

struct Log: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "The audit log: every flag change and every support action, who, when, what was asked and Apple's answer.",
        discussion: "Oldest first. An extension shows the RENEWAL_EXTENDED notification matched to it once it is stored.")
    @OptionGroup var store: StoreOptions
    @Option(help: "Only this subscription (or order ID, product).") var subscription: String?
    @Option(help: "How to print the log.") var format: OutputFormat = .table

    mutating func run() async throws {
        let db: AppDatabase
        do { db = try store.open(readOnly: true) } catch let e as CLIError { e.exit() }
        let entries = try db.auditLog(target: subscription)
        switch format {
        case .json:
            print(
                JSONOutput.array(
                    entries.map { e in
                        var o = JSONOutputObject()
                        o["at"] = .string(e.at.iso8601)
                        o["operator"] = .string(e.operatorName)
                        o["target"] = .string(e.target)
                        o["kind"] = .string(e.kind)
                        o["what"] = .string(e.what)
                        o["answer"] = .string(e.answer)
                        o["requestIdentifier"] = e.requestIdentifier.map(JSONOutput.string) ?? .null
                        o["environment"] = e.environment.map(JSONOutput.string) ?? .null
                        return .object(o)
                    }
                ).text)
        case .csv:
            printCSV(
                CSV.render(
                    header: ["at", "operator", "target", "kind", "what", "answer", "requestIdentifier", "environment"],
                    rows: entries.map {
                        [
                            $0.at.iso8601, $0.operatorName, $0.target, $0.kind, $0.what, $0.answer, $0.requestIdentifier ?? "",
                            $0.environment ?? "",
                        ]
                    }))
        case .table:
            if entries.isEmpty {
                printOutput("the audit log is empty")
                return
            }
            var table = TextTable(headers: ["at", "operator", "target", "what", "environment", "answer"])
            table.rows = entries.map {
                [$0.at.iso8601, $0.operatorName, $0.target, $0.what, $0.environment ?? "", $0.answer].map(TextSanitizer.visible)
            }
            table.footer = ["\(entries.count) entr\(entries.count == 1 ? "y" : "ies")", "", "", "", "", ""]
            print(table.render())
        }
    }
}
