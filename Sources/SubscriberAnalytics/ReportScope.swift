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
        case .all: StoreEnvironment.allCases
        }
    }

    /// `environment IN (…)` for SQL; keeps the leading index column usable for `all`.
    var sql: String { "environment IN (" + environments.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")" }
}

/// The environment and product a report is restricted to.
public struct ReportScope: Sendable, Hashable {
    public var environment: EnvironmentFilter
    public var productId: String?

    public init(environment: EnvironmentFilter = .production, productId: String? = nil) {
        self.environment = environment
        self.productId = productId
    }
}
