import GRDB
import SubscriptionModel
import SubscriptionTimeline

/// Which derived rows a read counts: their environments, ownerships and, when given, one product.
/// Reports build it from their own scope; the store turns it into SQL.
public struct RowScope: Sendable, Hashable {
    public var environments: [StoreEnvironment]
    public var ownerships: [Ownership]
    public var productId: String?
    /// `--plan`: the billing plan of the period `--product` would look at; nil for both.
    public var plan: BillingPlan? = nil

    public init(environments: [StoreEnvironment], ownerships: [Ownership], productId: String? = nil) {
        self.environments = environments
        self.ownerships = ownerships
        self.productId = productId
    }

    /// `environment IN ('Production', …)`, the values written as literals: they are the leading
    /// column of the derived rows' indexes, and a literal list keeps it usable for every choice.
    func environment(_ alias: String = "") -> SQL {
        SQL(sql: Self.prefix(alias) + "environment " + Self.inList(environments))
    }

    /// `ownership IN (…)`, literals as for the environment: the index column after it.
    func ownership(_ alias: String = "") -> SQL {
        SQL(sql: Self.prefix(alias) + "ownership " + Self.inList(ownerships))
    }

    /// The environment and ownership conditions on a derived row.
    func rows(_ alias: String = "") -> SQL { "\(environment(alias)) AND \(ownership(alias))" }

    /// ` AND column = product` when a product is given, else nothing.
    func product(_ column: String) -> SQL {
        guard let productId else { return "" }
        return " AND \(sql: column) = \(productId)"
    }

    /// ` AND column = plan` when `--plan` names one, else nothing.
    func plan(_ column: String) -> SQL {
        guard let plan else { return "" }
        return " AND \(sql: column) = \(plan.rawValue)"
    }

    /// ` AND` the billing plan of the transaction `column` names is `--plan`'s, when it names one,
    /// else nothing: `MONTHLY` is monthly, anything else upfront (a free trial has no money row,
    /// so the plan is read from the transaction, by its key).
    func planOfTransaction(_ column: String) -> SQL {
        guard let plan else { return "" }
        return
            " AND (SELECT t.billingPlanType IS 'MONTHLY' FROM \"transaction\" t WHERE t.transactionId = \(sql: column)) = \(plan == .monthly)"
    }

    /// `IN ('a', 'b')`: the raw values written as SQL literals (an environment's or ownership's raw
    /// value holds no quote). Every read that restricts environments or ownerships builds its
    /// condition with this.
    static func inList<Value: RawRepresentable>(_ values: [Value]) -> String where Value.RawValue == String {
        "IN (" + values.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
    }

    private static func prefix(_ alias: String) -> String { alias.isEmpty ? "" : alias + "." }
}

extension RowScope {
    /// Whether an MRR key is of the scope's product and billing plan: what kept rows holding keys
    /// (`mrrMovementMonth`, `mrrChange`) are restricted by when read.
    public func keeps(_ key: MRRKey) -> Bool {
        (productId == nil || key.productId == productId) && (plan == nil || key.billingPlan == plan?.rawValue)
    }
}
