import SubscriberAnalytics
import SubscriptionModel
import TerminalUI

// MARK: - `:` commands

/// The commands the `:` line knows, with what their argument is.
enum CommandName: String, CaseIterable {
    case user, asof, product, env, plan, state, theme, offers, subscribers, cohorts, states, money, log, support, answer, q, quit
    case metric, range, chart, trends

    /// Completed with a space after it when it takes an argument.
    var takesArgument: Bool {
        [.user, .asof, .product, .env, .plan, .state, .theme, .offers, .answer, .metric, .range, .chart].contains(self)
    }
}

extension CommandName {
    /// What `:state` takes: the rows of pane 4's states table (each state, `active`, `total`).
    static var stateNames: [String] { StatesEventsPane.stateRows.map(\.name) }

    static func statePopulation(_ name: String) -> SubscriberPopulation? {
        StatesEventsPane.stateRows.first { $0.name.lowercased() == name.lowercased() }.map { .states($0.states) }
    }
}

/// Runs a submitted `:` line.
func runCommand(_ state: inout AppState, _ text: String) -> [Effect] {
    let words = text.split(separator: " ").map(String.init)
    guard let first = words.first else { return [] }
    let argument = words.dropFirst().joined(separator: " ")
    switch CommandName(rawValue: first) {
    case .q, .quit:
        state.shouldQuit = true
        return []
    case .asof:
        if words.count == 1 {
            // As `:product` alone: back to the default, the data horizon (and following it again).
            state.notice = "as of the data horizon"
            invalidate(&state)
            return [.loadHorizon]
        }
        guard words.count == 2, let day = Instant(parsing: words[1]) else {
            state.status = "usage: :asof YYYY-MM-DD (midnight UTC) or a full ISO 8601 instant; :asof alone: the data horizon"
            return []
        }
        state.asOf = day
        state.notice = "as of \(day.asOfText)"
        invalidate(&state)
        return load(&state, state.pane)
    case .product:
        if !argument.isEmpty, !state.products.contains(argument) {
            state.status = SubscriberAnalytics.unknownProductMessage(
                TextSanitizer.strip(argument),
                known: state.products.map(TextSanitizer.strip))
            return []
        }
        state.scope.productId = argument.isEmpty ? nil : argument
        state.notice = argument.isEmpty ? "every product" : "product \(TextSanitizer.visible(argument))"
        invalidate(&state)
        return load(&state, state.pane)
    case .env:
        guard let environment = EnvironmentFilter(rawValue: argument.lowercased()) else {
            state.status = "usage: :env production|sandbox|all (as --environment; E cycles them)"
            return []
        }
        return setEnvironment(&state, environment)
    case .plan:
        // As `--plan`: the cohort grid shows one plan's members, the Money pane's MRR and revenue,
        // and the States & Events and Trends panes' states and events, one plan's periods
        // (docs/metrics.md, "Billing plans and commitments").
        let choice = argument.isEmpty ? "all" : argument.lowercased()
        guard choice == "all" || BillingPlan(rawValue: choice) != nil else {
            state.status = "usage: :plan upfront|monthly|all (as --plan; :plan alone: all)"
            return []
        }
        state.scope.plan = BillingPlan(rawValue: choice)
        state.notice = choice == "all" ? "both billing plans" : "billing plan \(choice)"
        invalidate(&state)
        return load(&state, state.pane)
    case .theme:
        guard !argument.isEmpty else {
            state.status = "usage: :theme NAME (\(state.themeNames.joined(separator: ", ")))"
            return []
        }
        return [.loadTheme(argument)]
    case .user:
        guard !argument.isEmpty else {
            state.status = "usage: :user ID (an originalTransactionId, transactionId, appAccountToken, user id or email)"
            return []
        }
        // Listed on pane 1 like a search of everyone; opened at once when it names one subscription
        // as `report subscriber` reads it (the same lookup).
        pushLocation(&state)
        state.pane = .subscribers
        showList(&state, SubscriberListView(filter: argument, sort: state.subscribers.view.sort))
        let effects = load(&state, .subscribers)
        state.subscribers.openWhenLoaded = .single(argument)
        return effects + [.lookUpSubscriber(argument)]
    case .state:
        guard let population = CommandName.statePopulation(argument) else {
            state.status = "usage: :state NAME (\(CommandName.stateNames.joined(separator: ", ")))"
            return []
        }
        // Pane 1 lists the subscribers in that state at as-of (as `enter` on a pane 4 row does, of
        // the ownership pane 4 counts).
        pushLocation(&state)
        state.pane = .subscribers
        showList(
            &state,
            SubscriberListView(
                population: population, sort: state.subscribers.view.sort,
                ownership: state.statesEvents.ownership))
        return load(&state, .subscribers)
    case .offers:
        if !argument.isEmpty {
            guard let list = OfferList.allCases.first(where: { $0.title.lowercased() == argument.lowercased() }) else {
                state.status = "usage: :offers [\(OfferList.allCases.map(\.title).joined(separator: "|"))]"
                return []
            }
            state.offers.list = list
            state.offers.refreshShown()
        }
        let effects = update(&state, .switchPane(.offers))
        return effects + campaignsIfNeeded(&state)
    case .log:
        // Pane 2's subscriber when no id is given there; elsewhere everyone's.
        let target = argument.isEmpty ? (state.pane == .subscriber ? state.subscriber.id : nil) : argument
        return [.loadAuditLog(target: target)]
    case .support: return [.loadSupport]
    case .answer: return startConsumptionAnswer(&state, argument)
    case .subscribers: return update(&state, .switchPane(.subscribers))
    case .cohorts: return update(&state, .switchPane(.cohorts))
    case .states: return update(&state, .switchPane(.statesEvents))
    case .money: return update(&state, .switchPane(.money))
    case .trends: return update(&state, .switchPane(.trends))
    case .metric:
        guard let metric = SeriesMetric(name: argument) else {
            state.status = "usage: :metric NAME (\(SeriesMetric.names.joined(separator: ", ")))"
            return []
        }
        // Pane 7 shows it (from another pane, it opens there).
        return showTrends(&state, .setMetric(metric))
    case .range:
        guard let range = TrendsRange(parsing: argument) else {
            state.status = "usage: :range 90d|12w|6m|1y|all (days, weeks, months or years back from as-of, or everything)"
            return []
        }
        return showTrends(&state, .setRange(range))
    case .chart:
        guard let glyphs = ChartGlyphs(rawValue: argument.lowercased()) else {
            state.status = "usage: :chart braille|block|ascii (how every chart draws)"
            return []
        }
        state.chartGlyphs = glyphs
        state.notice = "charts in \(glyphs.rawValue)"
        return []
    case nil:
        state.status =
            "unknown command: \(TextSanitizer.visible(text)) (try :user, :asof, :product, :env, :plan, :state, :theme, :offers, :log, :support, :answer, :metric, :range, :chart, :q)"
        return []
    }
}

/// What tab can complete `text` to on the `:` line: command names first, then each command's
/// arguments (known products, theme names, the data horizon and month ends, the selected subscriber).
func commandCompletions(for text: String, _ state: AppState) -> [String] {
    guard let space = text.firstIndex(of: " ") else {
        return CommandName.allCases.map { $0.takesArgument ? $0.rawValue + " " : $0.rawValue }
    }
    let arguments: [String]
    switch CommandName(rawValue: String(text[..<space])) {
    case .asof:
        guard let asOf = state.asOf else { return [] }
        // as-of itself, then the last day of each of the twelve months before it.
        arguments = [asOf.isoDate] + (0..<12).map { asOf.month.adding(months: -$0).start.adding(days: -1).isoDate }
    case .product: arguments = state.products
    case .env: arguments = EnvironmentFilter.allCases.map(\.rawValue)
    case .plan: arguments = BillingPlan.allCases.map(\.rawValue) + ["all"]
    case .state: arguments = CommandName.stateNames
    case .theme: arguments = state.themeNames
    case .offers: arguments = OfferList.allCases.map(\.title)
    case .metric: arguments = SeriesMetric.names
    case .range: arguments = TrendsRange.steps.map(\.description)
    case .chart: arguments = ChartGlyphs.allCases.map(\.rawValue)
    case .user:
        arguments = [state.subscriber.id, state.subscribers.selectedId, state.offers.selectedRow?.id].compactMap { $0 }
    default: arguments = []
    }
    let command = String(text[...space])
    var seen: Set<String> = []
    return arguments.filter { seen.insert($0).inserted }.map { command + $0 }
}

/// `:env NAME` and `E`: the environments every pane counts (as `--environment`); a search on
/// pane 1 finds every environment whatever this says, each row saying which.
func setEnvironment(_ state: inout AppState, _ environment: EnvironmentFilter) -> [Effect] {
    state.scope.environment = environment
    state.notice = "environment \(environment.rawValue)"
    invalidate(&state)
    return load(&state, state.pane)
}

extension EnvironmentFilter {
    /// The next choice of `E`: production → sandbox → all.
    var next: EnvironmentFilter {
        switch self {
        case .production: .sandbox
        case .sandbox: .all
        case .all: .production
        }
    }
}
