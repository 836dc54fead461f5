import Foundation
@testable import TerminalUI

/// The package root, found from this file's path (Tests/TerminalUITests/TestSupport.swift).
let packageRoot: String = {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}()

let themesDirectory = packageRoot + "/Themes"

/// Renders a widget-drawing closure into a fresh buffer and returns its lines.
func render(width: Int, height: Int, _ draw: (inout Buffer) -> Void) -> [String] {
    var buffer = Buffer(width: width, height: height)
    draw(&buffer)
    return buffer.lines()
}
