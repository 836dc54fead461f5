import ArgumentParser

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "Import App Store documents into the store.")

    mutating func run() async throws {
        throw ValidationError("'import' is not available yet")
    }
}
