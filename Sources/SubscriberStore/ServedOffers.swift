import GRDB
import SubscriptionModel

/// One signed offer handed out: what `subdash offer sign` and `GET /offers/…` record.
public struct ServedOffer: Sendable, Equatable {
    public var originalTransactionId: String
    /// The flag it was served for (nil when the operator gave the offer id by hand).
    public var flag: OfferFlagKind?
    public var flagAt: Instant?
    /// `promotional`, `winBack` or `offerCode` (the catalogue's kinds).
    public var offerKind: String
    public var offerIdentifier: String
    public var productId: String
    /// `signature` or `jws`.
    public var format: String
    public var nonce: String
    /// Who asked: the operator's name, or the endpoint's client address.
    public var client: String
    public var at: Instant

    public init(
        originalTransactionId: String, flag: OfferFlagKind?, flagAt: Instant?, offerKind: String, offerIdentifier: String,
        productId: String, format: String, nonce: String, client: String, at: Instant
    ) {
        self.originalTransactionId = originalTransactionId
        self.flag = flag
        self.flagAt = flagAt
        self.offerKind = offerKind
        self.offerIdentifier = offerIdentifier
        self.productId = productId
        self.format = format
        self.nonce = nonce
        self.client = client
        self.at = at
    }
}

extension AppDatabase {
    /// Records `offer` before it is handed out. Throws when its nonce was used before (the
    /// store's unique index): a nonce is never handed out twice.
    public func recordServed(_ offer: ServedOffer) throws {
        try WriterTurn.shortWrite(storePath: path) {
            try writer.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO servedOffer (originalTransactionId, flag, flagAt, offerKind, offerIdentifier, productId,
                            format, nonce, client, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        offer.originalTransactionId, offer.flag?.rawValue, offer.flagAt?.milliseconds, offer.offerKind,
                        offer.offerIdentifier, offer.productId, offer.format, offer.nonce, offer.client, offer.at.milliseconds,
                    ])
            }
        }
    }

    /// Served offers, oldest first, optionally of one subscription.
    public func servedOffers(originalTransactionId: String? = nil) throws -> [ServedOffer] {
        try writer.read { db in
            var sql = """
                SELECT originalTransactionId, flag, flagAt, offerKind, offerIdentifier, productId, format, nonce, client, at
                FROM servedOffer
                """
            var arguments: StatementArguments = []
            if let originalTransactionId {
                sql += " WHERE originalTransactionId = ?"
                arguments += [originalTransactionId]
            }
            sql += " ORDER BY id"
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                ServedOffer(
                    originalTransactionId: row[0], flag: (row[1] as String?).flatMap(OfferFlagKind.init(rawValue:)),
                    flagAt: (row[2] as Int64?).map(Instant.init(milliseconds:)), offerKind: row[3], offerIdentifier: row[4],
                    productId: row[5], format: row[6], nonce: row[7], client: row[8], at: Instant(milliseconds: row[9]))
            }
        }
    }
}
