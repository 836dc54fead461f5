import Dispatch
import Foundation
import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import Synchronization
import TerminalUI
import ThreadKit

/// Runs effects against the store on a background queue and hands each result back as an action.
public final class EffectRunner: Sendable {
    public let analytics: SubscriberAnalytics
    /// Where `:theme` looks for themes.
    public let themes: ThemeCatalog
    /// Where `ctrl-s` writes its CSV files (an absolute path: the notice shows where the file went).
    public let exportDirectory: String
    /// The instant flag changes are written at.
    public let now: @Sendable () -> Instant
    /// Receives the details of a failed effect (SQLite's message and statement included) while the
    /// status line shows a sentence; nil: they are dropped (`subdash --debug` logs them to stderr).
    public let log: (@Sendable (String) -> Void)?
    /// Where ``Effect/checkStore`` looks; nil when the store cannot be watched.
    public let changes: StoreChangeMonitor?
    /// Fetches a subscription's history and statuses from Apple into the store and says how much
    /// it stored; nil when no App Store Server API credentials are configured.
    public let fetchFromApple: (@Sendable (String) async throws -> String)?
    /// Look Up Order ID at Apple: stores what Apple returns and gives the subscriptions found.
    public let lookUpOrder: (@Sendable (String) async throws -> [String])?
    /// Sends pane 2's extensions to Apple; nil when no App Store Server API credentials are configured.
    public let extender: RenewalExtender?
    /// Sends the `:answer` form's answers to Apple; nil when no App Store Server API credentials are configured.
    public let consumptionAnswerer: ConsumptionAnswerer?
    /// Polls running mass extensions at Apple; nil when no App Store Server API credentials are configured.
    public let massExtensionPoller: MassExtensionPoller?
    /// How far behind the team log the store is, in words (a dashboard started with `--team`).
    public let teamLogStatus: (@Sendable () -> String)?
    private let queue = DispatchQueue(label: "subdash.dashboard.effects")
    /// The effects read beside the others (``Effect/Lane/beside``: pane 6's sections), on the
    /// store's readers, one a core. The pane's fill is measured by `subdash-frames`
    /// (docs/performance.md, "Pane 6 on both cores").
    private let beside = DispatchQueue(label: "subdash.dashboard.beside", attributes: .concurrent)
    private let latestSearch = LatestSearch()

    public init(
        analytics: SubscriberAnalytics, themes: ThemeCatalog = .standard(),
        exportDirectory: String = EffectRunner.exportDirectory(),
        now: @escaping @Sendable () -> Instant = { Instant(Date()) }, log: (@Sendable (String) -> Void)? = nil,
        fetchFromApple: (@Sendable (String) async throws -> String)? = nil,
        lookUpOrder: (@Sendable (String) async throws -> [String])? = nil, extender: RenewalExtender? = nil,
        consumptionAnswerer: ConsumptionAnswerer? = nil, massExtensionPoller: MassExtensionPoller? = nil,
        teamLogStatus: (@Sendable () -> String)? = nil
    ) {
        self.teamLogStatus = teamLogStatus
        self.massExtensionPoller = massExtensionPoller
        self.extender = extender
        self.consumptionAnswerer = consumptionAnswerer
        self.analytics = analytics
        self.fetchFromApple = fetchFromApple
        self.lookUpOrder = lookUpOrder
        self.themes = themes
        self.exportDirectory = exportDirectory
        self.now = now
        self.log = log
        changes = try? StoreChangeMonitor(database: analytics.database)
    }

    /// Where exports go: `--export-dir` when given, else `$XDG_DOWNLOAD_DIR`, else the home
    /// directory; never silently the directory the dashboard happened to be started in. A relative
    /// path is made absolute against `currentDirectory`.
    public static func exportDirectory(
        option: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> String {
        let chosen =
            [option, environment["XDG_DOWNLOAD_DIR"], environment["HOME"]]
            .compactMap { $0 }.first { !$0.isEmpty } ?? NSHomeDirectory()
        let absolute = chosen.hasPrefix("/") ? chosen : currentDirectory + "/" + chosen
        return URL(fileURLWithPath: absolute).standardizedFileURL.path
    }

    /// Runs `effect` off the calling thread, where its ``Effect/lane`` says; `send` is called on
    /// the background queue or task that ran it.
    public func run(_ effect: Effect, send: @escaping @Sendable (Action) -> Void) {
        switch effect.lane {
        case .network:
            Task { send(await request(effect)) }
        case .beside:
            beside.async { [self] in send(perform(effect)) }
        case .inOrder:
            runInOrder(effect, send: send)
        }
    }

    /// A round trip to Apple's API (``Effect/Lane/network``).
    private func request(_ effect: Effect) async -> Action {
        switch effect {
        case .fetchFromApple(let id): await fetch(id)
        case .lookUpOrder(let order): await lookUp(order)
        case .extendRenewal(let order): await extend(order)
        case .answerConsumption(let order): await answerConsumption(order)
        case .pollMassExtension(let product, let request, let operatorName):
            await pollMassExtension(productId: product, requestIdentifier: request, operatorName: operatorName)
        // Not a round trip: read like any other.
        default: perform(effect)
        }
    }

    private func runInOrder(_ effect: Effect, send: @escaping @Sendable (Action) -> Void) {
        if let filter = Self.searchFilter(of: effect) { latestSearch.set(filter) }
        queue.async { [self] in
            // A search typed past before its turn came is not run: its answer would be dropped anyway
            // (the list shows a newer search), and a substring search reads every subscriber.
            if let filter = Self.searchFilter(of: effect), filter != latestSearch.get() {
                send(Self.skipped(effect))
            } else {
                send(perform(effect))
            }
        }
    }

    /// The search text of a pane 1 query (`.some(nil)`: a query without one).
    private static func searchFilter(of effect: Effect) -> String?? {
        switch effect {
        case .loadSubscribers(_, _, _, _, let filter, _, _), .countSubscribers(_, _, let filter, _): .some(filter)
        default: nil
        }
    }

    /// An answer to a skipped query that `update` ignores (its search is no longer the list's).
    private static func skipped(_ effect: Effect) -> Action {
        switch effect {
        case .countSubscribers(_, _, let filter, let population):
            .countedSubscribers(filter: filter, population: population, count: 0)
        default: .loadedSubscribers(offset: -1, rows: [])
        }
    }

    private func fetch(_ id: String) async -> Action {
        guard let fetchFromApple else {
            return .fetchFromAppleFailed(id: id, message: "no App Store Server API credentials")
        }
        do {
            return .fetchedFromApple(id: id, summary: try await fetchFromApple(id))
        } catch {
            return .fetchFromAppleFailed(id: id, message: "\(error)")
        }
    }

    private func lookUp(_ order: String) async -> Action {
        guard let lookUpOrder else { return .orderLookupFailed(order: order, message: "no App Store Server API credentials") }
        do {
            return .orderLookedUp(order: order, ids: try await lookUpOrder(order))
        } catch {
            return .orderLookupFailed(order: order, message: "\(error)")
        }
    }

    /// Runs `effect` here and now: what tests and `run` both use.
    public func perform(_ effect: Effect) -> Action {
        do {
            switch effect {
            case .checkStore:
                return .storeVersion(changes == nil ? 0 : try? changes?.version())
            case .checkImport:
                return .importActivity(try analytics.database.importActivity())
            case .checkTeamLog:
                return .teamLogStatus(teamLogStatus?() ?? "team log: not followed")
            case .refreshHorizon:
                return .refreshedHorizon(try analytics.dataHorizon())
            case .loadHorizon:
                return .loadedHorizon(try analytics.dataHorizon())
            case .loadSubscribers(let offset, let limit, let asOf, let scope, let filter, let population, let sort):
                let rows = try analytics.subscriberList(
                    offset: offset, limit: limit, asOf: asOf, scope: scope,
                    matching: filter, population: population, sort: sort)
                return .loadedSubscribers(offset: offset, rows: rows)
            case .countSubscribers(let asOf, let scope, let filter, let population):
                let count = try analytics.subscriberCount(asOf: asOf, scope: scope, matching: filter, population: population)
                return .countedSubscribers(filter: filter, population: population, count: count)
            case .loadPopulationSize(let population, let asOf, let scope):
                return .loadedPopulationSize(population, try analytics.size(of: population, asOf: asOf, scope: scope))
            case .loadSubscriber(let id, let asOf):
                return .loadedSubscriber(try analytics.subscriber(originalTransactionId: id, asOf: asOf))
            case .lookUpSubscriber(let query):
                return .lookedUpSubscriber(query: query, matches: try analytics.subscriptions(lookingUp: query))
            case .loadCohorts(let asOf, let scope, let duration, let mostCommon):
                let duration = mostCommon ? try analytics.mostCommonBillingDuration(scope: scope) : duration
                // Every cohort from the first: the pane scrolls.
                return .loadedCohorts(
                    try analytics.cohorts(asOf: asOf, periods: 12, to: lastMonth(asOf: asOf), duration: duration, scope: scope),
                    durations: try analytics.billingDurations())
            case .loadStatesEvents(let asOf, let month, let scope):
                return .loadedStatesEvents(try StatesEventsFigures.load(analytics, asOf: asOf, month: month, scope: scope))
            case .loadOffers(let asOf, let scope):
                return .loadedOffers(
                    try offerBoard(asOf: asOf, eligible: try analytics.eligibility(asOf: asOf, scope: scope, emails: true)))
            case .loadOffersFirst(let asOf, let scope, let list, let limit):
                var first: [EligibleSubscriber] = []
                if case .eligible(let kind) = list {
                    first = try analytics.eligibility(asOf: asOf, offers: [kind], scope: scope, limit: limit, emails: true)
                }
                let board = try offerBoard(asOf: asOf, eligible: first)
                return .loadedOffersFirst(board, scope: scope)
            case .loadOfferLists(let kinds, let asOf, let scope):
                let rows = try analytics.eligibility(asOf: asOf, offers: kinds, scope: scope, emails: true)
                return .loadedOfferLists(kinds, asOf: asOf, scope: scope, rows)
            case .loadCampaigns(let asOf, let catalogue):
                return .loadedCampaigns(try analytics.campaignFunnel(asOf: asOf, catalogue: catalogue))
            case .loadMoney(let asOf, let scope):
                return .loadedMoney(try MoneyFigures.loadNow(analytics, asOf: asOf, scope: scope))
            case .loadMoneySection(let section, let asOf, let scope):
                return .loadedMoneySection(
                    asOf: asOf, scope: scope, try MoneyFigures.load(section, analytics, asOf: asOf, scope: scope))
            case .loadTrends(let query):
                return .loadedTrends(try TrendsData.load(analytics, query))
            case .saveChart(let stem, let csv, let svg):
                let paths = try ChartExport.write(directory: exportDirectory, stem: stem, csv: csv, svg: svg)
                return .savedChart(svg: paths.svg, csv: paths.csv)
            case .loadMovementMembers(let bucket, let currency, let asOf, let scope):
                return .loadedMovementMembers(
                    try analytics.movementMembers(bucket: bucket, currency: currency, scope: scope), asOf: asOf, scope: scope)
            case .loadProducts:
                return .loadedProducts(try analytics.productIds())
            case .loadTheme(let name):
                return .loadedTheme(try themes.load(name))
            case .writeFlags(let write):
                let changed = try analytics.database.setFlags(write, at: now())
                return .flagsWritten(write, changed: changed)
            case .exportSubscribers(let stem, let asOf, let scope, let filter, let population):
                var rows: [[String]] = []
                while true {
                    let page = try analytics.subscriberList(
                        offset: rows.count, limit: Self.exportPageSize, asOf: asOf, scope: scope,
                        matching: filter, population: population)
                    rows += page.map(Self.csvRow)
                    if page.count < Self.exportPageSize { break }
                }
                // An empty list writes no file.
                guard !rows.isEmpty else { return .exported(path: nil, rows: 0) }
                let path = try Self.writeNewFile(
                    directory: exportDirectory, stem: "subdash-" + stem, extension: "csv",
                    contents: CSV.render(header: Self.subscriberHeader, rows: rows) + "\n")
                return .exported(path: path, rows: rows.count)
            case .fetchFromApple(let id):
                // Here and now (tests): waits for the background fetch.
                let answer = BlockingChannel<Action>(capacity: 1)
                Task { answer.send(await fetch(id)) }
                return answer.receive() ?? .fetchFromAppleFailed(id: id, message: "no answer")
            case .lookUpOrder(let order):
                let answer = BlockingChannel<Action>(capacity: 1)
                Task { answer.send(await lookUp(order)) }
                return answer.receive() ?? .orderLookupFailed(order: order, message: "no answer")
            case .loadSupport:
                return .loadedSupport(try supportQueue(now: now()))
            case .loadAuditLog(let target):
                return .loadedAuditLog(target: target, try analytics.database.auditLog(target: target))
            case .checkConsumption(let id):
                return .consumptionChecked(try consumptionCheck(id, now: now()))
            case .answerConsumption(let order):
                let answer = BlockingChannel<Action>(capacity: 1)
                Task { answer.send(await answerConsumption(order)) }
                return answer.receive() ?? .consumptionAnswered(message: "no answer", success: false)
            case .checkExtension(let id):
                return .extensionChecked(try extensionCheck(id, now: now()))
            case .loadMassExtensions:
                return .loadedMassExtensions(try massExtensionRows())
            case .pollMassExtension(let product, let request, let operatorName):
                let answer = BlockingChannel<Action>(capacity: 1)
                Task {
                    answer.send(
                        await pollMassExtension(productId: product, requestIdentifier: request, operatorName: operatorName))
                }
                let unanswered = MassExtensionPoll(answer: SupportAnswer(outcome: .failed, answer: "no answer", at: now()))
                return answer.receive()
                    ?? .massExtensionPolled(productId: product, requestIdentifier: request, unanswered)
            case .extendRenewal(let order):
                let answer = BlockingChannel<Action>(capacity: 1)
                Task { answer.send(await extend(order)) }
                return answer.receive() ?? .extensionAnswered(id: order.id, message: "no answer", success: false)
            case .exportOffers(let stem, let kind, let asOf, let scope, let flags, let filter, let sort):
                let list = OfferList.eligible(kind)
                let board = OfferBoard(
                    asOf: asOf, eligible: try analytics.eligibility(asOf: asOf, offers: [kind], scope: scope, emails: true),
                    flags: flags)
                let rows = try withCustomers(
                    OffersPane.rows(board: board, list: list, filter: filter, sort: sort).map { $0.exportCells(for: list) },
                    idColumn: 0
                )
                guard !rows.isEmpty else { return .exported(path: nil, rows: 0) }
                let path = try Self.writeNewFile(
                    directory: exportDirectory, stem: "subdash-" + stem, extension: "csv",
                    contents: CSV.render(header: list.csvHeader + Self.customerHeader, rows: rows) + "\n")
                return .exported(path: path, rows: rows.count)
            case .exportCSV(let stem, let header, let rows, let idColumn):
                guard !rows.isEmpty else { return .exported(path: nil, rows: 0) }
                let rows = try idColumn.map { try withCustomers(rows, idColumn: $0) } ?? rows
                let path = try Self.writeNewFile(
                    directory: exportDirectory, stem: "subdash-" + stem, extension: "csv",
                    contents: CSV.render(header: header + (idColumn == nil ? [] : Self.customerHeader), rows: rows) + "\n")
                return .exported(path: path, rows: rows.count)
            }
        } catch {
            log?("subdash: \(Self.what(effect)) failed: \(error)")
            return .failed(Self.failureSentence(effect, error))
        }
    }

    /// Rows read per query while exporting pane 1's whole list: memory per step stays bounded.
    static let exportPageSize = 10_000

    static let subscriberHeader =
        ["originalTransactionId", "productId", "state", "paidPeriods", "autoRenew", "flags", "environment"] + customerHeader

    /// The columns that name the person behind a subscription, last in every export.
    static let customerHeader = ["userId", "email", "appAccountToken"]

    static func csvRow(_ row: SubscriberRow) -> [String] {
        [
            row.id, row.productId, row.state ?? "", row.paidPeriods.map(String.init) ?? "",
            row.autoRenew.map { $0 ? "on" : "off" } ?? "",
            "\(row.flagCount)", row.environment.rawValue, row.userId ?? "", row.email ?? "", row.appAccountToken ?? "",
        ]
    }

    /// `rows` with the user id, email and appAccountToken of the subscription in `idColumn` added.
    /// Pane 5's board: `eligible`, with the flags and the emails of the flagged subscriptions.
    private func offerBoard(asOf: Instant, eligible: [EligibleSubscriber]) throws -> OfferBoard {
        let flags = try analytics.database.flags()
        return OfferBoard(
            asOf: asOf, eligible: eligible, flags: flags, flagEmails: try analytics.emails(of: flags.map(\.originalTransactionId))
        )
    }

    private func withCustomers(_ rows: [[String]], idColumn: Int) throws -> [[String]] {
        try rows.map { row in
            guard row.indices.contains(idColumn) else { return row + ["", "", ""] }
            let customer = try analytics.database.customer(of: row[idColumn])
            return row + [customer.userId ?? "", customer.email ?? "", customer.appAccountToken ?? ""]
        }
    }

    /// Writes a file that did not exist before (`stem.csv`, else `stem-2.csv`, …) and returns its path:
    /// an export never replaces an earlier one.
    static func writeNewFile(directory: String, stem: String, extension ext: String, contents: String) throws -> String {
        let data = Data(contents.utf8)
        for n in 1...999 {
            let path = directory + "/" + stem + (n == 1 ? "" : "-\(n)") + "." + ext
            // Exports hold customer ids and emails: created 0600, never over another file.
            if try StoreFiles.writeNewPrivateFile(path: path, data: data) { return path }
        }
        throw CocoaError(.fileWriteFileExists)
    }
}

/// The search text of the latest pane 1 query handed to the runner.
private final class LatestSearch: Sendable {
    private let filter = Mutex<String?>(nil)

    func set(_ filter: String?) { self.filter.withLock { $0 = filter } }
    func get() -> String? { filter.withLock { $0 } }
}
