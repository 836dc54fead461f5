import GRDB
import SubscriptionModel

/// Which derived rows a read counts: their environments, ownerships and, when given, one product.
/// Reports build it from their own scope; the store turns it into SQL.
public struct RowScope: Sendable, Hashable {
    public var environments: [StoreEnvironment]
    public var ownerships: [Ownership]
    public var productId: String?

    public init(environments: [StoreEnvironment], ownerships: [Ownership], productId: String? = nil) {
        self.environments = environments
        self.ownerships = ownerships
        self.productId = productId
    }

    /// `environment IN ('Production', …)`, the values written as literals: they are the leading
    /// column of the derived rows' indexes, and a literal list keeps it usable for every choice.
    func environment(_ alias: String = "") -> SQL {
        SQL(sql: Self.prefix(alias) + "environment IN (" + environments.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")")
    }

    /// `ownership IN (…)`, literals as for the environment: the index column after it.
    func ownership(_ alias: String = "") -> SQL {
        SQL(sql: Self.prefix(alias) + "ownership IN (" + ownerships.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")")
    }

    /// The environment and ownership conditions on a derived row.
    func rows(_ alias: String = "") -> SQL { "\(environment(alias)) AND \(ownership(alias))" }

    /// ` AND column = product` when a product is given, else nothing.
    func product(_ column: String) -> SQL {
        guard let productId else { return "" }
        return " AND \(sql: column) = \(productId)"
    }

    private static func prefix(_ alias: String) -> String { alias.isEmpty ? "" : alias + "." }
}
