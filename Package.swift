// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "subdash",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "subdash", targets: ["subdash"]),
        .executable(name: "subdash-bench", targets: ["subdash-bench"]),
        .executable(name: "subdash-frames", targets: ["subdash-frames"]),
        .executable(name: "subdash-listen-bench", targets: ["subdash-listen-bench"]),
        // Test tooling, not shipped: the fake App Store Server API as a process (README, "Support actions").
        .executable(name: "subdash-fake-appstore", targets: ["subdash-fake-appstore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // subdash listen (HTTP server) and the App Store Server API client.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // NIOCore and NIOHTTP1, which the listener and the API client use directly (already in the graph
        // through Hummingbird and AsyncHTTPClient).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // HTTPRequestPart / HTTPResponsePart, for the listener's header timeout (already in the graph through Hummingbird).
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // The App Store Server API's ES256 tokens (needs swift-crypto 4).
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        // The team log on PostgreSQL (docs/team.md).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // Plain value types: facts, enums, instants. No I/O.
        .target(name: "SubscriptionModel"),
        // The one blocking channel the import's threads and the dashboard's effect queue share.
        .target(name: "ThreadKit"),
        // The definitions of docs/metrics.md as a pure function of one subscription's facts. Lives
        // below the store so that the store can derive and materialise per-subscription rows
        // (`AppDatabase.rebuildPending`, after an import has committed the facts).
        .target(name: "SubscriptionTimeline", dependencies: ["SubscriptionModel"]),
        // zlib for reading and writing .gz payload files (SampleData is gzip'd to stay small).
        .target(name: "CZlib", linkerSettings: [.linkedLibrary("z")]),
        // zstd for the raw archive, opened at run time (dlopen of libzstd.so.1): no headers or
        // link-time library needed; ArchiveCodec falls back to zlib without it.
        .target(name: "CZstd"),
        // SQLite's process-wide settings, made by sqlite3_config (variadic, so not callable from
        // Swift) when the program is loaded, before any connection opens.
        .target(name: "CSQLiteSettings", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "AppStorePayloads",
            dependencies: [
                "SubscriptionModel", "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]),
        .target(
            name: "SubscriberStore",
            dependencies: [
                "SubscriptionModel", "SubscriptionTimeline", "ThreadKit", "CZstd", "CZlib", "CSQLiteSettings",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        // The import pipeline: files → documents → facts (AppStorePayloads) → batches (SubscriberStore).
        .target(name: "StoreImport", dependencies: ["SubscriptionModel", "AppStorePayloads", "SubscriberStore", "ThreadKit"]),
        .target(
            name: "SubscriberAnalytics",
            dependencies: [
                "SubscriptionModel", "SubscriptionTimeline", "SubscriberStore",
            ]),
        .target(
            name: "LifecycleSimulator",
            dependencies: [
                "SubscriptionModel", "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]),
        // subdash listen: App Store Server Notifications over HTTP into the import path.
        .target(
            name: "NotificationListener",
            dependencies: [
                "StoreImport", "SubscriberStore", "AppStorePayloads", "SubscriptionModel", "ThreadKit", "TerminalUI",
                "TeamLog",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The App Store Server API client (subdash fetch): JWT, paging, retries, import.
        .target(
            name: "AppStoreServerAPI",
            dependencies: [
                "StoreImport", "SubscriberStore", "AppStorePayloads",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]),
        // The team's shared log on PostgreSQL: connection, schema, push and sync (docs/team.md).
        .target(
            name: "TeamLog",
            dependencies: [
                "StoreImport", "SubscriberStore", "AppStorePayloads", "ThreadKit",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(name: "TerminalUI"),
        .target(
            name: "CNcursesW",
            cSettings: [.define("_XOPEN_SOURCE_EXTENDED"), .define("NCURSES_WIDECHAR", to: "1")],
            linkerSettings: [.linkedLibrary("ncursesw")]),
        .target(name: "CursesBackend", dependencies: ["CNcursesW", "TerminalUI"]),
        // One definition per report of its JSON, CSV, text table and SVG: `subdash report` prints them,
        // the dashboard's exports write them (docs/architecture.md, "Where a report's outputs live").
        .target(
            name: "ReportOutputs",
            dependencies: ["SubscriberAnalytics", "SubscriptionModel", "SubscriptionTimeline", "TerminalUI"]),
        .target(
            name: "Dashboard",
            dependencies: [
                "TerminalUI", "ThreadKit", "SubscriberAnalytics", "ReportOutputs", "SubscriberStore", "SubscriptionModel",
                "SubscriptionTimeline",
            ]),
        .executableTarget(
            name: "subdash",
            dependencies: [
                "SubscriptionModel", "SubscriptionTimeline", "AppStorePayloads", "SubscriberStore", "StoreImport",
                "SubscriberAnalytics", "ReportOutputs",
                "LifecycleSimulator", "TerminalUI", "CursesBackend", "Dashboard",
                "NotificationListener", "AppStoreServerAPI", "TeamLog",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "subdash-bench",
            dependencies: [
                "AppStorePayloads", "SubscriberStore", "SubscriberAnalytics", "LifecycleSimulator", "CZstd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ], path: "Benchmarks/subdash-bench"),
        // The dashboard's frame times through TestBackend; subdash-bench runs it beside the reports.
        .executableTarget(
            name: "subdash-frames",
            dependencies: [
                "Dashboard", "TerminalUI", "SubscriberStore", "SubscriberAnalytics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ], path: "Benchmarks/subdash-frames"),
        // `subdash listen` under load: the real binary, N keep-alive connections on loopback; with a team
        // log, a fresh sync against a file import and follow latency (SHA-256 of each posted document,
        // read back from each view's store read-only).
        .executableTarget(
            name: "subdash-listen-bench",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ], path: "Benchmarks/subdash-listen-bench"),

        // What the test targets share: the package root, temporary directories, days, the subdash
        // binary, and SampleData imported once per test process. In no product.
        .target(
            name: "TestSupport",
            dependencies: [
                "SubscriptionModel", "AppStorePayloads", "SubscriberStore", "StoreImport", "ThreadKit",
                .product(name: "GRDB", package: "GRDB.swift"),
            ], path: "Tests/TestSupport"),

        // The fake App Store Server API the tests serve in process and subdash-fake-appstore serves
        // as a process (end-to-end runs). Test tooling.
        .target(
            name: "AppStoreFake",
            dependencies: [
                "TestSupport", "LifecycleSimulator", "SubscriptionModel",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ], path: "Tools/AppStoreFake"),
        .executableTarget(
            name: "subdash-fake-appstore",
            dependencies: [
                "AppStoreFake", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], path: "Tools/subdash-fake-appstore"),

        .testTarget(name: "SubscriptionModelTests", dependencies: ["SubscriptionModel"]),
        .testTarget(name: "SubscriptionTimelineTests", dependencies: ["SubscriptionTimeline", "SubscriptionModel"]),
        .testTarget(
            name: "AppStorePayloadsTests",
            dependencies: [
                "TestSupport", "AppStorePayloads", "SubscriptionModel", "LifecycleSimulator", "SubscriberStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "ThreadKitTests", dependencies: ["ThreadKit"]),
        .testTarget(
            name: "SubscriberStoreTests",
            dependencies: [
                "TestSupport", "SubscriberStore", "SubscriptionModel", "ThreadKit",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Schema"]),
        .testTarget(
            name: "StoreImportTests",
            dependencies: [
                "TestSupport", "StoreImport", "SubscriberStore", "AppStorePayloads",
                "SubscriptionModel", "SubscriberAnalytics", "ReportOutputs", "subdash", "TerminalUI", "ThreadKit",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "SubscriberAnalyticsTests",
            dependencies: [
                "TestSupport", "SubscriberAnalytics", "ReportOutputs", "StoreImport", "SubscriberStore", "SubscriptionModel",
                "SubscriptionTimeline", "AppStorePayloads", "LifecycleSimulator",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "LifecycleSimulatorTests",
            dependencies: [
                "TestSupport", "LifecycleSimulator", "SubscriptionModel",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]),
        // Runs `subdash listen` as a process: it needs the binary built, not the module.
        .testTarget(
            name: "NotificationListenerTests",
            dependencies: [
                "TestSupport", "StoreImport", "SubscriberStore", "AppStorePayloads", "NotificationListener", "subdash",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Runs `subdash fetch` as a process too: it needs the binary built, not the module.
        .testTarget(
            name: "AppStoreServerAPITests",
            dependencies: [
                "TestSupport", "AppStoreServerAPI", "SubscriberStore", "AppStorePayloads", "LifecycleSimulator",
                "SubscriptionModel", "subdash", "AppStoreFake", "Dashboard", "TerminalUI", "SubscriberAnalytics",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Against a private PostgreSQL server the tests start (TestSupport/PostgresServer.swift).
        .testTarget(
            name: "TeamLogTests",
            dependencies: [
                "TestSupport", "TeamLog", "StoreImport", "SubscriberStore", "AppStorePayloads", "subdash", "Dashboard",
                "TerminalUI", "SubscriberAnalytics", "SubscriptionModel",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(name: "TerminalUITests", dependencies: ["TestSupport", "TerminalUI"]),
        .testTarget(
            name: "DashboardTests",
            dependencies: [
                "TestSupport", "Dashboard", "ReportOutputs", "TerminalUI", "SubscriberStore", "SubscriberAnalytics",
                "SubscriptionModel",
                "SubscriptionTimeline", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Snapshots"]),
    ],
    swiftLanguageModes: [.v6]
)
