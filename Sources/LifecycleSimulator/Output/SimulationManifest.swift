/// `manifest.json`: what was generated and how, with counts a test or an import can check.
public struct SimulationManifest: Codable, Sendable, Equatable {
    public struct Documents: Codable, Sendable, Equatable {
        /// Lines written, duplicates included.
        public var v1 = 0
        public var v2 = 0
    }

    public var seed: UInt64
    public var subscribers: Int
    public var start: String
    public var months: Int
    public var format: PayloadVersions
    public var gzip: Bool
    /// First instant after the simulated range.
    public var horizon: String
    /// With `both`: notifications from this month on are v2.
    public var switchMonth: String?
    /// `--commitment-share` and `--late-refund-rate` when not 0 (absent otherwise).
    public var commitmentShare: Double?
    public var lateRefundRate: Double?
    public var trustRoot = "test-root.pem"
    public var documents = Documents()
    /// Redeliveries of an identical body (same notificationUUID in v2).
    public var duplicates = 0
    /// Documents delivered after the notification that followed them.
    public var outOfOrder = 0
    public var transactions = 0
    /// Family members' subscriptions (Family Sharing), beyond `subscribers`.
    public var familyMembers = 0
    public var files: [String] = []
    /// Documents (without duplicates) per `v1 TYPE` / `v2 TYPE[/SUBTYPE]`.
    public var notificationTypes: [String: Int] = [:]
    /// Lifecycle events of the model (ScenarioEvent), for a rough picture of the mix.
    public var scenarios: [String: Int] = [:]
}
