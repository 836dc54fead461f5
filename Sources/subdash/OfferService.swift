import AppStoreServerAPI
import Foundation
import NotificationListener
import SubscriberStore
import SubscriptionModel

/// What `GET /offers/{id}` answers: the subscriber's current flagged offer, signed, or why none
/// applies (README, "Offers that reach the customer"). Every offer served is recorded first.
struct OfferService: Sendable {
    let database: AppDatabase
    let credentials: AppStoreCredentials
    let catalogue: OfferCatalogue

    func answer(_ request: OffersEndpoint.Request, now: Date = Date()) -> OffersEndpoint.Reply {
        do {
            return try decide(request, now: now)
        } catch {
            return .failed(reason: "\(error)")
        }
    }

    func decide(_ request: OffersEndpoint.Request, now: Date) throws -> OffersEndpoint.Reply {
        if let app = try database.storeApp(), app.bundleId != credentials.bundleId {
            return .nothing(reason: "the store holds \(app.bundleId), the key signs for \(credentials.bundleId)")
        }
        let instant = Instant(now)
        var candidates: [(OfferSubject, OfferFlag, OfferCatalogue.Offer)] = []
        var reasons: [String] = []
        let ids = try database.subscriptions(originalTransactionIdOrToken: request.id)
        if ids.isEmpty { return .nothing(reason: "no subscription") }
        for id in ids {
            guard let subject = try database.offerSubject(originalTransactionId: id) else { continue }
            if subject.isFamilyShared {
                reasons.append("family-shared")
                continue
            }
            guard let flag = try database.flags(originalTransactionId: id).first else {
                reasons.append("no flag")
                continue
            }
            guard
                let offer = catalogue.offer(
                    for: flag.offer, productId: subject.productId, group: subject.subscriptionGroupIdentifier)
            else {
                reasons.append("no offer for \(flag.offer.rawValue) on \(subject.productId)")
                continue
            }
            guard offer.kind == .promotional else {
                reasons.append("\(offer.text) needs no signature")
                continue
            }
            if flag.offer == .winBackOffer && subject.isActive(at: instant) {
                reasons.append("winBack flag on an active subscription")
                continue
            }
            if try database.redeemed(
                originalTransactionId: id, offerType: offer.kind.offerType, offerIdentifier: offer.identifier, since: flag.at)
            {
                reasons.append("already redeemed")
                continue
            }
            candidates.append((subject, flag, offer))
        }
        // Several subscriptions behind one appAccountToken: the newest flag's.
        guard let (subject, flag, offer) = candidates.max(by: { $0.1.at < $1.1.at }) else {
            return .nothing(reason: Array(Set(reasons)).sorted().joined(separator: "; "))
        }
        let format: OfferCommand.Format = request.format == "jws" ? .jws : .signature
        let nonce = OfferSigner.makeNonce()
        let json = try OfferJSON.signed(
            signer: OfferSigner(credentials: credentials), subject: subject, offerIdentifier: offer.identifier,
            format: format, username: request.username, nonce: nonce, at: now)
        try database.recordServed(
            ServedOffer(
                originalTransactionId: subject.originalTransactionId, flag: flag.offer, flagAt: flag.at,
                offerKind: offer.kind.rawValue, offerIdentifier: offer.identifier, productId: subject.productId,
                format: format.rawValue, nonce: nonce, client: request.client, at: instant))
        return .offer(json: json)
    }
}
