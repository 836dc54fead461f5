import ArgumentParser
import SubscriberAnalytics
import SubscriptionModel

/// `--plan upfront|monthly|all`: the billing plan of the period `--product` would look at
/// (docs/metrics.md, "Billing plans and commitments").
enum PlanFilter: String, ExpressibleByArgument, CaseIterable {
    case upfront, monthly, all

    var plan: BillingPlan? {
        switch self {
        case .upfront: .upfront
        case .monthly: .monthly
        case .all: nil
        }
    }
}

struct PlanOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Only periods billed upfront, only monthly payments of a 12-month commitment, or all.",
            discussion:
                "A state or event counts under the plan of the period it is about, a cohort member under its first paid period's (docs/metrics.md, \"Billing plans and commitments\")."
        ))
    var plan: PlanFilter = .all

    /// `scope` restricted to the plan.
    func applied(to scope: ReportScope) -> ReportScope {
        var scope = scope
        scope.plan = plan.plan
        return scope
    }
}
