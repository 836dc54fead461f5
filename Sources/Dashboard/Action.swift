import SubscriberAnalytics
import SubscriberStore
import SubscriptionModel
import TerminalUI

/// Everything that can happen to the dashboard: keys, commands bound to keys, and query results.
public enum Action: Equatable, Sendable {
    case start
    case key(KeyEvent)
    /// No key came for a while after the start of a sequence (`g`): drop it, as vim's timeoutlen does.
    case keyTimeout
    case switchPane(Pane)
    case nextPane
    case previousPane
    case back
    case quit
    case toggleHelp
    case startCommand
    /// Pane 3's own intents (CohortsUpdate.swift).
    case cohorts(CohortsIntent)
    /// Pane 4's own intents (StatesEventsUpdate.swift).
    case statesEvents(StatesEventsIntent)
    /// Pane 6's own intents (MoneyUpdate.swift).
    case money(MoneyIntent)
    /// Pane 2's own intents (SubscriberUpdate.swift).
    case subscriber(SubscriberIntent)
    /// Pane 1's own intents (SubscribersUpdate.swift).
    case subscribers(SubscribersIntent)
    /// Pane 5's own intents (OffersUpdate.swift).
    case offers(OffersIntent)
    /// The environments every pane counts: production, sandbox or all (as `:env`).
    case cycleEnvironment
    case reload
    /// About once a second from the run loop: time to look for changes by others.
    case tick

    case loadedHorizon(Instant?)
    case loadedSubscribers(offset: Int, rows: [SubscriberRow])
    /// How many rows the list of this search and population has.
    case countedSubscribers(filter: String?, population: SubscriberPopulation?, count: Int)
    case loadedSubscriber(SubscriberReport)
    case lookedUpSubscriber(query: String, matches: [String])
    /// A cohort grid, with the billing durations the store's products have.
    case loadedCohorts(CohortGrid, durations: [BillingDuration] = [])
    case loadedStatesEvents(StatesEventsFigures)
    /// The store's change counter; nil when it could not be read this time.
    case storeVersion(Int?)
    /// Whether an import is running on the store, or the last one was interrupted.
    case importActivity(ImportActivity)
    /// How far behind the team log the store is, as the status line says it.
    case teamLogStatus(String)
    case refreshedHorizon(Instant?)
    case loadedPopulationSize(SubscriberPopulation, PopulationSize)
    case loadedOffers(OfferBoard)
    /// Pane 5's first screen: the first rows of the list shown, asked at `scope`, and every flag.
    case loadedOffersFirst(OfferBoard, scope: ReportScope)
    /// Every row of `offers`' lists, for the as-of and scope they were asked at.
    case loadedOfferLists([OfferFlagKind], asOf: Instant, scope: ReportScope, [EligibleSubscriber])
    /// The Offers pane's campaigns' funnel.
    case loadedCampaigns(CampaignFunnel)
    /// Pane 6's first answer: MRR now and 30 days before.
    case loadedMoney(MoneyFigures)
    /// One more section of pane 6, for the as-of and scope it was asked at.
    case loadedMoneySection(asOf: Instant, scope: ReportScope, MoneyFigures.Part)
    /// The subscriptions behind one movement bar of pane 6, for the as-of and scope they were asked at.
    case loadedMovementMembers(MovementMembers, asOf: Instant, scope: ReportScope)
    case loadedProducts([String])
    case loadedTheme(Theme)
    case flagsWritten(FlagWrite, changed: Int)
    /// An export written (`path` nil: the list was empty and nothing was written).
    case exported(path: String?, rows: Int)
    /// A background fetch from Apple stored what it got (`summary` says how much).
    case fetchedFromApple(id: String, summary: String)
    case fetchFromAppleFailed(id: String, message: String)
    /// Look Up Order ID answered: the subscriptions of the order, stored (OrderLookup.swift).
    case orderLookedUp(order: String, ids: [String])
    case orderLookupFailed(order: String, message: String)
    /// What the store says about extending a subscription: the `x` dialog opens with it.
    case extensionChecked(ExtensionCheck)
    /// An extension answered by Apple, or refused before sending (`success` false).
    case extensionAnswered(id: String, message: String, success: Bool)
    /// The audit log `:log` asked for (of one subscription, or everyone's), oldest first.
    case loadedAuditLog(target: String?, [AuditEntry])
    /// Pane 7's own intents (TrendsUpdate.swift).
    case trends(TrendsIntent)
    /// Pane 7's series, for the query it answers.
    case loadedTrends(TrendsData)
    /// A chart saved as SVG beside its figures as CSV (ChartExport.swift).
    case savedChart(svg: String, csv: String)
    /// What `:support` shows: the consumption queue and the mass extensions.
    case loadedSupport(SupportQueue)
    /// What the store says about answering a consumption request (the `:answer` form opens on it).
    case consumptionChecked(ConsumptionCheck)
    /// Apple's reply to an answer (or why it was not sent).
    case consumptionAnswered(message: String, success: Bool)
    /// The mass extensions the store holds, as `:support` lists them (MassExtensionWatch.swift).
    case loadedMassExtensions([MassExtensionRow])
    /// Apple's answer to one background poll of a mass extension's status.
    case massExtensionPolled(productId: String, requestIdentifier: String, MassExtensionPoll)
    case failed(String)
}

public enum MarkOperation: String, Equatable, Sendable {
    case mark, unmark, toggle
}

/// Work `update` asks for; an `EffectRunner` does it off the UI thread and answers with an `Action`.
public enum Effect: Equatable, Sendable {
    case loadHorizon
    case loadSubscribers(
        offset: Int, limit: Int, asOf: Instant, scope: ReportScope, filter: String?,
        population: SubscriberPopulation? = nil, sort: SubscriberSort = SubscriberSort())
    case countSubscribers(asOf: Instant, scope: ReportScope, filter: String?, population: SubscriberPopulation?)
    case loadPopulationSize(SubscriberPopulation, asOf: Instant, scope: ReportScope)
    case loadSubscriber(id: String, asOf: Instant)
    /// `:user QUERY`: the subscriptions it names, as `report subscriber QUERY` finds them.
    case lookUpSubscriber(String)
    /// `mostCommon`: the grid of the store's most common billing duration (the pane's default), whatever `duration` says.
    case loadCohorts(asOf: Instant, scope: ReportScope, duration: BillingDuration? = nil, mostCommon: Bool = false)
    case loadStatesEvents(asOf: Instant, month: Month, scope: ReportScope)
    case checkStore
    /// Look at the import lock and the subscriptions waiting to be rebuilt.
    case checkImport
    /// Ask how far behind the team log the store is (a dashboard started with `--team`).
    case checkTeamLog
    case refreshHorizon
    case loadOffers(asOf: Instant, scope: ReportScope)
    /// Pane 5's first screen: the first `limit` rows of `list` in its order, and the flags.
    case loadOffersFirst(asOf: Instant, scope: ReportScope, list: OfferList, limit: Int)
    /// The whole lists of `offers`: the rest of pane 5, streamed after its first screen.
    case loadOfferLists([OfferFlagKind], asOf: Instant, scope: ReportScope)
    /// The campaigns of every flag set by `asOf`, their offers from `catalogue` (docs/metrics.md, "Campaigns").
    case loadCampaigns(asOf: Instant, catalogue: CatalogueOffers?)
    /// Pane 6's MRR now (one cheap statement); its answer asks for the sections.
    case loadMoney(asOf: Instant, scope: ReportScope)
    case loadMoneySection(MoneySection, asOf: Instant, scope: ReportScope)
    /// The subscriptions that moved MRR in `currency` over the bucket (pane 6's `enter` on a bar).
    case loadMovementMembers(ReportBucket, currency: String, asOf: Instant, scope: ReportScope)
    case loadProducts
    /// A theme by name or path, for `:theme`.
    case loadTheme(String)
    /// Set or clear offer flags through the store's audit log.
    case writeFlags(FlagWrite)
    /// Write rows to a new CSV file named after `stem`; with `idColumn`, each row gains the user
    /// id, email and appAccountToken of the subscription in that column (exports are used for
    /// outreach: they name the people).
    case exportCSV(stem: String, header: [String], rows: [[String]], idColumn: Int? = nil)
    /// Every subscriber the Subscribers list would page through (not only the loaded pages), as CSV.
    case exportSubscribers(stem: String, asOf: Instant, scope: ReportScope, filter: String?, population: SubscriberPopulation?)
    /// A subscriber's history and statuses from the App Store Server API, into the store.
    case fetchFromApple(id: String)
    /// Look Up Order ID at Apple, storing what it returns.
    case lookUpOrder(String)
    /// Read what `x` needs before its dialog opens: the checks `subdash extend` makes.
    case checkExtension(String)
    /// `:log`: the audit log `subdash log` prints (of one subscription when `target` is given).
    case loadAuditLog(target: String?)
    /// `:support`: Apple's consumption requests and the mass extensions (SupportView.swift).
    case loadSupport
    /// `:answer`: read what the form needs and may refuse.
    case checkConsumption(String)
    /// Check again, audit and send a consumption answer to Apple (in the background).
    case answerConsumption(ConsumptionOrder)
    /// Check again, audit and send an extension to Apple (in the background).
    case extendRenewal(ExtensionOrder)
    /// The mass extensions the store holds that the credentials act on (MassExtensionWatch.swift).
    case loadMassExtensions
    /// Poll one mass extension's status at Apple, audited (in the background).
    case pollMassExtension(productId: String, requestIdentifier: String, operatorName: String)
    /// Pane 7's series (TrendsData.swift).
    case loadTrends(TrendsQuery)
    /// Write a chart's SVG and its figures' CSV under one new name (ChartExport.swift).
    case saveChart(stem: String, csv: String, svg: String)
    /// One offer's whole eligibility list (read here, not what has streamed in so far), with
    /// `flags`, `filter` and `sort` applied as pane 5 shows it, as CSV.
    case exportOffers(
        stem: String, kind: OfferFlagKind, asOf: Instant, scope: ReportScope, flags: [OfferFlag], filter: String?,
        sort: OfferSort?)
}

extension Effect {
    /// Where ``EffectRunner`` runs an effect.
    public enum Lane: Sendable {
        /// A round trip to Apple's API: in a task of its own, not on the queue the pane loads wait on.
        case network
        /// Read beside the others on the store's readers, each answer matched to what asked for
        /// it (pane 6's sections: docs/performance.md, "Pane 6 on both cores").
        case beside
        /// One after another on the effect queue, in the order asked.
        case inOrder
    }

    public var lane: Lane {
        switch self {
        case .fetchFromApple, .lookUpOrder, .extendRenewal, .answerConsumption, .pollMassExtension: .network
        case .loadMoneySection: .beside
        default: .inOrder
        }
    }
}

/// One confirmed flag change: what the store's `setFlags` is asked to do.
public typealias FlagWrite = OfferFlagWrite
