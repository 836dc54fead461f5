import SubscriberStore

extension EffectRunner {
    /// The status line after `effect` failed: what failed and what to do, never SQL. The error
    /// itself goes to ``log``.
    static func failureSentence(_ effect: Effect, _ error: any Error) -> String {
        "\(what(effect)) failed: \(AppDatabase.failureReason(error) ?? "\(error)")"
    }

    /// What `effect` was doing, in a few words.
    static func what(_ effect: Effect) -> String {
        switch effect {
        case .loadSubscribers, .countSubscribers, .loadPopulationSize: "loading the subscribers"
        case .loadSubscriber(let id, _): "loading subscriber \(id)"
        case .loadCohorts: "loading the cohorts"
        case .loadStatesEvents: "loading states and events"
        case .loadOffers, .loadOffersFirst, .loadOfferLists: "loading the offers"
        case .loadCampaigns: "loading the campaigns"
        case .loadMoney, .loadMoneySection, .loadMovementMembers: "loading the money figures"
        case .writeFlags: "writing the flags"
        case .exportCSV, .exportSubscribers, .exportOffers: "the export"
        case .loadTrends(let query): "loading the \(query.metric.name) series"
        case .saveChart: "saving the chart"
        case .loadTheme(let name): "loading theme \(name)"
        default: "reading the store"
        }
    }
}
