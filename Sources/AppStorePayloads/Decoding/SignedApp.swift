import SubscriptionModel

/// The app and environment a document's signed parts are for, gathered part by part. Every
/// signed part that names its app (`bundleId`, `appAppleId`) or its environment must agree with
/// every other: a document is one app's, from one environment. The importer then checks the one
/// app left against the store's (docs/security.md, "What a stranger can and cannot change"), so
/// every part is checked, never only the first. Unsigned fields (the top-level `bundleId` of an
/// App Store Server API response) are never read for it: anyone can write them.
struct SignedApp {
    private(set) var bundleId: String?
    private(set) var appAppleId: Int64?
    private(set) var environment: StoreEnvironment?
    /// Where each was first stated, for the rejection message.
    private var bundleIdPath = ""
    private var appAppleIdPath = ""
    private var environmentPath = ""

    /// The app, when some part names its bundle id.
    var identity: AppIdentity? { bundleId.map { AppIdentity(bundleId: $0, appAppleId: appAppleId) } }

    /// Adds what the signed part at `path` says about its app and environment.
    mutating func add(
        bundleId newBundleId: String?, appAppleId newAppAppleId: Int64?, environment newEnvironment: StoreEnvironment?,
        at path: String
    ) throws(PayloadError) {
        if let newBundleId {
            if let bundleId, bundleId != newBundleId {
                throw PayloadError(
                    "\(path): for the app \(newBundleId), but \(bundleIdPath) is for \(bundleId): a document is one app's")
            }
            if bundleId == nil { (bundleId, bundleIdPath) = (newBundleId, path) }
        }
        if let newAppAppleId {
            if let appAppleId, appAppleId != newAppAppleId {
                throw PayloadError(
                    "\(path): for appAppleId \(newAppAppleId), but \(appAppleIdPath) is for appAppleId \(appAppleId): a document is one app's"
                )
            }
            if appAppleId == nil { (appAppleId, appAppleIdPath) = (newAppAppleId, path) }
        }
        if let newEnvironment {
            if let environment, environment != newEnvironment {
                throw PayloadError(
                    "\(path): from \(newEnvironment.rawValue), but \(environmentPath) is from \(environment.rawValue): "
                        + "a document is from one environment")
            }
            if environment == nil { (environment, environmentPath) = (newEnvironment, path) }
        }
    }

    /// Adds what a signed transaction (`JWSTransactionDecodedPayload`) says: its `bundleId` and
    /// `environment`.
    mutating func add(transaction t: FieldReader) throws(PayloadError) {
        try add(bundleId: t.string("bundleId"), appAppleId: nil, environment: t.environment("environment"), at: t.path)
    }

    /// Adds what a signed renewal info says: its `environment` (it names no app).
    mutating func add(renewal r: FieldReader) throws(PayloadError) {
        try add(bundleId: nil, appAppleId: nil, environment: r.environment("environment"), at: r.path)
    }

    /// Adds everything another part's gathering found, stated at `path`.
    mutating func add(_ other: SignedApp, at path: String) throws(PayloadError) {
        try add(bundleId: other.bundleId, appAppleId: other.appAppleId, environment: other.environment, at: path)
    }
}
