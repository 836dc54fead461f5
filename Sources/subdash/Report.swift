import ArgumentParser

struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "report", abstract: "Print analytics as table, csv or json.")

    mutating func run() async throws {
        throw ValidationError("'report' is not available yet")
    }
}
