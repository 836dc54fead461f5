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
        help: "Only periods billed upfront, only monthly payments of a 12-month commitment, or all.")
    var plan: PlanFilter = .all

    /// `scope` restricted to the plan.
    func applied(to scope: ReportScope) -> ReportScope {
        var scope = scope
        scope.plan = plan.plan
        return scope
    }
}

/// `--plan` on a report whose stored counts carry no billing plan: only `all` (both plans
/// together) is exact, so any other choice is refused rather than answered with both plans
/// (docs/metrics.md, "Billing plans and commitments").
struct UnavailablePlanOption: ParsableArguments {
    @Option(help: "Only all: this report cannot count one billing plan yet (it counts both).")
    var plan: PlanFilter = .all

    /// Refuses `--plan upfront|monthly` on `report`.
    func refuse(on report: String) throws {
        guard plan != .all else { return }
        throw ValidationError(
            "--plan is not available on report \(report) yet: it counts both billing plans together "
                + "(--plan \(plan.rawValue) works on report mrr, revenue, refunds, recovery, cohorts and ltv)")
    }
}
