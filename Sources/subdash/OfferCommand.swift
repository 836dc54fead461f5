import AppStoreServerAPI
import ArgumentParser
import Foundation
import SubscriberStore
import SubscriptionModel

/// `subdash offer`: signed offers for the app to pass to StoreKit.
struct OfferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offer",
        abstract: "Sign a promotional offer or an introductory-offer eligibility for one subscriber.",
        discussion: """
            Signs with the In-App Purchase key `fetch` uses (--issuer-id, --key-id, --bundle-id, --private-key, \
            else SUBDASH_* variables, else [appstore] in the configuration file). The offer a flag means comes \
            from the [offers.KIND] sections of the same file (README, "Offers that reach the customer").
            """,
        subcommands: [Sign.self, IntroEligibility.self])

    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// The original API's signature (`SKPaymentDiscount`).
        case signature
        /// StoreKit 2's promotional offer JWS.
        case jws
    }

    struct Sign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign",
            abstract: "Print the signed promotional offer (JSON) for SUBSCRIPTION_ID's current flag, or --offer-id.",
            discussion: """
                signature: {"productId","offerIdentifier","keyIdentifier","nonce","timestamp","signature"}; \
                jws: {"productId","offerIdentifier","jws"}. A fresh nonce each time; StoreKit accepts a signature \
                for 24 hours. Each offer signed is recorded in the store (who, which offer, when).
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var key: SigningKeyOptions
        @Argument(help: "The subscriber: an originalTransactionId, transactionId, appAccountToken, user id or email.")
        var subscriptionId: String
        @Option(name: .customLong("offer-id"), help: "The promotional offer id (default: the catalogue's for the current flag).")
        var offerId: String?
        @Option(help: "The application username StoreKit was given (lower-cased before signing).") var username = ""
        @Option(help: "signature (the original API) or jws (StoreKit 2).") var format: Format = .signature
        @Option(name: .customLong("operator"), help: "Who signs, for the record (default: $USER, else the login name).")
        var operatorName: String?

        mutating func run() async throws {
            do {
                try sign()
            } catch let error as CLIError { error.exit() }
        }

        func sign() throws {
            try store.requireExisting()
            let db = try store.open()
            let (credentials, catalogue) = try key.resolve()
            if let app = try db.storeApp(), app.bundleId != credentials.bundleId {
                throw CLIError("the store holds \(app.bundleId); the key signs for \(credentials.bundleId): nothing signed")
            }
            let subject = try OfferSubjects.one(matching: subscriptionId, in: db)
            guard let who = OperatorIdentity.resolve(option: operatorName) else {
                throw CLIError(OperatorIdentity.missingMessage, code: ExitStatus.usage)
            }
            var flag: OfferFlag?
            let offerIdentifier: String
            if let offerId {
                guard !offerId.isEmpty, offerId.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control }) else {
                    throw CLIError("--offer-id is empty or not printable", code: ExitStatus.usage)
                }
                offerIdentifier = offerId
            } else {
                let flags = try db.flags(originalTransactionId: subject.originalTransactionId)
                guard let current = flags.first else {
                    throw CLIError("\(subject.originalTransactionId) has no offer flag: give --offer-id, or flag it first")
                }
                guard
                    let offer = catalogue.offer(
                        for: current.offer, productId: subject.productId, group: subject.subscriptionGroupIdentifier)
                else {
                    throw CLIError(
                        "the catalogue has no offer for \(current.offer.rawValue) on \(subject.productId): add one under "
                            + "[offers.\(current.offer.rawValue)] in the configuration file, or give --offer-id")
                }
                guard offer.kind == .promotional else {
                    throw CLIError(
                        "\(current.offer.rawValue) on \(subject.productId) means \(offer.text): StoreKit presents "
                            + (offer.kind == .winBack ? "a win-back offer" : "an offer code")
                            + " without a signature; only promotional offers are signed")
                }
                flag = current
                offerIdentifier = offer.identifier
            }
            if subject.isFamilyShared {
                throw CLIError(
                    "\(subject.originalTransactionId) is family-shared: only the family organizer who pays can redeem an offer")
            }
            let signer = OfferSigner(credentials: credentials)
            let nonce = OfferSigner.makeNonce()
            let now = Date()
            let served = ServedOffer(
                originalTransactionId: subject.originalTransactionId, flag: flag?.offer, flagAt: flag?.at,
                offerKind: OfferCatalogue.Kind.promotional.rawValue, offerIdentifier: offerIdentifier,
                productId: subject.productId, format: format.rawValue, nonce: nonce, client: who, at: Instant(now))
            let json = try OfferJSON.signed(
                signer: signer, subject: subject, offerIdentifier: offerIdentifier, format: format, username: username,
                nonce: nonce, at: now)
            do {
                try db.recordServed(served)
            } catch {
                throw CLIError("cannot record the signed offer, so it is not printed: \(error)")
            }
            printOutput(json)
        }
    }

    struct IntroEligibility: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "intro-eligibility",
            abstract: "Print the introductory-offer eligibility JWS for SUBSCRIPTION_ID's product (JSON).",
            discussion: """
                {"productId","allowIntroductoryOffer","transactionId","jws"}: not eligible when the customer \
                already had an introductory offer (a free trial or an introductory price) in the subscription \
                group, on this subscription or another with the same appAccountToken.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var key: SigningKeyOptions
        @Argument(help: "The subscriber: an originalTransactionId, transactionId, appAccountToken, user id or email.")
        var subscriptionId: String
        @Option(name: .customLong("product"), help: "The product StoreKit will sell (default: the subscription's).")
        var productId: String?

        mutating func run() async throws {
            do {
                try store.requireExisting()
                let db = try store.open(readOnly: true)
                let (credentials, _) = try key.resolve()
                let subject = try OfferSubjects.one(matching: subscriptionId, in: db)
                let product = productId ?? subject.productId
                let allow = !subject.hadIntroductoryOffer
                let jws = try OfferSigner(credentials: credentials).introductoryEligibilityJWS(
                    productId: product, allowIntroductoryOffer: allow, transactionId: subject.latestTransactionId)
                printOutput(
                    OfferJSON.object([
                        ("productId", .string(product)), ("allowIntroductoryOffer", .bool(allow)),
                        ("transactionId", .string(subject.latestTransactionId)), ("jws", .string(jws)),
                    ]))
            } catch let error as CLIError { error.exit() }
        }
    }
}

/// The signing key (the same credentials as `fetch`) and the offer catalogue, from flags,
/// environment variables and the configuration file.
struct SigningKeyOptions: ParsableArguments {
    @Option(name: .customLong("issuer-id"), help: "The issuer id (App Store Connect → Users and Access → Integrations).")
    var issuerId: String?
    @Option(name: .customLong("key-id"), help: "The In-App Purchase key's id.") var keyId: String?
    @Option(name: .customLong("bundle-id"), help: "The app's bundle id.") var bundleId: String?
    @Option(name: .customLong("private-key"), help: "The .p8 private key file (mode 600).") var privateKey: String?
    @Option(help: "The configuration file (default: $XDG_CONFIG_HOME/subdash/config.toml).") var config: String?

    func resolve() throws -> (AppStoreCredentials, OfferCatalogue) {
        let flags = CredentialSources(issuerId: issuerId, keyId: keyId, bundleId: bundleId, privateKeyPath: privateKey)
        let (credentials, catalogue, _) = try Self.resolve(flags: flags, config: config)
        return (credentials, catalogue)
    }

    /// The credentials (flags, then environment, then the file), the catalogue and the file read.
    static func resolve(flags: CredentialSources, config: String?) throws -> (AppStoreCredentials, OfferCatalogue, ConfigFile?) {
        do throws(AppStoreAPIError) {
            let env = ProcessInfo.processInfo.environment
            var sources = [flags, try CredentialSources.fromEnvironment(env)]
            var file: ConfigFile?
            var catalogue = OfferCatalogue()
            if let path = config ?? ConfigFile.defaultPath(environment: env),
                config != nil || FileManager.default.fileExists(atPath: path)
            {
                let read = try ConfigFile(contentsOf: path)
                sources.append(try CredentialSources.fromConfig(read, path: path))
                catalogue = try OfferCatalogue(read, path: path)
                file = read
            }
            return (try CredentialSources.merged(sources).credentials(), catalogue, file)
        } catch {
            throw CLIError(error.message, code: ExitStatus.usage)
        }
    }
}

enum OfferSubjects {
    /// The one subscription `id` names, with what signing needs; a clear refusal otherwise.
    static func one(matching id: String, in db: AppDatabase) throws -> OfferSubject {
        let found = try db.subscriptions(matching: id)
        guard found.count == 1 else {
            if found.isEmpty { throw CLIError("no subscription matches \(id)") }
            throw CLIError(
                "\(id) matches \(found.count) subscriptions (\(found.prefix(5).joined(separator: ", "))); use an originalTransactionId"
            )
        }
        guard let subject = try db.offerSubject(originalTransactionId: found[0]) else {
            throw CLIError("\(found[0]) has no transaction in the store: nothing to sign an offer for")
        }
        return subject
    }
}

/// The JSON the app's server passes to StoreKit, keys in Apple's order.
enum OfferJSON {
    enum Value {
        case string(String)
        case int(Int64)
        case bool(Bool)
    }

    static func object(_ pairs: [(String, Value)]) -> String {
        "{"
            + pairs.map { key, value in
                let text: String
                switch value {
                case .string(let s): text = quoted(s)
                case .int(let i): text = String(i)
                case .bool(let b): text = b ? "true" : "false"
                }
                return quoted(key) + ":" + text
            }.joined(separator: ",") + "}"
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func signed(
        signer: OfferSigner, subject: OfferSubject, offerIdentifier: String, format: OfferCommand.Format, username: String,
        nonce: String, at: Date
    ) throws -> String {
        switch format {
        case .signature:
            let s = try signer.promotionalSignature(
                productId: subject.productId, offerIdentifier: offerIdentifier, applicationUsername: username, nonce: nonce,
                timestamp: Int64((at.timeIntervalSince1970 * 1000).rounded(.down)))
            return object([
                ("productId", .string(s.productId)), ("offerIdentifier", .string(s.offerIdentifier)),
                ("keyIdentifier", .string(s.keyIdentifier)), ("nonce", .string(s.nonce)), ("timestamp", .int(s.timestamp)),
                ("signature", .string(s.signature)),
            ])
        case .jws:
            let jws = try signer.promotionalJWS(
                productId: subject.productId, offerIdentifier: offerIdentifier, transactionId: subject.signingTransactionId,
                nonce: nonce, issuedAt: at)
            return object([
                ("productId", .string(subject.productId)), ("offerIdentifier", .string(offerIdentifier)), ("jws", .string(jws)),
            ])
        }
    }
}
