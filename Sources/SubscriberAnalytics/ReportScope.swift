import SubscriberStore
import SubscriptionModel

/// Which environments a report counts (production unless told otherwise: docs/metrics.md, "Which
/// data, read when").
public enum EnvironmentFilter: String, Sendable, CaseIterable, Codable {
    case production, sandbox, all

    /// The stored environment values this filter keeps.
    public var environments: [StoreEnvironment] {
        switch self {
        case .production: [.production]
        case .sandbox: [.sandbox]
        case .all: StoreEnvironment.known + [.unknown]
        }
    }
}

/// Whose purchases a report counts (docs/metrics.md "Family Sharing": purchased unless told
/// otherwise; states, events and recovery can count family-shared subscriptions too).
public enum OwnershipFilter: String, Sendable, CaseIterable, Codable {
    case purchased, familyShared, all

    /// The stored ownership values this filter keeps.
    public var ownerships: [Ownership] {
        switch self {
        case .purchased: [.purchased]
        case .familyShared: [.familyShared]
        case .all: Ownership.allCases
        }
    }
}

/// The environment, ownership and product a report is restricted to.
public struct ReportScope: Sendable, Hashable {
    public var environment: EnvironmentFilter
    public var ownership: OwnershipFilter
    public var productId: String?
    /// `--plan upfront|monthly`; nil (`all`) counts both.
    public var plan: BillingPlan? = nil

    public init(
        environment: EnvironmentFilter = .production, ownership: OwnershipFilter = .purchased,
        productId: String? = nil
    ) {
        self.environment = environment
        self.ownership = ownership
        self.productId = productId
    }

    /// The rows the store reads for this scope.
    public var rows: RowScope {
        var scope = RowScope(environments: environment.environments, ownerships: ownership.ownerships, productId: productId)
        scope.plan = plan
        return scope
    }
}
