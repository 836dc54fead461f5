import SubscriptionModel

/// The renewal details Apple added to v2 payloads (docs/metrics.md, "Renewal details from
/// Apple"): read beside the older fields, each bounded, since they are shown to operators as sent.
extension SignedParts {
    /// The most win-back offer ids kept from one renewal info (Apple lists the few a customer
    /// qualifies for); more reject the document rather than fill the store.
    static let maxWinBackOfferIds = 50
    /// The longest identifier or duration kept from these fields, in UTF-8 bytes.
    static let maxDetailLength = 200

    /// The `transactionId` of a transaction kept aside (none when it has no readable one).
    static func transactionIds(_ t: FieldReader) throws(PayloadError) -> [String] {
        (try t.string("transactionId")).map { [$0] } ?? []
    }

    /// A bounded string field: longer ones reject the document, naming the field.
    static func detail(_ reader: FieldReader, _ key: String) throws(PayloadError) -> String? {
        guard let s = try reader.string(key) else { return nil }
        guard s.utf8.count <= maxDetailLength else {
            throw PayloadError("\(reader.path(key)): longer than \(maxDetailLength) bytes (\(s.utf8.count))")
        }
        return s
    }

    /// `eligibleWinBackOfferIds`: an array of strings, at most ``maxWinBackOfferIds``.
    static func offerIds(_ reader: FieldReader, _ key: String) throws(PayloadError) -> [String]? {
        switch reader.value(key) {
        case nil, .null?: return nil
        case .array(let elements)?:
            guard elements.count <= maxWinBackOfferIds else {
                throw PayloadError("\(reader.path(key)): more than \(maxWinBackOfferIds) offer ids (\(elements.count))")
            }
            var ids: [String] = []
            for (i, element) in elements.enumerated() {
                guard case .string(let id) = element, id.utf8.count <= maxDetailLength else {
                    throw PayloadError(
                        "\(reader.path(key))[\(i)]: expected an offer id (a string of at most \(maxDetailLength) bytes), "
                            + "found \(element.foundDescription)")
                }
                ids.append(id)
            }
            return ids
        case let value?: throw reader.mismatch(key, expected: "an array of offer ids", found: value)
        }
    }
}

extension TransactionFact {
    /// This fact with the transaction's `appTransactionId`, `offerPeriod` and `transactionReason`.
    func withRenewalDetails(_ t: FieldReader) throws(PayloadError) -> TransactionFact {
        var fact = self
        fact.appTransactionId = try SignedParts.detail(t, "appTransactionId")
        fact.offerPeriod = try SignedParts.detail(t, "offerPeriod")
        fact.transactionReason = try SignedParts.detail(t, "transactionReason")
        return fact
    }
}

extension RenewalFact {
    /// This fact with the renewal info's `renewalPrice`/`currency`, `eligibleWinBackOfferIds`,
    /// `appTransactionId` and `offerPeriod`.
    func withRenewalDetails(_ r: FieldReader) throws(PayloadError) -> RenewalFact {
        var fact = self
        fact.renewalPrice = try r.int64("renewalPrice")
        fact.renewalCurrency = try SignedParts.detail(r, "currency")
        fact.eligibleWinBackOfferIds = try SignedParts.offerIds(r, "eligibleWinBackOfferIds")
        fact.appTransactionId = try SignedParts.detail(r, "appTransactionId")
        fact.offerPeriod = try SignedParts.detail(r, "offerPeriod")
        return fact
    }
}
