import ArgumentParser

struct Flag: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "flag", abstract: "Flag subscribers for an offer.")

    mutating func run() async throws {
        throw ValidationError("'flag' is not available yet")
    }
}
