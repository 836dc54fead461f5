/// Which stored facts count. A subscription with signed data (a v2 renewal fact, or a
/// transaction with a `signedDate`) is derived from its verified facts only: unsigned v1 data the
/// shared secret did not vouch for (`unverified = 1`) is kept but never applied to it, nor read by
/// anything a report shows (docs/security.md, "What a stranger can and cannot change"). The rule
/// lives here once, as SQL, for the writer, the fact reader and the reads.
enum SignedData {
    /// SQL true when the subscription `subscription` (an SQL expression: `?1`, `n.originalTransactionId`)
    /// has signed data.
    static func exists(_ subscription: String) -> String {
        """
        (EXISTS (SELECT 1 FROM renewalFact WHERE originalTransactionId = \(subscription) AND isV1 = 0) \
        OR EXISTS (SELECT 1 FROM "transaction" WHERE originalTransactionId = \(subscription) AND signedDate IS NOT NULL))
        """
    }

    /// SQL true when the fact row `row` (an alias with `unverified` and `originalTransactionId`) is
    /// applied: verified, or about a subscription without signed data.
    static func applied(_ row: String) -> String {
        "(\(row).unverified = 0 OR NOT \(exists("\(row).originalTransactionId")))"
    }
}
